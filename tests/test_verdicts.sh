# scripts/verdicts.sh: the t quantile and the two intervals against hand-computed values, and
# that a rerun reproduces the committed results/verdicts/verdicts.csv byte for byte.
. tests/lib.sh
V=${VERDICTS:-scripts/verdicts.sh}   # VERDICTS: another copy to test (e.g. one broken on purpose)

# near NAME GOT WANT: |GOT - WANT| <= 1e-3
near() {
    if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= 1e-3) }'; then ok "$1"
    else fail "$1" "got '$2', want $3"; fi
}

if out=$($V --help 2>&1) && echo "$out" | grep -q "usage: scripts/verdicts.sh"; then ok "verdicts --help"
else fail "verdicts --help" "$(echo "$out" | head -c 300)"; fi
expect_error "verdicts: unknown option" "unknown argument" $V --fast

# t_{0.975,df} from the usual tables (df 1, 2, 4, 10, 30) and, for a fractional df, the value a
# Simpson integration of the t density (20000 steps, math.lgamma) gives: df = 50/17, 3.218759.
near "t quantile, df 1" "$($V --t 1)" 12.7062
near "t quantile, df 2" "$($V --t 2)" 4.3027
near "t quantile, df 4" "$($V --t 4)" 2.7764
near "t quantile, df 10" "$($V --t 10)" 2.2281
near "t quantile, df 30" "$($V --t 30)" 2.0423
near "t quantile, df 50/17" "$($V --t 2.9411764706)" 3.218759

# Paired: A = 1 2 3, B = 0 0 0, so the differences are 1, 2, 3: mean 2, sd 1, df 2,
# t = 4.302653, half-width 4.302653 / sqrt(3) = 2.484138: [-0.484138, 4.484138].
set -- $($V --paired "1 2 3" "0 0 0")
near "paired: mean difference" "$1" 2
near "paired: lower bound" "$2" -0.484138
near "paired: upper bound" "$3" 4.484138
near "paired: df" "$4" 2

# Welch: A = 1 2 3 (mean 2, variance 1), B = 2 4 6 (mean 4, variance 4), n = 3 each.
#   difference 2 - 4 = -2
#   se^2 = 1/3 + 4/3 = 5/3, se = 1.290994
#   df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2) = (25/9) / (17/18) = 50/17 = 2.941176
#   t_{0.975,50/17} = 3.218759 (above), half-width 3.218759 * 1.290994 = 4.155400
#   interval [-2 - 4.155400, -2 + 4.155400] = [-6.155400, 2.155400]
set -- $($V --welch "1 2 3" "2 4 6")
near "welch: mean difference" "$1" -2
near "welch: lower bound" "$2" -6.155400
near "welch: upper bound" "$3" 2.155400
near "welch: df" "$4" 2.941176

# Welch with one sample without spread: df = n - 1 of the other (here 2), and the paired
# interval of identical samples is the point itself.
set -- $($V --welch "1 2 3" "5 5 5")
near "welch, B without spread: df" "$4" 2
near "welch, B without spread: lower bound" "$2" -5.484138
set -- $($V --paired "4 5 6" "1 2 3")
near "paired, constant difference: lower bound" "$2" 3
near "paired, constant difference: upper bound" "$3" 3

# The committed table is what the script writes from the committed CSVs.
if [ ! -r results/verdicts/verdicts.csv ]; then skip "verdicts: reproduces the committed CSV" "no results/verdicts/verdicts.csv"
elif ! $V --out "$TMP/v" >"$TMP/out" 2>&1; then fail "verdicts: reproduces the committed CSV" "$(head -c 300 "$TMP/out")"
elif cmp -s "$TMP/v/verdicts.csv" results/verdicts/verdicts.csv && cmp -s "$TMP/v/mrr.csv" results/verdicts/mrr.csv &&
     cmp -s "$TMP/v/mrr_converge.csv" results/verdicts/mrr_converge.csv; then
    ok "verdicts: reproduces the committed CSV"
else fail "verdicts: reproduces the committed CSV" "$(diff "$TMP/v/verdicts.csv" results/verdicts/verdicts.csv | head -5)"; fi

# The verdict rules, on the committed rows: an untested row names its in-distribution score,
# and the RoPE-base row is the extrapolation table's 25.3 ± 13.0 against 0.
if [ -r "$TMP/v/verdicts.csv" ]; then
    if awk -F, 'NR > 1 && /untested \(not learned: [0-9.]+% in distribution\)/ { n++ } END { exit !(n > 0) }' "$TMP/v/verdicts.csv" &&
       grep -q '^rope_base,.*,4 clauses,exact_match,"rope, rope_base=40000",rope,3,25.3,13.0,0.0,0.0,+25.3,' "$TMP/v/verdicts.csv"; then
        ok "verdicts: untested rows named, rope_base row as in the extrapolation table"
    else fail "verdicts: rows" "$(head -3 "$TMP/v/verdicts.csv")"; fi
fi
