# train.until and train.patience (docs/design.md §4.3) on real trainings of the copy task:
#   - until stops at the step the log of a run without it predicts (same seed: the rows are
#     the same up to there), and the log ends with the stop row and tokens;
#   - patience counts evaluations: with a learning rate too small to move the printed val_loss,
#     patience 2 stops at the third evaluation;
#   - resuming a converged run is a no-op (log.csv, model and config.ini byte for byte);
#   - a stricter until continues it, and the result equals an unbroken run with that until;
#   - raising train.steps continues a run stopped at its ceiling;
#   - a resume from a checkpoint without a tokens count leaves the tokens cells empty;
#   - ./eval's converged column and compute.csv;
#   - a language model watches its training window's row, not an eval_lengths row.
. tests/lib.sh
. scripts/lib.sh   # CSV_COLUMNS
CFG=configs/algorithmic/copy.ini
Q="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=500 train.eval_lengths=
   train.eval_every=10 train.log_every=10 train.ckpt_every=50 run.threads=1 run.out_dir=$RUNS"
# train NAME [overrides]: one run into $RUNS/NAME, its output in $TMP/NAME.out
train() { _n=$1; shift; "$TRAIN" "$CFG" $Q run.name="$_n" "$@" >"$TMP/$_n.out" 2>"$TMP/$_n.err"; }
# same_tensors A B: two checkpoints hold the same tensor bytes (their metadata may differ: the
# config of a resumed run names train.resume)
same_tensors() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
def data(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    return b[8 + n:]
sys.exit(0 if data(sys.argv[1]) == data(sys.argv[2]) else 1)
PY
}
# rows CSV: the log without its tokens column and stop row, to compare with a log without them
rows() { awk -F, "$CSV_COLUMNS"'
    head { print cells("step split length loss token_acc exact_match loss_last lr grad_norm") }
    row && (cell("split") == "train" || cell("split") == "val") {
        print cells("step split length loss token_acc exact_match loss_last lr grad_norm") }' "$1"; }

if ! train plain train.steps=200; then
    fail until_reference_run "$(tail -c 300 "$TMP/plain.err")"
    exit 0
fi
# the threshold: val_token_acc at step 100; the expected stop: the first evaluation reaching it
read -r T want <<EOT
$(awk -F, '$2 == "val" && $3 == 0 { s[++n] = $1; v[n] = $5 }
    END { for (i = 1; i <= n; i++) if (s[i] == 100) t = v[i]
          for (i = 1; i <= n; i++) if (v[i] + 0 >= t + 0) { print t, s[i]; exit } }' "$RUNS/plain/log.csv")
EOT
if [ -z "$want" ] || [ "$want" -ge 200 ]; then
    fail until_stops_where_the_log_says "no threshold from the reference log ($T, $want)"
elif ! train conv train.steps=200 "train.until=val_token_acc>=$T"; then
    fail until_stops_where_the_log_says "$(tail -c 300 "$TMP/conv.err")"
else
    last=$(tail -n 1 "$RUNS/conv/log.csv")
    tok=$(awk -F, -v s="$want" '$1 == s && $2 == "val" { print $NF }' "$RUNS/conv/log.csv")
    if ! echo "$last" | grep -q "^$want,converged,0,,,,,,,$tok\$" || [ -z "$tok" ]; then
        fail until_stops_where_the_log_says "want a converged row at $want, last row '$last'"
    elif ! grep -q "^stopped at step $want: converged (val_token_acc = $T >= $T)\$" "$TMP/conv.out"; then
        fail until_stops_where_the_log_says "message: $(grep stopped "$TMP/conv.out")"
    elif [ "$(rows "$RUNS/conv/log.csv")" != "$(rows "$RUNS/plain/log.csv" | awk -F, -v s="$want" 'NR == 1 || $1 <= s')" ]; then
        fail until_stops_where_the_log_says "the rows up to step $want differ from the run without until"
    else ok until_stops_where_the_log_says; fi
    # the tokens column counts up: the last train row's tokens are those of the stop row
    if awk -F, 'NR > 1 && $NF != "" { if ($NF + 0 < p) bad = 1; p = $NF + 0 } END { exit bad || p <= 0 }' "$RUNS/conv/log.csv" &&
       [ "$(awk -F, '$2 == "train" { t = $NF } END { print t }' "$RUNS/conv/log.csv")" = "$tok" ]; then
        ok until_tokens_column
    else fail until_tokens_column "$(head -3 "$RUNS/conv/log.csv")"; fi
    if "$EVAL" "$RUNS/conv" splits=val 2>/dev/null | awk -F, -v s="$want" 'NR == 1 { ok = $NF == "converged" } NR == 2 { ok = ok && $NF == s } END { exit !ok }'; then
        ok until_eval_converged_column
    else fail until_eval_converged_column "$("$EVAL" "$RUNS/conv" splits=val 2>&1 | head -3)"; fi
    if awk -F, -v s="$want" 'NR == 1 { ok = $0 == "first_step,last_step,stop,tokens,cpu_seconds,wall_seconds" }
           NR == 2 { ok = ok && $1 == 1 && $2 == s && $3 == "converged" && $5 > 0 } END { exit !(ok && NR == 2) }' "$RUNS/conv/compute.csv"; then
        ok until_compute_csv
    else fail until_compute_csv "$(cat "$RUNS/conv/compute.csv")"; fi

    # resuming the converged run: nothing happens, and it says so
    cp -r "$RUNS/conv" "$TMP/conv.before"
    if train conv train.steps=200 "train.until=val_token_acc>=$T" train.resume="$RUNS/conv" &&
       grep -q "converged at step $want .*nothing to do; to train on, change train.until" "$TMP/conv.out" &&
       cmp -s "$TMP/conv.before/log.csv" "$RUNS/conv/log.csv" &&
       cmp -s "$TMP/conv.before/model.safetensors" "$RUNS/conv/model.safetensors" &&
       cmp -s "$TMP/conv.before/config.ini" "$RUNS/conv/config.ini" &&
       cmp -s "$TMP/conv.before/compute.csv" "$RUNS/conv/compute.csv"; then
        ok until_resume_converged_is_a_no_op
    else fail until_resume_converged_is_a_no_op "$(cat "$TMP/conv.out" "$TMP/conv.err" | tail -3)"; fi

    # a stricter until continues it: the same log and tensors as an unbroken run with that until
    T2=$(awk -F, -v s="$want" '$2 == "val" && $3 == 0 && $1 > s { print $5; exit }' "$RUNS/plain/log.csv")
    if train conv train.steps=200 "train.until=val_token_acc>=$T2" train.resume="$RUNS/conv" &&
       train conv2 train.steps=200 "train.until=val_token_acc>=$T2" &&
       cmp -s "$RUNS/conv/log.csv" "$RUNS/conv2/log.csv" &&
       same_tensors "$RUNS/conv/model.safetensors" "$RUNS/conv2/model.safetensors" &&
       grep -q ',converged,' "$RUNS/conv2/log.csv"; then
        ok until_changed_until_continues
    else fail until_changed_until_continues "$(diff "$RUNS/conv/log.csv" "$RUNS/conv2/log.csv" | head -5) $(tail -2 "$TMP/conv.err")"; fi
fi

# patience counts evaluations: a learning rate of 1e-12 leaves val_loss as printed unchanged, so
# the first evaluation is the best and the next two do not improve on it: the third stops
if train pat train.steps=200 train.lr=1e-12 train.warmup=0 train.patience=2 &&
   [ "$(tail -n 1 "$RUNS/pat/log.csv" | cut -d, -f1-3)" = "30,patience,0" ] &&
   [ "$(awk -F, '$2 == "val"' "$RUNS/pat/log.csv" | cut -d, -f4 | sort -u | wc -l)" = 1 ] &&
   grep -q "^stopped at step 30: patience (2 evaluations without a better val_loss" "$TMP/pat.out"; then
    ok patience_counts_evaluations
else fail patience_counts_evaluations "$(tail -n 3 "$RUNS/pat/log.csv" 2>&1) $(tail -c 200 "$TMP/pat.err")"; fi
# a run stopped by patience resumed with the same patience does nothing; one more continues
if train pat train.steps=200 train.lr=1e-12 train.warmup=0 train.patience=2 train.resume="$RUNS/pat" &&
   grep -q "stopped at step 30 .*nothing to do; to train on, raise train.patience" "$TMP/pat.out" &&
   train pat train.steps=200 train.lr=1e-12 train.warmup=0 train.patience=3 train.resume="$RUNS/pat" &&
   [ "$(tail -n 1 "$RUNS/pat/log.csv" | cut -d, -f1-2)" = "40,patience" ] &&
   [ "$(grep -c ',patience,' "$RUNS/pat/log.csv")" = 1 ]; then
    ok patience_resume
else fail patience_resume "$(tail -n 2 "$TMP/pat.out") $(tail -n 2 "$RUNS/pat/log.csv")"; fi

# a run stopped at its ceiling continues with a higher one; at the same ceiling it is done
if train ceil train.steps=40 "train.until=val_exact_match>=1" &&
   [ "$(tail -n 1 "$RUNS/ceil/log.csv" | cut -d, -f1-2)" = "40,ceiling" ] &&
   train ceil train.steps=40 "train.until=val_exact_match>=1" train.resume="$RUNS/ceil" &&
   grep -q "nothing to do; to train on, raise train.steps" "$TMP/ceil.out" &&
   train ceil train.steps=80 "train.until=val_exact_match>=1" train.resume="$RUNS/ceil" &&
   [ "$(tail -n 1 "$RUNS/ceil/log.csv" | cut -d, -f1-2)" = "80,ceiling" ] &&
   [ "$(grep -c ',ceiling,' "$RUNS/ceil/log.csv")" = 1 ] && grep -q '^80,val,0,' "$RUNS/ceil/log.csv" &&
   [ "$(awk -F, '$2 == "ceiling" { print $NF }' "$RUNS/ceil/log.csv")" -gt \
     "$(awk -F, '$1 == 40 && $2 == "val" { print $NF }' "$RUNS/ceil/log.csv")" ] &&
   [ "$(wc -l <"$RUNS/ceil/compute.csv")" = 3 ] &&
   "$EVAL" "$RUNS/ceil" splits=val 2>/dev/null | grep -q ',not in 80 steps$'; then
    ok until_higher_ceiling_continues
else fail until_higher_ceiling_continues "$(tail -n 3 "$RUNS/ceil/log.csv") $(tail -c 300 "$TMP/ceil.err")"; fi

# a run without stop rules resumed with one: its checkpoint did not count tokens, so the rows
# after the resume leave the tokens cell empty rather than count from 0
if train late train.steps=50 && train late train.steps=80 "train.until=val_exact_match>=1" \
       train.resume="$RUNS/late" &&
   awk -F, 'NR == 1 { ok = $NF == "tokens"; next } $1 > 50 && $NF != "" { ok = 0 }
            $1 > 50 { n++ } END { exit !(ok && n >= 5) }' "$RUNS/late/log.csv"; then
    ok until_resume_tokens_unknown
else fail until_resume_tokens_unknown "$(tail -n 3 "$RUNS/late/log.csv") $(tail -c 300 "$TMP/late.err")"; fi

# the language model: until watches the row at the training window (32), not the one at 64.
# The threshold lies between the two rows' loss_last at the first evaluation (the longer
# windows' is lower), so the window-32 row reaches it later than the window-64 row does.
LM="model.d_model=16 model.n_heads=2 model.d_ff=32 train.steps=40 train.eval_every=10
    train.log_every=10 train.eval_lengths=64 run.threads=1 run.out_dir=$RUNS"
if "$TRAIN" configs/lm/rope.ini $LM run.name=lm >/dev/null 2>"$TMP/lm.err"; then
    read -r T want <<EOT
$(awk -F, '$2 == "val" && $3 == 32 { s[++n] = $1; v[n] = $7 } $2 == "val" && $3 == 64 && !w { w = $7 }
    END { t = sprintf("%.6g", (v[1] + w) / 2); if (w >= v[1]) exit
          for (i = 1; i <= n; i++) if (v[i] + 0 <= t + 0) { print t, s[i]; exit } }' "$RUNS/lm/log.csv")
EOT
    if [ -z "$want" ] || [ "$want" = 10 ]; then
        fail until_lm_training_window "no threshold between the first rows of windows 32 and 64"
    elif "$TRAIN" configs/lm/rope.ini $LM run.name=lm_until "train.until=val_loss_last<=$T" >/dev/null 2>"$TMP/lm.err" &&
       [ "$(tail -n 1 "$RUNS/lm_until/log.csv" | cut -d, -f1-2)" = "$want,converged" ]; then
        ok until_lm_training_window
    else fail until_lm_training_window "want $want ($T): $(tail -n 2 "$RUNS/lm_until/log.csv") $(tail -c 200 "$TMP/lm.err")"; fi
else fail until_lm_training_window "reference run: $(tail -c 300 "$TMP/lm.err")"; fi
