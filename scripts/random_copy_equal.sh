#!/bin/sh
# Randomized against plain positions, and positional schemes against each other, every arm on
# the same budget and a learning rate chosen on in-distribution validation only
# (docs/random_copy_equal.md): the copy translator, or the decoder-only models (--model lm).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/random_copy_equal_defs.sh
seeds=5; out=results/random_copy_equal; steps=""; schemes="rope sinusoidal"; quick=0
model=translator; tasks=copy; variants="plain random"; layers=2; RANGE=819   # RANGE: 16 x 2048 / 40
while [ $# -gt 0 ]; do
    case "$1" in
        --steps) [ $# -ge 2 ] || die "--steps needs a number"; steps=$2; used=2 ;;
        --schemes) [ $# -ge 2 ] || die "--schemes needs a list"; schemes=$2; used=2 ;;
        --model) [ $# -ge 2 ] || die "--model needs translator or lm"; model=$2; used=2 ;;
        --tasks) [ $# -ge 2 ] || die "--tasks needs a list"; tasks=$2; used=2 ;;
        --variants) [ $# -ge 2 ] || die "--variants needs a list"; variants=$2; used=2 ;;
        --layers) [ $# -ge 2 ] || die "--layers needs a number"; layers=$2; used=2 ;;
        --range) [ $# -ge 2 ] || die "--range needs a number"; RANGE=$2; used=2 ;;
        *) common_option "$@" ;;
    esac
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
[ "$figures" = 0 ] || die "--figures: this study draws no figures (its tables: --tables)"
GRID="3e-3 1e-3"; TUNE_SEED=100; LENGTHS=16,17,20,24,32,40,48,64; TEST_SIZE=100; QUICK_OVER=""; D_MODEL=64
check_settings
begin_experiment random_copy_equal.sh train eval
command="$command --steps $steps --schemes '$schemes'$(command_extras)"
tunings() { arms | while IFS='|' read -r task arm; do for lr in $GRID; do
    train_arm "$(tune_run "$task" "$arm" "$lr")" "$task" "$arm" $TUNE_SEED "$lr"; done; done; }
if [ "$tables" = 0 ]; then   # --tables: the CSVs as they are
    run_trainings tunings "$out"
    { echo "$(tune_header),lr,seed,val_exact_match"; arms | while IFS='|' read -r task arm; do for lr in $GRID; do
        echo "$(tune_key "$task" "$arm"),$lr,$TUNE_SEED,$(last_val "$(tune_run "$task" "$arm" "$lr")")"; done; done; } >"$out/tuning.tmp"
    # chosen: each arm's learning rate of the best validation exact match (the first of equal ones)
    # shellcheck disable=SC2046 # one --rows option a key column
    best=$("$BIN_DIR/table" --plain $(tune_header | sed 's/^/--rows /; s/,/ --rows /') \
        --value 'lr:argmax(val_exact_match)' "$out/tuning.tmp") || die "./table failed"
    { echo "$(tune_header),lr,seed,val_exact_match,chosen"; tail -n +2 "$out/tuning.tmp" | while IFS= read -r row; do
        key_lr=${row%,*,*}; echo "$row,$(echo "$best" | grep -qxF "$key_lr" && echo yes || echo no)"; done; } >"$out/tuning.csv"
    rm -f "$out/tuning.tmp"
    chosen_lr() { awk -F, -v k="$(tune_key "$1" "$2")," 'index($0, k) == 1 && $NF == "yes" { print $(NF - 3) }' "$out/tuning.csv"; }
    finals() { for seed in $(seq_list "$seeds"); do arms | while IFS='|' read -r task arm; do
        train_arm "$(final_run "$task" "$arm" "$seed")" "$task" "$arm" "$seed" "$(chosen_lr "$task" "$arm")"; done; done; }
    run_trainings finals "$out"
    echo "run,steps,cpu_seconds" >"$out/compute.csv"
    for r in "$out"/runs/tune/*/ $(for t in $tasks; do echo "$out/runs/$(run_prefix)$t-*/"; done); do
        r=${r%/}; echo "${r#"$out"/runs/},$steps,$(run_cpu_seconds "$r")" >>"$out/compute.csv"; done
    echo "task,scheme,seed,length,examples,loss,token_acc,exact_match,steps,lr" >"$out/results.csv"
    echo "task,scheme,seed,lengths,val_exact_match" >"$out/val.csv"
    ! eos_study || echo "task,scheme,seed,split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end" >"$out/positions.csv"
    for seed in $(seq_list "$seeds"); do arms | while IFS='|' read -r task arm; do
        run=$(final_run "$task" "$arm" "$seed"); echo "$task,$arm,$seed,1..16,$(last_val "$run")" >>"$out/val.csv"
        for e in eval $(oracle_scored "$arm" && echo eval_oracle); do   # eval_oracle: ARM + oracle rows
            over=""; label=$arm; [ "$e" = eval ] || { over=length=oracle; label="$arm + oracle"; }
            # shellcheck disable=SC2086 # $over: length=oracle or nothing
            cached_eval "$run/$e.csv" "$BIN_DIR/eval" "$run" splits=none lengths=$LENGTHS test_size=$TEST_SIZE $over
            awk -F, -v p="$task,$label,$seed" -v q="$steps,$(chosen_lr "$task" "$arm")" "$CSV_COLUMNS"'row && cell("split") == "test" {
                print p "," cells("length examples loss token_acc exact_match") "," q }' "$run/$e.csv" >>"$out/results.csv"
            eos_study || continue   # where the greedy outputs go wrong (./eval --positions)
            # shellcheck disable=SC2086 # $over: length=oracle or nothing
            cached_eval "$run/${e}_positions.out" "$BIN_DIR/eval" "$run" splits=none lengths=$LENGTHS test_size=$TEST_SIZE \
                $over --positions "$run/${e}_positions.csv"
            prefix_csv "$task,$label,$seed" "$run/${e}_positions.csv" >>"$out/positions.csv"
        done
    done; done
fi
wall=$(( $(now) - start ))
# per_task: the model's suffix of a per-task heading (the translator's headings have none)
per_task() { [ "$model" = translator ] || echo ": $1"; }
{
    if [ "$model" = lm ]; then echo "# Equal budgets: decoder-only models on $tasks"
    else echo "# $(eos_study && echo 'The end-of-sequence decision' || echo 'Randomized positions') on equal budgets: the $tasks translator"; fi
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
    provenance
    if [ "$model" = lm ]; then printf '%s decoder layers' "$layers"; else printf '%s + %s layers' "$layers" "$layers"; fi
    echo ", d_model $D_MODEL, $steps steps each (cosine), random range L = $RANGE; learning rate"
    echo "chosen per arm on validation exact match (lengths 1..16) of seed $TUNE_SEED; randomized runs scored on"
    echo "drawn positions. Cells: mean ± sample sd over seeds 1..$seeds, in %. CPU seconds of every training"
    echo "(compute.csv), tuning included: $("$BIN_DIR/table" --plain --value cpu_seconds:sum:%.0f "$out/compute.csv")."
    ! eos_study || echo "Arms trained without <eos> (ARM - eos) and the plain runs' ARM + oracle rows decode to the reference length."
    echo
    echo "## Tuning (seed $TUNE_SEED, validation exact match)"
    echo
    if [ "$model" = lm ]; then
        echo "| task | arm | lr | val exact match | chosen |"; echo "| --- | --- | ---: | ---: | --- |"
        "$BIN_DIR/table" --plain --rows task --rows arm --rows lr --rows chosen --value val_exact_match:mean --scale 100 "$out/tuning.csv" |
            while IFS=, read -r t a l c v; do echo "| $t | $a | $l | $v | $c |"; done
    else
        echo "| arm | lr | val exact match | chosen |"; echo "| --- | ---: | ---: | --- |"
        "$BIN_DIR/table" --plain --rows arm --rows lr --rows chosen --value val_exact_match:mean --scale 100 "$out/tuning.csv" |
            while IFS=, read -r a l c v; do echo "| $a | $l | $v | $c |"; done
    fi
    for t in $tasks; do
        printf '\n## Validation exact match (200 inputs of 1..16 symbols, step %s)%s\n\n' "$steps" "$(per_task "$t")"
        md_pivot "$out/val.csv" scheme lengths val_exact_match 100 %.1f task="$t"
        for m in "exact_match|Sequence accuracy (exact match, greedy decoding)" "token_acc|Token accuracy (teacher forcing)"; do
            printf '\n## %s by input length%s\n\n' "${m#*|}" "$(per_task "$t")"; md_pivot "$out/results.csv" scheme length "${m%%|*}" 100 %.1f task="$t"
        done
        eos_study || continue
        printf '\n## Greedy outputs wrong from the first symbol on (%%, ./eval --positions)\n\n'
        md_pivot "$out/positions.csv" scheme length departure_rate 100 %.1f task="$t" by=position index=0
        printf '\n## Greedy outputs ended early by <eos> (count over every seed, of %s a seed)\n\n' "$TEST_SIZE"
        "$BIN_DIR/table" --rows scheme --cols length --value early_eos:sum:%.0f --filter task="$t" --filter by=position "$out/positions.csv"
    done
    if [ "$model" = lm ]; then
        printf '\n## Mean reciprocal rank over the tasks (exact match, lengths 17..64, every seed)\n\n'
        echo "| arm | MRR | tasks |"; echo "| --- | ---: | ---: |"
        scripts/mrr.sh --beyond 16 "$out/results.csv" | tail -n +2 | while IFS=, read -r _ s r n; do echo "| $s | $r | $n |"; done
    fi
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
