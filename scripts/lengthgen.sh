#!/bin/sh
# Length generalisation on algorithmic tasks (docs/length_generalisation.md): translators and
# decoder-only models per scheme and seed, trained on 1..16 symbols and scored on 16..64,
# into results/lengthgen/. Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
run_jobs=$(cores)   # small models: one 1-thread training per core (results/bench/jobs.md)

usage() {
    cat <<'EOF'
usage: scripts/lengthgen.sh [--quick] [--seeds N] [--out DIR] [--variants LIST] [--schemes LIST]
                            [--tasks LIST] [--part translator|decoder|all] [--converge [--ceiling F]]

Trains configs/algorithmic/<task>.ini (copy, reverse; the row lstm: the recurrent translator)
and the decoder-only configs/algorithmic/lm_<task>.ini (copy, reverse, duplicate) per scheme
and seed, plainly and with randomized positions, scores them on inputs of 16..64 symbols and
writes results.csv, positions.csv, curves.csv, results.md, lm_results.csv, lm_curves.csv,
lm_mrr.csv (scripts/mrr.sh), decoder_only.md and SVG figures into DIR; finished runs and
evaluations are reused. The study, its files and how to read them:
docs/length_generalisation.md ("Algorithmic tasks"); the columns: docs/design.md.

  --quick     tiny models, 30 steps, 1 seed (unless --seeds), lengths 16 and 32; DIR
              defaults to results/quick/lengthgen
  --seeds N   seeds 1..N (default 3)
  --out DIR   output folder (default results/lengthgen)
  --variants LIST  which variants, of "plain random" (the default: both)
  --schemes LIST   the translator part's rows (default: every scheme, then lstm)
  --tasks LIST     only these tasks (copy, reverse: both parts; duplicate: decoder-only)
  --part P    translator, decoder (the decoder-only part) or all (default)
  --ceiling F with --converge: a ceiling of F x the steps instead
EOF
    printf '%s\n' "$TABLES_USAGE (and decoder_only.md)" "$CONVERGE_USAGE" "$FIGURES_USAGE" "$RUN_USAGE" \
        "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""; variants="plain random"; part=all; converge=0; tasks=""; ceiling=""
TR_SCHEMES="$SCHEMES lstm"
while [ $# -gt 0 ]; do
    if [ "$1" = --converge ]; then
        converge=1; used=1
    elif [ "$1" = --variants ]; then
        [ $# -ge 2 ] || die "--variants needs a list such as 'plain random'"
        variants=$2; used=2
    elif [ "$1" = --schemes ]; then
        [ $# -ge 2 ] || die "--schemes needs a list such as 'rope lstm'"
        TR_SCHEMES=$2; used=2
    elif [ "$1" = --ceiling ]; then
        [ $# -ge 2 ] || die "--ceiling needs a number (times the steps)"
        case "$2" in ''|*[!0-9]*|0) die "--ceiling wants a positive whole number, not '$2'" ;; esac
        CONVERGE_FACTOR=$2; ceiling=$2; used=2
    elif [ "$1" = --tasks ]; then
        [ $# -ge 2 ] || die "--tasks needs a list such as 'copy reverse'"
        tasks=$2; used=2
    elif [ "$1" = --part ]; then
        [ $# -ge 2 ] || die "--part needs translator, decoder or all"
        part=$2; used=2
    else
        common_option "$@"
    fi
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
case "$part" in translator|decoder|all) ;; *) die "--part wants translator, decoder or all, not '$part'" ;; esac
[ -z "$ceiling" ] || [ $converge = 1 ] || die "--ceiling goes with --converge"
. scripts/lengthgen_defs.sh   # only_tasks, steps_of, the variants, schemes and overrides
for _t in $tasks; do
    case "$_t" in copy|reverse|duplicate) ;; *) die "unknown task '$_t' (copy, reverse, duplicate)" ;; esac
done
TASKS=$(only_tasks "copy reverse")
[ "$part" = decoder ] || [ -n "$TASKS" ] || die "--tasks '$tasks' has no translator task (copy, reverse); add --part decoder"
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/lengthgen$([ $converge = 0 ] || echo _converge)}
    lengths=16,32; test_size=20
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=500"
else
    seeds=${seeds:-3}; out=${out:-results/lengthgen$([ $converge = 0 ] || echo _converge)}
    lengths=16,17,20,24,32,40,48,64; test_size=100
    extra=""
fi
. scripts/lengthgen_lm.sh; . scripts/lengthgen_report.sh   # the decoder-only part; figures and tables
for variant in $variants; do variant_overrides "$variant" >/dev/null; done
for scheme in $TR_SCHEMES; do scheme_overrides "$scheme" >/dev/null; done
if [ $figures = 1 ]; then command=""; else begin_experiment lengthgen.sh train eval plot table; fi
command="$command --variants '$variants'$(if [ -n "$tasks" ]; then echo " --tasks '$tasks'"; fi)$(if [ "$TR_SCHEMES" != "$SCHEMES lstm" ]; then echo " --schemes '$TR_SCHEMES'"; fi)$(if [ "$part" != all ]; then echo " --part $part"; fi)$(if [ $converge = 1 ]; then echo " --converge"; fi)$(if [ -n "$ceiling" ]; then echo " --ceiling $ceiling"; fi)"

if [ $figures = 1 ]; then
    need_tools plot
    if [ "$part" != decoder ] && [ -f "$out/results.csv" ]; then tr_plots; fi
    if [ "$part" != translator ] && [ -f "$out/lm_results.csv" ]; then
        lm_train_max=$(config_value task max_length configs/algorithmic/lm_copy.ini); lm_plots
    fi
    exit 0
fi
# ---- the translators: train every task, scheme and seed (here, --jobs N at once, or on Slurm), then evaluate
if [ "$part" = decoder ]; then decoder_part; exit 0; fi
trainings() {
    for seed in $(seq_list "$seeds"); do
        for task in $TASKS; do
            for variant in $variants; do
                for scheme in $(variant_schemes "$variant"); do
                    # The longer lengths are scored once, by ./eval, not during training.
                    # shellcheck disable=SC2086,SC2046 # the overrides are separate words
                    train_run "$out/runs/$task-$scheme$(variant_suffix "$variant")-s$seed" "$(steps_of "$task")" \
                        "configs/algorithmic/$task.ini" $(scheme_overrides "$scheme") run.seed="$seed" \
                        train.eval_lengths= $extra $(variant_overrides "$variant") $until_over
                done
            done
        done
    done
}
run_trainings trainings "$out"
# score RUN EVAL_CSV LABEL [OVERRIDES...]: evaluate RUN (cached in EVAL_CSV), rows labelled LABEL;
# 1 when cached_eval only listed it (run_evaluations)
score() {
    _run=$1 _csv=$2 _label=$3; shift 3
    cached_eval "$_csv" "$BIN_DIR/eval" "$_run" splits=none lengths="$lengths" test_size="$test_size" "$@" ||
        return 1
    awk -F, -v p="$task,$_label,$seed" -v q="$(converge_cells "$_run" "$_csv")" "$CSV_COLUMNS"'row && cell("split") == "test" {
        print p "," cells("length examples loss token_acc exact_match") q }' \
        "$_csv" >>"$out/results.csv.tmp"
}
# Every translator evaluated into results.csv.tmp, curves.body and positions.body (afresh).
evaluate_translators() {
    echo "task,scheme,seed,length,examples,loss,token_acc,exact_match$converge_cols" >"$out/results.csv.tmp"
    : >"$out/curves.body"
    : >"$out/positions.body"
    for seed in $(seq_list "$seeds"); do
        for task in $TASKS; do
            for variant in $variants; do
                for scheme in $(variant_schemes "$variant"); do
                    run=$out/runs/$task-$scheme$(variant_suffix "$variant")-s$seed
                    if [ "$variant" = plain ]; then   # with the per-position diagnosis
                        label=$scheme
                        [ -s "$run/positions.csv" ] || rm -f "$run/eval.csv"
                        score "$run" "$run/eval.csv" "$label" --positions "$run/positions.csv" || continue
                        prefix_csv "$task,$label,$seed" "$run/positions.csv" >>"$out/positions.body"
                        pos_header=$(head -1 "$run/positions.csv")
                    else   # positions drawn as in training (the paper's evaluation), and 0..n-1
                        label="$scheme + $variant"
                        listed=0
                        score "$run" "$run/eval.csv" "$label" eval.positions=sampled || listed=1
                        score "$run" "$run/eval_plain.csv" "$label (plain)" eval.positions=plain || listed=1
                        [ $listed = 0 ] || continue
                    fi
                    prefix_csv "$task,$label,$seed" "$run/log.csv" >>"$out/curves.body"
                    log_header=$(head -1 "$run/log.csv")
                done
            done
        done
    done
}
# gather the evaluations, curves and positions into the CSVs (with --tables: as they are)
if [ $tables = 0 ]; then
    run_evaluations evaluate_translators
    mv "$out/results.csv.tmp" "$out/results.csv"
    { echo "task,scheme,seed,$log_header"; cat "$out/curves.body"; } >"$out/curves.csv"
    rm -f "$out/curves.body"
    if [ -n "${pos_header:-}" ]; then
        { echo "task,scheme,seed,$pos_header"; cat "$out/positions.body"; } >"$out/positions.csv"
    fi
    rm -f "$out/positions.body"
fi

tr_plots

tr_report
say "done in $wall s: $out/results.md"
[ "$part" = translator ] || decoder_part
