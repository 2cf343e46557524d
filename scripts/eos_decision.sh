#!/bin/sh
# The end-of-sentence decision (Newman et al. 2020) and randomized positions (Ruoss et al. 2023)
# on the toy translator, results/eos_decision/ (docs/length_generalisation.md). After `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF'
usage: scripts/eos_decision.sh [--quick] [--seeds N] [--out DIR] [--partial] [--converge]

Trains configs/<scheme>.ini (1..3 clauses) per scheme and seed with <eos> (+EOS), without
(-EOS) and +EOS on randomized positions, scores the variants (VARIANTS in this script) on 3,
4, 6, 8 and 12 clauses, and writes results.csv, positions.csv (seed 1), curves.csv,
results.md and SVG figures into DIR, reusing finished runs and evaluations. The study, its
files and how to read them: docs/length_generalisation.md.

  --quick     a smoke test: tiny models, 30 steps, 1 seed (unless --seeds), lengths 3 and
              4; DIR defaults to results/quick/eos_decision
  --seeds N   seeds 1..N (default 3)
  --out DIR   output folder (default results/eos_decision)
  --partial   train nothing: evaluate the finished runs only and name the missing ones
EOF
    printf '%s\n' "$TABLES_USAGE" "$CONVERGE_USAGE" "$FIGURES_USAGE" "$RUN_USAGE" \
        "Tools are taken from BIN_DIR (default: the top level)."
}

# The variants, one a line: name | training (the run folder's prefix; variants that share it
# share the runs) | training overrides | ./eval overrides. A new variant is one more line. A
# training with model.pos_random (positions drawn from 0..2047, sorted) leaves out none.
VARIANTS='eos | eos | train.eos=true | length=model
eos+oracle | eos | train.eos=true | length=oracle
noeos+oracle | noeos | train.eos=false | length=oracle
random | random | train.eos=true model.pos_random=2048 model.max_len=2048 | length=model
random+oracle | random | train.eos=true model.pos_random=2048 model.max_len=2048 | length=oracle
random+plainpos | random | train.eos=true model.pos_random=2048 model.max_len=2048 | length=model positions=plain'
# Each line's fields, spaces trimmed, as "name|training|train overrides|eval overrides".
variant_lines() { echo "$VARIANTS" | sed 's/ *| */|/g; s/^ *//; s/ *$//'; }
# The distinct trainings, each with its overrides: "training|train overrides".
training_lines() { variant_lines | cut -d'|' -f2,3 | awk '!seen[$0]++'; }
DIAG_SCHEME=rope   # the scheme whose per-position diagnosis is plotted
# training_schemes TRAIN_OVERRIDES: all, but none when the positions are randomized (that run
# would be the plain one again).
training_schemes() {
    case " $1 " in *" model.pos_random="[1-9]*) echo "$SCHEMES" | tr ' ' '\n' | grep -vx none | tr '\n' ' ' ;;
        *) echo "$SCHEMES" ;; esac
}
quick=0; seeds=""; out=""; partial=0; converge=0
while [ $# -gt 0 ]; do
    case "$1" in --partial) partial=1; used=1 ;; --converge) converge=1; used=1 ;; *) common_option "$@" ;; esac
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/eos_decision$([ $converge = 0 ] || echo _converge)}
    lengths=3,4; test_size=20; steps=30
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=500 task.val_size=50"
else
    seeds=${seeds:-3}; out=${out:-results/eos_decision$([ $converge = 0 ] || echo _converge)}
    lengths=3,4,6,8,12; test_size=200; steps=$(config_value train steps configs/rope.ini)
    extra=""
fi
until_over=""; converge_cols=""
if [ $converge = 1 ]; then
    until_over=$CONVERGE_UNTIL; converge_cols=",converged,cpu_seconds"; steps=$((steps * CONVERGE_FACTOR))
fi
max_train=$(config_value task max_clauses configs/rope.ini)   # the longest training input, in clauses
# draw_figures: exact match against clauses per variant, rope's diagnosis (none for a variant
# without a finished run yet: --partial).
draw_figures() {
    variant_lines | cut -d'|' -f1 | while read -r variant; do
        grep -q "^$variant," "$out/results.csv" || continue
        plot --x length --y exact_match --group scheme --spread --filter variant="$variant" --vline "$max_train" \
            --vline-label "trained on 1..$max_train" --title "exact match, $variant" --xlabel clauses \
            --dodge 3 -o "$out/exact_$variant.svg" "$out/results.csv"
        grep -q "^$variant,$DIAG_SCHEME," "$out/positions.csv" || continue
        plot --x index --y token_acc --group length --filter variant="$variant" --filter scheme="$DIAG_SCHEME" \
            --filter by=position --title "$DIAG_SCHEME, $variant: teacher-forced accuracy by target position" \
            --xlabel "target position" -o "$out/${DIAG_SCHEME}_${variant}_position.svg" "$out/positions.csv"
        plot --x index --y departure_rate --group length --filter variant="$variant" --filter scheme="$DIAG_SCHEME" \
            --filter by=clause --title "$DIAG_SCHEME, $variant: greedy outputs going wrong in clause k (of those still right)" \
            --xlabel "clause (0 = first)" --dodge 4 -o "$out/${DIAG_SCHEME}_${variant}_departures.svg" "$out/positions.csv"
    done
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
begin_experiment eos_decision.sh train eval plot table
if [ $partial = 1 ]; then command="$command --partial"; fi
if [ $converge = 1 ]; then command="$command --converge"; fi

# each_training FUNCTION: FUNCTION TRAINING SCHEME SEED TRAIN_OVERRIDES for every run.
each_training() {
    training_lines | while IFS='|' read -r training train_over; do
        for seed in $(seq_list "$seeds"); do
            for scheme in $(training_schemes "$train_over"); do "$1" "$training" "$scheme" "$seed" "$train_over"; done
        done
    done
}
train_one() {   # the longer lengths are scored by ./eval, not during training
    # shellcheck disable=SC2086
    train_run "$out/runs/$1-$2-s$3" "$steps" "configs/$2.ini" run.seed="$3" train.steps="$steps" \
        train.eval_lengths= $4 $until_over $extra
}
trainings() { each_training train_one; }
if [ $partial = 0 ]; then run_trainings trainings "$out"; fi
# ---- gather the evaluations and curves into the CSVs (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    : >"$out/missing.txt"   # finished TRAINING SCHEME SEED: if not (--partial), listed here
    finished() {
        ! run_finished "$out/runs/$1-$2-s$3" "$steps" || return 0
        [ $partial = 1 ] || die "$out/runs/$1-$2-s$3 is not finished"
        grep -qx "$1-$2-s$3" "$out/missing.txt" || echo "$1-$2-s$3" >>"$out/missing.txt"; return 1
    }
    # every variant of every run; the diagnosis rows of seed 1
    echo "variant,scheme,seed,length,examples,loss,token_acc,exact_match$converge_cols" >"$out/results.csv.tmp"
    echo "variant,scheme,seed,split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end" \
        >"$out/positions.csv.tmp"
    variant_lines | while IFS='|' read -r variant training train_over eval_over; do
        for seed in $(seq_list "$seeds"); do
            for scheme in $(training_schemes "$train_over"); do
                finished "$training" "$scheme" "$seed" || continue
                run=$out/runs/$training-$scheme-s$seed
                # ./eval's two outputs are made together: reuse them only as a pair.
                [ -s "$run/positions_$variant.csv" ] || rm -f "$run/eval_$variant.csv"
                # shellcheck disable=SC2086
                cached_eval "$run/eval_$variant.csv" "$BIN_DIR/eval" "$run" splits=none lengths="$lengths" \
                    test_size="$test_size" $eval_over --positions "$run/positions_$variant.csv"
                q=""; [ $converge = 0 ] || q=$(printf ',%s,%s' "$(awk -F, "$CSV_COLUMNS"'row { print cell("converged"); exit }' \
                    "$run/eval_$variant.csv")" "$(run_cpu_seconds "$run")")
                awk -F, -v p="$variant,$scheme,$seed" -v q="$q" "$CSV_COLUMNS"'row && cell("split") == "test" {
                    print p "," cells("length examples loss token_acc exact_match") q }' \
                    "$run/eval_$variant.csv" >>"$out/results.csv.tmp"
                if [ "$seed" = 1 ]; then prefix_csv "$variant,$scheme,$seed" "$run/positions_$variant.csv" >>"$out/positions.csv.tmp"; fi
            done
        done
    done
    mv "$out/results.csv.tmp" "$out/results.csv"; mv "$out/positions.csv.tmp" "$out/positions.csv"
    curve() { if finished "$1" "$2" "$3"; then prefix_csv "$1,$2,$3" "$out/runs/$1-$2-s$3/log.csv"; fi; }
    each_training curve >"$out/curves.body"
    first=$(training_lines | head -1 | cut -d'|' -f1)
    { echo "training,scheme,seed,$(head -1 "$out/runs/$first-none-s1/log.csv")"; cat "$out/curves.body"; } >"$out/curves.csv"; rm -f "$out/curves.body"
fi

[ "$tables" = 1 ] || draw_figures

wall=$(( $(now) - start ))
pivot() { "$BIN_DIR/table" --rows scheme --scale 100 "$@"; }   # mean ± sd in % by scheme
{
    printf '# The end-of-sentence decision\n\nCommand: `%s` (%s s wall for this invocation; finished runs are reused).\n' "$command" "$wall"
    provenance
    if [ $converge = 1 ]; then
        echo "Translators trained on 1..$max_train clauses (configs/<scheme>.ini), each until its validation"
        echo "exact match reached 99% (\`$CONVERGE_UNTIL\`) or $steps steps,"
    else echo "Translators trained on 1..$max_train clauses (configs/<scheme>.ini, $steps steps),"; fi
    echo "scored on $test_size held-out sentences of exactly k clauses. Cells: mean ± sample standard"
    echo "deviation over seeds 1..$seeds, in %; empty: not run (none randomized). The variants, and how"
    echo "to read them: [docs/length_generalisation.md](../../docs/length_generalisation.md#the-end-of-sentence-decision-and-randomized-positions-in-the-translator)."
    if [ -s "$out/missing.txt" ]; then
        echo
        # shellcheck disable=SC2016 # the backquotes are Markdown
        echo "**Partial (\`--partial\`): these runs were not trained in time, so their cells average fewer"
        echo "seeds or are empty:** $(sed 's/.*/`&`/' "$out/missing.txt" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')."
    fi
    if [ $converge = 1 ]; then
        heading "## Steps to converge (validation exact match >= 99%, ceiling $steps steps) and CPU seconds"
        "$BIN_DIR/table" --steps --rows scheme --cols variant --filter variant=eos --filter variant=noeos+oracle \
            --filter variant=random --label eos=+EOS --label noeos+oracle=-EOS "$out/results.csv"
    fi
    variant_lines | while IFS='|' read -r variant training train_over eval_over; do
        heading "## $variant: exact match by clauses (\`$train_over\`, \`./eval $eval_over\`)"
        pivot --cols length --value exact_match --filter variant="$variant" "$out/results.csv"
    done
    for metric in "exact_match|exact match (%)" "token_acc|token accuracy (%, teacher forcing)"; do
        for k in $(echo "$lengths" | tr ',' ' '); do
            heading "## Every variant at $k clauses: ${metric#*|}"
            pivot --cols variant --value "${metric%%|*}" --filter length="$k" "$out/results.csv"
        done
    done
    heading "## All variants side by side: exact match (%) by clauses"
    "$BIN_DIR/table" --rows "run={scheme} {variant}" --cols length --value exact_match --scale 100 "$out/results.csv"
    heading "## Where the outputs go wrong ($DIAG_SCHEME, seed 1)"
    echo "Teacher-forced token accuracy (%) by clause (0 = the first; positions.csv, by = clause):"
    echo
    by_clause() { "$BIN_DIR/table" --rows "set={variant} at {length}" --cols index --filter by=clause \
        --filter scheme="$DIAG_SCHEME" "$@" "$out/positions.csv"; }
    by_clause --value token_acc --scale 100
    heading "Greedy outputs whose first wrong token is in clause k:"
    by_clause --value departures --format %d
    echo
    echo "Of the $test_size greedy outputs of k clauses: how many go wrong, and how many of those go wrong"
    echo "by ending early (\`<eos>\`, or \`.\` before the sentence is over) (positions.csv, by = clause):"
    echo
    "$BIN_DIR/table" --agg sum --format %d --rows variant --rows clauses=length --value wrong=departures \
        --value 'of them early `<eos>`=early_eos' --value 'early end (`<eos>` or `.`)=early_end' \
        --filter scheme="$DIAG_SCHEME" --filter by=clause --filter split=test "$out/positions.csv"
    echo
    variant_lines | cut -d'|' -f1 | while read -r variant; do echo "![exact match, $variant](exact_$variant.svg)"; done
} >"$out/results.md.new"
write_md "$out/results.md"
[ -s "$out/missing.txt" ] || rm -f "$out/missing.txt"
say "done in $wall s: $out/results.md"
