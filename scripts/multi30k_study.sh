#!/bin/sh
# Multi30k De->En: the LSTM translator against a Transformer of the same parameter count, and
# what depth, width, decoding and the positional scheme change (docs/multi30k_study.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh
PARTS_ALL="headline budget plateau cross depth width positions beam attention"
usage() {
    cat <<EOF
usage: scripts/multi30k_study.sh [--quick] [--seeds N] [--parts "LIST"] [--data DIR] [--out DIR]
                                 [--lr-from TUNING.csv]
                                 [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]]

Multi30k German -> English (test_2016_flickr): configs/multi30k/study_lstm.ini against
configs/multi30k/study_transformer.ini of the same parameter count (within 5%, else the script
stops), scored with BLEU and chrF2 of ./translate --ref. Parts (default: all; what each trains
and how to read it: docs/multi30k_study.md): $PARTS_ALL.
Writes into DIR: runs.csv, beam.csv, results.md (by scripts/multi30k_report.sh),
attention/*.svg, runs/<name>/.

  --quick        a smoke test: tiny models (LSTM d 32, Transformer d 28, 1 + 1 layers), 30
                 steps, the first 40 test sentences; DIR defaults to results/quick/multi30k_study
  --seeds N      seeds of the headline and plateau pairs (default 3; the other parts: seed 1)
  --parts LIST   the parts to run, e.g. --parts "headline beam"
  --data DIR     the Multi30k files (default data/multi30k, as scripts/get_data.sh leaves them)
  --out DIR      output folder (default results/multi30k_study)
  --lr-from F    the LSTM's and the headline Transformer's learning rates: the rows chosen in
                 F (tuning.csv of scripts/multi30k_lr.sh); default: the configs' (1e-3)
EOF
    echo "$TABLES_USAGE"
    echo "              (and the times of the call that made them, from its results.md)"
    echo "$RUN_USAGE"
}

quick=0; seeds=3; out=""; data=data/multi30k; parts=$PARTS_ALL; lr_from=""
while [ $# -gt 0 ]; do
    case "$1" in
        --parts) [ $# -ge 2 ] || die "--parts needs a list"; parts=$2; shift 2 ;;
        --data)  [ $# -ge 2 ] || die "--data needs a folder"; data=$2; shift 2 ;;
        --lr-from) [ $# -ge 2 ] || die "--lr-from needs a file"; lr_from=$2; shift 2 ;;
        *) common_option "$@"; [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
           shift "$used" ;;
    esac
done
[ $figures = 0 ] || die "--figures: this script draws no figures from its CSV files (its attention maps come from the trained models)"
for p in $parts; do case " $PARTS_ALL " in *" $p "*) ;; *) die "unknown part '$p' (parts: $PARTS_ALL)" ;; esac; done
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
m30k_data "$data"
if [ $quick = 1 ]; then out=${out:-results/quick/multi30k_study}; else out=${out:-results/multi30k_study}; fi
begin_experiment multi30k_study.sh train translate
ref_note="cased"
if [ "$(config_value task lowercase configs/multi30k/study_transformer.ini)" = true ]; then
    # The models write lower-cased text (as the course's): they are scored against lower-cased
    # references (ASCII tr: the English test sets have no other capitals).
    [ $tables = 1 ] || tr 'A-Z' 'a-z' <"$data/test_2016_flickr.en" >"$out/runs/test_ref.en"
    ref_note="against lower-cased references"
fi
command="$command --parts \"$parts\"${lr_from:+ --lr-from $lr_from}"
LSTM=configs/multi30k/study_lstm.ini; TF=configs/multi30k/study_transformer.ini
overrides=$(m30k_overrides "$data")
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
# --lr-from: the rates chosen on validation BLEU by scripts/multi30k_lr.sh
[ -z "$lr_from" ] || { lstm_size="$lstm_size train.lr=$(m30k_chosen_lr "$lr_from" LSTM)"
                       HEAD_TF="$HEAD_TF train.lr=$(m30k_chosen_lr "$lr_from" Transformer)"; }
long_steps=$((3 * steps))   # the budget part
# plateau: a constant rate after the warm-up, stopped after 4 evaluations in a row without a
# lower validation loss (docs/multi30k_study.md); ceiling 15 x the steps
plateau_every=$((steps / 4)); [ $quick = 1 ] && plateau_every=10
PLATEAU="train.schedule=constant train.eval_every=$plateau_every train.patience=4 train.ckpt_every=$plateau_every"
# depths; positions, a selection: the course's (none and its two absolute schemes) ...
DEPTHS="1 2 3 6" POSITIONS="none sinusoidal learned"
POSITIONS="$POSITIONS rope alibi"   # ... and two relative schemes of current models

# ---- the runs. Variants equal to the seed-1 headline Transformer (depth 2, width 176,
# sinusoidal) are that run.
tf_name() {   # tf_name D LAYERS POS -> the run that trains this Transformer
    if [ "$1" = $tf_d ] && [ "$2" = $tf_layers ] && [ "$3" = sinusoidal ]; then echo tf_s1
    elif [ "$1" != $tf_d ]; then echo "tf_d$1"
    elif [ "$2" != $tf_layers ]; then echo "tf_L$2"
    else echo "tf_$3"; fi
}
# plan: every row of runs.csv of the chosen parts, GROUP|VARIANT|RUN|SEED|STEPS|CONFIG|OVERRIDES
# (GROUP empty: the seed-1 pair trained for the beam and attention parts alone, no row)
plan() {
    if has headline; then for s in $(seq_list "$seeds"); do
        echo "headline|LSTM|lstm_s$s|$s|$steps|$LSTM|$lstm_size"
        echo "headline|Transformer|tf_s$s|$s|$steps|$TF|$HEAD_TF"
    done; fi
    if has beam || has attention; then
        echo "|LSTM|lstm_s1|1|$steps|$LSTM|$lstm_size"; echo "|Transformer|tf_s1|1|$steps|$TF|$HEAD_TF"; fi
    if has plateau; then for s in $(seq_list "$seeds"); do
        echo "plateau|LSTM|lstm_plateau_s$s|$s|$((15 * steps))|$LSTM|$lstm_size $PLATEAU"
        echo "plateau|Transformer|tf_plateau_s$s|$s|$((15 * steps))|$TF|$HEAD_TF $PLATEAU"
    done; fi
    if has budget; then
        echo "budget|LSTM ($steps steps)|lstm_s1|1|$steps|$LSTM|$lstm_size"
        echo "budget|LSTM ($long_steps steps)|lstm_long|1|$long_steps|$LSTM|$lstm_size"
        echo "budget|Transformer ($steps steps)|tf_s1|1|$steps|$TF|$HEAD_TF"
        echo "budget|Transformer ($long_steps steps)|tf_long|1|$long_steps|$TF|$HEAD_TF"
    fi
    if has cross; then
        echo "cross|Transformer (cross-attention)|tf_s1|1|$steps|$TF|$HEAD_TF"
        echo "cross|decoder-only (same parameters)|prefix_same|1|$steps|$PREFIX|$prefix_same"
        echo "cross|decoder-only (same width and depth)|prefix_deep|1|$steps|$PREFIX|$PREFIX_DEEP"
    fi
    if has depth; then for L in $DEPTHS; do
        echo "depth|$L|$(tf_name $tf_d "$L" sinusoidal)|1|$steps|$TF|$(tf_size $tf_d "$L" $tf_ff)"; done; fi
    if has width; then for w in $widths; do
        d=${w%%:*} L=${w#*:} ff=${w##*:}; L=${L%%:*}
        echo "width|$d|$(tf_name "$d" "$L" sinusoidal)|1|$steps|$TF|$(tf_size "$d" "$L" "$ff")"; done; fi
    if has positions; then for p in $POSITIONS; do
        echo "positions|$p|$(tf_name $tf_d $tf_layers "$p")|1|$steps|$TF|$HEAD_TF model.pos=$p"; done; fi
}
# trainings: each run of the plan once (its first line)
trainings() {
    plan | awk -F'|' '!seen[$3]++' | while IFS='|' read -r g v run s st cfg size; do
        # shellcheck disable=SC2086 # sizes and overrides are separate KEY=VALUE words
        train_run "$out/runs/$run" "$st" "$cfg" run.seed="$s" $size $overrides
    done
}
t_train=$(now); run_trainings trainings "$out"; t_train=$(( $(now) - t_train ))

# score RUN BEAM ALPHA -> "bleu,chrf" of RUN's test translation, cached in RUN/score_bB_aA.txt
# (redone when the checkpoint is newer; atomic, so an interrupted one is simply redone)
score() {
    _f=$1/score_b$2_a$3.txt
    scored_translation "$_f" "$1/test_b$2_a$3.hyp" "$test_src" "$test_ref" "$1" --beam "$2" --alpha "$3" --threads 1
    bleu_chrf "$_f"
}
# row GROUP VARIANT RUN SEED: one line of runs.csv (greedy decoding, the course's)
row() {
    _s=$(score "$out/runs/$3" 1 0)   # an assignment, so that a failed translation stops the script
    out=$out sh scripts/multi30k_report.sh row "$@" "$_s"
}

t_eval=$(now)
# (with --tables: runs.csv, beam.csv and attention/*.hyp as they are)
if [ $tables = 0 ]; then
    echo "group,variant,run,seed,model,d_model,layers,pos,steps,params,cpu_s,wall_s,bleu,chrf,train_loss_q2,train_loss_q4" >"$out/runs.csv.tmp"
    plan >"$out/plan.tmp"
    while IFS='|' read -r g v run s rest; do [ -z "$g" ] || row "$g" "$v" "$run" "$s"; done <"$out/plan.tmp" >>"$out/runs.csv.tmp"
    rm -f "$out/plan.tmp"
    mv "$out/runs.csv.tmp" "$out/runs.csv"

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

t_eval=$(( $(now) - t_eval )); wall=$(( t_train + t_eval ))
# results.md: scripts/multi30k_report.sh with this call's settings
out=$out parts=$parts quick=$quick seeds=$seeds steps=$steps long_steps=$long_steps tf_d=$tf_d \
    tf_layers=$tf_layers ref_note=$ref_note command=$command \
    wall=$wall t_train=$t_train t_eval=$t_eval tables=$tables sh scripts/multi30k_report.sh tables
