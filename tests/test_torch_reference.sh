# The C models against an independent PyTorch implementation (scripts/torch_model.py), for
# every positional scheme x model kind (classifier, translator, lm) x {pre-LN, post-LN}, and
# for each model kind the block options of docs/design.md §2.5 one at a time (rmsnorm,
# swiglu, nobias = model.bias=false) and together with RoPE (llama, pre- and post-LN):
# train a few steps with ./train, then on the validation data
#   - ./eval's loss and token accuracy against the PyTorch module's (loss within 1e-4
#     relative, accuracy equal), and
#   - one step's parameter gradients (./eval --dump-grads) against torch.autograd: for every
#     tensor, the largest |C - torch| within 1e-4 of its largest |torch|.
# PyTorch runs in float64, the C code in float32. Without torch every case is a skip with
# the reason. TORCH_REFERENCE_TABLE=FILE keeps the table of results (TSV).
. tests/lib.sh

# ./eval --dump-grads: its own mistakes, with or without torch.
tiny_config "$TMP/cli.ini"
if "$TRAIN" "$TMP/cli.ini" >"$TMP/cli.out" 2>&1; then
    expect_error eval_dump_grads_needs_file "^eval: --dump-grads needs a value" "$EVAL" "$RUNS/cli" --dump-grads
    expect_error eval_unknown_option "unknown option '--dump-grad'" "$EVAL" "$RUNS/cli" --dump-grad x
    expect_error eval_dump_grads_bad_dir "$TMP/nowhere/d" "$EVAL" "$RUNS/cli" --dump-grads "$TMP/nowhere/d"
else
    fail eval_dump_grads_cli "./train: $(tail -2 "$TMP/cli.out")"
fi

PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "import torch" >/dev/null 2>&1; then PY=$p; break; fi
done
SCHEMES=$(echo $("$TRAIN" --list-schemes))   # the registry is the one list
KINDS="classifier translator lm"
# The block cases: each names its option(s) (block_options) and runs with one LN placement
# (rmsnorm, nobias pre-LN; swiglu post-LN), llama with both.
BLOCKS="rmsnorm swiglu nobias llama"
block_options() {
    case $1 in
    rmsnorm) echo "model.pos=alibi model.norm=rmsnorm" ;;
    swiglu)  echo "model.pos=t5 model.activation=swiglu" ;;
    nobias)  echo "model.pos=learned model.bias=false" ;;
    llama)   echo "model.pos=rope model.norm=rmsnorm model.activation=swiglu model.bias=false" ;;
    esac
}
if [ -z "$PY" ]; then
    for kind in $KINDS; do for pos in $SCHEMES $BLOCKS; do for norm in pre post; do
        case $pos in rmsnorm|nobias) [ $norm = post ] && continue ;; swiglu) [ $norm = pre ] && continue ;; esac
        skip "torch_reference_${kind}_${pos}_$norm" "no python3 with torch (tried python3 and /usr/bin/python3; Debian: apt-get install python3-torch)"
    done; done; done
    exit 0
fi

# config KIND FILE: a tiny config of that model kind (a few seconds for all cases together).
config() {
    {
        printf '[run]\nout_dir = %s\nseed = 5\nthreads = 1\n' "$RUNS"
        case $1 in
        classifier) printf '%s\n' '[task]' 'task = order' 'train_size = 200' 'val_size = 40' 'test_size = 20' \
            '[model]' 'model = classifier' 'd_model = 24' 'n_heads = 3' 'enc_layers = 2' 'max_len = 4' ;;
        translator) printf '%s\n' '[task]' 'task = toy_translate' 'train_size = 200' 'val_size = 24' 'test_size = 20' \
            '[model]' 'model = translator' 'd_model = 16' 'n_heads = 2' 'enc_layers = 2' 'dec_layers = 1' 'max_len = 8' ;;
        lm) printf '%s\n' '[task]' 'task = lm' 'window = 12' 'train_size = 2000' \
            '[model]' 'model = lm' 'd_model = 16' 'n_heads = 4' 'dec_layers = 2' 'max_len = 8' ;;
        esac
        printf '%s\n' 'd_ff = 32' '[train]' 'steps = 40' 'batch_size = 8' 'lr = 1e-2' 'schedule = constant' 'warmup = 0' \
            'log_every = 20' 'eval_every = 40' 'ckpt_every = 40'
    } >"$2"
}

# The options each case varies (training config; evaluation overrides), so that every option of
# the design meets the reference somewhere: pooling, activation, embed_scale, label smoothing,
# a learned table shorter than the sequences (wrap), pos_offset, rope_base, the old rope_scale and
# every RoPE stretch (dynamic on the LM only: it follows the padded batch length elsewhere),
# xpos_gamma (a strong decay), FIRE beyond its threshold.
: >"$TMP/cases"
base=0
for kind in $KINDS; do
    # Each kind's option mix starts where it did with six schemes (12 cases a kind), so that a
    # scheme added to the registry changes no existing case.
    i=$base
    base=$((base + 12))
    config $kind "$TMP/$kind.ini"
    for pos in $SCHEMES $BLOCKS; do
        for norm in pre post; do
            case $pos in rmsnorm|nobias) [ $norm = post ] && continue ;; swiglu) [ $norm = pre ] && continue ;; esac
            name=${kind}_${pos}_$norm
            first=true; [ $norm = post ] && first=false
            block=$(block_options $pos)
            if [ -z "$block" ]; then
                i=$((i + 1))
                train="model.pos=$pos model.norm_first=$first run.name=$name"
                [ $((i % 2)) = 0 ] && train="$train model.activation=gelu"
                [ $((i % 3)) = 0 ] && train="$train model.embed_scale=false"
                [ $((i % 4)) = 1 ] && train="$train train.label_smoothing=0.1"
            else
                train="$block model.norm_first=$first run.name=$name"
                [ $pos = llama ] && [ $norm = pre ] && train="$train train.label_smoothing=0.1"
                [ $pos = swiglu ] && train="$train model.embed_scale=false"
            fi
            [ $kind = classifier ] && [ $norm = post ] && train="$train model.pool=cls"
            rope=; case $train in *model.pos=rope*) rope=1 ;; esac
            over=
            [ $norm = post ] && over="pos_offset=5"
            [ -n "$rope" ] && [ $norm = pre ] && over="rope_base=500 rope_scale=2"
            [ -n "$rope" ] && [ $norm = post ] && over="pos_offset=5 rope_base=2000 rope_scale=1.5"
            [ $pos = rope ] && [ $kind = translator ] && [ $norm = pre ] && over="rope_scaling=ntk rope_factor=3"
            [ $pos = rope ] && [ $kind = translator ] && [ $norm = post ] &&
                over="pos_offset=5 rope_scaling=yarn rope_factor=2.5 rope_original_len=12 yarn_alpha=0.5 yarn_beta=3"
            [ $pos = rope ] && [ $kind = lm ] && [ $norm = pre ] &&
                over="rope_scaling=yarn rope_factor=4 rope_original_len=16 yarn_alpha=0.5 yarn_beta=4"
            [ $pos = rope ] && [ $kind = lm ] && [ $norm = post ] && over="pos_offset=5 rope_scaling=dynamic rope_original_len=8"
            [ $pos = xpos ] && [ $norm = pre ] && over="xpos_gamma=4 rope_base=500"
            [ $pos = fire ] && [ $norm = post ] && over="pos_offset=30"   # past FIRE's threshold 32
            # shellcheck disable=SC2086
            if ! "$TRAIN" "$TMP/$kind.ini" $train >"$TMP/$name.train" 2>&1; then
                fail "torch_reference_$name" "./train: $(tail -2 "$TMP/$name.train")"; continue
            fi
            # shellcheck disable=SC2086
            if ! "$EVAL" "$RUNS/$name" splits=val $over >"$TMP/$name.csv" 2>"$TMP/$name.err" ||
               ! "$EVAL" "$RUNS/$name" $over --dump-grads "$TMP/$name.grads" 2>>"$TMP/$name.err"; then
                fail "torch_reference_$name" "./eval: $(tail -2 "$TMP/$name.err")"; continue
            fi
            echo "$name $TMP/$name.grads $RUNS/$name $TMP/$name.csv" >>"$TMP/cases"
        done
    done
done

table=${TORCH_REFERENCE_TABLE:-$TMP/table.tsv}
"$PY" scripts/torch_model.py --cases "$TMP/cases" --table "$table" >"$TMP/py.out" 2>&1
rc=$?
while read -r name rest; do
    line=$(grep "^PASS $name " "$TMP/py.out")
    if [ -n "$line" ]; then
        ok "torch_reference_$name (${line#PASS "$name" })"
    else
        fail "torch_reference_$name" "$(grep -e "^MISMATCH $name:" -e "^RESULT $name " "$TMP/py.out" | tr '\n' ' ' | head -c 1500)"
    fi
done <"$TMP/cases"
if [ $rc -ne 0 ] && ! grep -q "^MISMATCH" "$TMP/py.out"; then
    fail torch_reference "scripts/torch_model.py exited $rc: $(tail -5 "$TMP/py.out")"
fi
