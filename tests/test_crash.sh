# Crash safety of ./train: SIGKILL at chosen points (the start of a step, halfway through
# writing a checkpoint or the log) leaves the last checkpoint loadable, and resuming gives the
# log.csv and the weights of an unbroken run; a write error (file-size limit, full tmpfs) is reported and keeps the old
# checkpoint; a loss or weights that stop being finite stop the run naming the step and the
# last good checkpoint.
. tests/lib.sh
tiny_config "$TMP/crash.ini" seed=5 train_size=300 d_model=32 d_ff=64 steps=100 batch_size=16 log_every=5 eval_every=25

# ------------------------------------------------------------------------------ kill and resume
"$TRAIN" "$TMP/crash.ini" run.name=ref >"$TMP/ref.out" 2>&1 || fail crash_reference "$(tail -c 300 "$TMP/ref.out")"
"$EVAL" "$RUNS/ref" >"$TMP/ref.eval" 2>&1 || fail crash_reference_eval "$(tail -c 300 "$TMP/ref.eval")"
sed -i '/^memory: about/d' "$TMP/ref.eval"   # the memory line says what is available, which varies

# Each round resumes the run and kills it (SIGKILL, from inside: TF_CRASH_AT, see
# src/core/crash_point.h) at a chosen point, so every kill lands whatever the machine's load:
# at the start of a step (counted from the round's first step), or halfway through writing the
# checkpoint or log.csv (the N-th such write of the round), which leaves a torn temporary file.
DIR=$RUNS/crash
kills=0; in_write=0; loads=0; problems=""
for point in step:13 model.safetensors:2 step:31 model.safetensors:1 log.csv:1 step:1 step:9; do
    resume=""
    [ -e "$DIR/model.safetensors" ] && resume="train.resume=$DIR"
    TF_CRASH_AT=$point "$TRAIN" "$TMP/crash.ini" run.name=crash $resume >>"$TMP/crash.out" 2>&1
    rc=$?
    if [ $rc -ne 137 ]; then problems="$problems [$point: exit $rc, not killed]"; continue; fi
    kills=$((kills + 1))
    case $point in
        step:*) ;;
        *) if ls "$DIR" | grep -q "^${point%:*}\.tmp\."; then in_write=$((in_write + 1))
           else problems="$problems [$point: no torn temporary file]"; fi ;;
    esac
    if "$EVAL" "$DIR" >"$TMP/eval.out" 2>&1; then loads=$((loads + 1))
    else problems="$problems [$point: $(head -c 200 "$TMP/eval.out")]"; fi
done
"$TRAIN" "$TMP/crash.ini" run.name=crash train.resume="$DIR" >>"$TMP/crash.out" 2>&1 || fail crash_resume_finishes "$(tail -c 300 "$TMP/crash.out")"
echo "# resumed at steps: $(grep -o "at step [0-9]*" "$TMP/crash.out" | cut -d" " -f3 | tr "\n" " ")"
echo "# $kills kills ($in_write while writing a file), checkpoint loaded after $loads of them"
if [ -z "$problems" ] && [ $kills = 7 ] && [ $in_write = 3 ] && [ $loads = 7 ]; then ok crash_checkpoint_loads_after_kill
else fail crash_checkpoint_loads_after_kill "$kills kills of 7, $in_write in a write of 3, loaded $loads times;$problems"; fi
if cmp -s "$RUNS/ref/log.csv" "$DIR/log.csv"; then ok crash_resumed_log_identical
else fail crash_resumed_log_identical "$(diff "$RUNS/ref/log.csv" "$DIR/log.csv" | head -5 | tr '\n' ' ')"; fi
"$EVAL" "$DIR" >"$TMP/crash.eval" 2>&1
sed -i '/^memory: about/d' "$TMP/crash.eval"
if cmp -s "$TMP/ref.eval" "$TMP/crash.eval"; then ok crash_resumed_weights_identical
else fail crash_resumed_weights_identical "$(diff "$TMP/ref.eval" "$TMP/crash.eval" | head -4 | tr '\n' ' ')"; fi
if ls "$DIR" | grep -q '\.tmp'; then fail crash_no_temporaries_left "$(ls "$DIR" | tr '\n' ' ')"
else ok crash_no_temporaries_left; fi

# A row torn by a crash (no final newline) is dropped when the run resumes.
cp -r "$RUNS/ref" "$RUNS/torn"
printf '100,val,3,4.1' >>"$RUNS/torn/log.csv"
"$TRAIN" "$TMP/crash.ini" run.name=torn train.resume="$RUNS/torn" >/dev/null 2>"$TMP/err"
if cmp -s "$RUNS/ref/log.csv" "$RUNS/torn/log.csv"; then ok crash_torn_log_row_dropped
else fail crash_torn_log_row_dropped "$(tail -c 200 "$RUNS/torn/log.csv") $(head -c 200 "$TMP/err")"; fi

# ------------------------------------------------------------------------------ write errors
# check_write_error NAME DIR STEP PATTERN: the last run failed with PATTERN on stderr, naming the
# checkpoint of STEP as the last good one, which is byte-identical to $TMP/good and loads.
check_write_error() {
    name=$1; dir=$2; step=$3; pat=$4
    if [ "$rc" -eq 0 ]; then fail "$name" "exited 0"
    elif ! grep -Eq -- "$pat" "$TMP/err"; then fail "$name" "stderr did not match '$pat': $(head -c 400 "$TMP/err")"
    elif ! grep -q "the last good checkpoint is $dir/model.safetensors (step $step)" "$TMP/err"; then
        fail "$name" "last good checkpoint not named: $(head -c 400 "$TMP/err")"
    elif ! cmp -s "$TMP/good" "$dir/model.safetensors"; then fail "$name" "the old checkpoint changed"
    elif ! "$EVAL" "$dir" >/dev/null 2>"$TMP/eval.err"; then fail "$name" "old checkpoint does not load: $(cat "$TMP/eval.err")"
    elif ls "$dir" | grep -q '\.tmp'; then fail "$name" "temporary left: $(ls "$dir" | tr '\n' ' ')"
    else ok "$name"; fi
}

# A file-size limit (SIGXFSZ ignored, so write() fails with EFBIG) below the checkpoint's size.
"$TRAIN" "$TMP/crash.ini" run.name=fsize train.steps=20 >/dev/null 2>&1
cp "$RUNS/fsize/model.safetensors" "$TMP/good"
blocks=$(( $(wc -c <"$TMP/good") / 1024 ))   # ulimit -f counts 512-byte blocks: half the size
(ulimit -f $blocks && trap '' XFSZ && exec "$TRAIN" "$TMP/crash.ini" run.name=fsize train.steps=40 \
    train.resume="$RUNS/fsize") >/dev/null 2>"$TMP/err"
rc=$?
check_write_error write_error_file_size_limit "$RUNS/fsize" 20 \
    "^error: $RUNS/fsize/model.safetensors: write failed: File too large; the checkpoint of step 25 was not written"

# A full disk: a tmpfs with room for one checkpoint and not for two (needs root; else skipped).
FULL=$TMP/full
mkdir -p "$FULL"
size_k=$(( $(wc -c <"$TMP/good") * 3 / 2048 + 64 ))
if mount -t tmpfs -o size=${size_k}k tmpfs "$FULL" 2>/dev/null; then
    trap 'umount "$FULL" 2>/dev/null; rm -rf "$TMP"' EXIT   # never leave the mount behind
    "$TRAIN" "$TMP/crash.ini" run.out_dir="$FULL" run.name=disk >/dev/null 2>"$TMP/err"
    rc=$?
    cp "$FULL/disk/model.safetensors" "$TMP/good" 2>/dev/null
    check_write_error write_error_disk_full "$FULL/disk" 5 "No space left on device"
    umount "$FULL"
else
    skip write_error_disk_full "cannot mount a tmpfs here (needs root)"
fi

# ------------------------------------------------------------------------------ NaN and Inf
# Optimizer moments of 3e38 are finite (the checkpoint loads) but make the next update overflow:
# the weights become Inf after step 21, and the loss is NaN at step 22.
mkdir -p "$TMP/bad"
python3 tests/ckpt_edit.py "$RUNS/ref/model.safetensors" "$TMP/bad/model.safetensors" fill optimizer.exp_avg 3e38 2>&1
ref_ckpt=$TMP/bad/model.safetensors
"$TRAIN" "$TMP/crash.ini" run.name=nan1 train.steps=200 train.resume="$TMP/bad" >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -Eq "^error: step 102: the loss is -?nan \(gradient norm -?nan\); stopped, the last good checkpoint is $ref_ckpt \(step 100\)$" "$TMP/err"
then ok nan_loss_stops_run
else fail nan_loss_stops_run "exit $rc: $(head -c 300 "$TMP/err")"; fi
"$TRAIN" "$TMP/crash.ini" run.name=nan2 train.steps=200 train.ckpt_every=1 train.resume="$TMP/bad" >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -Eq "^error: step 101: parameter '[a-z_.0-9]+' holds -?inf after the update; stopped without saving, the last good checkpoint is $ref_ckpt \(step 100\)$" "$TMP/err" &&
        [ ! -e "$RUNS/nan2/model.safetensors" ]
then ok inf_weights_never_saved
else fail inf_weights_never_saved "exit $rc: $(head -c 300 "$TMP/err")"; fi
# A checkpoint that holds NaN is refused by name before any training.
python3 tests/ckpt_edit.py "$RUNS/ref/model.safetensors" "$TMP/bad/model.safetensors" fill encoder.norm.bias nan
expect_error nan_checkpoint_refused "^error: $TMP/bad/model.safetensors: tensor 'encoder.norm.bias' holds nan at element 0; the checkpoint is damaged$" \
    "$TRAIN" "$TMP/crash.ini" run.name=nan3 train.steps=200 train.resume="$TMP/bad"
