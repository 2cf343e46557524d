# Shared by the experiment scripts in scripts/ (POSIX sh; sourced, not run): where the trainings
# run (one after another, --jobs N at once here, or a Slurm job array: scripts/slurm.sh) and the
# locks that keep two calls out of one folder. It sources scripts/options.sh (options,
# evaluations) and scripts/results.sh (tables, figures, results.md): a script sources it alone.
# A script lists its trainings in a function that calls train_run for each and hands it to
# run_trainings. Finished runs are never redone; a run with a checkpoint resumes from it.
case ${0##*/} in
    lib.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/lib.sh   (from another script: not a command)"
        echo
        echo "The trainings of the experiment scripts: here, --jobs N at once or on Slurm (--slurm),"
        echo "resumed from their checkpoints, one call at a time per folder."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
. scripts/options.sh
. scripts/results.sh
. scripts/slurm.sh
# A script of small models sets run_jobs=$(cores) after sourcing this file: two 1-thread
# trainings at once did 1.9-2.8x the tokens/s of one 2-thread training (results/bench/jobs.md).
run_jobs=1; run_jobs_given=0; run_slurm=0; run_sbatch_args=""; run_wait=1
RUN_THREADS=""        # run.threads=N appended to each training (--jobs, --slurm), else the config's
TRAIN_PID=""          # the training in progress, for the Slurm warning (scripts/run_task.sh)

seq_list() { _i=1; _o=""; while [ "$_i" -le "$1" ]; do _o="$_o $_i"; _i=$((_i + 1)); done; echo $_o; }
cores() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN; }
# shell_quote WORD: WORD in single quotes, for a line that `eval "set -- LINE"` splits back.
shell_quote() { printf "'%s' " "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
# wait_pid PID: wait until the child PID exits, also when a trapped signal interrupts the wait.
wait_pid() { while kill -0 "$1" 2>/dev/null; do wait "$1" || :; done; }

# each_claimed PLAN N WORKERS CLAIMS COMMAND: WORKERS processes at once, each taking the next
# of the N tasks (lines of PLAN) nobody has claimed (mkdir CLAIMS/I is atomic) and running
# COMMAND PLAN I, until none is left; a failed task does not stop its worker. A worker whose
# script has died (killed) claims nothing more: a later call does the rest.
each_claimed() {
    for _w in $(seq_list "$3"); do
        (
            _i=1
            while [ $_i -le "$2" ] && kill -0 $$ 2>/dev/null; do
                if mkdir "$4/$_i" 2>/dev/null; then "$5" "$1" $_i || :; fi
                _i=$((_i + 1))
            done
        ) &
    done
    wait
}

# checkpoint_step FILE: the training step of the checkpoint FILE (from its header), or nothing.
checkpoint_step() {
    _hl=$(od -An -tu8 -N8 "$1" 2>/dev/null | tr -d ' ')
    case "$_hl" in ''|*[!0-9]*) return 0 ;; esac
    [ "$_hl" -le 104857600 ] || return 0
    head -c $((8 + _hl)) "$1" | tr -c '[:print:]' '\n' | sed -n 's/.*"step":"\([0-9]*\)".*/\1/p' | head -n 1
}

# run_finished DIR STEPS: DIR holds the finished run: a checkpoint of step STEPS with its
# validation row, or a stop row saying that train.until or train.patience stopped it at the
# checkpoint's step (one stopped at a lower ceiling is resumed up to STEPS). The trainer logs a
# step's rows before it saves its checkpoint: a run killed in between is not finished.
run_finished() {
    [ -f "$1/model.safetensors" ] || return 1
    awk -F, -v s="$2" -v ck="$(checkpoint_step "$1/model.safetensors")" '
        ck != "" && (($1 == s && $2 == "val" && ck == s) ||
                     (($2 == "converged" || $2 == "patience") && $1 == ck)) { f = 1 }
        END { exit !f }' "$1/log.csv" 2>/dev/null
}

# train_run DIR STEPS CONFIG [overrides...]: one training for run_trainings to do, unless DIR
# holds the finished run (a call killed before train_task moved DIR.train.out in: moved now).
train_run() {
    if run_finished "$1" "$2"; then
        [ ! -f "$1.train.out" ] || mv "$1.train.out" "$1/train.out"
        say "reuse  $1 (step $2)"; return 0
    fi
    for _w in "$@"; do shell_quote "$_w"; done >>"$RUN_PLAN"
    echo >>"$RUN_PLAN"
}

# watch_driver PID: in the background, stop the training PID with SIGTERM (it saves a checkpoint
# and exits) once this script has died; prints the watcher's pid, for train_task to end it.
watch_driver() {
    ( while kill -0 $$ 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done
      kill -0 $$ 2>/dev/null || kill -TERM "$1" 2>/dev/null ) >/dev/null 2>&1 &
    echo $!
}

# train_task DIR STEPS CONFIG [overrides...]: train DIR, resumed from its checkpoint if it has
# one (a signal, a crash), else afresh; output in DIR/train.out; 1 if the run did not finish.
train_task() {
    _dir=$1; _steps=$2; _cfg=$3; shift 3
    _resume=""
    if [ -f "$_dir/model.safetensors" ]; then _resume="train.resume=$_dir"; say "resume $_dir"
    else rm -rf "$_dir" "$_dir.train.out"; fi
    mkdir -p "$(dirname "$_dir")"
    kill -0 $$ 2>/dev/null || return 1   # the script died meanwhile: start nothing
    _t0=$(now)
    # shellcheck disable=SC2086 # RUN_THREADS and _resume are one word or none
    "$BIN_DIR/train" "$_cfg" run.out_dir="$(dirname "$_dir")" run.name="$(basename "$_dir")" \
        train.steps="$_steps" "$@" $RUN_THREADS $_resume >>"$_dir.train.out" 2>&1 &
    TRAIN_PID=$!
    _watch=$(watch_driver $TRAIN_PID)
    wait_pid $TRAIN_PID
    kill "$_watch" 2>/dev/null || :
    TRAIN_PID=""
    if ! run_finished "$_dir" "$_steps"; then
        tail -n 5 "$_dir.train.out" >&2
        echo "$0: training $_dir failed (output: $_dir.train.out; command: $BIN_DIR/train $_cfg train.steps=$_steps $* $RUN_THREADS $_resume)" >&2
        return 1
    fi
    mv "$_dir.train.out" "$_dir/train.out"
    say "train  $_dir: $(( $(now) - _t0 )) s"
}

# task_run FILE N: train_task with the words of line N of FILE (a plan that train_run wrote).
task_run() {
    _line=$(sed -n "$2p" "$1")
    [ -n "$_line" ] || die "$1 has no task $2"
    eval "train_task $_line"
}

# run_lock OUT: one call at a time works in OUT: OUT/.lock holds the pid of the call training
# there (of two at once, one takes it); a dead one's is taken over. Then call_claim.
run_lock() {
    mkdir -p "$1"
    if ! mkdir "$1/.lock" 2>/dev/null; then
        _holder=$(cat "$1/.lock/pid" 2>/dev/null || :)
        if [ -n "$_holder" ] && [ "$_holder" != $$ ] && kill -0 "$_holder" 2>/dev/null; then
            die "$1 is in use: process $_holder is training there (another call of this or another script); wait for it, or give this call another --out"
        fi
        rm -rf "$1/.lock"; mkdir "$1/.lock" || die "cannot lock $1"
    fi
    echo $$ >"$1/.lock/pid"
    call_claim "$1"
}

# call_processes OUT: "PID CALL" for each process (but this call's) that a call into OUT
# started, CALL being that call's pid (read from /proc/*/environ; none where there is no /proc).
call_processes() {
    grep -lsazxF "TF_CALL_OUT=$1" /proc/[0-9]*/environ 2>/dev/null | while read -r _env; do
        _p=${_env#/proc/}; _p=${_p%/environ}
        _c=$(tr '\0' '\n' 2>/dev/null <"$_env" | sed -n 's/^TF_CALL_PID=//p')
        [ -z "$_c" ] || [ "$_c" = $$ ] || echo "$_p $_c"
    done
}

# call_claim OUT: every process a call starts carries TF_CALL_OUT=OUT and TF_CALL_PID=its pid.
# Finding processes of another live call in OUT stops with a message; those a killed call left
# get SIGTERM (a training saves a checkpoint) and are waited for.
call_claim() {
    _abs=$(cd "$1" && pwd -P)
    _tries=0
    while _left=$(call_processes "$_abs") && [ -n "$_left" ]; do
        while read -r _p _c; do
            if kill -0 "$_c" 2>/dev/null; then
                rm -rf "$1/.lock"
                die "$1 is in use: process $_c is working there (another call of this or another script); wait for it, or give this call another --out"
            fi
            kill -TERM "$_p" 2>/dev/null || :
        done <<EOT
$_left
EOT
        [ $_tries -gt 0 ] || say "stopping what a killed call left running in $1"
        _tries=$((_tries + 1))
        [ $_tries -le 600 ] || die "processes of a killed call still run in $1 after 60 s: $(echo "$_left" | cut -d' ' -f1 | tr '\n' ' ')"
        sleep 0.1
    done
    rm -rf "$1/.claims" "$1/.eval_claims" "$1/.eval_plan"   # a killed call's (its plan is rewritten)
    export TF_CALL_OUT="$_abs" TF_CALL_PID=$$
}

# run_trainings FUNCTION OUT: FUNCTION calls train_run for every training; do those not yet
# finished as the options say (Slurm files in OUT/slurm/). Returns once all are finished, else
# stops with the count of failed ones (run the script again to retry them).
run_trainings() {
    [ "$tables" = 0 ] || return 0
    if [ $run_slurm = 1 ]; then
        [ "$run_jobs_given" = 0 ] || [ "$run_jobs" = 1 ] || die "--jobs and --slurm do not go together: choose this machine or the cluster"
        call_claim "$2"; slurm_trainings "$@"; return
    fi
    [ $run_wait = 1 ] && [ -z "$run_sbatch_args" ] || die "--no-wait and --sbatch-args go with --slurm"
    # Never train here what a Slurm job may be training into the same folders.
    [ ! -f "$2/slurm/job" ] || die "Slurm job $(cut -d' ' -f1 "$2/slurm/job") of an earlier --slurm call may still be training these runs: collect it with --slurm (or scancel it and remove $2/slurm/job)"
    run_lock "$2"
    RUN_PLAN=$2/.plan; : >"$RUN_PLAN"; "$1"
    _n=$(wc -l <"$RUN_PLAN")
    [ "$_n" -gt 0 ] || { rm -f "$RUN_PLAN"; rm -rf "$2/.lock"; return 0; }
    _workers=$run_jobs
    if [ "$run_jobs" -gt 1 ]; then
        _t=$(( $(cores) / run_jobs )); RUN_THREADS="run.threads=$(( _t > 0 ? _t : 1 ))"
        [ "$_workers" -gt "$_n" ] && _workers=$_n
        say "$_n trainings, $_workers at once, $RUN_THREADS each"
    fi
    _claims=$2/.claims; rm -rf "$_claims"; mkdir -p "$_claims"
    each_claimed "$RUN_PLAN" "$_n" "$_workers" "$_claims" task_run
    rm -rf "$_claims"
    : >"$RUN_PLAN"; "$1" >/dev/null
    _left=$(wc -l <"$RUN_PLAN")
    rm -f "$RUN_PLAN"; rm -rf "$2/.lock"
    [ "$_left" -eq 0 ] || die "$_left of $_n trainings failed (see above); run the same command again to retry them (they resume from their last checkpoint)"
}
