#!/bin/sh
# Memory limits: absurd settings are refused before any work with one line; run.max_memory
# caps or overrides the check; the arena running out mid-run stops at that step and keeps the
# last good checkpoint; and the estimate printed first by every run lies within 25% of the
# peak resident memory measured for a spread of shapes. Every command runs under a virtual
# memory limit (ulimit -v), so a regression cannot take the shared machine down.
#
# Prints the estimate-vs-measured rows for docs/robustness.md as "# table: ..." lines:
#   sh tests/test_memory.sh | grep '^# table'
. tests/lib.sh

if ! command -v python3 >/dev/null 2>&1; then
    skip memory_tests "python3 is needed to measure peak memory (tests/peak_rss.py)"
    exit 0
fi

# A sanitizer build (make sanitize) reserves terabytes of address space for its shadow memory,
# so it cannot run under ulimit -v, and its resident memory and CPU time say nothing about the
# program's: there the messages are still checked, the bounds and the measurements are skipped.
SANITIZED=
sh -c 'ulimit -v 4000000 && "$1" --help >/dev/null 2>&1; exit $?' sh "$TRAIN" 2>/dev/null || SANITIZED=1
if [ -n "$SANITIZED" ]; then
    skip memory_bounds "a sanitizer build cannot run under ulimit -v; peak memory and CPU time are not the program's"
fi

# run_measured LIMIT_KIB CMD...: runs CMD under ulimit -v LIMIT_KIB; stdout, stderr in
# $TMP/out, $TMP/err; sets rc, cpu (seconds of CPU) and kib (peak resident memory).
run_measured() {
    limit=$1; shift
    [ -n "$SANITIZED" ] && limit=unlimited
    (ulimit -v "$limit" && python3 tests/peak_rss.py "$TMP/usage" "$@" >"$TMP/out" 2>"$TMP/err")
    read -r rc cpu kib <"$TMP/usage" || { rc=999; cpu=0; kib=0; }
}

# refused NAME PATTERN ARGS...: ./train ARGS exits non-zero within one second of CPU, with
# exactly one line on stderr matching PATTERN, nothing on stdout, no run folder, and a peak
# resident memory under 200 MB. (CPU time, not wall time: the verdict must not depend on load.)
refused() {
    name=$1; pat=$2; shift 2
    rm -rf "$RUNS"
    run_measured 4000000 "$TRAIN" "$@" run.out_dir="$RUNS"
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 0 ]; then fail "$name" "exited 0"
    elif [ "$lines" -ne 1 ]; then fail "$name" "$lines lines on stderr: $(head -c 400 "$TMP/err")"
    elif ! grep -Eq -- "$pat" "$TMP/err"; then fail "$name" "stderr did not match '$pat': $(head -c 400 "$TMP/err")"
    elif [ -s "$TMP/out" ]; then fail "$name" "printed to stdout: $(head -c 200 "$TMP/out")"
    elif [ -e "$RUNS" ]; then fail "$name" "created $RUNS"
    elif [ -z "$SANITIZED" ] && [ "$kib" -ge 204800 ]; then fail "$name" "peak resident memory $kib KiB, over 200 MB"
    elif [ -z "$SANITIZED" ] && awk "BEGIN { exit !($cpu >= 1.0) }"; then fail "$name" "took $cpu s of CPU, over 1 s"
    else ok "$name"; echo "#   $(cat "$TMP/err") [exit $rc, $cpu s CPU, peak $((kib / 1024)) MiB]"; fi
}

# ------------------------------------------------------------------ the three commands of the issue

AVAIL='[0-9.]+ [KMGT]iB are available \((MemAvailable|cgroup memory[a-z_.]+)\)'
refused memory_batch_size_refused \
    "^error: train.batch_size = 1048576 needs about [0-9.]+ TiB \(activations [0-9.]+ TiB, parameters and Adam [0-9.]+ MiB, data [0-9.]+ MiB, program [0-9.]+ MiB\); $AVAIL\. Lower batch_size or set run.max_memory\.$" \
    configs/rope.ini train.batch_size=1048576 train.steps=1
refused memory_dev_zero_refused \
    "^configs/rope.ini: train_src '/dev/zero' is a device or socket, not a regular file$" \
    configs/rope.ini task.task=parallel_text task.train_src=/dev/zero task.train_tgt=/dev/zero
# The parameters alone are over: the probe that counts activations is not built (it would hold
# the weights), and the message says so.
refused memory_huge_model_refused \
    "^error: model.d_model = 8192, d_ff = 65536, 64 \+ 64 layers needs more than [0-9.]+ TiB \(parameters and Adam [0-9.]+ TiB, data [0-9.]+ MiB, program [0-9.]+ MiB; activations not counted\); $AVAIL\. Make the model smaller \(d_model, d_ff, layers\) or set run.max_memory\.$" \
    configs/rope.ini model.d_model=8192 model.d_ff=65536 model.enc_layers=64 model.dec_layers=64

# ------------------------------------------------------------------ run.max_memory

tiny_config "$TMP/tiny.ini"
refused memory_max_memory_caps \
    "^error: .* needs (about|more than) [0-9.]+ MiB \(.*\); run.max_memory = 1M allows 1.00 MiB\. .* or raise run.max_memory\.$" \
    "$TMP/tiny.ini" run.max_memory=1M
refused memory_max_memory_bad_value "^$TMP/tiny.ini: max_memory: 'lots' is not 'auto' or a size like 8G or 512M$" \
    "$TMP/tiny.ini" run.max_memory=lots

rm -rf "$RUNS"
run_measured 4000000 "$TRAIN" "$TMP/tiny.ini" run.max_memory=100M run.name=capped
if [ "$rc" -eq 0 ] && head -1 "$TMP/out" | grep -Eq '^memory: about [0-9.]+ MiB \(activations .*\); 100 MiB allowed by run.max_memory$'; then
    ok memory_max_memory_goes_ahead
else fail memory_max_memory_goes_ahead "exit $rc, first line: $(head -1 "$TMP/out") $(head -c 300 "$TMP/err")"; fi

# ./eval checks too, from the config before generating any data: an absurd test_size.
run_measured 4000000 "$EVAL" "$RUNS/capped" test_size=100000000 run.max_memory=auto
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ] && { [ -n "$SANITIZED" ] || [ "$kib" -lt 204800 ]; } &&
   grep -Eq "^error: task.test_size = 100000000 needs (about|more than) [0-9.]+ GiB \(.*data [0-9.]+ GiB.*\); .* Lower it or set run.max_memory\.$" "$TMP/err"; then
    ok memory_eval_test_size_refused
    echo "#   $(cat "$TMP/err") [exit $rc, $cpu s CPU, peak $((kib / 1024)) MiB]"
else fail memory_eval_test_size_refused "exit $rc, peak $kib KiB: $(head -c 300 "$TMP/err")"; fi

# ------------------------------------------------------------------ a memory cgroup's limit

# run.max_memory = auto compares with the room a memory cgroup leaves when that is less than
# MemAvailable (memory/memory_limit.c cgroup_room). A cgroup of 1 GiB is made for the test when
# this machine lets us (root, a writable cgroup v1 memory hierarchy or a v2 one with the memory
# controller); a batch of 4.8 GiB, below this machine's MemAvailable, must then be refused
# naming the cgroup, and the tiny run must go ahead seeing about 1 GiB: the limit less what the
# process already holds when it checks (the probe's model, and under the sanitizers their shadow
# memory and quarantine: 900-1099 MiB).
cg_make() {   # prints the new cgroup's folder and its limit file, or fails
    for base in /sys/fs/cgroup/memory /sys/fs/cgroup/unified /sys/fs/cgroup; do
        dir=$base/tf_test_memory_$$
        if [ -f "$base/memory.limit_in_bytes" ]; then file=memory.limit_in_bytes
        elif grep -qw memory "$base/cgroup.subtree_control" 2>/dev/null; then file=memory.max
        else continue; fi
        mkdir "$dir" 2>/dev/null || continue
        if echo 1073741824 >"$dir/$file" 2>/dev/null; then echo "$dir $file"; return 0; fi
        rmdir "$dir"
    done
    return 1
}
if cg=$(cg_make); then
    set -- $cg
    in_cg() { sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG_DIR" "$@"; }
    CG_DIR=$1; CG_FILE=$2
    rm -rf "$RUNS"
    in_cg "$TRAIN" "$TMP/tiny.ini" run.name=cg train.batch_size=20000 >"$TMP/out" 2>"$TMP/err"; rc=$?
    if [ "$rc" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -Eq \
        "^error: train.batch_size = 20000 needs about [0-9.]+ GiB \(.*\); ((9[0-9][0-9]|10[0-9][0-9]) MiB|1\.00 GiB) are available \(cgroup $CG_FILE\)\. Lower batch_size" "$TMP/err"; then
        ok memory_cgroup_limit_refuses
    else fail memory_cgroup_limit_refuses "exit $rc: $(head -c 300 "$TMP/err")"; fi
    in_cg "$TRAIN" "$TMP/tiny.ini" run.name=cg train.steps=2 >"$TMP/out" 2>"$TMP/err"; rc=$?
    if [ "$rc" -eq 0 ] && head -1 "$TMP/out" | grep -Eq '; ((9[0-9][0-9]|10[0-9][0-9]) MiB|1\.00 GiB) available$'; then
        ok memory_cgroup_limit_goes_ahead
    else fail memory_cgroup_limit_goes_ahead "exit $rc, first line: $(head -1 "$TMP/out") $(head -c 300 "$TMP/err")"; fi
    rmdir "$CG_DIR" 2>/dev/null || echo "# could not remove the test cgroup $CG_DIR"
else
    skip memory_cgroup_limit "cannot make a memory cgroup here (needs root and a writable cgroup memory hierarchy)"
fi

# ------------------------------------------------------------------ the arena running out mid-run

# A run with a checkpoint at step 2 resumes with a batch far beyond the 1.5 GB virtual memory
# it is given; run.max_memory = 1T goes past the estimate on purpose. The arena fails in step 3.
rm -rf "$RUNS"
if [ -n "$SANITIZED" ]; then skip memory_arena_failure_keeps_checkpoint "needs ulimit -v, which a sanitizer build cannot run under"
elif "$TRAIN" "$TMP/tiny.ini" run.name=oom train.steps=2 train.ckpt_every=1 >/dev/null 2>"$TMP/err0"; then
    cp "$RUNS/oom/model.safetensors" "$TMP/good.safetensors"
    run_measured 1500000 "$TRAIN" "$TMP/tiny.ini" run.name=oom train.steps=4 train.batch_size=20000 \
        train.resume="$RUNS/oom" run.max_memory=1T
    if [ "$rc" -eq 1 ] &&
       tail -1 "$TMP/err" | grep -Eq "^error: step 3: out of memory: cannot allocate [0-9]+ MiB for activations; stopped, the last good checkpoint is $RUNS/oom/model.safetensors \(step 2\)$" &&
       cmp -s "$TMP/good.safetensors" "$RUNS/oom/model.safetensors" && "$EVAL" "$RUNS/oom" >/dev/null 2>&1 &&
       [ -z "$(ls "$RUNS/oom" | grep tmp)" ]; then
        ok memory_arena_failure_keeps_checkpoint
        echo "#   $(tail -1 "$TMP/err")"
    else fail memory_arena_failure_keeps_checkpoint "exit $rc: $(tail -c 400 "$TMP/err")"; fi
else fail memory_arena_failure_keeps_checkpoint "the first run failed: $(head -c 300 "$TMP/err0")"; fi

# ------------------------------------------------------------------ estimate vs measured

# MiB of "about N UNIT" in the first line of a run.
estimate_mib() {
    head -1 "$1" | awk '/^memory: about/ { u = $4; f = u ~ /^KiB/ ? 1 / 1024 : u ~ /^MiB/ ? 1 : u ~ /^GiB/ ? 1024 : 0; printf "%.0f\n", $3 * f }'
}

# measured NAME SHAPE ARGS...: trains, and the peak resident memory must be within 25% of
# the estimate the run printed first, or up to 35% below it: the estimate holds for the
# longest batch padded as little as can be, and a batch with much padding packs its token rows
# (models/transformer.c) and takes less (Multi30k's first steps: -25%).
measured() {
    name=$1; shape=$2; shift 2
    if [ -n "$SANITIZED" ]; then skip "$name" "a sanitizer's shadow memory and redzones are not the program's memory"; return; fi
    rm -rf "$RUNS"
    run_measured 6000000 "$TRAIN" "$@" run.out_dir="$RUNS" run.name=m
    est=$(estimate_mib "$TMP/out")
    if [ "$rc" -ne 0 ] || [ -z "$est" ]; then fail "$name" "exit $rc, first line '$(head -1 "$TMP/out")': $(tail -c 300 "$TMP/err")"; return; fi
    got=$(awk "BEGIN { printf \"%.0f\", $kib / 1024 }")
    diff=$(awk "BEGIN { printf \"%+.0f\", 100 * ($got - $est) / $est }")
    echo "# table: | $shape | $est MiB | $got MiB | $diff% | \`./train $*\` |"
    if awk "BEGIN { d = ($got - $est) / $est; exit !(d <= 0.25 && d >= -0.35) }"; then ok "$name"
    else fail "$name" "measured $got MiB, estimate $est MiB ($diff%)"; fi
}

measured memory_estimate_toy "toy translator (d64, 2+2, B64; eval at 3 and 12 clauses)" configs/rope.ini train.steps=3
M30K=../shared/data/multi30k
if [ -f "$M30K/train.de" ]; then
    measured memory_estimate_multi30k "Multi30k (d256, 3+3, B64, BPE 6000)" configs/multi30k/rope.ini train.steps=3 \
        task.train_src=$M30K/train.de task.train_tgt=$M30K/train.en task.val_src=$M30K/val.de task.val_tgt=$M30K/val.en \
        task.test_src= task.test_tgt=
else skip memory_estimate_multi30k "no Multi30k data at $M30K (scripts/get_data.sh)"; fi
measured memory_estimate_lm_512 "LM T=512 (d64, 2 layers, B8)" configs/lm/rope.ini train.steps=3 task.window=512 \
    train.batch_size=8 task.train_size=200 train.eval_lengths=
measured memory_estimate_lm_4096 "LM T=4096 (d64, 2 layers, B1)" configs/lm/rope.ini train.steps=1 task.window=4096 \
    train.batch_size=1 task.train_size=50 train.eval_lengths=
