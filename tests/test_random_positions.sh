# Randomized positions (model.pos_random, docs/design.md §2.3.8) end to end: a run draws the
# same positions on 1 and 2 threads and after a kill and resume; ./eval scores a run on drawn
# positions and on plain ones, each reproducibly, and a run without pos_random the same both
# ways; positions it cannot draw and a learned table that cannot hold them are refused.
. tests/lib.sh
tiny_config "$TMP/r.ini" pos=t5 steps=20 ckpt_every=5

# Bit-identical logs on 1 and 2 threads.
for n in 1 2; do
    "$TRAIN" "$TMP/r.ini" run.name=th$n run.threads=$n model.pos_random=256 >"$TMP/th$n.out" 2>&1 ||
        fail random_threads_train "$(tail -c 300 "$TMP/th$n.out")"
done
if cmp -s "$RUNS/th1/log.csv" "$RUNS/th2/log.csv"; then ok random_threads_same_log
else fail random_threads_same_log "$(diff "$RUNS/th1/log.csv" "$RUNS/th2/log.csv" | head -4 | tr '\n' ' ')"; fi

# Killed at step 13 (checkpoint of step 10), resumed: the log of an unbroken run, as the draws
# are a function of (seed, step) and nothing else.
TF_CRASH_AT=step:13 "$TRAIN" "$TMP/r.ini" run.name=killed model.pos_random=256 >"$TMP/k.out" 2>&1
rc=$?
"$TRAIN" "$TMP/r.ini" run.name=killed model.pos_random=256 train.resume="$RUNS/killed" >>"$TMP/k.out" 2>&1
if [ $rc = 137 ] && cmp -s "$RUNS/th1/log.csv" "$RUNS/killed/log.csv"; then ok random_resume_same_log
else fail random_resume_same_log "kill exit $rc; $(diff "$RUNS/th1/log.csv" "$RUNS/killed/log.csv" | head -4 | tr '\n' ' ')"; fi

# Drawn positions differ from plain ones, so the losses do; each is reproducible.
ev() { "$EVAL" "$RUNS/th1" splits=val "$@" 2>/dev/null | grep '^val,'; }
drawn=$(ev); drawn2=$(ev eval.positions=sampled); plain=$(ev eval.positions=plain); plain2=$(ev positions=plain)
if [ -n "$drawn" ] && [ "$drawn" = "$drawn2" ] && [ -n "$plain" ] && [ "$plain" = "$plain2" ] && [ "$drawn" != "$plain" ]; then
    ok random_eval_both_ways
else fail random_eval_both_ways "sampled '$drawn' / '$drawn2', plain '$plain' / '$plain2'"; fi
# The val row logged at the last step is ./eval's on drawn positions (the same draws).
logged=$(grep '^20,val,0,' "$RUNS/th1/log.csv" | cut -d, -f4)
evaled=$(echo "$drawn" | cut -d, -f4)
if [ -n "$logged" ] && [ "$logged" = "$evaled" ]; then ok random_logged_val_is_eval
else fail random_logged_val_is_eval "log.csv val loss '$logged', ./eval '$evaled'"; fi

# Without pos_random, eval.positions changes nothing.
"$TRAIN" "$TMP/r.ini" run.name=off >"$TMP/off.out" 2>&1 || fail random_off_train "$(tail -c 300 "$TMP/off.out")"
a=$("$EVAL" "$RUNS/off" splits=val 2>/dev/null); b=$("$EVAL" "$RUNS/off" splits=val positions=plain 2>/dev/null)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok random_off_positions_ignored
else fail random_off_positions_ignored "'$a' vs '$b'"; fi

# Too few positions to draw from: refused before training, and by ./eval at the set that
# does not fit (plain positions are still fine).
expect_error random_train_too_short "needs [0-9]+ distinct positions, but model.pos_random = 4 draws them from 0..3" \
    "$TRAIN" "$TMP/r.ini" run.name=short model.pos_random=4
expect_error random_eval_too_short "sequence of [0-9]+ tokens needs [0-9]+ distinct positions, but model.pos_random = 8" \
    "$EVAL" "$RUNS/th1" splits=val model.pos_random=8
if "$EVAL" "$RUNS/th1" splits=val model.pos_random=8 positions=plain >/dev/null 2>&1; then ok random_eval_plain_any_length
else fail random_eval_plain_any_length "plain positions refused"; fi
# A learned table must hold every position that can be drawn.
expect_error random_learned_table "r.ini: pos_random = 256 draws positions up to 255, but the learned table has max_len = 32 rows; set max_len = 256" \
    "$TRAIN" "$TMP/r.ini" run.name=learned model.pos=learned model.pos_random=256
expect_error random_positions_word "positions" "$EVAL" "$RUNS/th1" positions=shuffled
