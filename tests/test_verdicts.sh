# scripts/verdicts.sh: the t quantile and the three intervals against hand-computed values, and
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

# The bootstrap over seeds and inputs (exact match of different models), against distributions
# small enough to write down:
# - seeds only: A's seeds score 1/1 and 0/1, B's one seed 0/1. A resample draws two seeds with
#   replacement, so A's mean is 0 (1/4), 1/2 (1/2) or 1 (1/4): the interval is [0, 1] around
#   the observed 0.5. Without the seed draw it would be the point [0.5, 0.5].
set -- $($V --bootstrap "1/1 0/1" "0/1")
near "bootstrap, seeds: difference" "$1" 0.5
near "bootstrap, seeds: lower bound" "$2" 0
near "bootstrap, seeds: upper bound" "$3" 1
# - inputs only: one seed of 2 inputs, 1 exact. Its resampled count is Bin(2, 1/2): 0, 1 or 2
#   with 1/4, 1/2, 1/4, so again [0, 1]; without the input draw, [0.5, 0.5].
set -- $($V --bootstrap "1/2" "0/1")
near "bootstrap, inputs: lower bound" "$2" 0
near "bootstrap, inputs: upper bound" "$3" 1
# - the binomial's tail: one seed, 3 of 10 exact. P(X <= 5) = 0.9527 and P(X <= 6) = 0.9894 for
#   X ~ Bin(10, 0.3), so the 97.5th percentile is 6/10, whatever the random stream (4000
#   draws: about 42 above 6 and 189 above 5, against the 100 the percentile cuts off).
set -- $($V --bootstrap "3/10" "0/1")
near "bootstrap, Bin(10, 0.3): upper bound" "$3" 0.6
# - 50 of 100 against 0: Bin(100, 1/2)'s 2.5th and 97.5th percentiles are 40 and 60
#   (P(X <= 39) = 0.0176, P(X <= 40) = 0.0284). 4000 draws put about 114 at or below 40 and
#   70 at or below 39, so a random stream may move a bound one input outwards, never inwards.
set -- $($V --bootstrap "50/100" "0/1")
if awk -v lo="$2" -v hi="$3" 'BEGIN { exit !(lo >= 0.385 && lo <= 0.405 && hi >= 0.595 && hi <= 0.615) }'; then
    ok "bootstrap, Bin(100, 1/2): [0.40, 0.60]"
else fail "bootstrap, Bin(100, 1/2): [0.40, 0.60]" "got [$2, $3]"; fi
# - several test sets a seed: the statistic is the mean over the seeds of the mean over the
#   sets: A (0.25 + 0.25 + 0.55) / 3 = 0.35, B (0.075 + 0.1 + 0) / 3 = 0.058333.
set -- $($V --bootstrap "30/100+20/100 40/100+10/100 50/100+60/100" "10/100+5/100 20/100+0/100 0/100+0/100")
near "bootstrap, sets: difference" "$1" 0.291667
expect_error "bootstrap: bad seed" "wants seeds as K/N" $V --bootstrap "3/2" "0/1"

# The committed table is what the script writes from the committed CSVs.
if [ ! -r results/verdicts/verdicts.csv ]; then skip "verdicts: reproduces the committed CSV" "no results/verdicts/verdicts.csv"
elif ! $V --out "$TMP/v" >"$TMP/out" 2>&1; then fail "verdicts: reproduces the committed CSV" "$(head -c 300 "$TMP/out")"
elif cmp -s "$TMP/v/verdicts.csv" results/verdicts/verdicts.csv && cmp -s "$TMP/v/mrr.csv" results/verdicts/mrr.csv &&
     cmp -s "$TMP/v/summary.svg" results/verdicts/summary.svg && cmp -s "$TMP/v/summary.md" results/verdicts/summary.md &&
     cmp -s "$TMP/v/mrr_converge.csv" results/verdicts/mrr_converge.csv; then
    ok "verdicts: reproduces the committed CSV"
else fail "verdicts: reproduces the committed CSV" "$(diff "$TMP/v/verdicts.csv" results/verdicts/verdicts.csv | head -5)"; fi

# The summary at a glance: one row per claim, the eos oracle's 0.0 against 0.0 a floor, and the
# RoPE base row the converged models' +8.6 [-0.2, +17.4] (paired over seeds 1-5: differences 2.5,
# 9.5, 20.5, 5.0, 5.5, sd 7.11, t(4) = 2.776, so 8.6 +- 8.8), each row under 120 characters.
if [ -r "$TMP/v/summary.md" ]; then
    if [ "$(grep -c '^| [a-z]' "$TMP/v/summary.md")" -eq 10 ] &&
       grep -qxF '| no end token, oracle length | Newman et al. 2020 | floor | 0.0 [0.0, 0.0] | translator, 4 clauses |' "$TMP/v/summary.md" &&
       grep -qxF '| larger RoPE base at evaluation | bloc97 2023 | within the spread | +8.6 [-0.2, +17.4] | translator, 4 clauses |' "$TMP/v/summary.md" &&
       awk '/^\|/ { s = $0; gsub(/[\200-\277]/, "", s); if (length(s) >= 120) bad = 1 } END { exit bad }' "$TMP/v/summary.md"; then
        ok "verdicts: summary at a glance (9 claims, a floor, the RoPE base row, rows under 120 characters)"
    else fail "verdicts: summary at a glance" "$(head -c 600 "$TMP/v/summary.md")"; fi
fi

# The verdict rules, on the committed rows: an untested row names its in-distribution score,
# and the RoPE-base row is the extrapolation table's 22.6 ± 12.6 against 0, paired over five
# seeds: differences 14.0, 39.5, 22.5, 29.5, 7.5, sd 12.60, t(4) = 2.776, so 22.6 ± 15.6.
if [ -r "$TMP/v/verdicts.csv" ]; then
    if awk -F, 'NR > 1 && /untested \(not learned: [0-9.]+% in distribution\)/ { n++ } END { exit !(n > 0) }' "$TMP/v/verdicts.csv" &&
       grep -q '^rope_base,.*,4 clauses,exact_match,"rope, rope_base=40000",rope,5,22.6,12.6,0.0,0.0,+22.6,+7.0,+38.2,4.00,paired,' "$TMP/v/verdicts.csv"; then
        ok "verdicts: untested rows named, rope_base row as in the extrapolation table"
    else fail "verdicts: rows" "$(head -3 "$TMP/v/verdicts.csv")"; fi
fi

# tree NAME DIR: $TMP/NAME, a copy of the tree for the script under test ($V), its results
# folders linked to the committed ones but DIR, which is left empty for the test to fill
tree() {
    mkdir -p "$TMP/$1/scripts" "$TMP/$1/results"
    cp "$V" "$TMP/$1/scripts/verdicts.sh"; cp scripts/rank.awk "$TMP/$1/scripts/"
    for d in results/*/; do ln -s "$PWD/$d" "$TMP/$1/results/"; done
    rm "$TMP/$1/results/$2"; mkdir "$TMP/$1/results/$2"
}

# The five-seed rule, on the committed rows cut to seeds 1-3 (rope_stretch, the default block,
# 128 tokens after 40 fine-tuning steps; the script runs in a copy of the tree whose
# extend_context rows stop at seed 3): PI against plain fine-tuning is 2.287 ± 0.074 against
# 2.126 ± 0.003 (0.161 apart, more than twice 0.074), so it is left alone; NTK's 2.129 ± 0.003
# against 2.126 ± 0.003 (0.003 < 2 x 0.003) wants 5 seeds; and the summary counts such rows.
# With all five seeds neither row wants more.
if [ -r "$TMP/v/verdicts.csv" ]; then
    tree three extend_context
    awk -F, 'NR == 1 || $4 <= 3' results/extend_context/results.csv >"$TMP/three/results/extend_context/results.csv"
    "$TMP/three/scripts/verdicts.sh" --out "$TMP/v3" >"$TMP/out3" 2>&1
    row() { grep "^rope_stretch,.*,\"language model, default block\",toy text,600 + 40 steps at 128,128 tokens,loss_last,$1,rope_ft," "$2"; }
    far=$(row rope_linear_ft "$TMP/v3/verdicts.csv")
    near=$(row rope_ntk_ft "$TMP/v3/verdicts.csv")
    if [ -n "$far" ] && [ -n "$near" ] && echo "$far" | grep -q ',2.287,0.074,2.126,0.003,' &&
       ! echo "$far" | grep -q "wants 5 seeds" && echo "$near" | grep -q ',2.129,0.003,2.126,0.003,' &&
       echo "$near" | grep -q "wants 5 seeds, has 3" &&
       grep -q '^| rope_stretch |.* want 5 seeds |' "$TMP/v3/verdicts.md" &&
       row rope_ntk_ft "$TMP/v/verdicts.csv" | grep -q ',rope_ntk_ft,rope_ft,5,' &&
       ! row rope_ntk_ft "$TMP/v/verdicts.csv" | grep -q "wants 5 seeds"; then
        ok "verdicts: rows within twice the spread want 5 seeds"
    else fail "verdicts: rows within twice the spread want 5 seeds" "$far / $near / $(head -c 300 "$TMP/out3")"; fi
fi

# The MRR bootstrap, where every resample is known: the converged decoder-only rows cut to seeds
# 1-2, every plain cell at lengths 17-64 set to 0% but alibi's on seed 1 and kerple's on seed 2
# (100%), so the inputs redraw to the same counts and only the seeds vary. Per task and seed the
# winner's reciprocal rank is 1 and the eight tied at 0 share ranks 2-9: m = (1/2 + ... + 1/9) / 8
# = 0.228621 each. none - alibi per seed: m - 1 = -0.771379, then 0; a resample of two seeds
# averages two of them: -0.771379, -0.385690 or 0 (probabilities 1/4, 1/2, 1/4), so the 95%
# interval is [-0.771, 0.000] about the mean -0.386. alibi - kerple: +0.771379, then -0.771379:
# [-0.771, +0.771] about 0.
if [ -r "$TMP/v/verdicts.csv" ]; then
    tree mrr lengthgen_converge
    for f in results/lengthgen_converge/*; do ln -s "$PWD/$f" "$TMP/mrr/results/lengthgen_converge/"; done
    rm "$TMP/mrr/results/lengthgen_converge/lm_results.csv"
    awk -F, -v OFS=, 'NR == 1 { print; next } $4 > 2 { next }
        $3 == "plain" && $5 >= 17 { $9 = ($4 == 1 && $2 == "alibi") || ($4 == 2 && $2 == "kerple") ? 1 : 0 } { print }' \
        results/lengthgen_converge/lm_results.csv >"$TMP/mrr/results/lengthgen_converge/lm_results.csv"
    "$TMP/mrr/scripts/verdicts.sh" --out "$TMP/vm" >"$TMP/outm" 2>&1
    mrr_row() { grep "^nope_rank_converged,.*,lengths 17-64,mrr,$1,$2,2," "$TMP/vm/verdicts.csv"; }
    if mrr_row none alibi | grep -q ',-0.386,-0.771,0.000,,bootstrap,' &&
       mrr_row alibi kerple | grep -q ',0.000,-0.771,+0.771,,bootstrap,'; then
        ok "verdicts: MRR bootstrap over seeds and inputs, by hand"
    else fail "verdicts: MRR bootstrap over seeds and inputs, by hand" "$(mrr_row none alibi) / $(mrr_row alibi kerple) / $(head -c 300 "$TMP/outm")"; fi
    # The summary plot draws that row (none - alibi, untested) on its own scale, 0.771379: the
    # bar from x0 - w = 250 to x0 = 400, the dot at x0 - w / 2 = 325; one row per remedy.
    nsum=$(grep -c '^## [a-z][a-z_0-9]*$' "$TMP/vm/verdicts.md")   # a section per remedy
    if grep -q '>nope_rank_converged</text><line x1="250.00" y1="[0-9]*" x2="400.00" y2="[0-9]*" stroke="#c8c8c8"[^>]*/><circle cx="325.00" ' "$TMP/vm/summary.svg" &&
       [ "$(grep -c '<g class="row">' "$TMP/vm/summary.svg")" -eq "$nsum" ]; then
        ok "verdicts: summary plot, a row by hand"
    else fail "verdicts: summary plot, a row by hand" "$(grep nope_rank_converged "$TMP/vm/summary.svg" | head -c 400) ($nsum remedies)"; fi
fi
