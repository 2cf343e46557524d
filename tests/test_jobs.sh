# scripts/lib.sh's --jobs N on scripts/dog_bites_man.sh --quick: the trainings run N at once and
# the results equal the sequential run's byte for byte; a run interrupted by SIGTERM is resumed
# from its checkpoint by the next call, with the same results; a second call into a folder
# where one is training stops; misused options are one line.
. tests/lib.sh
scripts/dog_bites_man.sh --quick --out "$TMP/seq" >"$TMP/seq.out" 2>&1 || fail jobs_sequential_reference "$(tail -n 3 "$TMP/seq.out")"

# A ./permute that fails (here a stand-in for rope-s1's; a kill does the same) stops the script
# with its message, rather than leaving a permute.csv short of that scheme's rows. The runs are
# a copy of the finished ones, so only ./permute runs.
P=$TMP/permwrap; mkdir -p "$P"
for tool in train eval plot table; do ln -s "$PWD/$BIN_DIR/$tool" "$P/$tool"; done
printf '#!/bin/sh\ncase "$1" in *rope-s1) exit 1 ;; esac\nexec "%s" "$@"\n' "$PWD/$BIN_DIR/permute" >"$P/permute"
chmod +x "$P/permute"
cp -Rp "$TMP/seq" "$TMP/perm"; rm -f "$TMP/perm/permute.csv"
expect_error jobs_failed_permute_stops "^scripts/dog_bites_man.sh: ./permute failed on rope$" \
    env BIN_DIR="$P" scripts/dog_bites_man.sh --quick --out "$TMP/perm"
[ ! -e "$TMP/perm/permute.csv" ] || fail jobs_failed_permute_leaves_no_table "permute.csv written without rope's rows"

n_schemes=$("$TRAIN" --list-schemes | wc -l)   # --quick: one seed, so one training per scheme
if scripts/dog_bites_man.sh --quick --jobs 2 --out "$TMP/j2" >"$TMP/j2.out" 2>&1 &&
        grep -q "$n_schemes trainings, 2 at once, run.threads=[0-9]* each" "$TMP/j2.out"; then
    if why=$(same_results "$TMP/seq" "$TMP/j2"); then ok jobs_2_results_equal_sequential
    else fail jobs_2_results_equal_sequential "$why"; fi
else
    fail jobs_2_results_equal_sequential "$(tail -n 3 "$TMP/j2.out")"
fi

# A run of the plan stopped by SIGTERM mid-run: it stops itself at the start of step 2 of 150
# (TF_PAUSE_AT, so the moment does not depend on the load), is checked to have no checkpoint yet
# (the config saves at step 800 only), then is signalled and let go.
dir=$TMP/int/runs/rope-s1
mkdir -p "$TMP/int/runs"
TF_PAUSE_AT=step:2 "$TRAIN" configs/order/rope.ini run.out_dir="$TMP/int/runs" run.name=rope-s1 train.steps=150 run.seed=1 >"$TMP/int.out" 2>&1 &
pid=$!
if ! wait_stopped $pid; then
    wait $pid
    fail jobs_interrupted_run_resumes "the trainer did not stop itself at step 2 (TF_PAUSE_AT): $(tail -n 3 "$TMP/int.out")"
elif [ -e "$dir/model.safetensors" ] || ! grep -q '^1,train,' "$dir/log.csv"; then
    kill -CONT $pid; wait $pid
    fail jobs_interrupted_run_resumes "stopped at step 2, but with a checkpoint or without step 1 in log.csv"
else
    kill -TERM $pid; kill -CONT $pid; wait $pid
    step=$(sed -n 's/^stopped by SIGTERM after step \([0-9]*\) .*/\1/p' "$TMP/int.out")
    scripts/dog_bites_man.sh --quick --jobs 2 --out "$TMP/int" >"$TMP/int2.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$step" = 2 ] && grep -q "resume $dir$" "$TMP/int2.out" &&
            grep -q "^resumed from $dir/model.safetensors at step $step$" "$dir/train.out"; then
        ok jobs_interrupted_run_resumes; echo "# stopped after step $step of 150, resumed there"
    else fail jobs_interrupted_run_resumes "exit $rc, step '$step' (want 2): $(grep -h 'resume\|stopped' "$TMP/int.out" "$TMP/int2.out" | head -c 300)"; fi
    if why=$(same_results "$TMP/seq" "$TMP/int"); then ok jobs_resumed_results_equal_sequential
    else fail jobs_resumed_results_equal_sequential "$why"; fi
fi

# One call at a time trains into a folder: a second call, while the first lives, stops with a
# message and leaves the first's task list alone; the lock of a call that was killed is taken over.
mkdir -p "$TMP/lock/.lock"
sleep 600 & holder=$!
echo $holder >"$TMP/lock/.lock/pid"
expect_error jobs_folder_in_use "^scripts/dog_bites_man.sh: $TMP/lock is in use: process $holder is training there" \
    scripts/dog_bites_man.sh --quick --out "$TMP/lock"
kill $holder; wait $holder 2>/dev/null
if [ ! -e "$TMP/lock/.plan" ] &&
        scripts/dog_bites_man.sh --quick --out "$TMP/lock" >"$TMP/lock.out" 2>&1 && [ ! -e "$TMP/lock/.lock" ]; then
    ok jobs_stale_lock_taken_over
else fail jobs_stale_lock_taken_over "$(ls -a "$TMP/lock"; tail -n 3 "$TMP/lock.out")"; fi

expect_error jobs_bad_number "^scripts/dog_bites_man.sh: --jobs wants a positive number, not '0'$" \
    scripts/dog_bites_man.sh --quick --jobs 0 --out "$TMP/bad"
expect_error jobs_with_slurm "^scripts/dog_bites_man.sh: --jobs and --slurm do not go together" \
    scripts/dog_bites_man.sh --quick --jobs 2 --slurm --out "$TMP/bad"
expect_error jobs_no_wait_without_slurm "^scripts/dog_bites_man.sh: --no-wait and --sbatch-args go with --slurm$" \
    scripts/dog_bites_man.sh --quick --no-wait --out "$TMP/bad"

# Slurm's warning before the time limit (sbatch --signal=B:USR1@180) without Slurm: the task's
# shell, scripts/run_task.sh, passes SIGUSR1 on to the trainer as SIGTERM; the task fails, and
# running it again resumes from the checkpoint and ends with the sequential run's log.csv. The
# trainer stops itself at the start of step 2 (TF_PAUSE_AT); the warning reaches the shell while
# it waits for the stopped trainer, which gets the SIGTERM once it is let go.
dir=$TMP/usr1/rope-s1
printf "'%s' '150' 'configs/order/rope.ini' 'run.seed=1'\n" "$dir" >"$TMP/usr1.tasks"
TF_PAUSE_AT=step:2 scripts/run_task.sh "$TMP/usr1.tasks" 1 >"$TMP/usr1.out" 2>&1 &
pid=$!
if ! trainer=$(stopped_child $pid); then
    wait $pid
    fail jobs_usr1_stops_and_resumes "the trainer did not stop itself at step 2 (TF_PAUSE_AT): $(tail -n 3 "$TMP/usr1.out")"
else
    kill -USR1 $pid
    # the shell's trap has run once the trainer has a SIGTERM pending (ShdPnd, bit 15)
    i=0
    while pending=$(sed -n 's/^ShdPnd:[[:space:]]*//p' "/proc/$trainer/status" 2>/dev/null) &&
            [ $(( 0x${pending:-0} & 16384 )) -eq 0 ] && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
    kill -CONT "$trainer"
    wait $pid
    rc=$?
    step=$(sed -n 's/^stopped by SIGTERM after step \([0-9]*\) .*/\1/p' "$dir.train.out")
    scripts/run_task.sh "$TMP/usr1.tasks" 1 >"$TMP/usr1b.out" 2>&1
    if [ $rc -ne 0 ] && [ "$step" = 2 ] && grep -q "^resumed from $dir/model.safetensors at step $step$" "$dir/train.out" &&
            cmp -s "$TMP/seq/runs/rope-s1/log.csv" "$dir/log.csv"; then
        ok jobs_usr1_stops_and_resumes; echo "# SIGUSR1 after step $step of 150"
    else fail jobs_usr1_stops_and_resumes "exit $rc, step '$step' (want 2): $(tail -n 3 "$TMP/usr1.out" "$TMP/usr1b.out" | head -c 300)"; fi
fi
