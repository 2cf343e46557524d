#!/bin/sh
# A kill storm on a real study. The study runs while SIGKILL and SIGTERM hit, at random moments
# (a seeded generator picks the pauses, kinds and signals), a random training, evaluation or the
# study's own script; the script is started again each time it dies, until the study completes.
# Then the study's folder must equal an undisturbed run's, file for file, and nothing may be
# left over or retrained. Prints `ok`/`FAIL` lines (tests/run.sh counts them) and `#` figures.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
. scripts/lib.sh

usage() {
    cat <<'EOT'
usage: tests/storm.sh [--study dog|extrapolate] [--signals N] [--seed S] [--slurm]
                      [--work DIR] [--report FILE]

Runs the study once undisturbed (DIR/ref), then again in DIR/study under a storm of at least
N signals (default 50; seed S, default 1), restarting its script each time it dies, and
checks that:
  - every file of the folder is byte-identical to the undisturbed run's, except the fields that
    are wall or CPU time by nature: results.md's "wall time" line, each run's train.out (the
    trainer's console output: seconds and tokens/s) and compute.csv (one row per invocation
    with its seconds; its last row's last_step and stop are compared);
  - no file is left that the undisturbed run lacks (temporary, partial, lock, plan), nothing is
    left in TMPDIR and no process of the study still runs;
  - no finished run was trained again: the inode and modification time of its checkpoint,
    log.csv and config.ini stay as they were when it was first seen finished.
  --study   dog: scripts/dog_bites_man.sh --quick (9 trainings, evaluations, permute, plots)
            extrapolate: scripts/extrapolate.sh --quick --views 1 --schemes "rope alibi"
            (2 trainings, 4 evaluations run 2 at once); default dog
  --slurm   the study's trainings go to Slurm (--slurm; SLURM_CONF must name a running
            cluster) and a storm signal to a training is `scancel` of a random running task;
            otherwise the study runs with --jobs 2
  --report FILE   also write the figures as Markdown to FILE
Tools come from BIN_DIR (default build/opt/bin). Every process it starts runs under nice -n 10.
EOT
}

study=dog; signals=50; seed=1; slurm=0; work=""; report=""
while [ $# -gt 0 ]; do
    case "$1" in
        --study) study=${2:?}; shift ;;
        --signals) signals=${2:?}; shift ;;
        --seed) seed=${2:?}; shift ;;
        --slurm) slurm=1 ;;
        --work) work=${2:?}; shift ;;
        --report) report=${2:?}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
    shift
done
case "$signals$seed" in *[!0-9]*) usage >&2; exit 2 ;; esac
case $study in
    dog) script="scripts/dog_bites_man.sh --quick" ;;
    extrapolate) script="scripts/extrapolate.sh --quick --views 1 --schemes rope,alibi" ;;
    *) usage >&2; exit 2 ;;
esac
W=${work:-$TMP/storm}
rm -rf "$W"; mkdir -p "$W/tmp"
W=$(cd "$W" && pwd -P)
S=$W/study
export TMPDIR=$W/tmp BIN_DIR
if [ $slurm = 1 ]; then where="--slurm"; else where="--jobs 2"; fi

# run_study LOG: one call of the study's script in the background (its pid in $driver).
run_study() {
    # shellcheck disable=SC2086 # the script's words
    if [ $study = extrapolate ]; then
        nice -n 10 scripts/extrapolate.sh --quick --views 1 --schemes "rope alibi" $where --out "$S" >>"$1" 2>&1 &
    else
        nice -n 10 $script $where --out "$S" >>"$1" 2>&1 &
    fi
    driver=$!
}

# ---- the undisturbed run, made in the same folder as the storm's (paths are recorded in the
# runs' config.ini and checkpoints), then moved aside
t0=$(now)
run_study "$W/ref.log"
wait $driver || { fail storm_reference "exit $?: $(tail -n 3 "$W/ref.log")"; exit 0; }
mv "$S" "$W/ref"
ref_s=$(( $(now) - t0 ))

# ---- the storm
rnd=$seed
# random N: sets r to a number in 0..N-1 (in this shell: no $(...), which would lose the state)
random() { rnd=$(( (rnd * 1103515245 + 12345) % 2147483648 )); r=$(( rnd / 65536 % $1 )); }
# pids KIND: the running trainings or evaluations (./eval, ./permute) of the study: processes
# with the study's folder in their arguments, by the name of the program they run.
pids() {
    pgrep -f -- "$S" | while read -r p; do
        a0=$(tr '\0' '\n' 2>/dev/null <"/proc/$p/cmdline" | head -n 1)
        case "$1:${a0##*/}" in training:train|evaluation:eval|evaluation:permute) echo "$p" ;; esac
    done
}
# slurm_tasks: the running array tasks of the study's job (job_task ids).
slurm_tasks() {
    [ -f "$S/slurm/job" ] || return 0
    squeue -h -r -t R -j "$(cut -d' ' -f1 "$S/slurm/job")" -o %i 2>/dev/null
}
# finished runs: the first time a run's checkpoint holds its last step, record what must not
# change any more
steps_of() { if [ $study = dog ]; then echo 150; else echo 20; fi; }
note_finished() {
    for r in "$S"/runs/*/; do
        r=${r%/}
        [ -f "$r/model.safetensors" ] || continue
        grep -q "^${r##*/} " "$W/finished" 2>/dev/null && continue
        [ "$(checkpoint_step "$r/model.safetensors")" = "$(steps_of)" ] || continue
        echo "${r##*/} $(cd "$r" && stat -c '%n:%i:%y' model.safetensors log.csv config.ini | tr '\n' ' ')" >>"$W/finished"
    done
}
# check_round: the study just completed; every way its folder differs from the undisturbed
# run's goes into $W/problems as "CHECK: what" (checked once more at the end).
rounds=0; compared=0; watched=0
check_round() {
    rounds=$((rounds + 1))
    (cd "$W/ref" && find . -path ./slurm -prune -o -print | sort) >"$W/ref.files"
    (cd "$S" && find . -path ./slurm -prune -o -print | sort) >"$W/study.files"
    diff "$W/ref.files" "$W/study.files" | sed -n 's/^< /missing: /p; s/^> /left over: /p' |
        sed 's/^/files: /' >>"$W/problems"
    while read -r f; do
        [ -f "$W/ref/$f" ] && [ -f "$S/$f" ] || continue
        compared=$((compared + 1))
        case $f in
            */train.out) same=y ;;
            */compute.csv) same=$([ "$(tail -n 1 "$W/ref/$f" | cut -d, -f2,3)" = "$(tail -n 1 "$S/$f" | cut -d, -f2,3)" ] && echo y) ;;
            ./results.md) same=$([ "$(grep -v '^wall time' "$W/ref/$f")" = "$(grep -v '^wall time' "$S/$f")" ] && echo y) ;;
            *) same=$(cmp -s "$W/ref/$f" "$S/$f" && echo y) ;;
        esac
        [ -n "$same" ] || echo "differ: $f" >>"$W/problems"
    done <"$W/ref.files"
    for f in "$W"/tmp/* "$W"/tmp/.[!.]*; do [ ! -e "$f" ] || echo "tmpdir: ${f##*/}" >>"$W/problems"; done
    rm -rf "$W/tmp"/* "$W"/tmp/.[!.]*
    sleep 1
    for p in $(pids training) $(pids evaluation); do echo "process: $p" >>"$W/problems"; done
    while read -r run stats; do
        watched=$((watched + 1))
        now_stats=$(cd "$S/runs/$run" 2>/dev/null && stat -c '%n:%i:%y' model.safetensors log.csv config.ini | tr '\n' ' ')
        [ "$stats" = "$(echo "$now_stats" | sed 's/ $//')" ] || echo "retrained: $run" >>"$W/problems"
    done <"$W/finished"
}

: >"$W/finished"; : >"$W/sent"; : >"$W/problems"
sent=0; restarts=0; want=""; t0=$(now)
run_study "$W/storm.log"
while :; do
    random 300; sleep "$(printf '0.%03d' $(( 50 + r )))"
    note_finished
    if [ "$(proc_state $driver)" = Z ] || ! kill -0 $driver 2>/dev/null; then
        wait $driver; rc=$?
        if [ $rc -eq 0 ]; then
            check_round
            [ $sent -lt "$signals" ] || break
            # done before enough signals: the study again, from nothing
            echo "round: the study completed after $sent signals" >>"$W/sent"
            rm -rf "$S"; : >"$W/finished"
        fi
        restarts=$((restarts + 1))
        run_study "$W/storm.log"
        continue
    fi
    [ $sent -lt "$signals" ] || continue
    # The next signal's kind, at random: a training or an evaluation (2 in 5 each) or the script
    # (1 in 5). Once something of that kind runs, each poll signals it with probability 1/3,
    # so the moment falls at random in its life.
    if [ -z "$want" ]; then
        random 5
        case $r in 0|1) want=training ;; 2|3) want=evaluation ;; 4) want=driver ;; esac
        [ $slurm = 0 ] || [ $want != training ] || want=slurm_task
    fi
    case $want in
        driver) targets=$driver ;;
        slurm_task) targets=$(slurm_tasks) ;;
        *) targets=$(pids "$want") ;;
    esac
    [ -n "$targets" ] || continue
    random 3; [ $r = 0 ] || continue
    set -- $targets; random $#; shift $r; target=$1
    if [ $want = slurm_task ]; then sig=scancel; scancel "$target" 2>/dev/null || continue
    else
        random 2; if [ $r = 0 ]; then sig=KILL; else sig=TERM; fi
        kill -s $sig "$target" 2>/dev/null || continue
    fi
    sent=$((sent + 1))
    echo "$want $sig $target" >>"$W/sent"
    want=""
done
storm_s=$(( $(now) - t0 ))

# ---- the checks
by() { grep -c "^$1 $2 " "$W/sent"; }
echo "# $study$([ $slurm = 1 ] && echo ' (Slurm)'): $sent signals in $storm_s s, $restarts restarts of the script, $rounds round(s) (undisturbed: $ref_s s)"
for k in training slurm_task evaluation driver; do
    n=$(grep -c "^$k " "$W/sent")
    [ "$n" -gt 0 ] && echo "#   $k: $n ($(by $k KILL) SIGKILL, $(by $k TERM) SIGTERM$([ $k = slurm_task ] && echo ", $(by $k scancel) scancel"))"
done
echo "#   $compared files compared, $watched finished runs watched from their end on"
[ "$sent" -ge "$signals" ] && ok storm_signals_sent || fail storm_signals_sent "$sent of $signals"
verdict() {   # NAME CHECK: ok if $W/problems has no CHECK line
    if grep -q "^$2: " "$W/problems"; then fail "$1" "$(grep "^$2: " "$W/problems" | head -n 5 | tr '\n' ' ')"
    else ok "$1"; fi
}
verdict storm_results_identical differ
verdict storm_no_file_missing_or_left_over files
verdict storm_nothing_left_in_tmpdir tmpdir
verdict storm_no_process_left process
verdict storm_nothing_retrained retrained
differ=$(grep -c '^differ: ' "$W/problems"); left=$(grep -c '^files: ' "$W/problems")
retrained=$(grep -c '^retrained: ' "$W/problems")

if [ -n "$report" ]; then
    {
        echo "## Kill storm: $study$([ $slurm = 1 ] && echo ', Slurm')"
        echo
        echo "Command: \`tests/storm.sh --study $study --signals $signals --seed $seed$([ $slurm = 1 ] && echo ' --slurm')\`."
        provenance
        echo
        echo "| figure | value |"
        echo "| --- | ---: |"
        echo "| signals sent | $sent |"
        for k in training slurm_task evaluation driver; do
            for s in KILL TERM scancel; do
                n=$(by $k $s); [ "$n" -gt 0 ] && echo "| $k, $([ $s = scancel ] && echo scancel || echo SIG$s) | $n |"
            done
        done
        echo "| restarts of the script | $restarts |"
        echo "| rounds (the study from nothing) | $rounds |"
        echo "| storm wall time, s | $storm_s |"
        echo "| undisturbed wall time, s | $ref_s |"
        echo "| files compared | $compared |"
        echo "| files that differ | $differ |"
        echo "| files left over or missing, in the folder or TMPDIR | $left + $(grep -c '^tmpdir: ' "$W/problems") |"
        echo "| processes left running | $(grep -c '^process: ' "$W/problems") |"
        echo "| finished runs trained again | $retrained of $watched |"
    } >>"$report"
fi
