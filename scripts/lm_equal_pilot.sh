#!/bin/sh
# The pilots that chose the recipes of docs/lm_equal.md: one seed each, before the studies.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
usage() {
    cat <<'EOF2'
usage: scripts/lm_equal_pilot.sh [--out DIR] [--tables]

The pilots of docs/lm_equal.md: decoder-only models (configs/algorithmic/lm_TASK.ini), seed 1,
learning rate 3e-3, 6000 steps (cosine), one thread, one after another:
  copy-rope-random819-L2    copy, RoPE on positions drawn from 0..818, 2 layers
  copy-rope-random256-L2    copy, RoPE on positions drawn from 0..255, 2 layers
  reverse-none-L4           reverse, no positional encoding, 4 layers
  duplicate-none-L4         duplicate, no positional encoding, 4 layers
Each finished run is scored by ./eval on 100 inputs of exactly 16, 20 and 32 symbols
(randomized runs on drawn positions). Writes into DIR (default results/lm_equal_pilot):
  val.csv      pilot,step,val_exact_match   (the last val row of each run's log.csv)
  pilot.csv    pilot,length,exact_match      (the finished runs' test rows)
  results.md   both tables, the command
Finished runs (DIR/runs/...) are reused; a killed call resumes from checkpoints.
EOF2
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
}
seeds=1; out=results/lm_equal_pilot; quick=0
read_options "$@"
[ "$figures" = 0 ] || die "--figures: the pilots draw no figures"
begin_experiment lm_equal_pilot.sh train eval
PILOTS="copy-rope-random819-L2|copy|model.pos=rope model.pos_random=819 model.max_len=819
copy-rope-random256-L2|copy|model.pos=rope model.pos_random=256 model.max_len=256
reverse-none-L4|reverse|model.pos=none model.dec_layers=4
duplicate-none-L4|duplicate|model.pos=none model.dec_layers=4"
pilots() { echo "$PILOTS" | while IFS='|' read -r name task over; do
    # shellcheck disable=SC2086 # the overrides are separate words
    train_run "$out/runs/$name" 6000 "configs/algorithmic/lm_$task.ini" $over run.seed=1 train.lr=3e-3 \
        train.eval_lengths= train.eval_every=500 train.ckpt_every=6000 train.log_every=100 run.threads=1
done; }
if [ "$tables" = 0 ]; then   # --tables: the CSVs as they are
    run_trainings pilots "$out"
    echo "pilot,step,val_exact_match" >"$out/val.csv"
    echo "pilot,length,exact_match" >"$out/pilot.csv"
    echo "$PILOTS" | while IFS='|' read -r name _ _; do
        run=$out/runs/$name
        awk -F, -v p="$name" '$2 == "val" { s = $1; v = $6 } END { print p "," s "," v }' "$run/log.csv" >>"$out/val.csv"
        cached_eval "$run/eval.csv" "$BIN_DIR/eval" "$run" splits=none lengths=16,20,32 test_size=100
        awk -F, -v p="$name" "$CSV_COLUMNS"'row && cell("split") == "test" { print p "," cells("length exact_match") }' \
            "$run/eval.csv" >>"$out/pilot.csv"
    done
fi
wall=$(( $(now) - start ))
{
    echo "# Pilots of the decoder-only studies on equal budgets"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
    provenance
    echo "Seed 1, learning rate 3e-3, 6000 steps (cosine), d_model 64. In %."
    printf '\n## Validation exact match (200 inputs of 1..16 symbols, the last val row)\n\n'
    echo "| pilot | step | val exact match |"; echo "| --- | ---: | ---: |"
    "$BIN_DIR/table" --plain --rows pilot --rows step --value val_exact_match:mean --scale 100 "$out/val.csv" |
        while IFS=, read -r p s v; do echo "| $p | $s | $v |"; done
    printf '\n## Exact match by input length (100 inputs a length)\n\n'
    md_pivot "$out/pilot.csv" pilot length exact_match 100 %.1f
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
