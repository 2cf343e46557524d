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
# only_tasks ALL: the tasks of ALL that --tasks names (all of them without it)
only_tasks() {
    [ -n "$tasks" ] || { echo "$1"; return; }
    _kept=""
    for _t in $1; do case " $tasks " in *" $_t "*) _kept="$_kept${_kept:+ }$_t" ;; esac; done
    echo "$_kept"
}
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
# --converge: the stop rule for every training, and the columns it adds to the results
until_over=""; converge_cols=""
if [ $converge = 1 ]; then until_over=$CONVERGE_UNTIL; converge_cols=",converged,cpu_seconds"; fi
# converge_cells RUN EVAL_CSV: ",CONVERGED,CPU_SECONDS" of RUN with --converge, else nothing
converge_cells() {
    [ $converge = 1 ] || return 0
    printf ',%s,%s' "$(awk -F, "$CSV_COLUMNS"'row { print cell("converged"); exit }' "$2")" "$(run_cpu_seconds "$1")"
}
# ---- variants: a run-folder suffix, the overrides that make the variant, and its schemes
variant_suffix() { [ "$1" = plain ] || echo "-$1"; }
variant_overrides() {
    case $1 in
        plain) ;;
        random) echo "model.pos_random=2048 model.max_len=2048" ;;   # the learned table covers every drawn position
        *) die "unknown variant '$1' (plain, random)" ;;
    esac
}
# Randomizing no positions (none, lstm) changes nothing: the plain run already is that one.
variant_schemes() {
    if [ "$1" = plain ]; then echo "$TR_SCHEMES"; else with_positions "$TR_SCHEMES"; fi
}
# with_positions LIST: the rows of LIST that have positions to randomize (not none, not lstm)
with_positions() { echo "$1" | tr ' ' '\n' | grep -vx 'none\|lstm' | tr '\n' ' '; }
# scheme_overrides SCHEME: the training overrides that make a row: a positional scheme of the
# Transformer, or lstm, the recurrent translator sized to the Transformer's parameter count.
LSTM_OVERRIDES="model.model=lstm model.pos=none model.bidirectional=true model.d_model=56"
scheme_overrides() {
    case $1 in
        lstm) echo "$LSTM_OVERRIDES" ;;
        *) case " $SCHEMES " in *" $1 "*) echo "model.pos=$1" ;; *) die "unknown scheme '$1' (lstm or one of: $SCHEMES)" ;; esac ;;
    esac
}
for variant in $variants; do variant_overrides "$variant" >/dev/null; done
for scheme in $TR_SCHEMES; do scheme_overrides "$scheme" >/dev/null; done
if [ $figures = 1 ]; then command=""; else begin_experiment lengthgen.sh train eval plot table; fi
command="$command --variants '$variants'$(if [ -n "$tasks" ]; then echo " --tasks '$tasks'"; fi)$(if [ "$TR_SCHEMES" != "$SCHEMES lstm" ]; then echo " --schemes '$TR_SCHEMES'"; fi)$(if [ "$part" != all ]; then echo " --part $part"; fi)$(if [ $converge = 1 ]; then echo " --converge"; fi)$(if [ -n "$ceiling" ]; then echo " --ceiling $ceiling"; fi)"

# ---- the decoder-only part (Kazemnejad et al. 2023): functions, called at the end (or alone
# with --part decoder). Tasks, variants and the paper's ranking are data; each function does one
# step: train, evaluate and collect, plot, report.
LM_TASKS=$(only_tasks "copy reverse duplicate")
# The variants, one a line: name|train overrides|eval overrides. A variant without train
# overrides evaluates the plain runs (DIR/runs/lm-<task>-<scheme>-s<seed>); one with them
# trains runs of its own (DIR/runs/lm-<task>-<scheme>-<name>-s<seed>).
LM_VARIANTS=""
case " $variants " in *" plain "*) LM_VARIANTS="plain||
logscale||attn_logit_scale=log" ;; esac
case " $variants " in *" random "*) LM_VARIANTS="${LM_VARIANTS:+$LM_VARIANTS
}random|$(variant_overrides random)|" ;; esac

# lm_field LINE N: field N of a variant line.
lm_field() { echo "$1" | cut -d'|' -f"$2"; }

# lm_schemes VARIANT_LINE: the schemes the variant has (none has no positions to randomize).
lm_schemes() {
    if [ "$(lm_field "$1" 1)" = random ]; then with_positions "$SCHEMES"; else echo "$SCHEMES"; fi
}

# lm_run TASK SCHEME SEED VARIANT_LINE: the run folder the variant evaluates.
lm_run() {
    if [ -z "$(lm_field "$4" 2)" ]; then echo "$out/runs/lm-$1-$2-s$3"
    else echo "$out/runs/lm-$1-$2-$(lm_field "$4" 1)-s$3"; fi
}

# Kazemnejad et al.'s mean reciprocal ranks (their Figure 1 / §4), by our scheme names: their
# absolute scheme is sinusoidal; they had no learned table. Empty: not in the paper.
lm_paper_mrr() {
    case "$1" in
        none) echo 0.69 ;;
        t5) echo 0.55 ;;
        alibi) echo 0.50 ;;
        rope) echo 0.33 ;;
        sinusoidal) echo 0.22 ;;
        *) echo "" ;;
    esac
}

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
# variant_csv: results.csv with a variant column taken from the rows' names ("rope + random
# (plain)": random (plain); "rope + random": random; else plain).
variant_csv() {
    awk -F, "$CSV_COLUMNS"'head { print $0 ",variant" }
        row { v = "plain"; if (cell("scheme") ~ / \+ random \(plain\)$/) v = "random (plain)"
              else if (cell("scheme") ~ / \+ random$/) v = "random"; print $0 "," v }' "$out/results.csv"
}
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
if [ $figures = 1 ]; then
    need_tools plot
    if [ "$part" != decoder ] && [ -f "$out/results.csv" ]; then tr_plots; fi
    if [ "$part" != translator ] && [ -f "$out/lm_results.csv" ]; then
        lm_train_max=$(config_value task max_length configs/algorithmic/lm_copy.ini); lm_plots
    fi
    exit 0
fi

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
                line="$line $(awk -F, -v v="$name" -v s="$scheme" "$CSV_COLUMNS"'row && cell("variant") == v &&
                    cell("scheme") == s { print cell("mrr") }' "$out/lm_mrr.csv") |"
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
# ---- train every task, scheme and seed (here, --jobs N at once, or on Slurm), then evaluate
steps_of() {
    if [ $quick = 1 ]; then _s=30; else _s=$(config_value train steps "configs/algorithmic/$1.ini"); fi
    if [ $converge = 1 ]; then echo $((_s * CONVERGE_FACTOR)); else echo "$_s"; fi
}
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

# ---- results.md
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
say "done in $wall s: $out/results.md"
[ "$part" = translator ] || decoder_part
