# ./verdicts and its launcher scripts/verdicts.sh: the committed results/verdicts files are what
# the tool writes from data/claims.csv and the committed results; the five-seed rule on rows
# cut to three seeds; a bad claims file named at its line; the intervals the study scripts print
# (--paired, --welch) against hand-computed values. The rules row by row: tests/test_verdict.c.
. tests/lib.sh
V=$BIN_DIR/verdicts

# near NAME GOT WANT: |GOT - WANT| <= 1e-3
near() {
    if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= 1e-3) }'; then ok "$1"
    else fail "$1" "got '$2', want $3"; fi
}

if out=$(scripts/verdicts.sh --help 2>&1) && echo "$out" | grep -q "usage: scripts/verdicts.sh"; then ok "verdicts.sh --help"
else fail "verdicts.sh --help" "$(echo "$out" | head -c 300)"; fi
expect_error "verdicts: unknown option" "unknown argument '--fast'" $V --fast

# Paired: A = 1 2 3, B = 0 0 0, differences 1, 2, 3: mean 2, sd 1, df 2, t = 4.302653,
# half-width 4.302653 / sqrt(3) = 2.484138: [-0.484138, 4.484138].
set -- $(BIN_DIR=$BIN_DIR scripts/verdicts.sh --paired "1 2 3" "0 0 0")
near "paired: lower bound" "$2" -0.484138
near "paired: upper bound" "$3" 4.484138
# Welch: A = 1 2 3 (variance 1), B = 2 4 6 (variance 4): se^2 = 5/3, df = 50/17 = 2.941176,
# t_{0.975,50/17} = 3.218759, half-width 4.155400: [-6.155400, 2.155400].
set -- $(BIN_DIR=$BIN_DIR scripts/verdicts.sh --welch "1 2 3" "2 4 6")
near "welch: lower bound" "$2" -6.155400
near "welch: df" "$4" 2.941176
expect_error "verdicts: --paired of two sizes" "samples of one size" $V --paired "1 2" "1 2 3"

# The committed files are what the tool writes from the committed CSVs (verdicts.md names the
# commit, so its first paragraph is left out of the comparison).
only_optimised "verdicts: reproduces the committed files" "the committed files were written by it"
if ! $V --out "$TMP/v" --commit x >"$TMP/out" 2>&1; then
    fail "verdicts: reproduces the committed files" "$(head -c 300 "$TMP/out")"
elif cmp -s "$TMP/v/verdicts.csv" results/verdicts/verdicts.csv &&
     cmp -s "$TMP/v/summary.md" results/verdicts/summary.md &&
     cmp -s "$TMP/v/summary.svg" results/verdicts/summary.svg &&
     cmp -s "$TMP/v/replaced.csv" results/verdicts/replaced.csv &&
     cmp -s "$TMP/v/mrr_nope_rank_depth.csv" results/verdicts/mrr_nope_rank_depth.csv &&
     [ "$(sed 3d "$TMP/v/verdicts.md")" = "$(sed 3d results/verdicts/verdicts.md)" ]; then
    ok "verdicts: reproduces the committed files"
else fail "verdicts: reproduces the committed files" "$(diff "$TMP/v/verdicts.csv" results/verdicts/verdicts.csv | head -5)"; fi

# The summary at a glance: one row per claim placed there (15), rows under 120 characters, the
# ALiBi row by hand, and the RoPE base row of the converged study untested: the stretched arm
# scores 68.3% at 3 clauses (the gate is on both arms), whatever its +8.6 [-0.2, +17.4].
# ALiBi against sinusoidal, loss on the last 32 tokens of 1024-token windows, seeds 1-5:
# alibi 2.12339 2.12343 2.12717 2.12990 2.13098 (mean 2.12697, sd 0.00354), sinusoidal 2.74071
# 2.84791 2.48549 2.76743 2.69815 (mean 2.70794, sd 0.13582); difference -0.58096, Welch's SE
# sqrt(0.00354^2/5 + 0.13582^2/5) = 0.06076 with min(n) - 1 = 4 df, t = 2.776: [-0.750, -0.412].
if [ -r "$TMP/v/summary.md" ]; then
    if [ "$(grep -c '^| [^-]' "$TMP/v/summary.md")" -eq 16 ] &&
       grep -qxF '| ALiBi | Press et al. 2022 | reproduced | -0.581 [-0.750, -0.412] nats | LM, 1024 tokens |' "$TMP/v/summary.md" &&
       grep -q '^eos_oracle_converged,.*,floor (both arms at 0%),' "$TMP/v/verdicts.csv" &&
       grep -q '^rope_base_converged,.*,4 clauses,exact_match,"rope, rope_base=40000",rope,5,.*,68.3,97.7,untested (not learned: 68.3% in distribution),' "$TMP/v/verdicts.csv" &&
       awk '/^\|/ { s = $0; gsub(/[\200-\277]/, "", s); if (length(s) >= 120) bad = 1 } END { exit bad }' "$TMP/v/summary.md"; then
        ok "verdicts: summary at a glance (15 rows, the ALiBi row by hand, a floor, the RoPE base row gated on both arms)"
    else fail "verdicts: summary at a glance" "$(head -c 600 "$TMP/v/summary.md")"; fi
fi

# The RoPE-base row is the extrapolation table's 22.6 ± 12.6 against 0, paired over five seeds:
# differences 14.0, 39.5, 22.5, 29.5, 7.5, sd 12.60, t(4) = 2.776, so 22.6 ± 15.6.
if [ -r "$TMP/v/verdicts.csv" ] &&
   grep -q '^rope_base,.*,4 clauses,exact_match,"rope, rope_base=40000",rope,5,22.6,12.6,0.0,0.0,+22.6,+7.0,+38.2,4.00,paired,97.0,99.9,' "$TMP/v/verdicts.csv"; then
    ok "verdicts: rope_base row as in the extrapolation table"
else fail "verdicts: rope_base row" "$(grep '^rope_base,' "$TMP/v/verdicts.csv" 2>/dev/null | head -2)"; fi

# The five-seed rule, on the committed rows cut to seeds 1-3 (rope_stretch, the default block,
# 128 tokens after 40 fine-tuning steps; --root is a tree whose extend_context rows stop at seed
# 3): PI against plain fine-tuning is 2.287 ± 0.074 against 2.126 ± 0.003 (0.161 apart, more
# than twice 0.074), so it is left alone; NTK's 2.129 ± 0.003 against 2.126 ± 0.003 (0.003 < 2 x
# 0.003) wants 5 seeds; and the summary counts such rows. With all five seeds neither row does.
mkdir -p "$TMP/three/results"
for d in results/*/; do ln -s "$PWD/$d" "$TMP/three/results/"; done
rm "$TMP/three/results/extend_context"; mkdir "$TMP/three/results/extend_context"
awk -F, 'NR == 1 || $4 <= 3' results/extend_context/results.csv >"$TMP/three/results/extend_context/results.csv"
$V --root "$TMP/three" --out "$TMP/v3" >"$TMP/out3" 2>&1
row() { grep "^rope_stretch,.*,\"language model, default block\",toy text,600 + 40 steps at 128,128 tokens,loss_last,$1,rope_ft," "$2"; }
far=$(row rope_linear_ft "$TMP/v3/verdicts.csv"); near=$(row rope_ntk_ft "$TMP/v3/verdicts.csv")
if [ -n "$far" ] && [ -n "$near" ] && echo "$far" | grep -q ',2.287,0.074,2.126,0.003,' &&
   ! echo "$far" | grep -q "wants 5 seeds" && echo "$near" | grep -q ',2.129,0.003,2.126,0.003,' &&
   echo "$near" | grep -q "wants 5 seeds, has 3" &&
   grep -q '^| rope_stretch |.* want 5 seeds' "$TMP/v3/verdicts.md" &&
   row rope_ntk_ft "$TMP/v/verdicts.csv" | grep -q ',rope_ntk_ft,rope_ft,5,' &&
   ! row rope_ntk_ft "$TMP/v/verdicts.csv" | grep -q "wants 5 seeds"; then
    ok "verdicts: rows within twice the spread want 5 seeds"
else fail "verdicts: rows within twice the spread want 5 seeds" "$far / $near / $(head -c 300 "$TMP/out3")"; fi

# The summary plot: a row per claim key, each its headline row (tests/test_svg.c pins the
# forest plot's geometry by hand).
if [ -r "$TMP/v/summary.svg" ] &&
   [ "$(grep -c '<g class="row">' "$TMP/v/summary.svg")" -eq "$(grep -c '^## [a-z][a-z_0-9]*$' "$TMP/v/verdicts.md")" ] &&
   grep -q '>rope_base_converged</text>.*+8.6 \[-0.2, +17.4\] points: untested</text>' "$TMP/v/summary.svg"; then
    ok "verdicts: summary plot, a row per claim key"
else fail "verdicts: summary plot, a row per claim key" "$(head -c 400 "$TMP/v/summary.svg" 2>/dev/null)"; fi

# A bad claims file: the tool names its file and line and exits non-zero.
{ head -2 data/claims.csv; sed -n 3p data/claims.csv | sed 's/,A>B,/,upwards,/'; } >"$TMP/bad.csv"
expect_error "verdicts: bad claims line" "bad.csv:3: direction 'upwards'" $V --claims "$TMP/bad.csv" --out "$TMP/vb"
