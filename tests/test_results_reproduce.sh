# The committed results/dog_bites_man/ reproduce: scripts/dog_bites_man.sh runs again in full
# (18 runs, 3 seeds) into a temporary folder, and its CSVs are compared with the committed ones.
#  * Same build on the same CPU (the results.md provenance lines agree on the tools, -march=native
#    resolved, and the CPU): runs.csv, permute.csv and curves.csv byte for byte.
#  * Otherwise the byte comparison is a skip naming both, and the numbers must agree within
#    tolerances set from the drift measured between two CPUs (docs/usage.md, testing): a different CPU
#    under -march=native is a different binary, and 800 steps of training amplify its last-bit
#    differences. Exact: the example counts, every saturated accuracy (0, 0.5 or 1: the five-word
#    form, `none`, ALiBi's pair accuracy on reversals), and "below 1e-4" for the differences that
#    are zero up to rounding (a twin or a permutation the model cannot tell apart). Within 0.05
#    absolute: the other accuracies (measured 0.02). Relative: losses 2% (measured 1%, t5), ALiBi's
#    losses 15% (measured 10%: it converges slowest, see docs/lessons.md), twin and permutation
#    differences 5% (measured 3.3%).
. tests/lib.sh
export BIN_DIR
REF=results/dog_bites_man
only_optimised results_reproduce "not the optimised build the results were made with (a full rerun under sanitizers would take many minutes)"
if [ ! -f "$REF/runs.csv" ]; then skip results_reproduce "no $REF/runs.csv"; exit 0; fi

if scripts/dog_bites_man.sh --out "$TMP/dbm" >"$TMP/dbm.out" 2>&1; then
    ok "results_rerun_finishes ($(grep -o 'done in [0-9]* s' "$TMP/dbm.out"))"
else fail results_rerun_finishes "exit status $?: $(tail -3 "$TMP/dbm.out")"; exit 0; fi

# "tools: ...; CPU: ..." of a results.md's provenance line.
made_by() { sed -n 's/^Produced by commit [^;]*; //p' "$1"; }
ref_by=$(made_by "$REF/results.md"); new_by=$(made_by "$TMP/dbm/results.md")
if [ -n "$ref_by" ] && [ "$ref_by" = "$new_by" ]; then
    for f in runs.csv permute.csv curves.csv; do   # the committed schemes' rows (see compare_runs)
        awk -F, 'NR == FNR { s[$1] = 1; next } FNR == 1 || $1 in s' "$REF/$f" "$TMP/dbm/$f" >"$TMP/committed_$f"
        if cmp -s "$REF/$f" "$TMP/committed_$f"; then ok "results_identical $f"
        else fail "results_identical $f" "same build and CPU ($new_by), yet: $(diff "$REF/$f" "$TMP/committed_$f" | head -3 | tr '\n' ' ')"; fi
    done
else
    skip results_identical "made by '${ref_by:-no provenance line}', rerun by '$new_by': compared within tolerances"
fi

# rel(a, b, r, floor): a and b agree within r relative, or both are below floor (1e-4 for the
# differences that are zero up to rounding; 0 for losses). acc(committed, new): a committed
# accuracy of exactly 0, 0.5 or 1 comes back exactly, any other within 0.05.
# A scheme the committed files do not name at all was added after they were made: its rows
# are left out of the comparison (the lead regenerates the results), every other row is held
# to the committed one.
compare_runs() {
    awk -F, 'NR == FNR { if (FNR > 1) { ref[$1 "," $2 "," $3] = $0; committed[$1] = 1 }; next }
    function rel(a, b, r, floor) { return (a < floor && b < floor) || (a - b <= r * (a > b ? a : b) && b - a <= r * (a > b ? a : b)) }
    function acc(a, b) { return (a == 0 || a == 0.5 || a == 1) ? a == b : (a - b <= 0.05 && b - a <= 0.05) }
    FNR == 1 || !($1 in committed) { next }
    {
        key = $1 "," $2 "," $3; seen[key] = 1
        if (!(key in ref)) { print "row " key " not in the committed file"; bad = 1; exit }
        split(ref[key], r, ",")
        lt = $1 == "alibi" ? 0.15 : 0.02
        if ($4 != r[4]) { print key ": " $4 " examples, committed " r[4]; bad = 1; exit }
        if (!rel($5, r[5], lt, 0)) { print key ": loss " $5 ", committed " r[5] " (tolerance " lt * 100 "%)"; bad = 1; exit }
        if (!acc(r[6], $6)) { print key ": accuracy " $6 ", committed " r[6]; bad = 1; exit }
        if (!acc(r[7], $7)) { print key ": pair accuracy " $7 ", committed " r[7]; bad = 1; exit }
        if (!rel($8, r[8], 0.05, 1e-4)) { print key ": twin difference " $8 ", committed " r[8]; bad = 1; exit }
    }
    END { if (!bad) for (k in ref) if (!(k in seen)) { print "committed row " k " missing"; exit } }' "$REF/runs.csv" "$1"
}
compare_permute() {
    awk -F, 'NR == FNR { if (FNR > 1) { ref[$1 "," $2 "," $3] = $0; committed[$1] = 1 }; next }
    function rel(a, b, r, floor) { return (a < floor && b < floor) || (a - b <= r * (a > b ? a : b) && b - a <= r * (a > b ? a : b)) }
    FNR == 1 || !($1 in committed) { next }
    {
        key = $1 "," $2 "," $3
        if (!(key in ref)) { print "row " key " not in the committed file"; bad = 1; exit }
        split(ref[key], r, ",")
        if ($4 != r[4] || $5 != r[5]) { print key ": sentences " $4 " / " $5 ", committed " r[4] " / " r[5]; bad = 1; exit }
        if (!rel($6, r[6], 0.05, 1e-4) || !rel($7, r[7], 0.05, 1e-4)) { print key ": " $6 " " $7 ", committed " r[6] " " r[7]; bad = 1; exit }
    }' "$REF/permute.csv" "$1"
}
problem=$(compare_runs "$TMP/dbm/runs.csv")
if [ -z "$problem" ]; then ok results_runs_within_tolerance; else fail results_runs_within_tolerance "$problem"; fi
problem=$(compare_permute "$TMP/dbm/permute.csv")
if [ -z "$problem" ]; then ok results_permute_within_tolerance; else fail results_permute_within_tolerance "$problem"; fi
# The training curves: the same rows (scheme, seed, step, split, length) in the same order.
cut -d, -f1-5 "$REF/curves.csv" >"$TMP/ref.keys"
awk -F, 'NR == FNR { s[$1] = 1; next } $1 in s' "$TMP/ref.keys" "$TMP/dbm/curves.csv" | cut -d, -f1-5 >"$TMP/new.keys"
if cmp -s "$TMP/ref.keys" "$TMP/new.keys"; then ok results_curves_same_rows
else fail results_curves_same_rows "$(cmp "$TMP/ref.keys" "$TMP/new.keys" 2>&1)"; fi
