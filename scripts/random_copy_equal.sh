#!/bin/sh
# Randomized against plain positions on the copy translator, every arm on the same budget and a
# learning rate chosen on in-distribution validation only (docs/random_copy_equal.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
usage() {
    cat <<'EOF'
usage: scripts/random_copy_equal.sh [--seeds N] [--out DIR] [--steps S] [--schemes LIST]

Copy translator (configs/algorithmic/copy.ini, inputs of 1..16 digits) with 2 encoder and 2
decoder layers, S steps (default 3000; cosine schedule over them), each scheme of LIST (default
"rope sinusoidal") plain and randomized (model.pos_random=819: 16 x 2048/40, Ruoss et al.'s
ratio of range to training length). Every arm first trains once per learning rate of the grid
(3e-3, 1e-3) on the tuning seed 100; the rate with the higher validation exact match (lengths
1..16, the last val row of log.csv; ties: the first) trains seeds 1..N (default 5). Each run is
scored by ./eval on 100 held-out inputs of exactly 16, 17, 20, 24, 32, 40, 48, 64 digits
(randomized runs on drawn positions). Writes into DIR (default results/random_copy_equal):
  tuning.csv   arm,lr,seed,val_exact_match,chosen
  results.csv  task,scheme,seed,length,examples,loss,token_acc,exact_match,steps,lr
  val.csv      task,scheme,seed,lengths,val_exact_match (the last val row of each log.csv)
  compute.csv  run,steps,cpu_seconds (every training, tuning trials included)
  results.md   the tuning and result tables, the command
Finished runs (DIR/runs/...) and evaluations are reused; a killed call resumes from checkpoints.
EOF
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
}
seeds=5; out=results/random_copy_equal; steps=3000; schemes="rope sinusoidal"; quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --steps) [ $# -ge 2 ] || die "--steps needs a number"; steps=$2; used=2 ;;
        --schemes) [ $# -ge 2 ] || die "--schemes needs a list"; schemes=$2; used=2 ;;
        *) common_option "$@" ;;
    esac
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
[ "$figures" = 0 ] || die "--figures: this study draws no figures (its tables: --tables)"
case "$steps" in ''|*[!0-9]*|0) die "--steps wants a positive number, not '$steps'" ;; esac
RANGE=819; GRID="3e-3 1e-3"; TUNE_SEED=100; LENGTHS=16,17,20,24,32,40,48,64   # RANGE: 16 x 2048 / 40
begin_experiment random_copy_equal.sh train eval
command="$command --steps $steps --schemes '$schemes'"
arms() { for s in $schemes; do printf '%s\n%s + random\n' "$s" "$s"; done; }   # one a line
arm_over() { case "$1" in   # ARM: its training overrides
    *" + random") echo "model.pos=${1%% *} model.pos_random=$RANGE model.max_len=$RANGE" ;; *) echo "model.pos=$1" ;; esac; }
arm_dir() { echo "$1" | sed 's/ + random/-random/'; }
train_arm() {   # RUN_DIR ARM SEED LR
    # shellcheck disable=SC2046 # the overrides are separate words
    train_run "$1" "$steps" configs/algorithmic/copy.ini $(arm_over "$2") run.seed="$3" train.lr="$4" \
        model.enc_layers=2 model.dec_layers=2 train.eval_every=500 train.ckpt_every=500 \
        train.log_every=100 train.eval_lengths= run.threads=1
}
last_val() { awk -F, '$2 == "val" { v = $6 } END { print v }' "$1/log.csv"; }
tunings() { arms | while read -r arm; do for lr in $GRID; do
    train_arm "$out/runs/tune/copy-$(arm_dir "$arm")-lr$lr" "$arm" $TUNE_SEED "$lr"; done; done; }
if [ "$tables" = 0 ]; then   # --tables: the CSVs as they are
    run_trainings tunings "$out"
    { echo "arm,lr,seed,val_exact_match"; arms | while read -r arm; do for lr in $GRID; do
        echo "$arm,$lr,$TUNE_SEED,$(last_val "$out/runs/tune/copy-$(arm_dir "$arm")-lr$lr")"; done; done; } >"$out/tuning.tmp"
    # chosen: each arm's learning rate of the best validation exact match (the first of equal ones)
    best=$("$BIN_DIR/table" --plain --rows arm --value 'lr:argmax(val_exact_match)' "$out/tuning.tmp") || die "./table failed"
    { echo "arm,lr,seed,val_exact_match,chosen"; tail -n +2 "$out/tuning.tmp" | while IFS=, read -r arm lr rest; do
        echo "$arm,$lr,$rest,$(echo "$best" | grep -qxF "$arm,$lr" && echo yes || echo no)"; done; } >"$out/tuning.csv"
    rm -f "$out/tuning.tmp"
    chosen_lr() { awk -F, -v a="$1" '$1 == a && $5 == "yes" { print $2 }' "$out/tuning.csv"; }
    finals() { for seed in $(seq_list "$seeds"); do arms | while read -r arm; do
        train_arm "$out/runs/copy-$(arm_dir "$arm")-s$seed" "$arm" "$seed" "$(chosen_lr "$arm")"; done; done; }
    run_trainings finals "$out"
    echo "run,steps,cpu_seconds" >"$out/compute.csv"
    for r in "$out"/runs/tune/*/ "$out"/runs/copy-*/; do
        r=${r%/}; echo "${r#"$out"/runs/},$steps,$(run_cpu_seconds "$r")" >>"$out/compute.csv"; done
    echo "task,scheme,seed,length,examples,loss,token_acc,exact_match,steps,lr" >"$out/results.csv"
    echo "task,scheme,seed,lengths,val_exact_match" >"$out/val.csv"
    for seed in $(seq_list "$seeds"); do arms | while read -r arm; do
        run=$out/runs/copy-$(arm_dir "$arm")-s$seed; echo "copy,$arm,$seed,1..16,$(last_val "$run")" >>"$out/val.csv"
        cached_eval "$run/eval.csv" "$BIN_DIR/eval" "$run" splits=none lengths=$LENGTHS test_size=100
        awk -F, -v p="copy,$arm,$seed" -v q="$steps,$(chosen_lr "$arm")" "$CSV_COLUMNS"'row && cell("split") == "test" {
            print p "," cells("length examples loss token_acc exact_match") "," q }' "$run/eval.csv" >>"$out/results.csv"
    done; done
fi
wall=$(( $(now) - start ))
{
    echo "# Randomized positions on equal budgets: the copy translator"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
    provenance
    echo "2 + 2 layers, d_model 64, $steps steps each (cosine), random range L = $RANGE; learning rate"
    echo "chosen per arm on validation exact match (lengths 1..16) of seed $TUNE_SEED; randomized runs scored on"
    echo "drawn positions. Cells: mean ± sample sd over seeds 1..$seeds, in %. CPU seconds of every training"
    echo "(compute.csv), tuning included: $("$BIN_DIR/table" --plain --value cpu_seconds:sum:%.0f "$out/compute.csv")."
    echo
    echo "## Tuning (seed $TUNE_SEED, validation exact match)"
    echo
    echo "| arm | lr | val exact match | chosen |"; echo "| --- | ---: | ---: | --- |"
    "$BIN_DIR/table" --plain --rows arm --rows lr --rows chosen --value val_exact_match:mean --scale 100 "$out/tuning.csv" |
        while IFS=, read -r a l c v; do echo "| $a | $l | $v | $c |"; done
    printf '\n## Validation exact match (200 inputs of 1..16 symbols, step %s)\n\n' "$steps"
    md_pivot "$out/val.csv" scheme lengths val_exact_match 100 %.1f task=copy
    for m in "exact_match|Sequence accuracy (exact match, greedy decoding)" "token_acc|Token accuracy (teacher forcing)"; do
        printf '\n## %s by input length\n\n' "${m#*|}"; md_pivot "$out/results.csv" scheme length "${m%%|*}" 100 %.1f task=copy
    done
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
