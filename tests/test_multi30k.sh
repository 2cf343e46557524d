#!/bin/sh
# Real translation end to end on a slice of Multi30k (../shared/data/multi30k): get_data.sh
# copies and checks the data; a tiny BPE translator trained on 400 pairs for 300 steps must
# reach a training loss below 0.5 (it starts near 6.4); ./translate, reading only the run
# folder (checkpoint, vocabularies, BPE merges), must give those training sentences back as
# detokenised cased text (BLEU > 70) and report the same BLEU as an independent Python
# implementation on held-out sentences; a missing or corrupt tokeniser file is a clear error.
# The decoder-only form reading the German as a prefix translates through the same tool.
. tests/lib.sh
M30K=../shared/data/multi30k
if [ ! -f "$M30K/train.de" ]; then   # every check below needs the data: each is a skip
    for name in get_data_from get_data_misaligned tiny_translator_learns bpe_saved_beside_checkpoint \
            translate_round_trip translate_detokenises bleu_matches_python_reference attention_maps \
            translate_needs_merges translate_bad_merges translate_bad_option multi30k_script_quick \
            prefix_joint_vocabulary prefix_translate_round_trip prefix_batches_equal_single_lines \
            prefix_attention_refused; do
        skip $name "no Multi30k at $M30K (scripts/get_data.sh fetches it)"
    done
    exit 0
fi

# get_data.sh --from: copies every split and checks counts and alignment.
if scripts/get_data.sh --from "$M30K" --out "$TMP/m30k" >"$TMP/get.out" 2>&1 &&
   grep -q "train: 29000 sentence pairs" "$TMP/get.out" && [ -f "$TMP/m30k/test_2018_flickr.en" ]; then
    ok get_data_from
else
    fail get_data_from "$(tail -3 "$TMP/get.out")"
fi
mkdir -p "$TMP/bad"
for f in "$M30K"/*.de "$M30K"/*.en; do cp "$f" "$TMP/bad/"; done
sed -i '$d' "$TMP/bad/val.en"
expect_error get_data_misaligned "val is not aligned: 1014 German lines, 1013 English" scripts/get_data.sh --from "$TMP/bad" --out "$TMP/bad_out"

mkdir -p "$TMP/d"
for l in de en; do
    head -n 400 "$TMP/m30k/train.$l" > "$TMP/d/train.$l"
    head -n 100 "$TMP/m30k/train.$l" > "$TMP/d/seen.$l"
    head -n 60 "$TMP/m30k/val.$l" > "$TMP/d/val.$l"
done
"$BIN_DIR/train" configs/multi30k/rope.ini run.out_dir="$TMP/runs" run.name=tiny \
    task.train_src="$TMP/d/train.de" task.train_tgt="$TMP/d/train.en" task.val_src= task.val_tgt= task.test_src= task.test_tgt= \
    task.bpe_merges=500 model.d_model=64 model.d_ff=128 model.n_heads=4 model.enc_layers=1 model.dec_layers=1 \
    model.dropout=0 train.steps=300 train.batch_size=32 train.warmup=30 train.lr=3e-3 train.label_smoothing=0 \
    train.log_every=50 train.ckpt_every=300 >"$TMP/train.out" 2>&1
RUN="$TMP/runs/tiny"
loss=$(awk -F, '$1 == 300 && $2 == "train" { print $4 }' "$RUN/log.csv" 2>/dev/null)
first=$(awk -F, '$1 == 1 && $2 == "train" { print $4 }' "$RUN/log.csv" 2>/dev/null)
if [ -n "$loss" ] && awk -v l="$loss" 'BEGIN { exit !(l < 0.5) }'; then ok "tiny_translator_learns (loss $first -> $loss)"
else fail tiny_translator_learns "loss at step 300: '$loss' (want < 0.5): $(tail -2 "$TMP/train.out")"; fi
if [ -s "$RUN/src_bpe.txt" ] && [ -s "$RUN/tgt_bpe.txt" ] && head -1 "$RUN/src_bpe.txt" | grep -q '^#version: 0.2$'; then ok bpe_saved_beside_checkpoint
else fail bpe_saved_beside_checkpoint "no merges files in $RUN"; fi

# Round trip through the saved tokeniser: memorised training sentences come back verbatim.
"$BIN_DIR/translate" "$RUN" --beam 1 --ref "$TMP/d/seen.en" < "$TMP/d/seen.de" > "$TMP/seen.hyp" 2>"$TMP/seen.err"
bleu=$(sed -n 's/^BLEU = \([0-9.]*\) (cased).*/\1/p' "$TMP/seen.err")
lines=$(awk 'END { print NR }' "$TMP/seen.hyp")
if [ "$lines" = 100 ] && [ -n "$bleu" ] && awk -v b="$bleu" 'BEGIN { exit !(b > 70) }'; then ok "translate_round_trip (BLEU $bleu on training sentences)"
else fail translate_round_trip "$lines lines, BLEU '$bleu': $(head -c 300 "$TMP/seen.err")"; fi
if grep -q "Two young, White males are outside near many bushes." "$TMP/seen.hyp"; then ok translate_detokenises
else fail translate_detokenises "$(head -1 "$TMP/seen.hyp")"; fi

# Beam search and BLEU on unseen sentences; the C BLEU equals the Python reference.
"$BIN_DIR/translate" "$RUN" --beam 4 --alpha 1 --ref "$TMP/d/val.en" < "$TMP/d/val.de" > "$TMP/val.hyp" 2>"$TMP/val.err"
c_bleu=$(sed -n 's/^BLEU = \([0-9.]*\) (cased), \([0-9.]*\) (lower-cased).*/\1 \2/p' "$TMP/val.err")
if [ -z "$c_bleu" ]; then fail translate_beam "$(head -c 300 "$TMP/val.err")"
elif command -v python3 >/dev/null 2>&1; then
    py=$(python3 tests/bleu_reference.py "$TMP/val.hyp" "$TMP/d/val.en" | awk '{ printf "%.2f", $1 }')
    py_lc=$(python3 tests/bleu_reference.py "$TMP/val.hyp" "$TMP/d/val.en" --lc | awk '{ printf "%.2f", $1 }')
    if [ "$c_bleu" = "$py $py_lc" ]; then ok "bleu_matches_python_reference ($c_bleu)"
    else fail bleu_matches_python_reference "C '$c_bleu', Python '$py $py_lc'"; fi
else skip bleu_matches_python_reference "no python3 for the cross-check (beam search gave BLEU $c_bleu)"; fi

# Attention maps: one SVG per kind and layer.
head -n 1 "$TMP/d/val.de" | "$BIN_DIR/translate" "$RUN" --attention "$TMP/attn" >/dev/null 2>"$TMP/attn.err"
n_svg=$(ls "$TMP/attn" 2>/dev/null | grep -c '^line1_.*\.svg$')
if [ "$n_svg" = 3 ] && grep -q "<rect" "$TMP/attn/line1_decoder_cross_layer1.svg"; then ok attention_maps
else fail attention_maps "$n_svg files: $(head -c 200 "$TMP/attn.err")"; fi

# The tokeniser files are required and checked.
mv "$RUN/src_bpe.txt" "$RUN/src_bpe.moved"
expect_error translate_needs_merges "src_bpe.txt: cannot open" "$BIN_DIR/translate" "$RUN"
mv "$RUN/src_bpe.moved" "$RUN/src_bpe.txt"
printf '#version: 0.2\nab c d\n' > "$RUN/tgt_bpe.txt"
expect_error translate_bad_merges "tgt_bpe.txt:2: expected 'LEFT RIGHT'" "$BIN_DIR/translate" "$RUN"
expect_error translate_bad_option "unknown option '--bem'" "$BIN_DIR/translate" "$RUN" --bem 3

# The decoder-only form (configs/multi30k/study_prefix.ini): <eos> German <bos> English in one
# joint vocabulary. ./translate gives it the German as its prompt: memorised training sentences
# come back (BLEU > 40; a prompt built the translator's way, tokens <eos>, fails it),
# and decoding one line at a time equals decoding batches (prompts are grouped by length, never
# padded).
"$BIN_DIR/train" configs/multi30k/study_prefix.ini run.out_dir="$TMP/runs" run.name=prefix \
    task.train_src="$TMP/d/train.de" task.train_tgt="$TMP/d/train.en" task.val_src= task.val_tgt= task.test_src= task.test_tgt= \
    task.bpe_merges=500 task.lowercase=false model.d_model=64 model.d_ff=128 model.n_heads=4 model.dec_layers=2 \
    model.dropout=0 train.steps=300 train.batch_size=32 train.warmup=30 train.lr=3e-3 train.label_smoothing=0 \
    train.log_every=50 train.ckpt_every=300 >"$TMP/prefix.out" 2>&1
PRE="$TMP/runs/prefix"
if [ -s "$PRE/vocab.txt" ] && [ ! -e "$PRE/src_vocab.txt" ] && grep -qx "Mann" "$PRE/vocab.txt" && grep -qx "man" "$PRE/vocab.txt"
then ok prefix_joint_vocabulary
else fail prefix_joint_vocabulary "$(ls "$PRE"): $(tail -2 "$TMP/prefix.out")"; fi
"$BIN_DIR/translate" "$PRE" --ref "$TMP/d/seen.en" < "$TMP/d/seen.de" > "$TMP/prefix.hyp" 2>"$TMP/prefix.err"
bleu=$(sed -n 's/^BLEU = \([0-9.]*\) (cased).*/\1/p' "$TMP/prefix.err")
if [ -n "$bleu" ] && awk -v b="$bleu" 'BEGIN { exit !(b > 40) }' && [ "$(awk 'END { print NR }' "$TMP/prefix.hyp")" = 100 ]
then ok "prefix_translate_round_trip (BLEU $bleu on training sentences)"
else fail prefix_translate_round_trip "BLEU '$bleu': $(head -c 300 "$TMP/prefix.err")"; fi
"$BIN_DIR/translate" "$PRE" --batch 1 < "$TMP/d/seen.de" > "$TMP/prefix1.hyp" 2>/dev/null
if [ -s "$TMP/prefix1.hyp" ] && cmp -s "$TMP/prefix.hyp" "$TMP/prefix1.hyp"; then ok prefix_batches_equal_single_lines
else fail prefix_batches_equal_single_lines "$(diff "$TMP/prefix.hyp" "$TMP/prefix1.hyp" | head -4)"; fi
expect_error prefix_attention_refused "model = lm reads the source as a prefix and has no cross-attention" \
    sh -c "head -n 1 '$TMP/d/seen.de' | '$BIN_DIR/translate' '$PRE' --attention '$TMP/prefix_attn'"

# scripts/multi30k.sh --quick: trains, translates and scores two schemes; the table is well-formed.
if scripts/multi30k.sh --quick --data "$TMP/m30k" --schemes "none rope" --out "$TMP/table" >"$TMP/table.out" 2>&1; then
    rows=$(awk -F, 'NR > 1 && NF == 10 && $9 >= 0 && $9 <= 100 && $10 >= 0 && $10 <= 100' "$TMP/table/bleu.csv" | wc -l)
    probes=$(awk -F'\t' 'NF == 3 && $1 != ""' "$TMP/table/probes.tsv" | wc -l)
    if [ "$rows" = 2 ] && [ "$probes" = 7 ] && [ -s "$TMP/table/train_loss.svg" ] && grep -q "^| rope | 30 |" "$TMP/table/results.md"; then ok multi30k_script_quick
    else fail multi30k_script_quick "$rows well-formed rows of 2, $probes probe lines of 7: $(cat "$TMP/table/bleu.csv")"; fi
else
    fail multi30k_script_quick "exit status $?: $(tail -3 "$TMP/table.out")"
fi
