#!/bin/sh
# Length generalisation on algorithmic tasks: train the copy and reverse translators on inputs of
# 1..16 symbols with every positional scheme and several seeds, then score each on held-out
# inputs of 16..64 symbols (sequence accuracy = exact match, and per-symbol accuracy).
# Writes CSV, Markdown and SVG into the output folder. Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF'
usage: scripts/lengthgen.sh [--quick] [--seeds N] [--out DIR]

Trains configs/algorithmic/<task>.ini (task: copy, reverse; inputs of 1..16 digits) with
model.pos = each scheme of `./train --list-schemes` and seeds 1..N, evaluates each
run with ./eval on test sets of exactly k input symbols (k = 16, 17, 20, 24, 32, 40, 48, 64;
100 inputs each), and writes into DIR:
  results.csv    task,scheme,seed,length,examples,loss,token_acc,exact_match
  curves.csv     every run's log.csv, with task, scheme and seed columns in front
  results.md     sequence and token accuracy tables (mean ± sample sd over seeds), the
                 command and the wall time
  <task>_exact.svg, <task>_token_acc.svg   accuracy against input length, one line per scheme
Finished runs (DIR/runs/<task>-<scheme>-s<seed>) and evaluations are reused, so an interrupted
run can be restarted.

  --quick     a smoke test: tiny models (d_model 16), 30 steps, 1 seed (unless --seeds),
              lengths 16 and 32 with 20 inputs each; DIR defaults to results/quick/lengthgen
  --seeds N   seeds 1..N (default 3)
  --out DIR   output folder (default results/lengthgen)
EOF
    echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""
while [ $# -gt 0 ]; do
    common_option "$@"
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
TASKS="copy reverse"
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/lengthgen}
    lengths=16,32; test_size=20
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=500"
else
    seeds=${seeds:-3}; out=${out:-results/lengthgen}
    lengths=16,17,20,24,32,40,48,64; test_size=100
    extra=""
fi
begin_experiment scripts/lengthgen.sh

# ---- train every task, scheme and seed (here, --jobs N at once, or on Slurm), then evaluate
steps_of() {
    if [ $quick = 1 ]; then echo 30; else config_value train steps "configs/algorithmic/$1.ini"; fi
}
trainings() {
    for seed in $(seq_list "$seeds"); do
        for task in $TASKS; do
            for scheme in $SCHEMES; do
                # The longer lengths are scored once, by ./eval, not during training.
                # shellcheck disable=SC2086
                train_run "$out/runs/$task-$scheme-s$seed" "$(steps_of "$task")" "configs/algorithmic/$task.ini" \
                    model.pos="$scheme" run.seed="$seed" train.eval_lengths= $extra
            done
        done
    done
}
run_trainings trainings "$out"
echo "task,scheme,seed,length,examples,loss,token_acc,exact_match" >"$out/results.csv.tmp"
: >"$out/curves.body"
for seed in $(seq_list "$seeds"); do
    for task in $TASKS; do
        for scheme in $SCHEMES; do
            run=$out/runs/$task-$scheme-s$seed
            cached_eval "$run/eval.csv" "$BIN_DIR/eval" "$run" splits=none lengths="$lengths" test_size="$test_size"
            # eval columns: split,length,examples,loss,token_acc,exact_match,...
            awk -F, -v p="$task,$scheme,$seed" 'NR > 1 && $1 == "test" { print p "," $2 "," $3 "," $4 "," $5 "," $6 }' \
                "$run/eval.csv" >>"$out/results.csv.tmp"
            prefix_csv "$task,$scheme,$seed" "$run/log.csv" >>"$out/curves.body"
        done
    done
done
mv "$out/results.csv.tmp" "$out/results.csv"
first=$(echo "$TASKS" | cut -d' ' -f1)
{ echo "task,scheme,seed,$(head -1 "$out/runs/$first-none-s1/log.csv")"; cat "$out/curves.body"; } >"$out/curves.csv"
rm -f "$out/curves.body"

# ---- plots: accuracy against input length, mean and spread over seeds, training length marked
for task in $TASKS; do
    plot --x length --y exact_match --group scheme --spread --filter task="$task" --vline 16 \
        -o "$out/${task}_exact.svg" "$out/results.csv"
    plot --x length --y token_acc --group scheme --spread --filter task="$task" --vline 16 \
        -o "$out/${task}_token_acc.svg" "$out/results.csv"
done

# ---- results.md
wall=$(( $(now) - start ))
{
    echo "# Length generalisation on algorithmic tasks"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
    provenance
    echo "Translators trained on inputs of 1..16 digits (configs/algorithmic/<task>.ini, one line"
    echo "changed per scheme: model.pos), scored on $test_size held-out inputs of exactly k digits."
    echo "Cells: mean ± sample standard deviation over seeds 1..$seeds, in %."
    for task in $TASKS; do
        echo
        echo "## $task: sequence accuracy (exact match, greedy decoding) by input length"
        echo
        md_pivot "$out/results.csv" scheme length exact_match 100 %.1f task="$task"
        echo
        echo "## $task: token accuracy (teacher forcing) by input length"
        echo
        md_pivot "$out/results.csv" scheme length token_acc 100 %.1f task="$task"
    done
    echo
    for task in $TASKS; do echo "![$task: sequence accuracy against input length](${task}_exact.svg)"; done
} >"$out/results.md.tmp"
mv "$out/results.md.tmp" "$out/results.md"
say "done in $wall s: $out/results.md"
