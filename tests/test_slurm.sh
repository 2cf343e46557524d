# The experiment scripts' --slurm against a real Slurm: a single-node cluster (munged,
# slurmctld, slurmd, all started here as root with their files in $TMP and stopped by pid at
# the end) runs `scripts/dog_bites_man.sh --quick --slurm`. Every array task runs, the results
# equal a local run byte for byte, a task cancelled mid-run is reported with its Slurm log and
# resubmitted by the next call, resuming from its checkpoint, and --slurm without a reachable
# controller stops with one line. Skipped where Slurm is not installed or we are not root.
. tests/lib.sh
. tests/slurm_cluster.sh
if why=$(slurm_missing); then skip slurm "$why"; exit 0; fi

# ------------------------------------------------------------------------------ the cluster
S=$TMP/slurm
trap 'slurm_stop; rm -rf "$TMP"' EXIT
if ! slurm_start "$S" >"$TMP/slurm_start.out"; then fail slurm_cluster_starts "$(cat "$TMP/slurm_start.out")"; exit 0; fi
ok slurm_cluster_starts

# ------------------------------------------------------------------------------ the reference
scripts/dog_bites_man.sh --quick --out "$TMP/local" >"$TMP/local.out" 2>&1 || fail slurm_local_reference "$(tail -n 3 "$TMP/local.out")"

# ------------------------------------------------------------------------------ a whole run
n=$("$TRAIN" --list-schemes | wc -l)   # --quick: one seed, so one training (array task) per scheme
O=$TMP/slurm_run
if scripts/dog_bites_man.sh --quick --slurm --out "$O" >"$TMP/s1.out" 2>"$TMP/s1.err"; then
    job=$(sed -n "s/.*submitted Slurm job \([0-9]*\): $n trainings.*/\1/p" "$TMP/s1.out")
    ran=0
    for i in $(awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) print i }'); do grep -q "^\[.*\] train  $O/runs/" "$O/slurm/${job}_$i.out" 2>/dev/null && ran=$((ran + 1)); done
    if [ -n "$job" ] && [ $ran -eq "$n" ]; then ok slurm_array_ran_every_task
    else fail slurm_array_ran_every_task "job '$job', $ran of $n task logs show a training: $(head -c 300 "$TMP/s1.out")"; fi
    if why=$(same_results "$TMP/local" "$O"); then ok slurm_results_equal_local_run; else fail slurm_results_equal_local_run "$why"; fi
else
    fail slurm_array_ran_every_task "exit $?: $(tail -n 3 "$TMP/s1.err")"
fi

# ------------------------------------------------------------------------------ scancel mid-run
# The tools through a wrapper whose first training of rope-s1 stops itself (SIGSTOP,
# TF_PAUSE_AT=step:2) at the start of step 2 of 150, so that the cancel comes mid-run whatever
# the load: scancel's SIGCONT and SIGTERM then make the trainer finish its step, save a
# checkpoint and exit 143. The premise is checked, not assumed: the run is stopped, has logged
# step 1 and holds no checkpoint yet (the config saves one at step 800 only). Any resumed
# training goes straight to ./train.
W=$TMP/wrapped; mkdir -p "$W"
for tool in eval permute plot table; do ln -s "$PWD/$BIN_DIR/$tool" "$W/$tool"; done
cat >"$W/train" <<EOT
#!/bin/sh
case " \$* " in *" run.name=rope-s1 "*)
    case " \$* " in *" train.resume="*) ;; *)
        for a in "\$@"; do case \$a in run.out_dir=*) dir=\${a#*=}/rope-s1 ;; esac; done
        TF_PAUSE_AT=step:2 "$PWD/$BIN_DIR/train" "\$@" &
        pid=\$!
        while :; do   # until it has stopped itself (state T) or ended
            state=\$(sed 's/.*) //' /proc/\$pid/stat 2>/dev/null | cut -d' ' -f1)
            case \$state in T|Z|X|'') break ;; esac
            sleep 0.1
        done
        if [ "\$state" != T ] || [ -e "\$dir/model.safetensors" ] || ! grep -q '^1,train,' "\$dir/log.csv" 2>/dev/null; then
            touch "$TMP/missed"
        else touch "$TMP/held"; fi
        wait \$pid
        exit \$? ;;
    esac ;;
esac
exec "$PWD/$BIN_DIR/train" "\$@"
EOT
chmod +x "$W/train"
O=$TMP/cancel_run
BIN_DIR=$W scripts/dog_bites_man.sh --quick --slurm --no-wait --out "$O" >"$TMP/c1.out" 2>&1
job=$(sed -n "s/.*submitted Slurm job \([0-9]*\): $n trainings.*/\1/p" "$TMP/c1.out")
task=$(grep -n "rope-s1" "$O"/slurm/plan-*.tasks 2>/dev/null | cut -d: -f1)
if [ -z "$job" ] || [ -z "$task" ]; then fail slurm_no_wait_submits "$(head -c 300 "$TMP/c1.out")"
else
    ok slurm_no_wait_submits
    expect_error slurm_job_blocks_local_training \
        "^scripts/dog_bites_man.sh: Slurm job $job of an earlier --slurm call may still be training these runs" \
        env BIN_DIR="$W" scripts/dog_bites_man.sh --quick --out "$O"
    while [ ! -e "$TMP/held" ] && [ ! -e "$TMP/missed" ] && [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; do sleep 0.2; done
    if [ -e "$TMP/held" ]; then
        scancel "${job}_$task"
        # The next call waits for the job, reports the cancelled task, resubmits it and finishes.
        BIN_DIR=$W scripts/dog_bites_man.sh --quick --slurm --out "$O" >"$TMP/c2.out" 2>"$TMP/c2.err"
        rc=$?
        if grep -q "Slurm task ${job}_$task ($O/runs/rope-s1) failed; its log $O/slurm/${job}_$task.out ends:" "$TMP/c2.err"
        then ok slurm_cancelled_task_reported
        else fail slurm_cancelled_task_reported "exit $rc: $(head -c 400 "$TMP/c2.err")"; fi
        step=$(sed -n 's/^stopped by SIGTERM after step \([0-9]*\) .*/\1/p' "$O/runs/rope-s1/train.out")
        if [ $rc -eq 0 ] && [ -n "$step" ] && grep -q "submitted Slurm job [0-9]*: 1 trainings" "$TMP/c2.out" &&
                grep -q "^resumed from $O/runs/rope-s1/model.safetensors at step $step$" "$O/runs/rope-s1/train.out"
        then ok slurm_cancelled_task_resubmitted_and_resumed; echo "# cancelled after step $step of 150, resumed there"
        else fail slurm_cancelled_task_resubmitted_and_resumed "exit $rc: $(grep -h 'submitted\|resumed\|stopped' "$TMP/c2.out" "$O/runs/rope-s1/train.out" | head -c 300)"; fi
        if why=$(same_results "$TMP/local" "$O"); then ok slurm_results_unchanged_after_cancel; else fail slurm_results_unchanged_after_cancel "$why"; fi
    else
        fail slurm_cancel_mid_run "the wrapper did not see rope-s1 stopped at step 2 with step 1 logged and no checkpoint"
    fi
    # Everything finished: one more call submits nothing.
    BIN_DIR=$W scripts/dog_bites_man.sh --quick --slurm --out "$O" >"$TMP/c3.out" 2>&1
    if [ $? -eq 0 ] && ! grep -q submitted "$TMP/c3.out" && [ "$(grep -c "reuse  $O/runs/" "$TMP/c3.out")" -eq "$n" ]
    then ok slurm_finished_runs_not_redone
    else fail slurm_finished_runs_not_redone "$(grep submitted "$TMP/c3.out")"; fi
fi

# ------------------------------------------------------------------------------ no controller
sed "s/^SlurmctldPort=.*/SlurmctldPort=$((slurm_port + 2))/" "$SLURM_CONF" >"$S/nobody.conf"
SLURM_CONF=$S/nobody.conf scripts/dog_bites_man.sh --quick --slurm --out "$TMP/nobody" >/dev/null 2>"$TMP/n.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/n.err")" -eq 1 ] &&
        grep -q "^scripts/dog_bites_man.sh: --slurm: the Slurm controller does not answer (.*)$" "$TMP/n.err"
then ok slurm_unreachable_controller_one_line
else fail slurm_unreachable_controller_one_line "exit $rc: $(head -c 300 "$TMP/n.err")"; fi
