#!/bin/sh
# The definitions of scripts/random_copy_equal.sh (POSIX sh, sourced by it): its usage, the
# arms of a study, their training overrides and run folders, and the tuning file's layout.
case ${0##*/} in
    random_copy_equal_defs.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/random_copy_equal_defs.sh   (sourced by scripts/random_copy_equal.sh: not a command)"
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
usage() {
    cat <<'EOF'
usage: scripts/random_copy_equal.sh [--seeds N] [--out DIR] [--steps S] [--schemes LIST]
                                    [--model translator|lm] [--tasks LIST] [--variants LIST]
                                    [--layers K] [--range L]

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

  --model lm       the decoder-only models instead (configs/algorithmic/lm_TASK.ini): K
                   decoder layers; tuning.csv gains a first column task, results.md a table
                   per task and the mean reciprocal rank of the arms over the tasks
                   (scripts/mrr.sh, exact match beyond 16 symbols)
  --tasks LIST     of copy, reverse, duplicate (lm only) (default copy); one arm per task
  --variants LIST  of plain, random, noeos (default "plain random"); none is never randomized;
                   noeos (ARM - eos): trained without <eos> (train.eos=false), so scored at
                   the reference length; with it every plain arm is also scored at the
                   reference length (rows ARM + oracle, eval_oracle.csv: ./eval length=oracle),
                   and where every greedy output first goes wrong is written to positions.csv
                   (task,scheme,seed, then the columns of ./eval --positions)
  --layers K       layers per stack (default 2)
  --range L        randomized positions drawn from 0..L-1 (default 819)
  --quick          a tiny path for the tests: d_model 16, 256 training and 20 validation
                   inputs, 20 steps unless --steps says,
                   10 test inputs of 16 and 20 symbols
EOF
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
}

# check_settings: the options' values, or a clear error
check_settings() {
    if [ "$quick" = 1 ]; then   # the tiny path: a small model, few steps, few test inputs
        QUICK_OVER="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=256 task.val_size=20"; D_MODEL=16
        TEST_SIZE=10; LENGTHS=16,20; [ -n "$steps" ] || steps=20
    fi
    [ -n "$steps" ] || steps=3000
    case "$steps" in ''|*[!0-9]*|0) die "--steps wants a positive number, not '$steps'" ;; esac
    case "$layers" in ''|*[!0-9]*|0) die "--layers wants a positive number, not '$layers'" ;; esac
    case "$RANGE" in ''|*[!0-9]*|0) die "--range wants a positive number, not '$RANGE'" ;; esac
    case "$model" in translator|lm) ;; *) die "--model wants translator or lm, not '$model'" ;; esac
    for v in $variants; do case "$v" in plain|random|noeos) ;; *) die "--variants: unknown variant '$v' (plain, random, noeos)" ;; esac; done
    [ -n "$variants" ] || die "--variants wants plain, random or both"
    for t in $tasks; do
        [ -f "$(task_config "$t")" ] || die "--tasks: no $(task_config "$t") for task '$t'"; done
    [ -n "$tasks" ] || die "--tasks wants at least one task"
}
# task_config TASK: the config a task of the model trains from
task_config() { if [ "$model" = lm ]; then echo "configs/algorithmic/lm_$1.ini"; else echo "configs/algorithmic/$1.ini"; fi; }
# run_prefix: what the model puts before a run folder's task (lm-copy-...; the translator none)
run_prefix() { [ "$model" = translator ] || echo "lm-"; }
# arms: one "TASK|ARM" a line, each scheme plain then randomized (as --variants asks)
arms() { for t in $tasks; do for s in $schemes; do for v in $variants; do
    case "$v,$s" in plain,*) echo "$t|$s" ;; random,none) ;; random,*) echo "$t|$s + random" ;; noeos,*) echo "$t|$s - eos" ;; esac
done; done; done; }
arm_over() { case "$1" in   # ARM: its training overrides
    *" + random") echo "model.pos=${1%% *} model.pos_random=$RANGE model.max_len=$RANGE" ;;
    *" - eos") echo "model.pos=${1%% *} train.eos=false" ;; *) echo "model.pos=$1" ;; esac; }
# eos_study: noeos is among the variants; oracle_scored ARM: a plain arm of such a study
eos_study() { case " $variants " in *" noeos "*) return 0 ;; esac; return 1; }
oracle_scored() { eos_study && case "$1" in *" + random"|*" - eos") return 1 ;; esac; }
arm_dir() { echo "$1" | sed 's/ + random/-random/; s/ - eos/-noeos/'; }
# layer_over: the depth's overrides
layer_over() { if [ "$model" = lm ]; then echo "model.dec_layers=$layers"; else echo "model.enc_layers=$layers model.dec_layers=$layers"; fi; }
# tune_key TASK ARM: the leading cells of the arm's rows in tuning.csv (the translator's have no task)
tune_key() { if [ "$model" = lm ]; then echo "$1,$2"; else echo "$2"; fi; }
tune_header() { if [ "$model" = lm ]; then echo "task,arm"; else echo "arm"; fi; }
tune_run() { echo "$out/runs/tune/$(run_prefix)$1-$(arm_dir "$2")-lr$3"; }   # TASK ARM LR
final_run() { echo "$out/runs/$(run_prefix)$1-$(arm_dir "$2")-s$3"; }       # TASK ARM SEED
train_arm() {   # RUN_DIR TASK ARM SEED LR
    # shellcheck disable=SC2046 # the overrides are separate words
    train_run "$1" "$steps" "$(task_config "$2")" $(arm_over "$3") run.seed="$4" train.lr="$5" \
        $(layer_over) train.eval_every=500 train.ckpt_every=500 \
        train.log_every=100 train.eval_lengths= run.threads=1 $QUICK_OVER
}
last_val() { awk -F, '$2 == "val" { v = $6 } END { print v }' "$1/log.csv"; }
# the extra options a call gave, for results.md's command (none for the defaults)
command_extras() {
    [ "$model" = translator ] || printf " --model %s" "$model"
    [ "$tasks" = copy ] || printf " --tasks '%s'" "$tasks"
    [ "$variants" = "plain random" ] || printf " --variants '%s'" "$variants"
    [ "$layers" = 2 ] || printf " --layers %s" "$layers"
    [ "$RANGE" = 819 ] || printf " --range %s" "$RANGE"
}
