# Stopping is not losing: SIGTERM (Slurm's time limit, `kill`) or SIGINT (Ctrl-C) in the middle
# of a run makes ./train finish the step, save a checkpoint of it, print the command that
# resumes it and exit with 128 + the signal number; that command ends with the log.csv of an
# unbroken run. A second signal stops at once.
. tests/lib.sh
# No checkpoint before the last step (ckpt_every > steps): one left behind came from the signal.
tiny_config "$TMP/sig.ini" steps=600 ckpt_every=5000 log_every=10 eval_every=100
"$TRAIN" "$TMP/sig.ini" run.name=ref >"$TMP/ref.out" 2>&1 || fail signal_reference "$(tail -c 300 "$TMP/ref.out")"

# wait_for_row DIR STEP PID: until DIR/log.csv holds the train row of STEP (or PID exited).
wait_for_row() {
    while kill -0 "$3" 2>/dev/null; do
        grep -q "^$2,train," "$1/log.csv" 2>/dev/null && return 0
        sleep 0.02
    done
    return 1
}

# The signal is sent once step 50 is logged, so the run stops at a step in 50..599.
for sig in TERM INT; do
    name=sig_$sig; dir=$RUNS/$name
    case $sig in TERM) code=143 ;; INT) code=130 ;; esac
    "$TRAIN" "$TMP/sig.ini" run.name=$name >"$TMP/$name.out" 2>"$TMP/$name.err" &
    pid=$!
    if ! wait_for_row "$dir" 50 $pid; then fail "signal_${sig}_stops_mid_run" "the run ended before step 50"; continue; fi
    kill -$sig $pid
    wait $pid
    rc=$?
    line=$(cat "$TMP/$name.err")
    step=$(echo "$line" | sed -n "s/^stopped by SIG$sig after step \([0-9]*\) (checkpoint .*); resume with: .*/\1/p")
    if [ $rc -ne $code ] || [ -z "$step" ] || [ "$(wc -l <"$TMP/$name.err")" -ne 1 ] || [ "$step" -ge 600 ]; then
        fail "signal_${sig}_stops_mid_run" "exit $rc (want $code), stderr: $(head -c 300 "$TMP/$name.err")"; continue
    fi
    ok "signal_${sig}_stops_mid_run"
    # The printed command, run with the tools under test: it must start from that very step.
    resume_cmd=$(echo "$line" | sed 's/.*resume with: \.\/train //')
    # shellcheck disable=SC2086
    "$TRAIN" $resume_cmd >"$TMP/$name.resume" 2>&1 || fail "signal_${sig}_resumes" "$(tail -c 300 "$TMP/$name.resume")"
    if grep -q "^resumed from $dir/model.safetensors at step $step$" "$TMP/$name.resume"; then
        ok "signal_${sig}_checkpoint_at_current_step"
    else fail "signal_${sig}_checkpoint_at_current_step" "stopped after step $step; $(grep resumed "$TMP/$name.resume")"; fi
    if cmp -s "$RUNS/ref/log.csv" "$dir/log.csv"; then ok "signal_${sig}_resumed_log_identical"
    else fail "signal_${sig}_resumed_log_identical" "$(diff "$RUNS/ref/log.csv" "$dir/log.csv" | head -4 | tr '\n' ' ')"; fi
    if ls "$dir" | grep -q '\.tmp'; then fail "signal_${sig}_no_temporaries" "$(ls "$dir" | tr '\n' ' ')"
    else ok "signal_${sig}_no_temporaries"; fi
done

# A second signal stops at once. Both are queued while the trainer is stopped (SIGSTOP), so both
# arrive before it runs another instruction of the step: one handler flags the first, the other
# finds it flagged and dies by its own signal (130 or 143; Linux nests the two handlers, so which
# is "second" is the kernel's choice), with no stop line and no checkpoint. One thread
# (tiny_config), so no second thread can race the first handler.
dir=$RUNS/twice
"$TRAIN" "$TMP/sig.ini" run.name=twice >"$TMP/twice.out" 2>"$TMP/twice.err" &
pid=$!
if wait_for_row "$dir" 50 $pid; then
    kill -STOP $pid; kill -INT $pid; kill -TERM $pid; kill -CONT $pid
    wait $pid
    rc=$?
    if { [ $rc -eq 130 ] || [ $rc -eq 143 ]; } && [ ! -s "$TMP/twice.err" ] && [ ! -e "$dir/model.safetensors" ]; then ok signal_second_stops_at_once
    else fail signal_second_stops_at_once "exit $rc, stderr: $(head -c 200 "$TMP/twice.err"), $(ls "$dir" | tr '\n' ' ')"; fi
else
    fail signal_second_stops_at_once "the run ended before step 50"
fi
