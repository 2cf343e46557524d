#!/bin/sh
# The end-of-sentence decision (Newman, Hewitt, Liang, Manning 2020, "The EOS Decision
# and Length Extrapolation"): train the toy German -> English translator (1..3 clauses) with
# every positional scheme, with and without <eos> on the target side, and score exact match at
# 4, 6, 8 and 12 clauses when the model stops itself and when it is decoded to the reference
# length; and once more on randomized positions (Ruoss et al. 2023). Also writes the per-position diagnosis (./eval --positions) of every run of seed 1.
# Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF'
usage: scripts/eos_decision.sh [--quick] [--seeds N] [--out DIR] [--partial] [--converge]

Trains configs/<scheme>.ini (toy_translate, 1..3 clauses) for each scheme of
`./train --list-schemes`, seeds 1..N, once with train.eos=true (+EOS), once with
train.eos=false (-EOS: no <eos> target) and once +EOS on randomized positions, and
evaluates every variant on test sets of
exactly 3, 4, 6, 8 and 12 clauses (200 sentences each):
  eos            +EOS model, greedy decoding stops at its own <eos>
  eos+oracle     +EOS model, eval.length=oracle: <eos> forbidden before the reference length
  noeos+oracle   -EOS model, decoded to exactly the reference length
  random         +EOS model trained on randomized positions (model.pos_random=2048,
                 max_len=2048; Ruoss et al. 2023), scored on drawn positions; none,
                 which has no positions to randomize, is left out
  random+oracle  the same runs, eval.length=oracle
  random+plainpos  the same runs on positions 0..n-1 (./eval positions=plain)
Writes into DIR:
  results.csv    variant,scheme,seed,length,examples,loss,token_acc,exact_match (with
                 --converge also converged,cpu_seconds)
  positions.csv  variant,scheme,seed, then ./eval --positions columns (seed 1 only):
                 split,length,by,index,tokens,token_acc,reached,departures,departure_rate,
                 early_eos,early_end
  curves.csv     every run's log.csv, with training, scheme and seed columns in front
  results.md     exact match tables (mean ± sample sd over seeds), the command, the wall time
  exact_<variant>.svg          exact match against clauses, one line per scheme
  rope_<variant>_position.svg  rope, seed 1: teacher-forced token accuracy by target position
  rope_<variant>_departures.svg  rope, seed 1: where greedy outputs first go wrong, by clause
Finished runs (DIR/runs/<training>-<scheme>-s<seed>) and evaluations are reused, so an
interrupted run can be restarted.

  --quick     a smoke test: tiny models (d_model 16), 30 steps, 1 seed (unless --seeds),
              lengths 3 and 4 with 20 sentences each; DIR defaults to results/quick/eos_decision
  --seeds N   seeds 1..N (default 3)
  --out DIR   output folder (default results/eos_decision)
  --partial   train nothing: evaluate the finished runs only, and list the missing ones in
              results.md (for a deadline; the tables then mix seed counts where runs are missing)
EOF
    echo "$TABLES_USAGE"
    echo "$CONVERGE_USAGE"
    echo "$FIGURES_USAGE"
    echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

# The variants, one a line: name | training (the run folder's prefix; variants that share it
# share the runs) | training overrides | ./eval overrides. A new variant is one more line,
# e.g. `rand+oracle | rand | train.eos=false model.pos_random=2048 | length=oracle`. A training with
# model.pos_random (Ruoss et al. 2023: positions drawn from 0..2047 and sorted; the learned table
# gets max_len=2048 rows to cover them) leaves out none, which has no positions to randomize; its
# runs are scored on drawn positions (./eval's default for them) and on 0..n-1 (positions=plain).
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
# training_schemes TRAIN_OVERRIDES: the schemes a training covers (all, but none when the
# positions are randomized: that run would be the plain one again).
training_schemes() {
    case " $1 " in
        *" model.pos_random=0 "*|*" model.pos_random= "*) echo "$SCHEMES" ;;
        *" model.pos_random="*) echo "$SCHEMES" | tr ' ' '\n' | grep -vx none | tr '\n' ' ' ;;
        *) echo "$SCHEMES" ;;
    esac
}

quick=0; seeds=""; out=""; partial=0; converge=0
while [ $# -gt 0 ]; do
    case "$1" in
        --partial) partial=1; used=1 ;;
        --converge) converge=1; used=1 ;;
        *) common_option "$@" ;;
    esac
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
# --converge: every training stops once its validation exact match reaches 99%, with a ceiling
# of CONVERGE_FACTOR times the steps; the results get the step it converged at and its CPU time
until_over=""; converge_cols=""
if [ $converge = 1 ]; then
    until_over=$CONVERGE_UNTIL; converge_cols=",converged,cpu_seconds"; steps=$((steps * CONVERGE_FACTOR))
fi
max_train=$(config_value task max_clauses configs/rope.ini)   # the longest training input, in clauses
# draw_figures: exact match against clauses per variant; rope's diagnosis per variant (from
# results.csv and positions.csv). With --partial a variant or its diagnosed scheme may have no
# finished run yet: no plot then.
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
begin_experiment eos_decision.sh train eval plot
if [ $partial = 1 ]; then command="$command --partial"; fi
if [ $converge = 1 ]; then command="$command --converge"; fi

# ---- train every training, scheme and seed (here, --jobs N at once, or on Slurm)
trainings() {
    training_lines | while IFS='|' read -r training train_over; do
        for seed in $(seq_list "$seeds"); do
            for scheme in $(training_schemes "$train_over"); do
                # The longer lengths are scored once, by ./eval, not during training.
                # shellcheck disable=SC2086
                train_run "$out/runs/$training-$scheme-s$seed" "$steps" "configs/$scheme.ini" \
                    run.seed="$seed" train.steps="$steps" train.eval_lengths= $train_over $until_over $extra
            done
        done
    done
}
if [ $partial = 0 ]; then run_trainings trainings "$out"; fi
# ---- gather the evaluations and curves into the CSVs (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    # finished TRAINING SCHEME SEED: the run is there (always, unless --partial); a missing one
    # is listed in $out/missing.txt.
    : >"$out/missing.txt"
    finished() {
        _r=$out/runs/$1-$2-s$3
        if run_finished "$_r" "$steps"; then return 0; fi
        [ $partial = 1 ] || die "$_r is not finished"
        grep -qx "$1-$2-s$3" "$out/missing.txt" || echo "$1-$2-s$3" >>"$out/missing.txt"
        return 1
    }

    # ---- evaluate every variant of every run; the diagnosis rows of seed 1
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
                q=""
                if [ $converge = 1 ]; then
                    q=$(printf ',%s,%s' "$(awk -F, "$CSV_COLUMNS"'row { print cell("converged"); exit }' \
                        "$run/eval_$variant.csv")" "$(run_cpu_seconds "$run")")
                fi
                awk -F, -v p="$variant,$scheme,$seed" -v q="$q" "$CSV_COLUMNS"'row && cell("split") == "test" {
                    print p "," cells("length examples loss token_acc exact_match") q }' \
                    "$run/eval_$variant.csv" >>"$out/results.csv.tmp"
                if [ "$seed" = 1 ]; then prefix_csv "$variant,$scheme,$seed" "$run/positions_$variant.csv" >>"$out/positions.csv.tmp"; fi
            done
        done
    done
    mv "$out/results.csv.tmp" "$out/results.csv"
    mv "$out/positions.csv.tmp" "$out/positions.csv"
    : >"$out/curves.body"
    training_lines | while IFS='|' read -r training train_over; do
        for seed in $(seq_list "$seeds"); do
            for scheme in $(training_schemes "$train_over"); do
                finished "$training" "$scheme" "$seed" || continue
                prefix_csv "$training,$scheme,$seed" "$out/runs/$training-$scheme-s$seed/log.csv"
            done
        done
    done >"$out/curves.body"
    first=$(training_lines | head -1 | cut -d'|' -f1)
    { echo "training,scheme,seed,$(head -1 "$out/runs/$first-none-s1/log.csv")"; cat "$out/curves.body"; } >"$out/curves.csv"
    rm -f "$out/curves.body"
fi

[ "$tables" = 1 ] || draw_figures


# ---- results.md
wall=$(( $(now) - start ))
{
    echo "# The end-of-sentence decision"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation; finished runs are reused)."
    provenance
    if [ $converge = 1 ]; then
        echo "Translators trained on 1..$max_train clauses (configs/<scheme>.ini, each until its validation exact"
        echo "match reached 99%, \`$CONVERGE_UNTIL\`, with a ceiling of $steps steps), with (+EOS) and"
    else echo "Translators trained on 1..$max_train clauses (configs/<scheme>.ini, $steps steps), with (+EOS) and"; fi
    echo "without (-EOS, \`train.eos=false\`) the end token on the target side, and +EOS on randomized"
    echo "positions (\`model.pos_random=2048\`: each batch's positions drawn from 0..2047 and sorted;"
    echo "none, which has no positions, is not repeated there); scored on $test_size held-out sentences"
    echo "of exactly k clauses (random runs: on drawn positions, and on 0..n-1 as random+plainpos)."
    echo "Cells: mean ± sample standard deviation over seeds 1..$seeds, in %; empty: not run (none randomized)."
    echo "xpos is RoPE's rotation times a decay that only a causal stack applies: the encoder gets the"
    echo "rotation alone (src/pos/xpos.c), so here xpos differs from rope in the decoder's self-attention only."
    if [ -s "$out/missing.txt" ]; then
        echo
        # shellcheck disable=SC2016 # the backquotes are Markdown
        echo "**Partial (\`--partial\`): these runs were not trained in time, so their cells average fewer"
        echo "seeds or are empty:** $(sed 's/.*/`&`/' "$out/missing.txt" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')."
    fi
    if [ $converge = 1 ]; then
        echo
        echo "## Steps to converge (validation exact match >= 99%, ceiling $steps steps) and CPU seconds"
        echo
        awk -F, "$CSV_COLUMNS"'head { print "scheme,training,seed,converged,cpu_seconds" }
            row && cell("variant") ~ /^(eos|noeos\+oracle|random)$/ {
                t = cell("variant"); sub(/^eos$/, "+EOS", t); sub(/^noeos\+oracle$/, "-EOS", t)
                print cell("scheme") "," t "," cells("seed converged cpu_seconds") }' \
            "$out/results.csv" >"$out/converge.tmp"
        converge_table "$out/converge.tmp" scheme training
        rm -f "$out/converge.tmp"
    fi
    variant_lines | while IFS='|' read -r variant training train_over eval_over; do
        echo
        echo "## $variant: exact match by clauses (\`$train_over\`, \`./eval $eval_over\`)"
        echo
        md_pivot "$out/results.csv" scheme length exact_match 100 %.1f variant="$variant"
    done
    for metric in "exact_match|exact match (%)" "token_acc|token accuracy (%, teacher forcing)"; do
        for k in $(echo "$lengths" | tr ',' ' '); do
            echo
            echo "## Every variant at $k clauses: ${metric#*|}"
            echo
            md_pivot "$out/results.csv" scheme variant "${metric%%|*}" 100 %.1f length="$k"
        done
    done
    echo
    echo "## All variants side by side: exact match (%) by clauses"
    echo
    awk -F, "$CSV_COLUMNS"'head { print "run," $0 } row { print cell("scheme") " " cell("variant") "," $0 }' \
        "$out/results.csv" >"$out/side_by_side.tmp"
    md_pivot "$out/side_by_side.tmp" run length exact_match 100 %.1f
    rm -f "$out/side_by_side.tmp"
    echo
    echo "## Where the outputs go wrong ($DIAG_SCHEME, seed 1)"
    echo
    echo "Teacher-forced token accuracy (%) by clause (0 = the first; positions.csv, by = clause):"
    echo
    awk -F, "$CSV_COLUMNS"'head { print "set," $0 }
        row && cell("by") == "clause" { print cell("variant") " at " cell("length") "," $0 }' \
        "$out/positions.csv" >"$out/by_clause.tmp"
    md_pivot "$out/by_clause.tmp" set index token_acc 100 %.1f scheme="$DIAG_SCHEME"
    echo
    echo "Greedy outputs whose first wrong token is in clause k:"
    echo
    md_pivot "$out/by_clause.tmp" set index departures 1 %d scheme="$DIAG_SCHEME"
    rm -f "$out/by_clause.tmp"
    echo
    echo "Of the $test_size greedy outputs of k clauses: how many go wrong, and how many of those go wrong"
    echo "by ending early (\`<eos>\`, or \`.\` before the sentence is over) (positions.csv, by = clause):"
    echo
    echo "| variant | clauses | wrong | of them early \`<eos>\` | early end (\`<eos>\` or \`.\`) |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    awk -F, -v s="$DIAG_SCHEME" "$CSV_COLUMNS"'row && cell("scheme") == s && cell("by") == "clause" &&
            cell("split") == "test" {
            k = cell("variant") SUBSEP cell("length"); if (!(k in d)) order[++n] = k
            d[k] += cell("departures"); e[k] += cell("early_eos"); f[k] += cell("early_end") }
        END { for (i = 1; i <= n; i++) { split(order[i], p, SUBSEP); k = order[i]
              printf "| %s | %s | %d | %d | %d |\n", p[1], p[2], d[k], e[k], f[k] } }' "$out/positions.csv"
    echo
    variant_lines | cut -d'|' -f1 | while read -r variant; do echo "![exact match, $variant](exact_$variant.svg)"; done
} >"$out/results.md.new"
write_md "$out/results.md"
[ -s "$out/missing.txt" ] || rm -f "$out/missing.txt"
say "done in $wall s: $out/results.md"
