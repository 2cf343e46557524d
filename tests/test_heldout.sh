# ./eval scores every held-out example (docs/design.md §5.3, §5.5, §5.7): its `examples` column
# counts the whole validation and test splits of each task kind on tiny two-step runs, the order
# task's three-word forms as their own row, every generated length set at test_size, and the
# validation pairs of parallel_text that are longer than max_tokens.
# (tests/test_heldout.c checks the same sets token by token against losses worked by hand.)
. tests/lib.sh

# eval_rows NAME RUN EXPECTED [OVERRIDES...]: ./eval RUN prints exactly the rows
# "split,length,examples" of EXPECTED (one per line) in that order.
eval_rows() {
    er_name=$1; er_run=$2; er_want=$3; shift 3
    if ! "$EVAL" "$er_run" "$@" >"$TMP/eval.csv" 2>"$TMP/eval.err"; then
        fail "$er_name" "./eval failed: $(head -c 300 "$TMP/eval.err")"; return
    fi
    got=$(tail -n +2 "$TMP/eval.csv" | cut -d, -f1-3)
    if [ "$got" = "$(printf "$er_want")" ]; then ok "$er_name"
    else fail "$er_name" "rows $(echo $got), expected $(printf "$er_want" | tr '\n' ' ')"; fi
}

# train NAME: trains $TMP/NAME.ini (two steps) into $RUNS/NAME.
train() {
    if "$TRAIN" "$TMP/$1.ini" >"$TMP/train.out" 2>"$TMP/train.err"; then return 0; fi
    fail "$1" "./train failed: $(head -c 300 "$TMP/train.err")"
    return 1
}

common="[run]
out_dir = $RUNS
threads = 1
[train]
steps = 2
batch_size = 8
eval_every = 2
ckpt_every = 2"

# The classifier: val 20 five-word sentences; test 14 five-word and their 14 three-word forms.
cat >"$TMP/order.ini" <<EOF
$common
[task]
task = order
train_size = 100
val_size = 20
test_size = 14
[model]
model = classifier
d_model = 16
n_heads = 2
d_ff = 32
enc_layers = 1
EOF
train order && eval_rows heldout_order_forms "$RUNS/order" "val,5,20\ntest,5,14\ntest,3,14"

# The translator on toy_translate: val and test as configured, each length set at test_size.
tiny_config "$TMP/toy.ini" steps=2 eval_every=2 ckpt_every=2 val_size=19 test_size=23
train toy && eval_rows heldout_toy_splits "$RUNS/toy" "val,0,19\ntest,0,23"
[ -d "$RUNS/toy" ] && eval_rows heldout_toy_length_sets "$RUNS/toy" "test,2,7\ntest,6,7" splits=none lengths=2,6 test_size=7

# parallel_text: the second validation pair (13 and 14 tokens) is longer than max_tokens = 4,
# the last one has an empty source; the training pair of 9 tokens is dropped, none of the
# validation or test pairs, for the translator, the decoder-only form and the LSTM.
D=$TMP/pt
mkdir -p "$D"
printf 'ein hund\nein mann\nder hund sieht den mann und die katze\nein kind\n' >"$D/train.de"
printf 'a dog\na man\nthe dog sees the man and the cat\na child\n' >"$D/train.en"
printf 'ein hund\nder mann sieht den hund und ein kind sieht die katze im haus\nein mann\n\n' >"$D/val.de"
printf 'a dog\nthe man sees the dog and a child sees the cat in the house\na man\na cat\n' >"$D/val.en"
printf 'der hund und der mann und das kind und die katze\nein kind\n' >"$D/test.de"
printf 'the dog and the man and the child and the cat\na child\n' >"$D/test.en"
for model in translator lm lstm; do
    pos=sinusoidal; [ "$model" = lstm ] && pos=none
    cat >"$TMP/pt_$model.ini" <<EOF
$common
[task]
task = parallel_text
max_tokens = 4
train_src = $D/train.de
train_tgt = $D/train.en
val_src = $D/val.de
val_tgt = $D/val.en
test_src = $D/test.de
test_tgt = $D/test.en
[model]
model = $model
d_model = 16
n_heads = 2
d_ff = 32
enc_layers = 1
dec_layers = 1
pos = $pos
EOF
    train "pt_$model" && eval_rows "heldout_parallel_text_$model" "$RUNS/pt_$model" "val,0,4\ntest,0,2"
done

# algorithmic, decoder-only: inputs of 1..6 symbols; val, test and a length set of 24 symbols.
cat >"$TMP/algo.ini" <<EOF
$common
[task]
task = algorithmic
algorithm = reverse
min_length = 1
max_length = 6
train_size = 100
val_size = 17
test_size = 11
[model]
model = lm
d_model = 16
n_heads = 2
d_ff = 32
dec_layers = 1
EOF
train algo && eval_rows heldout_algorithmic_lm "$RUNS/algo" "val,0,17\ntest,0,11\ntest,24,11" lengths=24
