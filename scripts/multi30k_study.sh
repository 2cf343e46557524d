#!/bin/sh
# Multi30k De->En: the LSTM translator against a Transformer of the same parameter count, and
# what depth, width, decoding (beam, length penalty) and the positional scheme change. Trains
# configs/multi30k/study_{lstm,transformer}.ini and their variants (finished runs are reused,
# interrupted ones resume), scores corpus BLEU and chrF2 on test_2016_flickr, and writes CSV,
# Markdown and the attention maps of both models on the same probe sentences.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

PARTS_ALL="headline budget cross depth width positions beam attention"
usage() {
    cat <<EOF
usage: scripts/multi30k_study.sh [--quick] [--seeds N] [--parts "LIST"] [--data DIR] [--out DIR]
                                 [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]]

Multi30k German -> English (test_2016_flickr), every model trained with the same data
(lower-cased words seen twice, as the course), recipe and steps; BLEU (sacreBLEU 13a) and
chrF2 of ./translate --ref; CPU minutes from each run's compute.csv. Parts (default: all):
  headline   configs/multi30k/study_lstm.ini (bidirectional LSTM, d 256, 1 + 1 layers, dot
             attention, tied output) and configs/multi30k/study_transformer.ini (d 176,
             2 + 2 layers, sinusoidal), N seeds each; the parameter counts are read from the
             checkpoints and must agree within 5% (else the script stops)
  budget     the seed-1 pair trained 3 times as many steps (the cosine schedule stretched
             with them): does the gap hold when both train longer?
  cross      what cross-attention adds: the seed-1 Transformer against a decoder-only model
             reading <eos> German <bos> English as one sequence (configs/multi30k/
             study_prefix.ini: the same parameter count, d 168 x 2 layers, a joint vocabulary;
             and d 176 x 4 layers, the Transformer's width and depth) (seed 1)
  depth      the Transformer with 1, 2, 3, 6 encoder and decoder layers at d 176 (seed 1)
  width      the Transformer at about the same parameter count: d 128 x 6 layers, d 176 x 2,
             d 208 x 1 (seed 1), each count and its deviation in the table
  positions  the headline Transformer without positions, with the course's sinusoidal and
             learned tables, and with rope and alibi (seed 1)
  beam       beam 1, 2, 4, 8 without and with the length penalty (alpha 1) on the seed-1
             checkpoints of both headline models
  attention  ./translate --attention of both seed-1 models on two probe sentences, side by side
Writes into DIR: runs.csv, beam.csv, results.md, attention/*.svg, runs/<name>/.

  --quick        a smoke test: tiny models (LSTM d 32, Transformer d 28, 1 + 1 layers), 30
                 steps, the first 40 test sentences; DIR defaults to results/quick/multi30k_study
  --seeds N      seeds of the headline pair (default 3; the other parts use seed 1)
  --parts LIST   the parts to run, e.g. --parts "headline beam"
  --data DIR     the Multi30k files (default data/multi30k, as scripts/get_data.sh leaves them)
  --out DIR      output folder (default results/multi30k_study)
EOF
    echo "$TABLES_USAGE"
    echo "              (and the times of the call that made them, from its results.md)"
    echo "$RUN_USAGE"
}

quick=0; seeds=3; out=""; data=data/multi30k; parts=$PARTS_ALL
while [ $# -gt 0 ]; do
    case "$1" in
        --parts) [ $# -ge 2 ] || die "--parts needs a list"; parts=$2; shift 2 ;;
        --data)  [ $# -ge 2 ] || die "--data needs a folder"; data=$2; shift 2 ;;
        *) common_option "$@"; [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
           shift "$used" ;;
    esac
done
# its figures are attention maps that ./translate draws from the models, not ./plot's from CSV
[ $figures = 0 ] || die "--figures: this script draws no figures from its CSV files (its attention maps come from the trained models)"
for p in $parts; do
    case " $PARTS_ALL " in *" $p "*) ;; *) die "unknown part '$p' (parts: $PARTS_ALL)" ;; esac
done
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
for f in train.de train.en val.de val.en test_2016_flickr.de test_2016_flickr.en; do
    [ $tables = 1 ] || [ -s "$data/$f" ] || die "$data/$f missing: run scripts/get_data.sh --from ../shared/data/multi30k"
done
if [ $quick = 1 ]; then out=${out:-results/quick/multi30k_study}; else out=${out:-results/multi30k_study}; fi
begin_experiment multi30k_study.sh train translate
ref_note="cased"
if [ "$(config_value task lowercase configs/multi30k/study_transformer.ini)" = true ]; then
    # The models write lower-cased text (as the course's): they are scored against lower-cased
    # references (ASCII tr: the English test sets have no other capitals), or every capital
    # would count as an error.
    [ $tables = 1 ] || tr 'A-Z' 'a-z' <"$data/test_2016_flickr.en" >"$out/runs/test_ref.en"
    ref_note="against lower-cased references"
fi
command="$command --parts \"$parts\""
LSTM=configs/multi30k/study_lstm.ini; TF=configs/multi30k/study_transformer.ini
overrides=""
if [ "$data" != data/multi30k ]; then   # the configs name data/multi30k/*
    overrides="task.train_src=$data/train.de task.train_tgt=$data/train.en task.val_src=$data/val.de
               task.val_tgt=$data/val.en task.test_src=$data/test_2016_flickr.de task.test_tgt=$data/test_2016_flickr.en"
fi
test_src=$data/test_2016_flickr.de; test_ref=$data/test_2016_flickr.en
[ -f "$out/runs/test_ref.en" ] && test_ref=$out/runs/test_ref.en
if [ $quick = 1 ]; then
    [ $tables = 1 ] || { head -n 40 "$test_src" >"$out/test.de"; head -n 40 "$test_ref" >"$out/test.en"; }
    test_src=$out/test.de; test_ref=$out/test.en
    steps=30
    overrides="train.warmup=5 train.ckpt_every=1000 train.log_every=5 $overrides"
    # sizes whose parameter counts agree within 5% on the 400 sentence pairs of
    # tests/test_multi30k_study.sh (the vocabularies set the count: on other data they may not)
    lstm_size="model.d_model=32"; tf_d=28; tf_heads=2; tf_layers=1; tf_ff=84
    widths="20:2:80 28:1:84"
    prefix_same="model.d_model=20 model.n_heads=2 model.d_ff=60 model.dec_layers=1"
else
    steps=$(config_value train steps "$TF")
    lstm_size=""; tf_d=176; tf_heads=4; tf_layers=2; tf_ff=704
    widths="128:6:512 176:2:704 208:1:832"
    prefix_same=""
fi
PREFIX=configs/multi30k/study_prefix.ini
# the decoder-only model at the Transformer's width and total depth (more parameters)
PREFIX_DEEP="model.d_model=$tf_d model.n_heads=$tf_heads model.d_ff=$tf_ff model.dec_layers=$((2 * tf_layers))"
tf_size() {   # tf_size D LAYERS FF: the overrides of a Transformer of that shape
    echo "model.d_model=$1 model.n_heads=$tf_heads model.enc_layers=$2 model.dec_layers=$2 model.d_ff=$3"
}
HEAD_TF=$(tf_size $tf_d $tf_layers $tf_ff)
long_steps=$((3 * steps))   # the budget part
DEPTHS="1 2 3 6"
# The positions part: the course's choices (none, and the two absolute schemes of its
# notebooks) and the relative ones of current models; a selection, not the registry's list.
POSITIONS="none sinusoidal learned"
POSITIONS="$POSITIONS rope alibi"

# ---- the runs: name, config, overrides. Variants equal to the seed-1 headline Transformer
# (depth 2, width 176, sinusoidal) are that run.
tf_name() {   # tf_name D LAYERS POS -> the run that trains this Transformer
    if [ "$1" = $tf_d ] && [ "$2" = $tf_layers ] && [ "$3" = sinusoidal ]; then echo tf_s1
    elif [ "$1" != $tf_d ]; then echo "tf_d$1"
    elif [ "$2" != $tf_layers ]; then echo "tf_L$2"
    else echo "tf_$3"; fi
}
trainings() {
    if has headline || has beam || has attention || has cross || has budget; then
        for s in $(seq_list "$seeds"); do
            has headline || [ "$s" = 1 ] || continue
            # shellcheck disable=SC2086 # overrides are separate KEY=VALUE words
            train_run "$out/runs/lstm_s$s" "$steps" "$LSTM" run.seed=$s $lstm_size $overrides
            # shellcheck disable=SC2086
            train_run "$out/runs/tf_s$s" "$steps" "$TF" run.seed=$s $HEAD_TF $overrides
        done
    fi
    if has budget; then
        # shellcheck disable=SC2086
        train_run "$out/runs/lstm_long" "$long_steps" "$LSTM" run.seed=1 $lstm_size $overrides
        # shellcheck disable=SC2086
        train_run "$out/runs/tf_long" "$long_steps" "$TF" run.seed=1 $HEAD_TF $overrides
    fi
    if has cross; then
        # shellcheck disable=SC2086
        train_run "$out/runs/prefix_same" "$steps" "$PREFIX" run.seed=1 $prefix_same $overrides
        # shellcheck disable=SC2086
        train_run "$out/runs/prefix_deep" "$steps" "$PREFIX" run.seed=1 $PREFIX_DEEP $overrides
    fi
    if has depth; then for L in $DEPTHS; do
        n=$(tf_name $tf_d "$L" sinusoidal); [ "$n" = tf_s1 ] && continue
        # shellcheck disable=SC2086
        train_run "$out/runs/$n" "$steps" "$TF" run.seed=1 $(tf_size $tf_d "$L" $tf_ff) $overrides
    done; fi
    if has width; then for w in $widths; do
        IFS=: read -r d L ff <<EOF
$w
EOF
        n=$(tf_name "$d" "$L" sinusoidal); [ "$n" = tf_s1 ] && continue
        # shellcheck disable=SC2086
        train_run "$out/runs/$n" "$steps" "$TF" run.seed=1 $(tf_size "$d" "$L" "$ff") $overrides
    done; fi
    if has positions; then for p in $POSITIONS; do
        n=$(tf_name $tf_d $tf_layers "$p"); [ "$n" = tf_s1 ] && continue
        # shellcheck disable=SC2086
        train_run "$out/runs/$n" "$steps" "$TF" run.seed=1 $HEAD_TF model.pos="$p" $overrides
    done; fi
}
t_train=$(now)
run_trainings trainings "$out"
t_train=$(( $(now) - t_train ))

# ckpt_params FILE: the number of model parameters in a checkpoint (its safetensors header:
# every tensor's shape, the optimizer's moments left out).
ckpt_params() {
    _len=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
    head -c $((8 + _len)) "$1" | tail -c "$_len" |
        grep -o '"[^"]*":{"dtype":"[A-Z0-9]*","shape":\[[0-9,]*\]' | grep -v '^"optimizer\.' |
        sed 's/.*"shape":\[//; s/\]$//' |
        awk -F, '{ p = 1; for (i = 1; i <= NF; i++) p *= $i; s += p } END { printf "%d\n", s }'
}
# score RUN BEAM ALPHA -> "bleu,chrf" of RUN's test translation, cached in RUN/score_bB_aA.txt
# (redone when the checkpoint is newer; atomic, so an interrupted one is simply redone)
score() {
    _f=$1/score_b$2_a$3.txt
    if [ ! -s "$_f" ] || [ "$1/model.safetensors" -nt "$_f" ]; then
        "$BIN_DIR/translate" "$1" --beam "$2" --alpha "$3" --ref "$test_ref" --threads 1 \
            <"$test_src" >"$1/test_b$2_a$3.hyp" 2>"$_f.tmp" || { cat "$_f.tmp" >&2; die "./translate failed on $1"; }
        mv "$_f.tmp" "$_f"
    fi
    _b=$(sed -n 's/^BLEU = \([0-9.]*\) (cased).*/\1/p' "$_f")
    _c=$(sed -n 's/^chrF2 = \([0-9.]*\) .*/\1/p' "$_f")
    [ -n "$_b" ] && [ -n "$_c" ] || die "no BLEU or chrF in $_f"
    echo "$_b,$_c"
}
# run_wall_seconds RUN: the wall seconds of every ./train invocation of RUN (its compute.csv).
run_wall_seconds() {
    awk -F, "$CSV_COLUMNS"'row { s += cell("wall_seconds") } END { printf "%.1f\n", s }' "$1/compute.csv"
}
# row GROUP VARIANT RUN SEED [STEPS]: one line of runs.csv (greedy decoding, the course's);
# STEPS: the run's training steps (default: the study's)
row() {
    _r=$out/runs/$3 _steps=${5:-$steps}
    _s=$(score "$_r" 1 0)   # an assignment, so that a failed translation stops the script
    _shape=""
    for _k in model d_model dec_layers pos; do _shape="$_shape$(config_value model $_k "$_r/config.ini"),"; done
    # the training loss, mean of the rows logged in the second quarter of the steps and in the
    # last (one batch a row: a quarter's mean evens out the batches): is it still falling?
    _loss=$(awk -F, -v q="$_steps" "$CSV_COLUMNS"'row && cell("split") == "train" {
        s = cell("step") * 4; if (s > q && s <= 2 * q) { a += cell("loss"); na++ }
        if (s > 3 * q) { b += cell("loss"); nb++ } }
        END { printf "%.4f,%.4f", na ? a / na : 0, nb ? b / nb : 0 }' "$_r/log.csv")
    echo "$1,$2,$3,$4,$_shape$_steps,$(ckpt_params "$_r/model.safetensors"),$(run_cpu_seconds "$_r"),$(run_wall_seconds "$_r"),$_s,$_loss"
}

t_eval=$(now)
# (with --tables: runs.csv, beam.csv and attention/*.hyp as they are)
if [ $tables = 0 ]; then
    echo "group,variant,run,seed,model,d_model,layers,pos,steps,params,cpu_s,wall_s,bleu,chrf,train_loss_q2,train_loss_q4" >"$out/runs.csv.tmp"
    if has headline; then for s in $(seq_list "$seeds"); do
        row headline LSTM "lstm_s$s" "$s" >>"$out/runs.csv.tmp"
        row headline Transformer "tf_s$s" "$s" >>"$out/runs.csv.tmp"
    done; fi
    if has budget; then
        row budget "LSTM ($steps steps)" lstm_s1 1 >>"$out/runs.csv.tmp"
        row budget "LSTM ($long_steps steps)" lstm_long 1 "$long_steps" >>"$out/runs.csv.tmp"
        row budget "Transformer ($steps steps)" tf_s1 1 >>"$out/runs.csv.tmp"
        row budget "Transformer ($long_steps steps)" tf_long 1 "$long_steps" >>"$out/runs.csv.tmp"
    fi
    if has cross; then
        row cross "Transformer (cross-attention)" tf_s1 1 >>"$out/runs.csv.tmp"
        row cross "decoder-only (same parameters)" prefix_same 1 >>"$out/runs.csv.tmp"
        row cross "decoder-only (same width and depth)" prefix_deep 1 >>"$out/runs.csv.tmp"
    fi
    if has depth; then for L in $DEPTHS; do
        row depth "$L" "$(tf_name $tf_d "$L" sinusoidal)" 1 >>"$out/runs.csv.tmp"; done; fi
    if has width; then for w in $widths; do
        d=${w%%:*}; L=${w#*:}; L=${L%%:*}
        row width "$d" "$(tf_name "$d" "$L" sinusoidal)" 1 >>"$out/runs.csv.tmp"; done; fi
    if has positions; then for p in $POSITIONS; do
        row positions "$p" "$(tf_name $tf_d $tf_layers "$p")" 1 >>"$out/runs.csv.tmp"; done; fi
    mv "$out/runs.csv.tmp" "$out/runs.csv"
fi

# The headline pair must have the same budget: parameters within 5% (every seed). Stops the
# full study; --quick (tiny models, sized for the test's data) reports it in results.md.
ratio_ok=1; ratio=""
if has headline; then
    ratio=$(awk -F, "$CSV_COLUMNS"'row && cell("group") == "headline" && cell("seed") == 1 {
        p[cell("variant")] = cell("params") } END { printf "%.4f", p["Transformer"] / p["LSTM"] }' "$out/runs.csv")
    awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95 && r <= 1.05) }' || ratio_ok=0
    [ $ratio_ok = 1 ] || [ $quick = 1 ] ||
        die "the headline Transformer has $ratio times the LSTM's parameters, not within 5%"
fi

if [ $tables = 0 ]; then
    if has beam; then
        echo "model,beam,alpha,bleu,chrf" >"$out/beam.csv.tmp"
        for m in lstm tf; do for a in 0 1; do for b in 1 2 4 8; do
            # greedy decoding ignores the length penalty: beam 1 is decoded once
            if [ $b = 1 ] && [ $a != 0 ]; then sc=$(score "$out/runs/${m}_s1" 1 0)
            else sc=$(score "$out/runs/${m}_s1" $b $a); fi
            echo "$m,$b,$a,$sc" >>"$out/beam.csv.tmp"
        done; done; done
        mv "$out/beam.csv.tmp" "$out/beam.csv"
    fi

    if has attention; then
        printf 'Ein Mann spielt Gitarre auf der Straße.\nZwei Hunde laufen über eine grüne Wiese.\n' >"$out/probes.de"
        rm -rf "$out/attention"; mkdir -p "$out/attention"
        for m in lstm tf; do
            "$BIN_DIR/translate" "$out/runs/${m}_s1" --beam 1 --threads 1 --attention "$out/attention/$m" \
                <"$out/probes.de" >"$out/attention/$m.hyp" 2>"$out/attention/$m.err" ||
                { cat "$out/attention/$m.err" >&2; die "./translate --attention failed on ${m}_s1"; }
            rm -f "$out/attention/$m.err"
        done
    fi
fi

t_eval=$(( $(now) - t_eval ))
wall=$(( t_train + t_eval ))
if [ $tables = 1 ]; then   # the times of the call that made the CSVs, from its results.md
    # shellcheck disable=SC2046 # three numbers
    set -- $(sed -n 's/.*; wall time \([0-9]*\) s for this call (\([0-9]*\) s training, \([0-9]*\) s$/\1 \2 \3/p' \
        "$out/results.md" | head -n 1)
    [ $# = 3 ] || die "--tables: no line \"wall time N s for this call (N s training, N s\" in $out/results.md"
    wall=$1; t_train=$2; t_eval=$3
fi

# ---- results.md
table_head() {
    echo "Command: \`$command\`; wall time ${wall} s for this call (${t_train} s training, ${t_eval} s"
    echo "translating and scoring; finished runs and translations are reused)."
}
# headline_values VARIANT COLUMN: the headline rows' COLUMN of VARIANT, one value per seed
headline_values() {
    awk -F, -v v="$1" -v c="$2" "$CSV_COLUMNS"'row && cell("group") == "headline" && cell("variant") == v {
        printf "%s%s", (n++ ? " " : ""), cell(c) }' "$out/runs.csv"
}
md_runs() {   # md_runs GROUP LABEL: the runs of GROUP as a table (mean ± sd over seeds)
    awk -F, -v g="$1" -v label="$2" "$CSV_COLUMNS"'
    row && cell("group") == g {
        v = cell("variant"); if (!(v in seen)) { seen[v] = 1; order[++n] = v }
        k[v]++; run[v] = cell("run"); d[v] = cell("d_model"); L[v] = cell("layers"); pos[v] = cell("pos")
        par[v] = cell("params"); cpu[v] += cell("cpu_s") / 60; wall[v] += cell("wall_s") / 60
        b[v, k[v]] = cell("bleu"); c[v, k[v]] = cell("chrf")
        lh[v] += cell("train_loss_q2"); le[v] += cell("train_loss_q4")
    }
    function ms(a, v,   i, s, m, ss) {
        for (i = 1; i <= k[v]; i++) s += a[v, i]; m = s / k[v]
        if (k[v] == 1) return sprintf("%.2f", m)
        for (i = 1; i <= k[v]; i++) ss += (a[v, i] - m) ^ 2
        return sprintf("%.2f ± %.2f", m, sqrt(ss / (k[v] - 1)))
    }
    END {
        print "| " label " | run | d | layers | pos | parameters | seeds | CPU min / run | wall min / run | train loss: 2nd → 4th quarter | BLEU | chrF2 |"
        print "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for (i = 1; i <= n; i++) { v = order[i]
            printf "| %s | %s | %s | %s | %s | %d | %d | %.1f | %.1f | %.3f → %.3f | %s | %s |\n", v, run[v], d[v],
                L[v], pos[v], par[v], k[v], cpu[v] / k[v], wall[v] / k[v], lh[v] / k[v], le[v] / k[v], ms(b, v), ms(c, v) }
    }' "$out/runs.csv"
}
{
    echo "## Multi30k De→En: the LSTM against a Transformer of the same size"
    echo
    provenance
    echo "Test set: $([ $quick = 1 ] && echo 'the first 40 sentences of ')test_2016_flickr; $steps training"
    echo "steps per run$([ $quick = 1 ] && echo ' (--quick: tiny models)'); greedy decoding unless said otherwise."
    echo "BLEU: sacreBLEU-compatible corpus BLEU (13a); chrF2: sacreBLEU's default chrF; both $ref_note,"
    echo "of \`./translate --ref\`. Parameters: read from each checkpoint. CPU and wall minutes of the"
    echo "training: compute.csv (a wall time well above the CPU time: the run shared the machine)."
    echo "Train loss: the training loss (label-smoothed, with dropout), the mean of the rows logged in"
    echo "the second quarter of the $steps steps and in the last quarter, mean over the seeds; a fixed"
    echo "budget, so a loss still falling in the last quarter says the model had not converged."
    if has headline; then
        echo; echo "### Headline: same parameter budget ($seeds seed$([ "$seeds" -gt 1 ] && echo 's', mean ± sample sd))"; echo
        table_head; echo; md_runs headline model
        echo; echo "Transformer / LSTM parameters: $ratio ($([ $ratio_ok = 1 ] && echo 'within 5%' || echo 'OUTSIDE 5%'))."
        if [ "$seeds" -ge 2 ]; then   # different trained models: Welch's interval (scripts/verdicts.sh)
            for m in bleu chrf; do
                set -- $(scripts/verdicts.sh --welch "$(headline_values Transformer $m)" "$(headline_values LSTM $m)")
                printf 'Transformer − LSTM, %s: %+.2f [%+.2f, %+.2f] (95%% interval, Welch, %s seeds each).\n' \
                    "$([ $m = bleu ] && echo BLEU || echo chrF2)" "$1" "$2" "$3" "$seeds"
            done
        fi
    fi
    if has budget; then
        echo; echo "### A longer budget: the seed-1 pair at $steps and $long_steps steps"; echo
        echo "The same configs trained $long_steps steps (the cosine schedule and warm-up as configured, over"
        echo "the longer run); train loss: the second and last quarter of each run's own steps."
        echo; table_head; echo; md_runs budget model
    fi
    if has cross; then
        echo; echo "### What cross-attention adds (1 seed)"; echo
        echo "The decoder-only rows read \`<eos> German <bos> English\` as one sequence in one vocabulary"
        echo "of both languages, trained on the English half; layers: the Transformer's encoder and"
        echo "decoder have that many each, the decoder-only model that many in all."
        echo; table_head; echo; md_runs cross model
        prefix_ratio=$(awk -F, "$CSV_COLUMNS"'row && cell("group") == "cross" { p[cell("run")] = cell("params") }
            END { printf "%.4f", p["prefix_same"] / p["tf_s1"] }' "$out/runs.csv")
        echo; echo "Decoder-only (same parameters) / Transformer parameters: $prefix_ratio."
    fi
    if has depth; then
        echo; echo "### Depth at width $tf_d (1 seed)"; echo; table_head; echo; md_runs depth layers
    fi
    if has width; then
        echo; echo "### Width at about the same parameter count (1 seed)"; echo; table_head; echo
        md_runs width d_model
    fi
    if has positions; then
        echo; echo "### Positions on real text, the headline Transformer (1 seed)"; echo; table_head; echo
        md_runs positions pos
    fi
    if has beam; then
        echo; echo "### Beam size and length penalty ((5 + len) / 6)^alpha, seed-1 checkpoints"; echo
        table_head; echo
        echo "| model | alpha | beam 1 BLEU | beam 2 | beam 4 | beam 8 | beam 1 chrF2 | beam 2 | beam 4 | beam 8 |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        awk -F, "$CSV_COLUMNS"'row { k = cell("model") "," cell("alpha"); if (!(k in seen)) { seen[k] = 1; o[++n] = k }
            b[k] = b[k] " " cell("bleu") " |"; c[k] = c[k] " " cell("chrf") " |" }
            END { for (i = 1; i <= n; i++) { split(o[i], f, ","); printf "| %s | %s |%s%s\n",
                  (f[1] == "tf" ? "Transformer" : "LSTM"), f[2], b[o[i]], c[o[i]] } }' "$out/beam.csv"
    fi
    if has attention; then
        echo; echo "### Cross-attention on the same probe sentences (greedy, seed 1)"; echo
        echo "Command: \`$command\`. Left: the LSTM's dot attention (decoder steps × source tokens);"
        echo "right: the Transformer's last decoder layer, one panel per head."
        echo; echo "| LSTM | Transformer |"; echo "| --- | --- |"
        L=$tf_layers   # tf_s1's decoder layers (HEAD_TF)
        for i in 1 2; do
            echo "| ![LSTM](attention/lstm/line${i}_decoder_cross_layer1.svg) | ![Transformer](attention/tf/line${i}_decoder_cross_layer$L.svg) |"
        done
        echo; echo "| German | LSTM | Transformer |"; echo "| --- | --- | --- |"
        paste "$out/probes.de" "$out/attention/lstm.hyp" "$out/attention/tf.hyp" | awk -F'\t' '{ print "| " $1 " | " $2 " | " $3 " |" }'
    fi
} >"$out/results.md.new"
write_md "$out/results.md"
cat "$out/results.md"
say "done in ${wall} s: $out/results.md"
