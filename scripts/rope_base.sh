#!/bin/sh
# The RoPE base against longer inputs: the toy translator trained on 1..3 clauses with larger
# bases, or stretched to them at evaluation, at 4..12 clauses (docs/length_generalisation.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh

usage() {
    cat <<'EOF'
usage: scripts/rope_base.sh [--quick] [--seeds N] [--out DIR] [--converge]

Trains configs/rope.ini (toy_translate) with model.rope_base = 10000, 40000 and 160000, seeds
1..N, and scores every run with ./eval rope_base = 10000 ... 160000 at 3, 4, 6, 8 and 12 clauses
(200 sentences each), greedy and to the reference length (oracle), with ./eval --positions:
docs/length_generalisation.md. Finished runs and evaluations are reused.

  --quick     a smoke test: tiny models (d_model 16), 30 steps, 1 seed (unless --seeds), bases
              10000 and 160000 only, lengths 3 and 4 with 20 sentences each; DIR defaults to
              results/quick/rope_base
  --seeds N   seeds 1..N (default 3)
  --out DIR   output folder (default results/rope_base)
EOF
    echo "$TABLES_USAGE"; echo "$CONVERGE_USAGE"; echo "$FIGURES_USAGE"; echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""; converge=0
while [ $# -gt 0 ]; do
    if [ "$1" = --converge ]; then converge=1; used=1; else common_option "$@"; fi
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
suffix=$([ $converge = 0 ] || echo _converge)
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/rope_base$suffix}
    train_bases="10000 160000"; eval_bases="10000 160000"
    lengths=3,4; test_size=20; steps=30
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=500 task.val_size=50"
else
    seeds=${seeds:-3}; out=${out:-results/rope_base$suffix}
    train_bases="10000 40000 160000"; eval_bases="10000 20000 40000 80000 160000"
    lengths=3,4,6,8,12; test_size=200; steps=$(config_value train steps configs/rope.ini); extra=""
fi
until_over=""; converge_cols=""; ceiling=$steps
if [ $converge = 1 ]; then
    until_over=$CONVERGE_UNTIL; converge_cols=",converged,cpu_seconds"; ceiling=$((steps * CONVERGE_FACTOR))
fi
max_train=$(config_value task max_clauses configs/rope.ini)   # the longest training input, in clauses
# draw_figures: exact match against clauses, one panel per training base, from results.csv
draw_figures() {
    for decoding in model oracle; do
        plot --x length --y exact_match --group setting --panel train_base --spread --filter decoding="$decoding" \
            --vline "$max_train" --vline-label "trained on 1..$max_train" --dodge 3 \
            --title "RoPE base: exact match, decoding = $decoding" \
            --xlabel clauses -o "$out/exact_$decoding.svg" "$out/results.csv"
    done
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
begin_experiment rope_base.sh train eval plot table
if [ $converge = 1 ]; then command="$command --converge"; fi
short() { echo "$(($1 / 1000))k"; }   # a base as the tables write it: 10000 -> 10k

trainings() {
    for seed in $(seq_list "$seeds"); do
        for tb in $train_bases; do
            # shellcheck disable=SC2086 # until_over and extra are words or nothing
            train_run "$out/runs/base$tb-s$seed" "$ceiling" configs/rope.ini run.seed="$seed" \
                model.rope_base="$tb" train.eval_lengths= $until_over $extra
        done
    done
}
run_trainings trainings "$out"

# (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    # ---- evaluate every run with every base, both decodings; the diagnosis rows of seed 1
    echo "setting,train_base,eval_base,decoding,seed,length,examples,loss,token_acc,exact_match$converge_cols" >"$out/results.csv.tmp"
    echo "setting,decoding,seed,split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end" >"$out/positions.csv.tmp"
    for seed in $(seq_list "$seeds"); do
        for tb in $train_bases; do
            run=$out/runs/base$tb-s$seed
            run_finished "$run" "$ceiling" || die "$run is not finished"
            cells=""   # with --converge: ",CONVERGED,CPU_SECONDS" of the run
            for eb in $eval_bases; do
                setting="train $(short "$tb") / eval $(short "$eb")"
                for decoding in model oracle; do
                    e=$run/eval_b${eb}_$decoding.csv p=$run/positions_b${eb}_$decoding.csv
                    # ./eval's two outputs are made together: reuse them only as a pair
                    [ -s "$p" ] || rm -f "$e"
                    cached_eval "$e" "$BIN_DIR/eval" "$run" splits=none lengths="$lengths" test_size="$test_size" \
                        rope_base="$eb" length="$decoding" --positions "$p"
                    if [ $converge = 1 ]; then
                        cells=$(printf ',%s,%s' "$(awk -F, "$CSV_COLUMNS"'row { print cell("converged"); exit }' "$e")" \
                            "$(run_cpu_seconds "$run")")
                    fi
                    eval_rows "$e" test "" "$setting,$tb,$eb,$decoding,$seed" \
                        "length examples loss token_acc exact_match" "$cells" >>"$out/results.csv.tmp"
                    [ "$seed" != 1 ] || prefix_csv "$setting,$decoding,$seed" "$p" | awk -F, '$6 == "clause"' >>"$out/positions.csv.tmp"
                done
            done
        done
    done
    mv "$out/results.csv.tmp" "$out/results.csv"
    mv "$out/positions.csv.tmp" "$out/positions.csv"
    for seed in $(seq_list "$seeds"); do for tb in $train_bases; do echo "$tb,$seed $out/runs/base$tb-s$seed/log.csv"; done; done |
        curves_csv "$out/curves.csv" train_base,seed
fi

[ "$tables" = 1 ] || draw_figures

# compare PAIRING LABEL A:DECODING B:DECODING LENGTH: a table row "A - B" with its 95% interval
compare() {
    _a=$(seed_values "$out/results.csv" exact_match 100 setting="${3%:*}" decoding="${3##*:}" length="$5")
    _b=$(seed_values "$out/results.csv" exact_match 100 setting="${4%:*}" decoding="${4##*:}" length="$5")
    [ -n "$_a" ] && [ -n "$_b" ] || return 0
    set -- "$@" $(scripts/verdicts.sh --"$1" "$_a" "$_b")
    printf '| %s | %s (%s) | %s (%s) | %s clauses | %+.1f | [%+.1f, %+.1f] | %s |\n' "$2" "${3%:*}" "${3##*:}" \
        "${4%:*}" "${4##*:}" "$5" "$6" "$7" "$8" "$1 (n=$(echo "$_a" | wc -w))"
}

# ---- results.md
wall=$(( $(now) - start ))
first_base=$(echo "$train_bases" | cut -d' ' -f1); base=$(short "$first_base")
long_lengths=$(for k in $(echo "$lengths" | tr ',' ' '); do [ "$k" -gt "$max_train" ] && echo "$k"; done | head -2 | tr '\n' ' ')
{
    echo "# The RoPE base against longer inputs"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
    provenance
    echo "Translators of \`configs/rope.ini\` (toy_translate, trained on 1..$max_train clauses) with"
    echo "\`model.rope_base\` = $(echo "$train_bases" | sed 's/ /, /g'), seeds 1..$seeds, $(if [ $converge = 1 ]; then
        echo "each trained until its validation exact match reached 99% (ceiling $ceiling steps),"; else
        echo "$steps steps each,"; fi)"
    echo "and each scored with \`./eval rope_base=\` $(echo "$eval_bases" | sed 's/ /, /g') on $test_size held-out"
    echo "sentences of exactly k clauses. \"train 10k / eval 40k\": trained with base 10000, evaluated with"
    echo "40000 (the stretch at evaluation alone); \"train 40k / eval 40k\": trained with it. Decoding"
    echo "\`model\`: greedy until the model's \`<eos>\`; \`oracle\`: to the reference length."
    echo "Cells: exact match (%), mean ± sample standard deviation over the seeds."
    if [ $converge = 1 ]; then
        echo
        echo "## Steps to converge (validation exact match >= 99%, ceiling $ceiling steps) and CPU seconds"
        echo
        md_table --rows train_base --cols decoding --steps --filter decoding=model --label model=toy_translate "$out/results.csv"
    fi
    for decoding in model oracle; do
        echo
        echo "## Exact match (%) by clauses, decoding = $decoding"
        echo
        md_pivot "$out/results.csv" setting length exact_match 100 %.1f decoding="$decoding"
    done
    echo
    echo "## Token accuracy (%, teacher forcing) by clauses"
    echo
    md_pivot "$out/results.csv" setting length token_acc 100 %.1f decoding=model
    echo
    echo "## Comparisons"
    echo
    echo "Exact match, A − B in points with its 95% interval (\`scripts/verdicts.sh\`): paired where A"
    echo "and B are the same models evaluated two ways, Welch where they are different trainings."
    echo
    echo "| comparison | A | B | where | A − B | 95% interval | pairing |"
    echo "| --- | --- | --- | --- | ---: | --- | --- |"
    for k in $long_lengths; do
        for eb in $eval_bases; do
            [ "$eb" = "$first_base" ] || compare paired "a larger base at evaluation" "train $base / eval $(short "$eb"):model" \
                "train $base / eval $base:model" "$k"
        done
        for tb in $train_bases; do
            [ "$tb" = "$first_base" ] && continue
            compare welch "trained with the larger base, against stretched to it" \
                "train $(short "$tb") / eval $(short "$tb"):model" "train $base / eval $(short "$tb"):model" "$k"
            compare welch "trained with the larger base, against the default" \
                "train $(short "$tb") / eval $(short "$tb"):model" "train $base / eval $base:model" "$k"
        done
        compare paired "decoded to the reference length (the end decision removed)" \
            "train $base / eval $base:oracle" "train $base / eval $base:model" "$k"
    done
    echo
    echo "## Where the outputs go wrong (seed 1)"
    echo
    echo "Teacher-forced token accuracy (%) by clause (0 = the first; positions.csv):"
    echo
    md_table --rows "set={setting} at {length}" --cols index --value token_acc --scale 100 --filter decoding=model "$out/positions.csv"
    echo
    echo "Greedy outputs whose first wrong token is in clause k:"
    echo
    md_table --rows "set={setting} at {length}" --cols index --value departures --format %d --filter decoding=model "$out/positions.csv"
    echo
    echo "Of the $test_size greedy outputs of k clauses: how many go wrong, and how many of those by"
    echo "ending early (\`<eos>\`, or \`.\` before the sentence is over):"
    echo
    md_table --rows setting --rows clauses=length --value wrong=departures --value "of them early \`<eos>\`=early_eos" \
        --value "early end (\`<eos>\` or \`.\`)=early_end" --agg sum --format %d --filter decoding=model --filter split=test "$out/positions.csv"
    echo
    echo "![exact match, greedy](exact_model.svg)"
    echo "![exact match, oracle length](exact_oracle.svg)"
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
