#!/bin/sh
# A kill storm on a real study. The study runs while SIGKILL and SIGTERM hit, at random moments
# (a seeded generator picks the pauses, kinds and signals), a random training, evaluation or the
# study's own script; the script is started again each time it dies, until the study completes.
# Then the study's folder must equal an undisturbed run's, file for file, and nothing may be
# left over or retrained. Prints `ok`/`FAIL` lines (tests/run.sh counts them) and `#` figures.
set -u
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
. scripts/lib.sh

usage() {
    cat <<'EOT'
usage: tests/storm.sh [--study dog|extrapolate] [--signals N] [--seed S] [--slurm]
                      [--disk N] [--work DIR] [--report FILE]

Runs the study once undisturbed (DIR/ref), then again in DIR/study under a storm of at least
N signals (default 50, or none with --disk; seed S, default 1), restarting its script each
time it dies, and checks that:
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
  --disk N  first (before any signal) the study runs N times on a tmpfs (root) that fills, run k < N
            with room for k/N of what the undisturbed run writes, run N for all but its last
            24 KiB (the results' files). Each must stop with a
            message naming a file and "No space left on device"; the same command with room
            must then finish, with the checks above (skipped without root or tmpfs)
  --report FILE   also write the figures as Markdown to FILE
Tools come from BIN_DIR (default build/opt/bin). Every process it starts runs under nice -n 10.
EOT
}

study=dog; signals=""; seed=1; slurm=0; disk=0; work=""; report=""
while [ $# -gt 0 ]; do
    case "$1" in
        --study) study=${2:?}; shift ;;
        --signals) signals=${2:?}; shift ;;
        --seed) seed=${2:?}; shift ;;
        --slurm) slurm=1 ;;
        --disk) disk=${2:?}; shift ;;
        --work) work=${2:?}; shift ;;
        --report) report=${2:?}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
    shift
done
[ -n "$signals" ] || if [ "$disk" -gt 0 ]; then signals=0; else signals=50; fi
case "$signals$seed$disk" in *[!0-9]*) usage >&2; exit 2 ;; esac
case $study in dog|extrapolate) ;; *) usage >&2; exit 2 ;; esac
W=${work:-$TMP/storm}
rm -rf "$W"; mkdir -p "$W/tmp"
W=$(cd "$W" && pwd -P)
S=$W/study
export TMPDIR=$W/tmp BIN_DIR
where="--jobs 2"
if [ $slurm = 1 ]; then
    . tests/slurm_cluster.sh
    if why=$(slurm_missing); then skip storm_slurm "$why"; exit 0; fi
    trap 'slurm_stop; rm -rf "$TMP"' EXIT
    slurm_start "$W/slurm" >"$W/slurm_start.out" || { fail storm_slurm_cluster_starts "$(cat "$W/slurm_start.out")"; exit 0; }
    # the reference trains with one thread a run, as each Slurm task does (1 CPU)
    where="--jobs $(cores)"
fi

# run_study LOG: one call of the study's script in the background (its pid in $driver).
run_study() {
    # shellcheck disable=SC2086 # $where is two words or one
    if [ $study = extrapolate ]; then
        nice -n 10 scripts/extrapolate.sh --quick --views 1 --schemes "rope alibi" $where --out "$S" >>"$1" 2>&1 &
    else
        nice -n 10 scripts/dog_bites_man.sh --quick $where --out "$S" >>"$1" 2>&1 &
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
[ $slurm = 0 ] || where="--slurm"

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

# verdict NAME CHECK: ok NAME if $W/problems has no CHECK line, else FAIL with them
verdict() {
    if grep -q "^$2: " "$W/problems"; then fail "$1" "$(grep "^$2: " "$W/problems" | head -n 5 | tr '\n' ' ')"
    else ok "$1"; fi
}

# ---- a full disk: the study on a tmpfs too small for it, then again with room
if [ "$disk" -gt 0 ]; then
    : >"$W/finished"; : >"$W/problems"; : >"$W/stops"
    mkdir -p "$S"
    if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=64m tmpfs "$S" 2>/dev/null; then
        skip storm_disk_full "cannot mount a tmpfs here (needs root)"; disk=0
    else   # what the undisturbed run's files take on the tmpfs (du elsewhere counts otherwise)
        cp -Rp "$W/ref/." "$S/"; need=$(df -k "$S" | awk 'NR == 2 { print $3 }')
    fi
fi
if [ "$disk" -gt 0 ]; then
    trap 'umount "$S" 2>/dev/null; rm -rf "$TMP"' EXIT
    k=1
    while [ "$k" -le "$disk" ]; do
        rm -rf "${S:?}"/* "${S:?}"/.[!.]*
        # the last run with room for all but the last few files (the results), the others
        # spread evenly below it
        if [ "$k" -eq "$disk" ]; then room=$(( need - 24 )); else room=$(( need * k / disk )); fi
        mount -o remount,size=${room}k "$S"
        run_study "$W/disk$k.log"; wait $driver; rc=$?
        note_finished
        msg=$(grep -m 1 "$S/[^ ]*.*No space left on device" "$W/disk$k.log")
        if [ $rc -ne 0 ] && [ -n "$msg" ]; then echo "$k ${room} KiB: $msg" >>"$W/stops"
        else echo "stop: run $k (${room} KiB): exit $rc, no message naming a file: $(tail -n 2 "$W/disk$k.log" | tr '\n' ' ')" >>"$W/problems"; fi
        mount -o remount,size=64m "$S"
        run_study "$W/disk$k.again.log"; wait $driver; rc=$?
        [ $rc -eq 0 ] || echo "again: run $k: exit $rc: $(tail -n 2 "$W/disk$k.again.log" | tr '\n' ' ')" >>"$W/problems"
        check_round
        : >"$W/finished"
        k=$((k + 1))
    done
    umount "$S"
    echo "# $study on a full disk: $disk runs, room for $(sed 's/^[0-9]* \([0-9]*\) KiB.*/\1/' "$W/stops" | tr '\n' ' ')KiB of the $need KiB it writes (undisturbed: $ref_s s)"
    sed 's/^/#   stopped: /' "$W/stops"
    echo "#   $compared files compared, $watched finished runs watched"
    verdict storm_disk_full_stops_naming_the_file stop
    verdict storm_disk_freed_same_command_finishes again
    verdict storm_disk_results_identical differ
    verdict storm_disk_no_file_missing_or_left_over files
    verdict storm_disk_nothing_retrained retrained
    if [ -n "$report" ]; then
        {
            echo "## Full disk: $study"
            echo
            echo "Command: \`tests/storm.sh --study $study --disk $disk\`."
            provenance
            echo
            echo "| run | room | the message it stopped with |"
            echo "| ---: | ---: | --- |"
            sed "s|$S/|OUT/|g; s/^\([0-9]*\) \([0-9]*\) KiB: /\1 \2 /" "$W/stops" |
                awk '{ k = $1; r = $2; $1 = $2 = ""; sub(/^ +/, ""); printf "| %s | %s KiB | `%s` |\n", k, r, $0 }'
            echo
            echo "Then with room: $(grep -c '^again: ' "$W/problems") of $disk calls failed; $compared files compared, $(grep -c '^differ: ' "$W/problems") differ; $(grep -c '^files: ' "$W/problems") left over or missing; $(grep -c '^retrained: ' "$W/problems") of $watched finished runs trained again."
            echo
        } >>"$report"
    fi
    [ "$signals" -gt 0 ] || exit 0
    rm -rf "$S"; rounds=0; compared=0; watched=0
fi

: >"$W/finished"; : >"$W/sent"; : >"$W/problems"
sent=0; restarts=0; want=""; idle=0; t0=$(now)
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
    # (1 in 5), drawn again after 5 polls without one running. Once something of that kind
    # runs, each poll signals it with probability 1/3, so the moment falls at random in its life.
    if [ -z "$want" ] || [ $idle -ge 5 ]; then
        idle=0
        random 5
        case $r in 0|1) want=training ;; 2|3) want=evaluation ;; 4) want=driver ;; esac
        [ $slurm = 0 ] || [ $want != training ] || want=slurm_task
    fi
    case $want in
        driver) targets=$driver ;;
        slurm_task) targets=$(slurm_tasks) ;;
        *) targets=$(pids "$want") ;;
    esac
    [ -n "$targets" ] || { idle=$((idle + 1)); continue; }
    idle=0
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
        echo
    } >>"$report"
fi
