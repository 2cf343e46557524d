#!/bin/sh
# The figures, results.md and decoder_only.md of scripts/lengthgen.sh (POSIX sh, sourced by it),
# from the CSVs in its folder.
case ${0##*/} in
    lengthgen_report.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/lengthgen_report.sh   (sourced by scripts/lengthgen.sh: not a command)"
        echo
        echo "The figures and tables of scripts/lengthgen.sh: see scripts/lengthgen.sh --help (--figures, --tables)."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
# lm_plots: sequence accuracy against length per task and variant (those lm_results.csv has)
lm_plots() {
    for task in $LM_TASKS; do
        for name in $(echo "$LM_VARIANTS" | cut -d'|' -f1); do
            grep -q "^$task,[^,]*,$name," "$out/lm_results.csv" || continue
            plot --x length --y exact_match --group scheme --spread --filter task="$task" --filter variant="$name" \
                --vline "$lm_train_max" --vline-label "trained on 1..$lm_train_max" \
                --title "decoder-only $task ($name): sequence accuracy against input length" \
                --xlabel "input length (digits)" --ylabel "sequence accuracy" \
                -o "$out/lm_${task}_${name}_exact.svg" "$out/lm_results.csv"
        done
    done
}

# tr_plots: the translator part's accuracy against input length per task (those results.csv
# has), mean and spread over seeds, training length marked; one panel per variant (as trained,
# random positions scored on drawn ones, and on 0..n-1), a variant column taken from the rows'
# names ("rope + random (plain)")
tr_plots() {
    variant_csv >"$out/plot.tmp.csv"
    for task in $TASKS; do
        grep -q "^$task," "$out/results.csv" || continue
        for m in exact_match:exact:"sequence accuracy" token_acc:token_acc:"token accuracy"; do
            col=${m%%:*}; rest=${m#*:}; file=${rest%%:*}; label=${rest#*:}
            plot --x length --y "$col" --group scheme --panel variant --spread --filter task="$task" \
                --vline 16 --vline-label "trained on 1..16" --title "$task: $label against input length" \
                --xlabel "input length (symbols)" --ylabel "$label" -o "$out/${task}_$file.svg" "$out/plot.tmp.csv"
        done
    done
    rm -f "$out/plot.tmp.csv"
}

# decoder_only.md: the ranking first, then the tables it comes from.
lm_pivot() { "$BIN_DIR/table" --rows scheme --cols length --value "$@" --scale 100 "$out/lm_results.csv"; }
lm_report() {
    names=$(echo "$LM_VARIANTS" | cut -d'|' -f1)
    {
        echo "# Length generalisation of a decoder-only model: the Kazemnejad et al. ranking"
        echo
        echo "Command: \`$command\` ($1 s wall for the decoder-only part of this invocation; finished runs and"
        echo "evaluations are reused)."
        provenance
        echo "Decoder-only models (configs/algorithmic/lm_<task>.ini$lm_size), trained on inputs of"
        echo "1..$lm_train_max digits, scored on $test_size held-out inputs of exactly k digits; variants $(echo $names)."
        echo "Cells: mean ± sample standard deviation over seeds 1..$seeds, in %. The model, the variants, the"
        echo "ranking (scripts/mrr.sh, over $LM_TASKS) and how to read them:"
        echo "[docs/length_generalisation.md](../../docs/length_generalisation.md#decoder-only-ranking)."
        heading "## Mean reciprocal rank"
        line="| scheme |"; sep="| --- |"
        for name in $names; do line="$line MRR ($name) |"; sep="$sep ---: |"; done
        echo "$line Kazemnejad et al. |"; echo "$sep ---: |"
        for scheme in $SCHEMES; do
            line="| $scheme |"
            for name in $names; do
                line="$line $("$BIN_DIR/table" --plain --value mrr:text --filter variant="$name" --filter scheme="$scheme" \
                    "$out/lm_mrr.csv") |"
            done
            echo "$line $(lm_paper_mrr "$scheme") |"
        done
        for task in $LM_TASKS; do
            for name in $names; do
                heading "## $task ($name): sequence accuracy (exact match, greedy continuation) by input length"
                lm_pivot exact_match --filter task="$task" --filter variant="$name"
            done
            for name in $names; do
                [ "$name" != logscale ] || continue
                heading "## $task ($name): token accuracy (teacher forcing) by input length"
                lm_pivot token_acc --filter task="$task" --filter variant="$name"
            done
        done
        if [ $converge = 1 ]; then
            heading "## Steps to converge (validation exact match >= 99%, ceiling $(steps_of lm_copy) steps) and CPU seconds"
            # one row a trained model: the plain runs, and "SCHEME + random" for the random ones
            set --; for s in $SCHEMES; do set -- "$@" --label "$s + plain=$s"; done
            "$BIN_DIR/table" --steps --rows "scheme={scheme} + {variant}" --cols task --filter variant!=logscale \
                "$@" "$out/lm_results.csv"
        fi
        echo
        for task in $LM_TASKS; do
            for name in $names; do echo "![$task ($name): sequence accuracy against input length](lm_${task}_${name}_exact.svg)"; done
        done
    } >"$out/decoder_only.md.new"
    write_md "$out/decoder_only.md"
}

# tr_report: results.md
tr_report() {
    wall=$(( $(now) - start ))
    tr_pivot() { "$BIN_DIR/table" --rows scheme --cols length --value "$@" --scale 100; }
    {
        echo "# Length generalisation on algorithmic tasks"
        echo
        echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
        provenance
        echo "Translators trained on inputs of 1..16 digits (configs/algorithmic/<task>.ini), scored on"
        echo "$test_size held-out inputs of exactly k digits; \"SCHEME + random\": positions drawn from 0..2047,"
        echo "\"(plain)\": the same runs on 0..n-1. Cells: mean ± sample standard deviation over seeds 1..$seeds,"
        echo "in %. The rows and how to read them: [docs/length_generalisation.md](../../docs/length_generalisation.md#algorithmic-tasks-copy-reverse-duplicate-sort)."
        for task in $TASKS; do
            heading "## $task: sequence accuracy (exact match, greedy decoding) by input length"
            tr_pivot exact_match --filter task="$task" "$out/results.csv"
            heading "## $task: token accuracy (teacher forcing) by input length"
            tr_pivot token_acc --filter task="$task" "$out/results.csv"
        done
        if [ $converge = 1 ]; then
            heading "## Steps to converge (validation exact match >= 99%, ceiling $(steps_of copy) steps) and CPU seconds"
            echo "Per run: the step at which \`$CONVERGE_UNTIL\` stopped it, checked every"
            echo "$(config_value train eval_every configs/algorithmic/copy.ini) steps; seeds 1..$seeds separated by \"/\"; CPU s: the mean over the seeds of"
            echo "user + system seconds of every ./train invocation of the run (its compute.csv)."
            echo
            "$BIN_DIR/table" --steps --rows scheme --cols task "$out/results.csv"
        fi
        case " $variants " in *" random "*)
            heading "## Randomized against plain, on average beyond the training lengths"
            echo "Per task and seed: accuracy averaged over every scheme but none and the lengths 17..64;"
            echo "then mean ± sample sd of those averages over seeds 1..$seeds, in % (Ruoss et al. report the"
            echo "same kind of average: +12.0 points for randomized over plain on their tasks)."
            echo
            variant_csv >"$out/variant.tmp.csv"
            "$BIN_DIR/table" --rows task --rows variant --value "sequence accuracy=exact_match" \
                --value "token accuracy=token_acc" --per seed --scale 100 --filter "length>16" --filter scheme!=none \
                --label "random (plain)=random, on 0..n-1" "$out/variant.tmp.csv"
            rm -f "$out/variant.tmp.csv"
        esac
        echo
        for task in $TASKS; do echo "![$task: sequence accuracy against input length](${task}_exact.svg)"; done
    } >"$out/results.md.new"
    write_md "$out/results.md"
}
