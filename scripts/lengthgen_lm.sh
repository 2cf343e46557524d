#!/bin/sh
# The decoder-only part of scripts/lengthgen.sh (Kazemnejad et al. 2023; POSIX sh, sourced by it):
# train, evaluate and collect, then its figures and decoder_only.md (scripts/lengthgen_report.sh).
case ${0##*/} in
    lengthgen_lm.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/lengthgen_lm.sh   (sourced by scripts/lengthgen.sh: not a command)"
        echo
        echo "The decoder-only part of scripts/lengthgen.sh: see scripts/lengthgen.sh --help."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
lm_trainings() {
    for seed in $(seq_list "$seeds"); do
        for task in $LM_TASKS; do
            for scheme in $SCHEMES; do
                plain_done=0
                echo "$LM_VARIANTS" | while IFS= read -r variant; do
                    case " $(lm_schemes "$variant") " in *" $scheme "*) ;; *) continue ;; esac
                    train_over=$(lm_field "$variant" 2)
                    if [ -z "$train_over" ]; then [ $plain_done = 0 ] || continue; plain_done=1; fi
                    # shellcheck disable=SC2086 # the overrides are separate words
                    train_run "$(lm_run "$task" "$scheme" "$seed" "$variant")" "$(steps_of "lm_$task")" \
                        "configs/algorithmic/lm_$task.ini" model.pos="$scheme" run.seed="$seed" train.eval_lengths= \
                        $extra $train_over $until_over
                done
            done
        done
    done
}

# Evaluates every run once per variant into lm_results.csv.tmp and lm_curves.body (afresh;
# run_evaluations runs it, lib.sh).
lm_evaluate() {
    echo "task,scheme,variant,seed,length,examples,loss,token_acc,exact_match$converge_cols" >"$out/lm_results.csv.tmp"
    : >"$out/lm_curves.body"
    rm -f "$out/lm_curves.first"
    for seed in $(seq_list "$seeds"); do
        for task in $LM_TASKS; do
            for scheme in $SCHEMES; do
                echo "$LM_VARIANTS" | while IFS= read -r variant; do
                    case " $(lm_schemes "$variant") " in *" $scheme "*) ;; *) continue ;; esac
                    name=$(lm_field "$variant" 1); run=$(lm_run "$task" "$scheme" "$seed" "$variant")
                    # shellcheck disable=SC2046 # the eval overrides are separate words
                    cached_eval "$run/eval-$name.csv" "$BIN_DIR/eval" "$run" splits=none lengths="$lengths" \
                        test_size="$test_size" $(lm_field "$variant" 3) || continue
                    awk -F, -v p="$task,$scheme,$name,$seed" -v q="$(converge_cells "$run" "$run/eval-$name.csv")" \
                        "$CSV_COLUMNS"'row && cell("split") == "test" {
                        print p "," cells("length examples loss token_acc exact_match") q }' \
                        "$run/eval-$name.csv" >>"$out/lm_results.csv.tmp"
                    # one curve a trained run: the plain runs' and each variant's that trains its own
                    [ "$name" != logscale ] || continue
                    curve_scheme=$scheme; [ "$name" = plain ] || curve_scheme="$scheme + $name"
                    prefix_csv "$task,$curve_scheme,$seed" "$run/log.csv" >>"$out/lm_curves.body"
                    [ -e "$out/lm_curves.first" ] || echo "$run" >"$out/lm_curves.first"
                done
            done
        done
    done
}

# Gathers lm_results.csv and lm_curves.csv, every run evaluated once per variant.
# With --tables: lm_mrr.csv again from lm_results.csv as it is.
lm_collect() {
    if [ $tables = 0 ]; then
        run_evaluations lm_evaluate
        mv "$out/lm_results.csv.tmp" "$out/lm_results.csv"
        { echo "task,scheme,seed,$(head -1 "$(cat "$out/lm_curves.first")/log.csv")"; cat "$out/lm_curves.body"; } >"$out/lm_curves.csv"
        rm -f "$out/lm_curves.body" "$out/lm_curves.first"
    fi
    scripts/mrr.sh --beyond "$lm_train_max" "$out/lm_results.csv" >"$out/lm_mrr.csv"
}

decoder_part() {
    lm_start=$(now)
    lm_train_max=$(config_value task max_length configs/algorithmic/lm_copy.ini)
    c=configs/algorithmic/lm_copy.ini
    lm_size=": d_model $(config_value model d_model $c), $(config_value model dec_layers $c) layers, $(config_value model n_heads $c) heads, $(steps_of lm_copy) steps"
    [ $quick = 0 ] || lm_size=" with --quick's tiny models: $extra, $(steps_of lm_copy) steps"
    run_trainings lm_trainings "$out"
    lm_collect
    lm_plots
    lm_wall=$(( $(now) - lm_start ))
    lm_report "$lm_wall"
    say "decoder-only part done in $lm_wall s: $out/decoder_only.md"
}
