# ./train and ./eval on hostile input: configs, data files and checkpoints. Each must give one
# clear message and a non-zero exit, before any training and without creating a run folder;
# or, for data the docs say is repaired or skipped, the documented note and a normal run.
. tests/lib.sh
EDIT="python3 tests/ckpt_edit.py"

# The base config: line numbers matter below (d_model is line 11, steps line 18).
tiny_config "$TMP/tiny.ini"

# variant NAME SED-SCRIPT: $TMP/NAME.ini is the base config edited by sed.
variant() { sed "$2" "$TMP/tiny.ini" >"$TMP/$1.ini"; }

# one_error NAME PATTERN [PATH]: the command just run (exit status $rc, output in $TMP/out and
# $TMP/err) exited non-zero with exactly one line on stderr matching PATTERN and wrote nothing
# to stdout; and PATH (a run folder), when given, does not exist.
one_error() {
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 0 ]; then fail "$1" "exited 0"
    elif [ "$lines" -ne 1 ]; then fail "$1" "$lines lines on stderr: $(head -c 300 "$TMP/err")"
    elif ! grep -Eq -- "$2" "$TMP/err"; then fail "$1" "stderr did not match '$2': $(head -c 300 "$TMP/err")"
    elif [ -s "$TMP/out" ]; then fail "$1" "printed to stdout: $(head -c 200 "$TMP/out")"
    elif [ -n "$3" ] && [ -e "$3" ]; then fail "$1" "created $3"
    else ok "$1"; fi
}

# config_error NAME PATTERN CONFIG [OVERRIDES...]: ./train fails as one_error says and creates
# no run folder.
config_error() {
    name=$1; pat=$2; shift 2
    rm -rf "$RUNS"
    "$TRAIN" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    one_error "$name" "$pat" "$RUNS"
}

# ------------------------------------------------------------------------------ configs
T=$TMP
variant bad_section '$a [modle]\nx = 1'
config_error cfg_unknown_section "^$T/bad_section.ini:23: unknown section \[modle\]; did you mean \[model\]\?$" "$T/bad_section.ini"
variant bad_key 's/^d_model = 16/d_modle = 16/'
config_error cfg_unknown_key "^$T/bad_key.ini:11: unknown key 'd_modle' in \[model\]; did you mean 'd_model'\?$" "$T/bad_key.ini"
variant key_in_wrong_section 's/^seed = 3/steps = 3/'
config_error cfg_key_in_wrong_section "^$T/key_in_wrong_section.ini:3: unknown key 'steps' in \[run\]; 'steps' is a key of \[train\]$" "$T/key_in_wrong_section.ini"
variant dup '$a [model]\nd_model = 32'
config_error cfg_duplicate_key "^$T/dup.ini:24: duplicate key 'd_model' in \[model\] \(first set on line 11\)$" "$T/dup.ini"
variant wrong_type 's/^steps = 20/steps = many/'
config_error cfg_wrong_type "^$T/wrong_type.ini:18: steps: 'many' is not an integer$" "$T/wrong_type.ini"
variant float_for_int 's/^steps = 20/steps = 2.5/'
config_error cfg_float_for_int "^$T/float_for_int.ini:18: steps: trailing garbage" "$T/float_for_int.ini"
variant too_big 's/^steps = 20/steps = 99999999999/'
config_error cfg_int_overflow "^$T/too_big.ini:18: steps: '99999999999' does not fit in an int$" "$T/too_big.ini"
variant negative 's/^batch_size = 8/batch_size = -8/'
config_error cfg_negative_size "^$T/negative.ini:19: batch_size = -8 is out of range \[1, " "$T/negative.ini"
variant neg_dim 's/^d_model = 16/d_model = -16/'
config_error cfg_negative_d_model "^$T/neg_dim.ini:11: d_model = -16 is out of range" "$T/neg_dim.ini"
variant heads 's/^n_heads = 2/n_heads = 3/'
config_error cfg_heads_divide "^$T/heads.ini:12: d_model \(16\) must be divisible by n_heads \(3\)$" "$T/heads.ini"
variant odd_dk 's/^d_model = 16/d_model = 18/'
config_error cfg_rope_odd_head_size "^$T/odd_dk.ini:16: pos = rope needs an even head size d_model/n_heads, got 18/2 = 9$" "$T/odd_dk.ini"
variant dropout1 's/^pos = rope/pos = rope\ndropout = 1/'
config_error cfg_dropout_1 "^$T/dropout1.ini:17: dropout = 1 is out of range \[0, 1\)$" "$T/dropout1.ini"
variant dropout2 's/^pos = rope/pos = rope\ndropout = 1.5/'
config_error cfg_dropout_1_5 "^$T/dropout2.ini:17: dropout = 1.5 is out of range" "$T/dropout2.ini"
variant steps0 's/^steps = 20/steps = 0/'
config_error cfg_steps_0 "^$T/steps0.ini:18: steps = 0 is out of range \[1, " "$T/steps0.ini"
variant nan 's/^steps = 20/steps = 20\nlr = nan/'
config_error cfg_lr_nan "^$T/nan.ini:19: lr: 'nan' is not a finite number$" "$T/nan.ini"
variant until_metric 's/^steps = 20/steps = 20\nuntil = val_exact>=0.99/'
config_error cfg_until_unknown_metric "^$T/until_metric.ini:19: until: unknown metric 'val_exact' in 'val_exact>=0.99'; expected one of val_loss, val_token_acc, val_exact_match, val_loss_last$" "$T/until_metric.ini"
variant until_cmp 's/^steps = 20/steps = 20\nuntil = val_loss < 0.05/'
config_error cfg_until_comparator "^$T/until_cmp.ini:19: until: 'val_loss < 0.05': the comparison must be >= or <=; write METRIC>=VALUE or METRIC<=VALUE$" "$T/until_cmp.ini"
variant until_range 's/^steps = 20/steps = 20\nuntil = val_token_acc >= 99/'
config_error cfg_until_out_of_range "^$T/until_range.ini:19: until: val_token_acc = 99 is out of range; it lies in \[0, 1\]$" "$T/until_range.ini"
variant until_loss_last 's/^steps = 20/steps = 20\nuntil = val_loss_last <= 1/'
config_error cfg_until_metric_of_task "^$T/until_loss_last.ini:19: until: val_loss_last is the language model's on text \(task = lm\), not task = toy_translate's$" "$T/until_loss_last.ini"
variant patience 's/^steps = 20/steps = 20\npatience = -1/'
config_error cfg_patience_negative "^$T/patience.ini:19: patience = -1 is out of range \[0, " "$T/patience.ini"
config_error cfg_until_override "^override 'train.until=val_loss': until: 'val_loss': no comparison; write METRIC>=VALUE or METRIC<=VALUE$" "$T/tiny.ini" train.until=val_loss
variant no_eq 's/^steps = 20/steps 20/'
config_error cfg_no_equals "^$T/no_eq.ini:18: expected 'key = value' or '\[section\]', got 'steps 20'$" "$T/no_eq.ini"
variant quote 's/^seed = 3/name = "open/'
config_error cfg_unterminated_quote "^$T/quote.ini:3: unterminated quote in value$" "$T/quote.ini"
variant include '1a include = other.ini'
config_error cfg_include_is_unknown "^$T/include.ini:2: unknown key 'include' in \[run\]" "$T/include.ini"
variant no_data 's/^task = toy_translate/task = parallel_text\ntrain_src = nope.de\ntrain_tgt = nope.en/'
config_error cfg_missing_data_file "^$T/no_data.ini:7: train_src 'nope.de': No such file or directory$" "$T/no_data.ini"
variant no_lexicon 's/^task = toy_translate/task = toy_translate\nlexicon = nope.txt/'
config_error cfg_missing_lexicon "^$T/no_lexicon.ini:7: lexicon 'nope.txt': No such file or directory$" "$T/no_lexicon.ini"
variant pt_no_tgt 's/^task = toy_translate/task = parallel_text\ntrain_src = tests\/test_cli_errors.sh/'
config_error cfg_parallel_without_tgt "^$T/pt_no_tgt.ini:6: task = parallel_text needs train_src and train_tgt$" "$T/pt_no_tgt.ini"
python3 -c "import sys; open(sys.argv[1], 'w').write('[run]\nname = ' + 'a' * (1 << 20) + '\n')" "$T/long.ini"
config_error cfg_1mb_line "^$T/long.ini:2: line is 1048583 characters, longer than 4096$" "$T/long.ini"
printf '[run]\nseed = 1\n\000\n' >"$T/nul.ini"
config_error cfg_nul_byte "^$T/nul.ini:3: NUL byte in file$" "$T/nul.ini"
: >"$T/empty.ini"
config_error cfg_empty_file "^$T/empty.ini:1: empty config$" "$T/empty.ini"
printf '; only a comment\n\n' >"$T/comments.ini"
config_error cfg_comments_only "^$T/comments.ini:1: empty config$" "$T/comments.ini"
config_error cfg_missing_file "^$T/nope.ini: cannot open: No such file or directory$" "$T/nope.ini"
config_error cfg_directory "^$T: cannot read: Is a directory$" "$T"
config_error cfg_bad_override "^override 'train.stpes=5': unknown key 'stpes' in \[train\]; did you mean 'train.steps'\?$" \
    "$T/tiny.ini" train.stpes=5
config_error cfg_override_out_of_range "^override 'steps=0': steps = 0 is out of range" "$T/tiny.ini" steps=0

# Positive control: the base config (with a BOM and CRLF line ends) trains.
printf '\357\273\277' >"$T/crlf.ini"
sed 's/$/\r/' "$T/tiny.ini" >>"$T/crlf.ini"
rm -rf "$RUNS"
if "$TRAIN" "$T/crlf.ini" run.name=tiny >"$TMP/out" 2>"$TMP/err" && [ -s "$RUNS/tiny/model.safetensors" ]; then
    ok cfg_bom_crlf_trains
else fail cfg_bom_crlf_trains "$(head -c 300 "$TMP/err")"; fi

# ------------------------------------------------------------------------------ checkpoints
RUN=$RUNS/tiny
CKPT=$RUN/model.safetensors
H=$TMP/hostile
mkdir -p "$H"
cp "$RUN"/*.txt "$H/"

# ckpt_error NAME PATTERN FILE: ./eval on a run folder holding FILE as its checkpoint fails as
# one_error says (no results printed).
ckpt_error() {
    cp "$3" "$H/model.safetensors"
    "$EVAL" "$H" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    one_error "$1" "$2"
}

if "$EVAL" "$RUN" >"$TMP/out" 2>"$TMP/err" && grep -q '^test,0,20,' "$TMP/out"; then ok eval_good_checkpoint
else fail eval_good_checkpoint "$(head -c 300 "$TMP/err")"; fi
# --table: the CSV's rows for reading, the accuracies times 100 (two decimals), no pair
# accuracy or loss_last on a translator ("-"): every cell against the CSV's.
cp "$TMP/out" "$TMP/eval.csv"
if "$EVAL" "$RUN" --table >"$TMP/table" 2>"$TMP/err" &&
    [ "$(head -n 1 "$TMP/table")" = "split  length  examples      loss  token acc %  exact %  pair acc %  loss_last" ] &&
    awk -F, 'NR == FNR { if (FNR > 1) want[FNR] = sprintf("%s %d %d %.4f %.2f %.2f - -", $1, $2, $3, $4, 100 * $5, 100 * $6); next }
             FNR > 1 { $1 = $1; if ($0 != want[FNR]) { print "row " FNR ": " $0 " want " want[FNR]; bad = 1 } n++ }
             END { exit bad || n != 2 }' "$TMP/eval.csv" FS=' ' "$TMP/table" >"$TMP/table.diff"
then ok "eval_table (val and test rows: accuracies x 100 as the CSV's, empty cells -)"
else fail eval_table "$(cat "$TMP/table.diff" "$TMP/err" | head -c 300) $(head -n 3 "$TMP/table")"; fi

set -- $($EDIT "$CKPT" - info)   # header length, data offset, file size
HLEN=$1; DATA=$2; SIZE=$3
P="^error: $H/model.safetensors: "
for cut in 0 5; do
    $EDIT "$CKPT" "$H/t" truncate $cut
    ckpt_error "ckpt_truncated_in_length_$cut" "${P}file is $cut bytes, too short for the 8-byte header length$" "$H/t"
done
for cut in 8 $((8 + HLEN / 2)) $((DATA - 1)); do
    $EDIT "$CKPT" "$H/t" truncate $cut
    ckpt_error "ckpt_truncated_in_header_$cut" "${P}header length $HLEN is larger than the rest of the file \($((cut - 8)) bytes\)$" "$H/t"
done
for cut in $DATA $((DATA + 1000)) $((SIZE - 1)); do
    $EDIT "$CKPT" "$H/t" truncate $cut
    ckpt_error "ckpt_truncated_in_data_$cut" "${P}tensor '[^']*': data_offsets end [0-9]+ is beyond the data region \($((cut - DATA)) bytes\)$" "$H/t"
done
$EDIT "$CKPT" "$H/t" header 'not json at all'
ckpt_error ckpt_header_not_json "${P}header is not valid JSON: byte 8: " "$H/t"
$EDIT "$CKPT" "$H/t" header '[1, 2, 3]'
ckpt_error ckpt_header_not_object "${P}header must be a JSON object, found array$" "$H/t"
$EDIT "$CKPT" "$H/t" dtype tgt_embed.weight F16
ckpt_error ckpt_wrong_dtype "${P}tensor 'tgt_embed.weight' has dtype F16; only F32 is supported$" "$H/t"
$EDIT "$CKPT" "$H/t" overlap tgt_embed.weight
ckpt_error ckpt_overlapping_offsets "${P}tensors '[a-z_.]+' and '[a-z_.]+' overlap in the data region" "$H/t"
$EDIT "$CKPT" "$H/t" beyond generator.bias
ckpt_error ckpt_offsets_out_of_range "${P}tensor 'generator.bias': data_offsets end [0-9]+ is beyond the data region" "$H/t"
$EDIT "$CKPT" "$H/t" rename generator.bias generator.b
ckpt_error ckpt_tensor_renamed "${P}tensor 'generator.bias' is missing \(does the checkpoint match the config\? model.bias = false has no Linear biases\)$" "$H/t"
$EDIT "$CKPT" "$H/t" rename optimizer.exp_avg optimizer.other
ckpt_error ckpt_extra_tensor "${P}unexpected tensor 'optimizer.other'" "$H/t"
$EDIT "$CKPT" "$H/t" reshape generator.weight
ckpt_error ckpt_tensor_reshaped "${P}tensor 'generator.weight' has shape \[16, [0-9]+\], the model needs \[[0-9]+, 16\]$" "$H/t"
$EDIT "$CKPT" "$H/t" fill decoder.norm.weight nan
ckpt_error ckpt_nan_weights "${P}tensor 'decoder.norm.weight' holds nan at element 0; the checkpoint is damaged$" "$H/t"
$EDIT "$CKPT" "$H/t" meta format_version 7
ckpt_error ckpt_format_version "${P}unsupported format_version '7' \(expected 1\)$" "$H/t"
$EDIT "$CKPT" "$H/t" meta config "$(sed 's/^d_model = 16/d_model = 32/' "$T/tiny.ini")"
ckpt_error ckpt_other_config "${P}tensor 'src_embed.weight' has shape \[[0-9]+, 16\], the model needs \[[0-9]+, 32\]$" "$H/t"
$EDIT "$CKPT" "$H/t" meta config "[model]
d_modle = 16"
ckpt_error ckpt_config_unreadable "^error: $H/model.safetensors \(config\):2: unknown key 'd_modle'" "$H/t"
$EDIT "$CKPT" "$H/t" meta dropout_rng minus-one
ckpt_error ckpt_bad_metadata "${P}metadata dropout_rng = 'minus-one' is not a number$" "$H/t"
ckpt_error ckpt_not_a_checkpoint "${P}header length [0-9]+ (exceeds the limit|is larger than the rest)" "$RUN/config.ini"

# Overrides of ./eval are checked before any row is printed.
eval_error() {
    name=$1; pat=$2; shift 2
    "$EVAL" "$RUN" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    one_error "$name" "$pat"
}
eval_error eval_unknown_split "^error: splits: unknown split 'tset' \(expected val, test, val,test or none\)$" splits=val,tset
if "$EVAL" "$RUN" splits=none lengths=2 >"$TMP/out" 2>"$TMP/err" && [ "$(wc -l <"$TMP/out")" -eq 2 ] &&
        grep -q '^test,2,20,' "$TMP/out"; then ok eval_splits_none
else fail eval_splits_none "$(head -c 300 "$TMP/out") $(head -c 300 "$TMP/err")"; fi
eval_error eval_length_too_long "^error: lengths: 128 clauses asked for; toy_translate supports 1..64$" lengths=1..1000
eval_error eval_length_zero "^error: lengths '0': expected numbers >= 1" lengths=0
eval_error eval_bad_override "^error: override 'pos_ofset=3': unknown key 'pos_ofset'; did you mean 'model.pos_offset'\?$" pos_ofset=3
# Every tool reads its options with one reader (src/run/cli.c): the same words for the same
# mistake, exit code 2, nothing on standard output.
tool_error() {
    name=$1; pat=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -eq 2 ] || { fail "$name" "exit code $rc, expected 2: $(head -c 300 "$TMP/err")"; return; }
    one_error "$name" "$pat"
}
tool_error eval_option_typo "^eval: unknown option '--position' \(see \./eval --help\)$" "$EVAL" "$RUN" --position x
tool_error permute_option_no_value "^permute: --perm needs a value$" "$BIN_DIR/permute" "$RUN" --perm
tool_error translate_beam_range "^translate: --beam must be in 1\.\.256, got 0$" "$BIN_DIR/translate" "$RUN" --beam 0
tool_error translate_stray_word "^translate: unexpected argument 'val' \(see \./translate --help\)$" "$BIN_DIR/translate" "$RUN" val
"$EVAL" "$TMP/nope" >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ] && grep -q "^error: $TMP/nope: cannot open" "$TMP/err"; then ok eval_missing_path
else fail eval_missing_path "$(head -c 300 "$TMP/err")"; fi

# Vocabulary files beside the checkpoint must be the ones the data gives.
cp "$CKPT" "$H/t"
sed '6s/.*/zzz/' "$RUN/src_vocab.txt" >"$H/src_vocab.txt"
ckpt_error vocab_token_changed "^error: $H/src_vocab.txt:6: token 'zzz', but the task's data gives '[^']+' \(was the lexicon or data changed\?\)$" "$H/t"
head -n 3 "$RUN/src_vocab.txt" >"$H/src_vocab.txt"
ckpt_error vocab_truncated "^error: $H/src_vocab.txt:4: missing special token <eos>" "$H/t"
cp "$RUN/src_vocab.txt" "$H/"
sed '$d' "$RUN/tgt_vocab.txt" >"$H/tgt_vocab.txt"
ckpt_error vocab_token_missing "^error: $H/tgt_vocab.txt: [0-9]+ tokens, but the task's data gives [0-9]+" "$H/t"
rm "$H/tgt_vocab.txt"
ckpt_error vocab_file_missing "^error: $H/tgt_vocab.txt: cannot open: No such file or directory$" "$H/t"

# Resuming a run from a checkpoint of another config names the tensor that differs, and
# creates no folder for the new run.
config_error_keep() {   # like config_error, without wiping $RUNS first
    name=$1; pat=$2; shift 2
    "$TRAIN" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    one_error "$name" "$pat" "$RUNS/other"
}
config_error_keep resume_other_config "^error: $CKPT: tensor 'src_embed.weight' has shape \[[0-9]+, 16\], the model needs \[[0-9]+, 32\]$" \
    "$T/tiny.ini" run.name=other model.d_model=32 train.resume="$RUN"
config_error_keep resume_past_steps "^error: $CKPT is at step 20, past steps = 10" "$T/tiny.ini" run.name=other train.steps=10 train.resume="$RUN"
config_error_keep resume_missing "^error: $RUNS/nope: cannot open: No such file or directory$" \
    "$T/tiny.ini" run.name=other train.resume="$RUNS/nope"
config_error_keep run_exists "^error: $RUN already holds a run; continue it with train.resume=" "$T/tiny.ini" run.name=tiny

# ------------------------------------------------------------------------------ parallel_text data
D=$TMP/data
mkdir -p "$D"
# pt NAME SRC-TEXT TGT-TEXT [OVERRIDES...]: writes D/NAME.de/.en and a config using them.
pt() {
    n=$1; printf "$2" >"$D/$n.de"; printf "$3" >"$D/$n.en"; shift 3
    cat >"$D/$n.ini" <<EOF
[run]
out_dir = $RUNS
threads = 1
[task]
task = parallel_text
train_src = $D/$n.de
train_tgt = $D/$n.en
max_tokens = 20
[model]
model = translator
d_model = 16
n_heads = 2
d_ff = 32
enc_layers = 1
dec_layers = 1
[train]
steps = 2
batch_size = 2
eval_every = 2
ckpt_every = 2
EOF
    rm -rf "$RUNS"
    "$TRAIN" "$D/$n.ini" "$@" >"$TMP/out" 2>"$TMP/err"
}
# pt_error NAME PATTERN: the last pt run failed with one line matching PATTERN, no run folder.
pt_error() {
    rc=$?
    one_error "$1" "$2" "$RUNS"
}
# pt_ok NAME PATTERN: the last pt run trained, and stderr matches PATTERN ('' = stderr empty).
pt_ok() {
    rc=$?
    if [ "$rc" -ne 0 ]; then fail "$1" "exit $rc: $(head -c 300 "$TMP/err")"
    elif [ -z "$2" ] && [ -s "$TMP/err" ]; then fail "$1" "unexpected stderr: $(head -c 300 "$TMP/err")"
    elif [ -n "$2" ] && ! grep -Eq -- "$2" "$TMP/err"; then fail "$1" "stderr did not match '$2': $(head -c 300 "$TMP/err")"
    else ok "$1"; fi
}

pt empty_src "" "a house\n"
pt_error data_empty_source "^error: $D/empty_src.de: empty file$"
pt empty_tgt "ein haus\n" ""
pt_error data_empty_target "^error: $D/empty_tgt.en: empty file$"
pt mismatch "ein haus\nzwei hunde\n" "a house\n"
pt_error data_line_counts_differ "^error: $D/mismatch.de has 2 lines but $D/mismatch.en has 1$"
pt blank "\n  \n" "\n\n"
if [ $? -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 2 ] && grep -q "^$D/blank.de: skipped 2 pairs that are empty" "$TMP/err" &&
        grep -q "^error: $D/blank.de: no usable sentence pairs$" "$TMP/err" && [ ! -e "$RUNS" ]; then ok data_only_blank_lines
else fail data_only_blank_lines "stderr: $(head -c 300 "$TMP/err")"; fi
pt unknown_only "ein haus\nzwei hunde\n" "a house\ntwo dogs\n" task.min_freq=5
pt_error data_min_freq_leaves_only_unk "^error: $D/unknown_only.de: no token occurs min_freq = 5 times: the vocabulary would hold only <unk>$"

pt lf "ein haus\nzwei hunde\n" "a house\ntwo dogs\n"
pt_ok data_lf ""
cp "$RUNS/lf/src_vocab.txt" "$D/lf_src_vocab.txt"
pt crlf "ein haus\r\nzwei hunde\r\n" "a house\r\ntwo dogs\r\n"
pt_ok data_crlf ""
if cmp -s "$RUNS/crlf/src_vocab.txt" "$D/lf_src_vocab.txt"; then ok data_crlf_same_vocab_as_lf
else fail data_crlf_same_vocab_as_lf "$(od -c "$RUNS/crlf/src_vocab.txt" | head -5)"; fi
pt utf8 "ein \377\376 haus\nzwei\n" "a house\ntwo\n"
pt_ok data_invalid_utf8_repaired "^$D/utf8.de, $D/utf8.en: 2 invalid UTF-8 bytes replaced by U\+FFFD"
pt nul "ein haus\nzwei \000\n" "a house\ntwo\n"
pt_error data_nul_byte_refused "^error: $D/nul.de:2: NUL byte in a text file \(is it a binary file\?\)$"
# Not a regular file: refused by name before anything is read (a FIFO would block on open).
pt devzero "ein haus\n" "a house\n" task.train_src=/dev/zero
pt_error data_dev_zero_refused "^$D/devzero.ini(:[0-9]+)?: train_src '/dev/zero' is a device or socket, not a regular file$"
pt folder "ein haus\n" "a house\n" task.train_tgt="$D"
pt_error data_folder_refused "^$D/folder.ini(:[0-9]+)?: train_tgt '$D' is a folder, not a regular file$"
mkfifo "$D/pipe.de" 2>/dev/null   # not named like a pt run: pt writes NAME.de, and would block on a FIFO
if [ -p "$D/pipe.de" ]; then
    pt fifo "ein haus\n" "a house\n" task.train_src="$D/pipe.de"
    pt_error data_fifo_refused "^$D/fifo.ini(:[0-9]+)?: train_src '$D/pipe.de' is a FIFO, not a regular file$"
else skip data_fifo_refused "mkfifo not available here"; fi
pt size_limit "ein haus\nzwei hunde\n" "a house\ntwo dogs\n" task.max_file_size=16
pt_error data_size_limit "^$D/size_limit.ini:6: train_src '$D/size_limit.de' is 20 B, larger than task.max_file_size = 16 \(raise it to read this file\)$"
pt size_limit_raised "ein haus\nzwei hunde\n" "a house\ntwo dogs\n" task.max_file_size=20
pt_ok data_size_limit_raised ""
python3 -c "
import sys
open(sys.argv[1] + '.de', 'w').write('wort ' * 200000 + '\nkurz\n')
open(sys.argv[1] + '.en', 'w').write('word ' * 200000 + '\nshort\n')" "$D/huge_src"
pt huge "$(cat "$D/huge_src.de")" "$(cat "$D/huge_src.en")"
pt_ok data_1mb_line_skipped "^$D/huge.de: skipped 1 pairs that are empty or longer than max_tokens = 20$"
printf 'qqq rrr\nsss\n' >"$D/unk.de"; printf 'zzz\nyyy www\n' >"$D/unk.en"
pt unknown_val "ein haus\nzwei\n" "a house\ntwo\n" task.val_src="$D/unk.de" task.val_tgt="$D/unk.en"
pt_ok data_val_all_unknown "^$D/unk.de: 3 of 3 tokens \(100.0%\) are not in the training vocabulary \(read as <unk>\): ALL of them$"
