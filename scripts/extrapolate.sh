#!/bin/sh
# Lesson 2, length generalisation (docs/lessons.md): one model per scheme and seed, evaluated
# beyond its training length in three views, into results/extrapolate/. After `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
run_jobs=$(cores)   # small models: one 1-thread training per core (results/bench/jobs.md)

usage() {
    cat <<'EOF'
usage: scripts/extrapolate.sh [--quick] [--seeds N] [--views LIST] [--out DIR] [--schemes LIST]
                              [--converge] [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]]

Trains configs/<scheme>.ini (translator, 1-3 clauses; the row lstm: configs/lstm.ini) and
configs/lm/<scheme>.ini (language model, 32-token windows) per scheme and seed, and writes
into DIR the evaluations beyond the training length (results.csv; view 1: longer sentences,
view 2: every position shifted by k, view 3: longer windows; rope_pi4 and rope_base40k: the
rope models with rope_scale=4 and rope_base=40000), positions.csv, curves.csv, results.md and
SVG figures. View 3 also takes the trained variants xpos_g512 (model.xpos_gamma=512, the xPos
paper's scale_base) and fire_learned (model.fire_learned=1: FIRE's c and L learned) as rows. Finished runs and evaluations are reused. Lesson 2 in docs/lessons.md; the
files: docs/design.md (experiment scripts).

  --quick       tiny models, few steps, 1 seed (unless --seeds); DIR results/quick/extrapolate
  --seeds N     seeds 1..N (default 3)
  --views LIST  which views to run, e.g. 1,2 (default 1,2,3)
  --out DIR     output folder (default results/extrapolate)
  --schemes LIST  the rows (default: every scheme, and lstm in view 1; with --views 3 alone
              also xpos_g512, fire_learned)
EOF
    printf '%s\n' "$TABLES_USAGE" "$CONVERGE_USAGE" "              (the translator runs only; also converge.csv)" \
        "$FIGURES_USAGE" "$RUN_USAGE" "Tools are taken from BIN_DIR (default: the top level)."
}
quick=0; seeds=""; out=""; views=1,2,3; converge=0; schemes="$SCHEMES lstm"
while [ $# -gt 0 ]; do
    case "$1" in
        --views) [ $# -ge 2 ] || die "--views needs a list like 1,2,3"; views=$2; used=2 ;;
        --schemes) [ $# -ge 2 ] || die "--schemes needs a list like 'rope lstm'"; schemes=$2; used=2 ;;
        --converge) converge=1; used=1 ;;
        *) common_option "$@"; [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; } ;;
    esac
    shift "$used"
done
case "$seeds" in *[!0-9]*|0) die "--seeds wants a positive number, not '$seeds'" ;; esac
case "$views" in ''|*[!123,]*) die "--views wants a list of 1, 2, 3, not '$views'" ;; esac
want_view() { case ",$views," in *,$1,*) return 0 ;; esac; return 1; }
need_tools train eval plot table
. scripts/extrapolate_defs.sh   # variant_of, the quick and full settings, the rope stretches
for scheme in $schemes; do
    case " $SCHEMES lstm " in *" $scheme "*) continue ;; esac
    [ "$(variant_of "$scheme")" != "$scheme " ] || die "unknown scheme '$scheme' (lstm or one of: $SCHEMES)"
    [ "$views" = 3 ] || die "'$scheme' is a language-model variant: use it with --views 3 alone"
done
# The positional schemes (views 2, 3); the translator rows of views 1 and 2.
pos_schemes=$(echo "$schemes" | tr ' ' '\n' | grep -vx lstm | tr '\n' ' ')
if want_view 1; then tr_schemes=$schemes; else tr_schemes=$pos_schemes; fi
# report figures|tables: scripts/extrapolate_report.sh with this call's settings
report() {
    out=$out views=$views quick=$quick seeds=$seeds converge=$converge tables=$tables command=${command:-} \
        tr_steps=$tr_steps lm_steps=$lm_steps wall=${wall:-0} diag_lengths=$diag_lengths sh scripts/extrapolate_report.sh "$1"
}
if [ $figures = 1 ]; then need_tools plot; report figures; exit 0; fi
[ $tables = 1 ] || mkdir -p "$out/runs"
start=$(now)
command="scripts/extrapolate.sh$(if [ $quick = 1 ]; then echo ' --quick'; fi) --seeds $seeds --views $views"
if [ "$schemes" != "$SCHEMES lstm" ]; then command="$command --schemes '$schemes'"; fi
# --converge: the translator runs train until val exact >= 99%, ceiling CONVERGE_FACTOR x steps
until_over=""
if [ $converge = 1 ]; then
    command="$command --converge"; until_over=$CONVERGE_UNTIL; tr_steps=$((tr_steps * CONVERGE_FACTOR))
fi
seed_list=$(seq_list "$seeds")
# add_rows VIEW SCHEME SEED FILE [SPLIT]: ./eval rows of FILE (optionally one split) to results.
add_rows() {
    awk -F, -v p="$1,$2,$3" -v split_="${5:-}" -v x="${6:-}" "$CSV_COLUMNS"'row &&
        (split_ == "" || cell("split") == split_) { print p "," (x == "" ? cell("length") : x) "," \
        cells("examples loss token_acc exact_match loss_last") }' "$4" >>"$out/results.body"
}
# train_all KIND CONFIG_DIR STEPS SCHEMES [OVERRIDES...]: CONFIG_DIR/<scheme>.ini per scheme, seed.
train_all() {
    _kind=$1; _cfg_dir=$2; _steps=$3; _schemes=$4; shift 4
    for scheme in $_schemes; do
        _variant=$(variant_of "$scheme"); _base=${_variant%% *}; _over=${_variant#* }
        for seed in $seed_list; do
            # shellcheck disable=SC2086
            train_run "$out/runs/$_kind-$scheme-s$seed" "$_steps" "$_cfg_dir/$_base.ini" run.seed="$seed" $_over "$@"
        done
    done
}
# add_curves KIND MODEL SCHEMES: every KIND run's log.csv to the curves, as model MODEL.
add_curves() {
    for scheme in $3; do
        for seed in $seed_list; do
            prefix_csv "$2,$scheme,$seed" "$out/runs/$1-$scheme-s$seed/log.csv" >>"$out/curves.body"
        done
    done
}
trainings() {
    # shellcheck disable=SC2086
    if want_view 1 || want_view 2; then train_all tr configs "$tr_steps" "$tr_schemes" $tr_over $until_over; fi
    # shellcheck disable=SC2086
    if want_view 3; then train_all lm configs/lm "$lm_steps" "$pos_schemes" $lm_over; fi
}
t_view=$(now)
run_trainings trainings "$out"
say "training: $(( $(now) - t_view )) s"
# eval_all KIND VIEW NAME SCHEMES EVAL-ARGS...: ./eval RUN EVAL-ARGS per scheme and seed (cached
# in RUN/eval_NAME.csv), then the rope runs once per stretch (as scheme <stretch>), all as VIEW;
# view length also gets the per-position diagnosis (RUN/positions_NAME.csv).
eval_all() {
    _kind=$1; _view=$2; _name=$3; _schemes=$4; shift 4
    for scheme in $_schemes; do
        for seed in $seed_list; do
            run=$out/runs/$_kind-$scheme-s$seed
            if [ "$_view" = length ]; then
                [ -s "$run/positions_$_name.csv" ] || rm -f "$run/eval_$_name.csv"
                cached_eval "$run/eval_$_name.csv" "$BIN_DIR/eval" "$run" "$@" --positions "$run/positions_$_name.csv" || continue
                prefix_csv "$scheme,$seed" "$run/positions_$_name.csv" >>"$out/positions.body"
                pos_header=$(head -1 "$run/positions_$_name.csv")
            else
                cached_eval "$run/eval_$_name.csv" "$BIN_DIR/eval" "$run" "$@" || continue
            fi
            add_rows "$_view" "$scheme" "$seed" "$run/eval_$_name.csv"
        done
    done
    for stretch in $stretches; do
        for seed in $seed_list; do
            run=$out/runs/$_kind-rope-s$seed
            cached_eval "$run/eval_${_name}_${stretch%%:*}.csv" "$BIN_DIR/eval" "$run" "$@" "${stretch#*:}" || continue
            add_rows "$_view" "${stretch%%:*}" "$seed" "$run/eval_${_name}_${stretch%%:*}.csv"
        done
    done
}
# evaluate_views: every view's evaluations into results.body and positions.body, afresh.
evaluate_views() {
    : >"$out/results.body"
    : >"$out/positions.body"
    if want_view 1; then eval_all tr length lengths "$schemes" splits=none lengths="$lengths"; fi
    if want_view 2; then
        for scheme in $pos_schemes; do
            for seed in $seed_list; do
                run=$out/runs/tr-$scheme-s$seed
                for k in $offsets; do
                    cached_eval "$run/eval_offset_$k.csv" "$BIN_DIR/eval" "$run" splits=val pos_offset="$k" || continue
                    add_rows offset "$scheme" "$seed" "$run/eval_offset_$k.csv" val "$k"
                done
            done
        done
    fi
    if want_view 3; then eval_all lm window windows "$pos_schemes" lengths="$windows"; fi
}
# ---- gather the evaluations, curves and positions into the CSVs (with --tables: as they are)
if [ $tables = 0 ]; then
    : >"$out/curves.body"
    if want_view 1 || want_view 2; then add_curves tr translator "$tr_schemes"; fi
    if want_view 3; then add_curves lm lm "$pos_schemes"; fi
    t_view=$(now)
    run_evaluations evaluate_views
    say "evaluated: $(( $(now) - t_view )) s"
    { echo "view,scheme,seed,x,examples,loss,token_acc,exact_match,loss_last"; cat "$out/results.body"; } >"$out/results.csv"
    # --converge: each translator run's step of convergence (or "not in N steps"), CPU seconds
    if [ $converge = 1 ] && { want_view 1 || want_view 2; }; then
        echo "scheme,task,seed,converged,cpu_seconds" >"$out/converge.csv.tmp"
        for scheme in $tr_schemes; do
            for seed in $seed_list; do
                run=$out/runs/tr-$scheme-s$seed
                cached_eval "$run/eval_converged.csv" "$BIN_DIR/eval" "$run" splits=val
                echo "$scheme,toy_translate,$seed,$(awk -F, "$CSV_COLUMNS"'row { print cell("converged"); exit }' \
                    "$run/eval_converged.csv"),$(run_cpu_seconds "$run")" >>"$out/converge.csv.tmp"
            done
        done
        mv "$out/converge.csv.tmp" "$out/converge.csv"
    fi
    for f in "$out"/runs/*/log.csv; do log_header=$(head -1 "$f"); break; done
    { echo "model,scheme,seed,$log_header"; cat "$out/curves.body"; } >"$out/curves.csv"
    [ -z "${pos_header:-}" ] || { echo "scheme,seed,$pos_header"; cat "$out/positions.body"; } >"$out/positions.csv"
    rm -f "$out/results.body" "$out/curves.body" "$out/positions.body"
fi
# Offsets on a log axis: k + 1, so that k = 0 (the unshifted baseline) has a place.
awk -F, "$CSV_COLUMNS"'head { print $0 ",offset_plus_1" }
    row && cell("view") == "offset" { print $0 "," cell("x") + 1 }' \
    "$out/results.csv" >"$out/offsets.csv"
[ "$tables" = 1 ] || report figures
wall=$(( $(now) - start ))
if [ $converge = 1 ] && [ ! -f "$out/converge.csv" ] && { want_view 1 || want_view 2; }; then
    die "no $out/converge.csv: its runs were made before the script wrote one; run without --tables"
fi
report tables
cat "$out/results.md"
say "done in ${wall} s: $out/results.md"
