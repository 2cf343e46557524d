# The trainer uses its settings, as seen in log.csv of tiny runs (train rows every 2 steps):
# the lr column follows warm-up then cosine decay to the hand-computed values, clipping bounds
# the update (grad_norm, the norm before clipping, then stays that of a frozen model) and
# label smoothing enters the training loss linearly in eps (evaluation is unsmoothed).
. tests/lib.sh
tiny_config "$TMP/tiny.ini"
# train NAME KEY=VALUE...: a tiny run without weight decay (so a tiny lr freezes the model).
train() {
    name=$1; shift
    "$TRAIN" "$TMP/tiny.ini" run.name="$name" train.weight_decay=0 "$@" >"$TMP/$name.out" 2>&1 ||
        { echo "train $name failed: $(tail -3 "$TMP/$name.out")" >&2; return 1; }
}
# column NAME SPLIT FIELD: that field of every SPLIT row of run NAME's log, one a line.
column() { grep "^[0-9]*,$2," "$RUNS/$1/log.csv" | cut -d, -f"$3"; }

# Warm-up over 10 of 20 steps to lr 1e-3, then cosine to min_lr_ratio 0.1: step s (1-based)
# uses lr_at(s - 1): s/10 * 1e-3 up to s = 10; then 1e-3 (0.1 + 0.9 (1 + cos(pi (s-11)/10)) / 2).
if train warm train.warmup=10 train.lr=1e-3 train.schedule=cosine; then
    want="0.0001 0.0002 0.0004 0.0006 0.0008 0.001 0.000977975 0.000814503 0.00055 0.000285497 0.000122025"
    got=$(column warm train 8 | tr '\n' ' ' | sed 's/ $//')
    if [ "$got" = "$want" ]; then ok trainer_lr_warmup_cosine
    else fail trainer_lr_warmup_cosine "lr column '$got', expected '$want'"; fi
else fail trainer_lr_warmup_cosine "run failed"; fi

# Clipping to 1e-12 makes every Adam step about lr * 1e-14 / eps(1e-9) small: the gradient
# norms (before clipping) stay those of a model frozen by lr = 1e-12, within 1e-4. Without
# clipping the same run moves: its norms differ by more than 1%.
if train frozen train.lr=1e-12 && train clipped train.clip=1e-12 && train free train.clip=0; then
    column frozen train 9 >"$TMP/frozen"; column clipped train 9 >"$TMP/clipped"; column free train 9 >"$TMP/free"
    worst() { paste -d' ' "$TMP/frozen" "$1" | awk '{ d = ($1 - $2) / $1; d = d < 0 ? -d : d; if (d > w) w = d } END { print w + 0 }'; }
    clipped=$(worst "$TMP/clipped"); free=$(worst "$TMP/free")
    echo "# grad_norm change: clipped $clipped, unclipped $free"
    if [ "$(wc -l <"$TMP/frozen")" -ge 10 ] && awk "BEGIN{exit !($clipped < 1e-4 && $free > 0.01)}"; then ok trainer_clips_gradients
    else fail trainer_clips_gradients "relative grad_norm change: clipped $clipped (want < 1e-4), unclipped $free (want > 0.01)"; fi
else fail trainer_clips_gradients "run failed"; fi

# Label smoothing with the model frozen: the training loss is (1 - eps) NLL + eps U per token,
# linear in eps, so L(0.2) - L(0.1) = L(0.1) - L(0) row by row, and L(0.1) != L(0). The
# validation loss does not smooth: equal for every eps.
if train ls0 train.lr=1e-12 && train ls1 train.lr=1e-12 train.label_smoothing=0.1 &&
   train ls2 train.lr=1e-12 train.label_smoothing=0.2; then
    for r in ls0 ls1 ls2; do column $r train 4 >"$TMP/$r.train"; column $r val 4 >"$TMP/$r.val"; done
    check=$(paste -d' ' "$TMP/ls0.train" "$TMP/ls1.train" "$TMP/ls2.train" | awk '
        { d = ($3 - $2) - ($2 - $1); d = d < 0 ? -d : d; if (d > lin) lin = d
          s = $2 - $1; s = s < 0 ? -s : s; if (n++ == 0 || s < step) step = s }
        END { print lin + 0, step + 0 }')
    lin=${check% *}; step=${check#* }
    echo "# linearity error $lin, smallest L(0.1) - L(0) $step"
    if cmp -s "$TMP/ls0.val" "$TMP/ls2.val" && [ -s "$TMP/ls0.val" ] && awk "BEGIN{exit !($lin < 1e-4 && $step > 1e-3)}"; then
        ok trainer_label_smoothing
    else fail trainer_label_smoothing "linearity error $lin (want < 1e-4), smallest L(0.1) - L(0) $step (want > 1e-3), val rows equal: $(cmp -s "$TMP/ls0.val" "$TMP/ls2.val" && echo yes || echo no)"; fi
else fail trainer_label_smoothing "run failed"; fi
