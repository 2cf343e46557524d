#!/bin/sh
# The lines of runs.csv of scripts/multi30k_study.sh (from each run's logs) and its results.md
# (from runs.csv, beam.csv and attention/): run by it, its settings in the environment, for it
# to stay a launcher of the trainings and translations.
# shellcheck disable=SC2154 # out, parts, steps and the other settings come in the environment
set -eu
cd "$(dirname "$0")/.."
_tables=${tables:-0}
. scripts/lib.sh
. scripts/launch.sh
tables=$_tables
# row GROUP VARIANT RUN SEED BLEU,CHRF: RUN's line of runs.csv, from its config.ini, train.out,
# compute.csv and log.csv in $out/runs/RUN
row() {
    _r=$out/runs/$3
    # the steps it trained (its log's last): the plan's, or fewer where a stop rule ended it
    _steps=$("$BIN_DIR/table" --plain --value step:max:%d "$_r/log.csv")
    _shape=""
    for _k in model d_model dec_layers pos; do _shape="$_shape$(config_value model $_k "$_r/config.ini"),"; done
    # the model's parameters as the trainer counted them (its first line "run ...")
    _params=$(sed -n 's/^run .*, \([0-9]*\) parameters,.*/\1/p' "$_r/train.out" | head -n 1)
    # the wall seconds of every ./train invocation of RUN
    _wall=$("$BIN_DIR/table" --plain --value wall_seconds:sum:%.1f "$_r/compute.csv")
    # the training loss, mean of the rows logged in the second quarter of the steps and in the
    # last (one batch a row: a quarter's mean evens out the batches): is it still falling?
    # (whole steps: step > steps/4 is step > the integer part of steps/4)
    _q() { "$BIN_DIR/table" --plain --value loss:mean:%.4f --filter split=train "$@" "$_r/log.csv"; }
    _loss="$(_q --filter "step>$((_steps / 4))" --filter "step<=$((_steps / 2))"),$(_q --filter "step>$((3 * _steps / 4))")"
    echo "$1,$2,$3,$4,$_shape$_steps,$_params,$(run_cpu_seconds "$_r"),$_wall,$5,$_loss"
}
case "${1:-}" in
    tables) ;;
    row) [ $# = 6 ] || die "row GROUP VARIANT RUN SEED BLEU,CHRF"; shift; row "$@"; exit 0 ;;
    -h|--help) echo "usage: scripts/multi30k_report.sh tables|row   (run by scripts/multi30k_study.sh: its"
               echo "settings out, parts, quick, seeds, steps, long_steps, tf_d, tf_layers, ref_note,"
               echo "command and the times wall, t_train, t_eval in the environment;"
               echo "see scripts/multi30k_study.sh --help); row GROUP VARIANT RUN SEED BLEU,CHRF:"
               echo "RUN's line of runs.csv (out in the environment)"; exit 0 ;;
    *) die "tables or row? (run by scripts/multi30k_study.sh)" ;;
esac
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
if [ "$tables" = 1 ]; then   # the times of the call that made the CSVs, from its results.md
    # shellcheck disable=SC2046 # three numbers
    set -- $(sed -n 's/.*; wall time \([0-9]*\) s for this call (\([0-9]*\) s training, \([0-9]*\) s$/\1 \2 \3/p' \
        "$out/results.md" | head -n 1)
    [ $# = 3 ] || die "--tables: no line \"wall time N s for this call (N s training, N s\" in $out/results.md"
    wall=$1; t_train=$2; t_eval=$3
fi

# params_ratio GROUP COL A B [FILTER...]: the parameters of GROUP's run whose COL is A over B's
# (./table: the runs as a CSV with one column per COL value, then A/B)
params_ratio() {
    _g=$1 _c=$2 _e="$3/$4:sum:%.4f"; shift 4
    "$BIN_DIR/table" --csv --cols "$_c" --value params:text --filter group="$_g" "$@" "$out/runs.csv" |
        "$BIN_DIR/table" --plain --value "$_e" /dev/stdin
}
# The headline pair must have the same budget: parameters within 5% (every seed). Stops the
# full study before its results.md; --quick (tiny models, sized for the test's data) reports
# it in results.md.
ratio_ok=1; ratio=""
if has headline; then
    ratio=$(params_ratio headline variant Transformer LSTM --filter seed=1)
    [ "$(echo "ratio
$ratio" | "$BIN_DIR/table" --plain --value ratio:count:%d --filter 'ratio>=0.95' --filter 'ratio<=1.05' /dev/stdin)" = 1 ] ||
        ratio_ok=0
    [ $ratio_ok = 1 ] || [ $quick = 1 ] ||
        die "the headline Transformer has $ratio times the LSTM's parameters, not within 5%"
fi

# the plateau pair's validation loss at every evaluation, seed by seed, and its figure
if has plateau && [ "$tables" = 0 ]; then
    echo "model,seed,step,val_loss" >"$out/curves.csv.tmp"
    for s in $(seq_list "$seeds"); do for m in LSTM:lstm Transformer:tf; do
        awk -F, -v m="${m%:*}" -v s="$s" '$2 == "val" { print m "," s "," $1 "," $4 }' \
            "$out/runs/${m#*:}_plateau_s$s/log.csv"
    done; done >>"$out/curves.csv.tmp"
    mv "$out/curves.csv.tmp" "$out/curves.csv"
    # from step 2000 (the headline budget): the early evaluations (LSTM 4.2 at step 500) would
    # squeeze the plateau into a strip at the bottom
    "$BIN_DIR/plot" --x step --y val_loss --group model --spread --ylabel "validation loss" \
        --xmin 2000 --title "Multi30k: validation loss to the plateau (min..max over seeds)" \
        -o "$out/plateau_val_loss.svg" "$out/curves.csv" >/dev/null
fi

# ---- results.md (what the columns measure: docs/multi30k_study.md, "Results")
table_head() {
    echo "Command: \`$command\`; wall time ${wall} s for this call (${t_train} s training, ${t_eval} s"
    echo "translating and scoring; finished runs and translations are reused)."
}
# group_values GROUP VARIANT COLUMN: GROUP's rows' COLUMN of VARIANT, one value per seed
group_values() { seed_values "$out/runs.csv" "$3" 1 group="$1" variant="$2"; }
# intervals GROUP: Transformer - LSTM in BLEU and chrF2 over GROUP's seeds (different trained
# models: Welch's interval, scripts/verdicts.sh)
intervals() {
    _group=$1
    for m in bleu chrf; do
        set -- $(scripts/verdicts.sh --welch "$(group_values "$_group" Transformer $m)" "$(group_values "$_group" LSTM $m)")
        printf 'Transformer − LSTM, %s: %+.2f [%+.2f, %+.2f] (95%% interval, Welch, %s seeds each).\n' \
            "$([ $m = bleu ] && echo BLEU || echo chrF2)" "$1" "$2" "$3" "$seeds"
    done
}
md_runs() {   # md_runs GROUP LABEL: the runs of GROUP as a table (./table: the last seed's run, means, mean ± sd)
    echo "| $2 | run | d | layers | pos | parameters | seeds | CPU min / run | wall min / run | train loss: 2nd → 4th quarter | BLEU | chrF2 |"
    echo "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    "$BIN_DIR/table" --plain --rows variant --filter group="$1" --format %.2f --value run:last --value d_model:last \
        --value layers:last --value pos:last --value params:last --value seed:count:%d --value cpu_s/60:mean:%.1f \
        --value wall_s/60:mean:%.1f --value train_loss_q2:mean:%.3f --value train_loss_q4:mean:%.3f --value bleu \
        --value chrf "$out/runs.csv" | while IFS=, read -r v run d L pos par k cpu wl lh le b c; do
        printf '| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s → %s | %s | %s |\n' "$v" "$run" "$d" "$L" "$pos" \
            "$par" "$k" "$cpu" "$wl" "$lh" "$le" "$b" "$c"; done
}
# part TITLE GROUP LABEL: a section of results.md, the runs of GROUP under TITLE
part() { echo; echo "### $1"; echo; table_head; echo; md_runs "$2" "$3"; }
{
    echo "## Multi30k De→En: the LSTM against a Transformer of the same size"
    echo
    provenance
    echo "Test set: $([ $quick = 1 ] && echo 'the first 40 sentences of ')test_2016_flickr; $steps training"
    echo "steps per run$([ $quick = 1 ] && echo ' (--quick: tiny models)')$(has plateau && echo ', the plateau pair until it stops'); greedy decoding unless said otherwise."
    echo "BLEU (13a) and chrF2 of \`./translate --ref\`, both $ref_note; the columns: docs/multi30k_study.md."
    if has headline; then
        part "Headline: same parameter budget ($seeds seed$([ "$seeds" -gt 1 ] && echo 's', mean ± sample sd))" headline model
        echo; echo "Transformer / LSTM parameters: $ratio ($([ $ratio_ok = 1 ] && echo 'within 5%' || echo 'OUTSIDE 5%'))."
        if [ "$seeds" -ge 2 ]; then intervals headline; fi
    fi
    if has plateau; then
        part "At a validation plateau ($seeds seed$([ "$seeds" -gt 1 ] && echo 's', mean ± sample sd))" plateau model
        echo; echo "Steps trained up to the stop, seed by seed: $("$BIN_DIR/table" --plain --rows variant --cols seed \
            --value steps:text --filter group=plateau "$out/runs.csv" | sed 's/,/ /; s/,/, /g' | paste -sd';' | sed 's/;/; /g')."
        if [ "$seeds" -ge 2 ]; then intervals plateau; fi
        echo; echo "![validation loss against steps](plateau_val_loss.svg) (curves.csv)"
    fi
    if has budget; then part "A longer budget: the seed-1 pair at $steps and $long_steps steps" budget model; fi
    if has cross; then
        part "What cross-attention adds (1 seed)" cross model
        prefix_ratio=$(params_ratio cross run prefix_same tf_s1)
        echo; echo "Decoder-only (same parameters) / Transformer parameters: $prefix_ratio."
    fi
    if has depth; then part "Depth at width $tf_d (1 seed)" depth layers; fi
    if has width; then part "Width at about the same parameter count (1 seed)" width d_model; fi
    if has positions; then part "Positions on real text, the headline Transformer (1 seed)" positions pos; fi
    if has beam; then
        echo; echo "### Beam size and length penalty ((5 + len) / 6)^alpha, seed-1 checkpoints"; echo
        table_head; echo
        echo "| model | alpha | beam 1 BLEU | beam 2 | beam 4 | beam 8 | beam 1 chrF2 | beam 2 | beam 4 | beam 8 |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        "$BIN_DIR/table" --rows model --rows alpha --cols beam --value bleu:text --value chrf:text \
            --label tf=Transformer --label lstm=LSTM "$out/beam.csv" | tail -n +3
    fi
    if has attention; then
        echo; echo "### Cross-attention on the same probe sentences (greedy, seed 1)"; echo
        echo "Command: \`$command\`. Left: the LSTM's dot attention; right: the Transformer's last decoder layer."
        echo; echo "| LSTM | Transformer |"; echo "| --- | --- |"
        for i in 1 2; do   # tf_s1 has tf_layers decoder layers
            echo "| ![LSTM](attention/lstm/line${i}_decoder_cross_layer1.svg) | ![Transformer](attention/tf/line${i}_decoder_cross_layer$tf_layers.svg) |"
        done
        echo; echo "| German | LSTM | Transformer |"; echo "| --- | --- | --- |"
        paste "$out/probes.de" "$out/attention/lstm.hyp" "$out/attention/tf.hyp" | awk -F'\t' '{ print "| " $1 " | " $2 " | " $3 " |" }'
    fi
} >"$out/results.md.new"
write_md "$out/results.md"
cat "$out/results.md"
say "done in ${wall} s: $out/results.md"
