#!/bin/sh
# Lesson 1, order blindness, end to end: train the "dog bites man" classifier with every
# positional scheme and several seeds, score each on its held-out test set (the five-word form
# and the literal three-word reversal), and measure permutation equivariance of the encoder.
# Writes CSV, Markdown and SVG into the output folder. Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF'
usage: scripts/dog_bites_man.sh [--quick] [--seeds N] [--out DIR] [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]]

Trains configs/order/<scheme>.ini for every scheme (./train --list-schemes) and
seeds 1..N, evaluates each run's test split with ./eval, runs ./permute on each scheme's seed-1
model, and writes into DIR:
  runs.csv       scheme,seed,form,examples,loss,accuracy,pair_acc,max_twin_diff (test split;
                 form 5 = "the dog bites the man", 3 = "dog bites man")
  permute.csv    ./permute rows: max |out(PX) - P out(X)|, bidirectional and causal
  curves.csv     every run's log.csv, with scheme and seed columns in front
  results.md     the tables (mean ± sample sd over seeds), the command and the wall time
  pair_acc.svg, train_loss.svg   validation pair accuracy and training loss against step
Finished runs (DIR/runs/<scheme>-s<seed>) are reused, so an interrupted run can be restarted.

  --quick     a smoke test: 150 training steps, 1 seed (unless --seeds), DIR defaults to
              results/quick/dog_bites_man
  --seeds N   seeds 1..N (default 3)
  --out DIR   output folder (default results/dog_bites_man)
EOF
    echo "$FIGURES_USAGE"
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""
read_options "$@"
if [ $quick = 1 ]; then seeds=${seeds:-1}; out=${out:-results/quick/dog_bites_man}
else seeds=${seeds:-3}; out=${out:-results/dog_bites_man}; fi
# draw_figures: the SVGs, from curves.csv
draw_figures() {
    plot --x step --y exact_match --group scheme --spread --filter split=val --filter length=0 \
        --title "Order task: validation pair accuracy (both twins right)" --ylabel "pair accuracy" \
        -o "$out/pair_acc.svg" "$out/curves.csv"
    plot --x step --y loss --group scheme --spread --filter split=train --logy \
        --title "Order task: training loss" --ylabel "training loss (batch)" -o "$out/train_loss.svg" "$out/curves.csv"
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
begin_experiment dog_bites_man.sh train eval permute plot

# ---- train every scheme and seed (here, --jobs N at once, or on Slurm), then evaluate
trainings() {
    for scheme in $SCHEMES; do
        cfg=configs/order/$scheme.ini
        steps=$(config_value train steps "$cfg")
        [ $quick = 1 ] && steps=150
        for seed in $(seq_list "$seeds"); do
            train_run "$out/runs/$scheme-s$seed" "$steps" "$cfg" run.seed="$seed"
        done
    done
}
run_trainings trainings "$out"
# ---- gather the evaluations and curves into the CSVs (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    echo "scheme,seed,form,examples,loss,accuracy,pair_acc,max_twin_diff" >"$out/runs.csv.tmp"
    : >"$out/curves.body"
    for scheme in $SCHEMES; do
        for seed in $(seq_list "$seeds"); do
            run=$out/runs/$scheme-s$seed
            cached_eval "$run/eval.csv" "$BIN_DIR/eval" "$run" splits=test
            awk -F, -v p="$scheme,$seed" "$CSV_COLUMNS"'row && cell("split") == "test" {
                print p "," cells("length examples loss token_acc pair_acc max_twin_diff") }' \
                "$run/eval.csv" >>"$out/runs.csv.tmp"
            prefix_csv "$scheme,$seed" "$run/log.csv" >>"$out/curves.body"
        done
    done
    mv "$out/runs.csv.tmp" "$out/runs.csv"
    { echo "scheme,seed,$(head -1 "$out/runs/none-s1/log.csv")"; cat "$out/curves.body"; } >"$out/curves.csv"
    rm -f "$out/curves.body"

    # ---- permutation equivariance of each scheme's seed-1 encoder, bidirectional and causal
    # (not a pipeline into awk: a ./permute that fails or is killed must stop the script, where
    # in a pipeline only awk's status would count and permute.csv would lack that scheme's rows)
    say "permute: out(PX) against P out(X)"
    : >"$out/permute.body"
    for scheme in $SCHEMES; do
        "$BIN_DIR/permute" "$out/runs/$scheme-s1" >>"$out/permute.body" || die "./permute failed on $scheme"
    done
    awk 'NR == 1 || !/^pos,/' "$out/permute.body" >"$out/permute.csv.tmp"
    rm -f "$out/permute.body"
    mv "$out/permute.csv.tmp" "$out/permute.csv"
fi

[ "$tables" = 1 ] || draw_figures

# ---- tables: one derived column per (metric, form), so one table holds them all
# (acc.csv: each run's two accuracies in %, one line each, in the order of runs.csv)
for m in accuracy:accuracy pair_acc:"pair accuracy"; do
    h="${m#*:} %"
    "$BIN_DIR/table" --plain --rows scheme --rows seed --rows "$h ({form})" --scale 100 \
        --label "$h (5)=$h (the dog bites the man)" --label "$h (3)=$h (dog bites man)" \
        --value "${m%%:*}:sum:%g" "$out/runs.csv" >"$out/acc.${m%%:*}" || exit 1
done
paste -d'\n' "$out/acc.accuracy" "$out/acc.pair_acc" >"$out/acc.body"
rm -f "$out/acc.accuracy" "$out/acc.pair_acc"
awk -F, "$CSV_COLUMNS"'row {
    w = cell("form") + 0 == 5 ? "the dog bites the man" : "dog bites man"
    print cells("scheme seed") "," w "," cell("max_twin_diff")
}' "$out/runs.csv" >"$out/diff.body"
{ echo "scheme,seed,measure,value"; cat "$out/acc.body"; } >"$out/acc.csv"
{ echo "scheme,seed,form,max_twin_diff"; cat "$out/diff.body"; } >"$out/diff.csv"
rm -f "$out/acc.body" "$out/diff.body"
wall=$(( $(now) - start ))
{
    echo "## Dog bites man: order blindness"
    echo
    echo "Command: \`$command\` (seeds 1..$seeds; configs/order/<scheme>.ini$([ $quick = 1 ] && echo ', 150 steps'));"
    echo "wall time ${wall} s on this machine (finished runs are reused, so a rerun is faster)."
    provenance
    echo "Held-out test split: \`the dog bites the man\` stands for the five-word sentences and their twins"
    echo "(\`the man bites the dog\`), \`dog bites man\` for the literal three-word reversals (a form never seen in training)."
    echo "Cells: mean ± sample standard deviation over seeds."
    echo
    md_pivot "$out/acc.csv" scheme measure value 1 %.1f
    echo
    echo "Largest logit difference between a sentence and its swapped twin (max over the test pairs):"
    echo
    md_pivot "$out/diff.csv" scheme form max_twin_diff 1 %.3g
    echo
    echo "Permutation equivariance (seed 1, \`./permute\`): max |out(ΠX) − Π out(X)| over the encoder"
    echo "outputs, and the largest change of the pooled logits; the same weights with a causal mask switched on."
    echo
    echo "| pos | mask | permutation | X | ΠX | max diff | logit diff |"
    echo "| --- | --- | --- | --- | --- | ---: | ---: |"
    awk -F, "$CSV_COLUMNS"'row { printf "| %s | %s | %s | %s | %s | %s | %s |\n", cell("pos"),
        cell("mask"), cell("permutation"), cell("sentence"), cell("permuted"), cell("max_diff"),
        cell("logit_diff") }' "$out/permute.csv"
    echo
    echo "![pair accuracy](pair_acc.svg) ![training loss](train_loss.svg)"
} >"$out/results.md.new"
write_md "$out/results.md"
cat "$out/results.md"
say "done in ${wall} s: $out/results.md"
