# Slurm for scripts/lib.sh's run_trainings (--slurm; POSIX sh, sourced by lib.sh, not run): the
# trainings still missing go out as one job array (sbatch --array, one task per run, each task
# scripts/run_task.sh), the script waits for it, reports the tasks that failed with the end of
# their logs, and resubmits them on its next call (docs/usage.md, "On a Slurm cluster").
case ${0##*/} in
    slurm.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/slurm.sh   (through scripts/lib.sh, from another script: not a command)"
        echo
        echo "The experiment scripts' --slurm: the missing trainings as one Slurm job array."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac

# slurm_trainings FUNCTION OUT: run_trainings with --slurm. The job of the previous call, if
# any (OUT/slurm/job: its id and task file), is waited for (or, with --no-wait, left running)
# and its failed tasks reported; then the trainings still missing go out as one array job.
slurm_trainings() {
    command -v sbatch >/dev/null 2>&1 || die "--slurm: sbatch not found (is Slurm installed on this machine?)"
    _q=$(squeue -h -o %i 2>&1) || die "--slurm: the Slurm controller does not answer ($(echo "$_q" | head -n 1))"
    _sd=$2/slurm; mkdir -p "$_sd"
    if [ -f "$_sd/job" ]; then
        read -r _id _tasks <"$_sd/job"
        if slurm_active "$_id" && [ $run_wait = 0 ]; then
            say "Slurm job $_id is still queued or running; run the same command again when it is done"
            exit 0
        fi
        slurm_wait "$_id"
        slurm_report "$_id" "$_tasks" || say "resubmitting the failed tasks of job $_id"
    fi
    RUN_PLAN=$_sd/plan-$(date +%Y%m%d-%H%M%S)-$$.tasks; : >"$RUN_PLAN"; "$1"
    _n=$(wc -l <"$RUN_PLAN")
    if [ "$_n" -eq 0 ]; then rm -f "$RUN_PLAN"; return 0; fi
    # B:USR1 goes to the task's shell (scripts/run_task.sh), which passes it on to the trainer as
    # SIGTERM: checkpoint and stop, 3 minutes before the limit. scancel's SIGTERM reaches the
    # trainer directly, so it never gets two.
    # The tasks are the job's, not this call's: a later call waits for the job, never stops them.
    # shellcheck disable=SC2086 # the sbatch arguments are separate words
    _id=$(env -u TF_CALL_OUT -u TF_CALL_PID sbatch --parsable --array=1-"$_n" --job-name="$(basename "$0" .sh)" --output="$_sd/%A_%a.out" \
            --signal=B:USR1@180 $run_sbatch_args --wrap="exec scripts/run_task.sh $RUN_PLAN" 2>&1) \
        || die "--slurm: sbatch failed: $(echo "$_id" | head -n 1)"
    _id=${_id%%;*}
    echo "$_id $RUN_PLAN" >"$_sd/job.tmp" && mv "$_sd/job.tmp" "$_sd/job"
    say "submitted Slurm job $_id: $_n trainings (logs: $_sd/${_id}_<task>.out)"
    if [ $run_wait = 0 ]; then
        say "--no-wait: run the same command again to collect the results"
        exit 0
    fi
    slurm_wait "$_id"
    slurm_report "$_id" "$RUN_PLAN" || die "some Slurm tasks failed (reported above); run the same command again to resubmit them (they resume from their last checkpoint)"
}

# slurm_active ID: job ID still has tasks queued or running. A job the controller no longer
# knows has ended; a controller that does not answer stops the script.
slurm_active() {
    _o=$(squeue -h -j "$1" -o %i 2>&1) || case "$_o" in
        *"Invalid job id"*) return 1 ;;
        *) die "--slurm: squeue failed: $(echo "$_o" | head -n 1)" ;;
    esac
    [ -n "$_o" ]
}

# slurm_wait ID: until job ID has ended.
slurm_wait() {
    slurm_active "$1" && say "waiting for Slurm job $1"
    while slurm_active "$1"; do sleep 3; done
}

# slurm_report ID TASKS: every task of the ended job ID whose run did not finish, with the end
# of its Slurm log; forgets the job (its failed runs are planned again). Returns 1 if any failed.
slurm_report() {
    _rid=$1; _rtasks=$2; _failed=0; _i=1; _total=$(wc -l <"$_rtasks")
    while [ $_i -le "$_total" ]; do
        eval "set -- $(sed -n "${_i}p" "$_rtasks")"
        if ! run_finished "$1" "$2"; then
            _failed=$((_failed + 1))
            _log=$_sd/${_rid}_$_i.out
            echo "$0: Slurm task ${_rid}_$_i ($1) failed; its log $_log ends:" >&2
            tail -n 5 "$_log" 2>/dev/null | sed 's/^/    /' >&2
        fi
        _i=$((_i + 1))
    done
    rm -f "$_sd/job"
    [ $_failed -eq 0 ]
}
