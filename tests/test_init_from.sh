# train.init_from (docs/design.md §4.3): a fresh run that starts from another run's weights.
# Loading is exact (a 1-step run with lr 1e-30 scores what the source scored at its last step,
# to the printed digit), log.csv names the source in a comment line that survives a resume and
# that ./plot reads past, the window and the RoPE stretch may change, and a source whose
# tensors do not fit the model is refused before any run folder exists, naming the tensor.
# Also: configs with the old key rope_scale train what they trained before.
. tests/lib.sh
cat >"$TMP/lm.ini" <<EOT
[run]
out_dir = $RUNS
threads = 1
[task]
task = lm
window = 32
train_size = 3000
[model]
model = lm
d_model = 16
n_heads = 2
d_ff = 32
dec_layers = 1
dropout = 0
pos = rope
[train]
steps = 20
batch_size = 8
log_every = 5
eval_every = 10
ckpt_every = 10
EOT
# lm NAME KEY=VALUE...: a tiny language-model run.
lm() { name=$1; shift; "$TRAIN" "$TMP/lm.ini" run.name="$name" "$@" >"$TMP/$name.out" 2>&1; }
val_row() { grep "^$2,val,$3," "$RUNS/$1/log.csv" | cut -d, -f3-; }

if lm src; then
    if lm same train.init_from="$RUNS/src" train.steps=1 train.lr=1e-30 train.weight_decay=0 &&
       [ -n "$(val_row src 20 32)" ] && [ "$(val_row same 1 32)" = "$(val_row src 20 32)" ]; then ok init_from_loads_the_weights
    else fail init_from_loads_the_weights "step 1 of the copy: '$(val_row same 1 32)', the source at step 20: '$(val_row src 20 32)' $(tail -2 "$TMP/same.out")"; fi
    first=$(head -n 1 "$RUNS/same/log.csv" 2>/dev/null)
    if [ "$first" = "# init_from = $RUNS/src/model.safetensors (step 20)" ] &&
       [ "$(sed -n 2p "$RUNS/same/log.csv")" = "step,split,length,loss,token_acc,exact_match,loss_last,lr,grad_norm" ]; then
        ok init_from_named_in_log
    else fail init_from_named_in_log "first line '$first'"; fi
    if "$BIN_DIR/plot" --x step --y loss --filter split=train -o "$TMP/p.svg" "$RUNS/same/log.csv" >/dev/null 2>"$TMP/plot.err"; then
        ok init_from_log_plots
    else fail init_from_log_plots "$(head -c 300 "$TMP/plot.err")"; fi
    # Fine-tuning at another window with another stretch: same shapes, so it loads.
    if lm longer train.init_from="$RUNS/src" task.window=64 model.rope_scaling=yarn model.rope_factor=2 \
            model.rope_original_len=32 train.steps=4 train.eval_every=2 train.ckpt_every=2 &&
       [ -n "$(val_row longer 4 64)" ]; then ok init_from_other_window_and_stretch
    else fail init_from_other_window_and_stretch "$(tail -2 "$TMP/longer.out")"; fi
    # A resumed fine-tuning keeps the line (once), and its rows.
    if lm longer2 train.init_from="$RUNS/src" task.window=64 train.steps=2 train.eval_every=2 &&
       lm longer2 train.init_from="$RUNS/src" task.window=64 train.steps=4 train.eval_every=2 train.resume="$RUNS/longer2" &&
       [ "$(grep -c '^# init_from' "$RUNS/longer2/log.csv")" = 1 ] && head -n 1 "$RUNS/longer2/log.csv" | grep -q '^# init_from' &&
       [ -n "$(val_row longer2 2 64)" ] && [ -n "$(val_row longer2 4 64)" ]; then ok init_from_line_survives_resume
    else fail init_from_line_survives_resume "$(head -3 "$RUNS/longer2/log.csv" 2>&1 | tr '\n' '|') $(tail -2 "$TMP/longer2.out")"; fi
    expect_error init_from_refuses_other_shapes \
        "init_from = $RUNS/src: $RUNS/src/model.safetensors: tensor 'decoder.layers.0.ffn.fc1.weight' has shape \[32, 16\], the model needs \[64, 16\]" \
        "$TRAIN" "$TMP/lm.ini" run.name=wide train.init_from="$RUNS/src" model.d_ff=64
    [ -e "$RUNS/wide" ] && fail init_from_refusal_leaves_no_folder "$RUNS/wide exists" || ok init_from_refusal_leaves_no_folder
    expect_error init_from_refuses_other_tensors "tensor 'pos.weight' is missing" \
        "$TRAIN" "$TMP/lm.ini" run.name=learned train.init_from="$RUNS/src" model.pos=learned
    expect_error init_from_missing_source "init_from = $TMP/nowhere: $TMP/nowhere: cannot open" \
        "$TRAIN" "$TMP/lm.ini" run.name=nowhere train.init_from="$TMP/nowhere"
else
    fail init_from_source_run "$(tail -3 "$TMP/src.out")"
fi

# Old configs: rope_scale = 1 (what every checkpoint before rope_scaling stored) trains the run
# the default does, byte for byte, and rope_scale = 2 the run rope_scaling = linear with factor 2
# does (the rule of design §2.3.5); the resolved config writes the new keys only.
if lm plain train.steps=6 && lm old1 train.steps=6 model.rope_scale=1 &&
   lm old2 train.steps=6 model.rope_scale=2 && lm new2 train.steps=6 model.rope_scaling=linear model.rope_factor=2 &&
   cmp -s "$RUNS/plain/log.csv" "$RUNS/old1/log.csv" && cmp -s "$RUNS/old2/log.csv" "$RUNS/new2/log.csv" &&
   ! cmp -s "$RUNS/plain/log.csv" "$RUNS/old2/log.csv" && ! grep -q rope_scale "$RUNS/old2/config.ini" &&
   grep -q "^rope_scaling = linear$" "$RUNS/old2/config.ini"; then ok old_rope_scale_same_log
else fail old_rope_scale_same_log "$(diff "$RUNS/old2/log.csv" "$RUNS/new2/log.csv" 2>&1 | head -3 | tr '\n' ' ')"; fi
