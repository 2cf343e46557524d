#!/bin/sh
# Multi30k De->En: the learning rate of each architecture of the study (the LSTM and the
# Transformer of configs/multi30k/study_*.ini), chosen on validation BLEU alone, with the same
# grid and one trial per rate for both (docs/multi30k_study.md, "Learning rate").
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh

usage() {
    cat <<EOF
usage: scripts/multi30k_lr.sh [--quick] [--lrs "LIST"] [--seed S] [--data DIR] [--out DIR]
                              [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]]

Trains configs/multi30k/study_lstm.ini and configs/multi30k/study_transformer.ini at each
learning rate of LIST, with the configs' own recipe (2000 steps, cosine after 300 warm-up steps)
and seed S, translates the validation set (val.de, greedy) with each and scores it against the
lower-cased val.en. Each architecture's rate is the one of its highest validation BLEU (the
first of equal ones); the test set is never read. Writes into DIR: tuning.csv
(model,lr,seed,steps,cpu_s,val_sentences,val_bleu,val_chrf,chosen), results.md, runs/<model>_lr<LR>/.

  --quick        a smoke test: the study's tiny sizes, 30 steps, the first 40 validation
                 sentences; DIR defaults to results/quick/multi30k_lr
  --lrs LIST     the grid (default "5e-4 1e-3 2e-3 4e-3"; a grid whose best rate lies on its
                 edge wants a wider one)
  --seed S       the seed of every trial (default 100: not a seed of the study's final runs)
  --data DIR     the Multi30k files (default data/multi30k, as scripts/get_data.sh leaves them)
  --out DIR      output folder (default results/multi30k_lr)
EOF
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
}

quick=0; seeds=1; out=""; data=data/multi30k; lrs="5e-4 1e-3 2e-3 4e-3"; seed=100
while [ $# -gt 0 ]; do
    case "$1" in
        --lrs)  [ $# -ge 2 ] || die "--lrs needs a list"; lrs=$2; shift 2 ;;
        --seed) [ $# -ge 2 ] || die "--seed needs a number"; seed=$2; shift 2 ;;
        --data) [ $# -ge 2 ] || die "--data needs a folder"; data=$2; shift 2 ;;
        --seeds) die "--seeds: the sweep has one trial per rate; --seed S chooses its seed" ;;
        *) common_option "$@"; [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
           shift "$used" ;;
    esac
done
[ $figures = 0 ] || die "--figures: this script draws no figures"
case "$seed" in ''|*[!0-9]*) die "--seed wants a whole number, not '$seed'" ;; esac
[ -n "$lrs" ] || die "--lrs: an empty grid"
for lr in $lrs; do
    awk -v x="$lr" 'BEGIN { exit !(x ~ /^[0-9.]+(e-?[0-9]+)?$/ && x + 0 > 0) }' ||
        die "--lrs: '$lr' is not a positive number"
done
m30k_data "$data"
if [ $quick = 1 ]; then out=${out:-results/quick/multi30k_lr}; else out=${out:-results/multi30k_lr}; fi
begin_experiment multi30k_lr.sh train translate table
command="${command%% --seeds 1} --lrs \"$lrs\" --seed $seed"   # no --seeds: one trial per rate
LSTM=configs/multi30k/study_lstm.ini; TF=configs/multi30k/study_transformer.ini
overrides=$(m30k_overrides "$data")
steps=$(config_value train steps "$TF")
lstm_size=""; tf_size=""
val_src=$data/val.de; val_ref=$out/runs/val_ref.en
if [ $tables = 0 ]; then
    # the models write lower-cased text: scored against lower-cased references, as the study
    if [ $quick = 1 ]; then head -n 40 "$data/val.en"; else cat "$data/val.en"; fi | tr 'A-Z' 'a-z' >"$val_ref"
    if [ $quick = 1 ]; then head -n 40 "$val_src" >"$out/runs/val.de"; val_src=$out/runs/val.de; fi
fi
if [ $quick = 1 ]; then
    steps=30; overrides="train.warmup=5 train.ckpt_every=1000 train.log_every=5 $overrides"
    lstm_size="model.d_model=32"   # multi30k_study.sh's quick sizes
    tf_size="model.d_model=28 model.n_heads=2 model.enc_layers=1 model.dec_layers=1 model.d_ff=84"
fi
# arms: MODEL|RUN PREFIX|CONFIG|SIZE, one line an architecture
arms() { echo "LSTM|lstm|$LSTM|$lstm_size"; echo "Transformer|tf|$TF|$tf_size"; }
trainings() {
    arms | while IFS='|' read -r m p cfg size; do for lr in $lrs; do
        # shellcheck disable=SC2086 # sizes and overrides are separate KEY=VALUE words
        train_run "$out/runs/${p}_lr$lr" "$steps" "$cfg" run.seed="$seed" train.steps="$steps" train.lr="$lr" $size $overrides
    done; done
}
run_trainings trainings "$out"

if [ $tables = 0 ]; then
    n_val=$(wc -l <"$val_ref")
    echo "model,lr,seed,steps,cpu_s,val_sentences,val_bleu,val_chrf" >"$out/tuning.tmp"
    arms | while IFS='|' read -r m p cfg size; do for lr in $lrs; do
        run=$out/runs/${p}_lr$lr
        scored_translation "$run/val_score.txt" "$run/val.hyp" "$val_src" "$val_ref" "$run" --beam 1 --threads 1
        sc=$(bleu_chrf "$run/val_score.txt")   # an assignment, so that a missing score stops the script
        echo "$m,$lr,$seed,$steps,$(run_cpu_seconds "$run"),$n_val,$sc"
    done; done >>"$out/tuning.tmp"
    best=$("$BIN_DIR/table" --plain --rows model --value 'lr:argmax(val_bleu)' "$out/tuning.tmp") || die "./table failed"
    { echo "$(head -n 1 "$out/tuning.tmp"),chosen"; tail -n +2 "$out/tuning.tmp" | while IFS= read -r row; do
        echo "$row,$(echo "$best" | grep -qxF "${row%%,*},$(echo "$row" | cut -d, -f2)" && echo yes || echo no)"
    done; } >"$out/tuning.csv"
    rm -f "$out/tuning.tmp"
fi
[ -f "$out/tuning.csv" ] || die "--tables: no $out/tuning.csv"

wall=$(( $(now) - start ))
{
    echo "## Multi30k De→En: the learning rate of each architecture, on validation BLEU"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs and translations are reused)."
    provenance
    echo "Each architecture at each rate, seed $seed, $steps steps (the configs' recipe: cosine after"
    echo "the warm-up); BLEU (13a) and chrF2 of greedy translations of the validation set ($("$BIN_DIR/table" --plain --value val_sentences:max:%d "$out/tuning.csv") sentences) against"
    echo "lower-cased references. The chosen rate: the highest validation BLEU. The test set is not read."
    echo "CPU seconds of the trainings: $("$BIN_DIR/table" --plain --value cpu_s:sum:%.0f "$out/tuning.csv")."
    echo
    echo "| model | lr | val BLEU | val chrF2 | CPU s | chosen |"
    echo "| --- | ---: | ---: | ---: | ---: | --- |"
    tail -n +2 "$out/tuning.csv" | while IFS=, read -r m lr s st cpu n b c ch; do
        echo "| $m | $lr | $b | $c | $cpu | $ch |"; done
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
