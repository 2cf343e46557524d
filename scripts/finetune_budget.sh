#!/bin/sh
# How long must a stretched RoPE be fine-tuned? Position interpolation (Chen et al. 2023) fine-
# tunes up to 1000 steps; scripts/extend_context.sh gives every method 40. This script pretrains
# the RoPE language model at a 32-token window, then fine-tunes it at 128 tokens for 40, 200
# and 1000 steps with each stretch (and without one, the control), and compares the methods at
# each budget, paired per seed (one pretrained model per seed is the start of all its
# fine-tunings). Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh

usage() {
    cat <<'EOF'
usage: scripts/finetune_budget.sh [--quick] [--seeds N] [--budgets "LIST"] [--out DIR]

Pretrains configs/lm/rope.ini at a 32-token window (seeds 1..N), fine-tunes each seed's model
at 128 tokens for every budget of LIST with each RoPE stretch (rope_linear_ft, rope_ntk_ft,
rope_yarn_ft) and without one (rope_ft, the control), and scores every model with ./eval on
windows of 32, 128 and 512 tokens. The setting: docs/longer_contexts.md ("The fine-tuning
budget"); the files written into DIR: docs/design.md (4.8). Finished runs and evaluations are
reused, so an interrupted call resumes and a new budget trains only its fine-tunings.

  --quick        a smoke test: tiny models (d_model 16), 30 pretraining steps, budgets "4 8",
                 1 seed (unless --seeds), windows 32 and 128; DIR defaults to
                 results/quick/finetune_budget
  --seeds N      seeds 1..N (default 3)
  --budgets LIST fine-tuning steps (default "40 200 1000")
  --out DIR      output folder (default results/finetune_budget)
EOF
    echo "$FIGURES_USAGE"
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""; budgets=""
while [ $# -gt 0 ]; do
    if [ "$1" = --budgets ]; then
        [ $# -ge 2 ] || die "--budgets needs a list of steps, e.g. \"40 200 1000\""
        budgets=$2; shift 2; continue
    fi
    common_option "$@"
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/finetune_budget}; budgets=${budgets:-"4 8"}
    windows="32 128"; pre_steps=30
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=2000 train.eval_every=30 train.log_every=10"
else
    seeds=${seeds:-3}; out=${out:-results/finetune_budget}; budgets=${budgets:-"40 200 1000"}
    windows="32 128 512"; pre_steps=$(config_value train steps configs/lm/rope.ini)
    extra=""
fi
for b in $budgets; do
    case $b in ''|*[!0-9]*|0) die "--budgets: '$b' is not a positive number of steps" ;; esac
done
# draw_figures: loss at each window against the fine-tuning steps, from results.csv
draw_figures() {   # the fine-tuned models only (budget > 0: a log axis)
    _keep=""; for b in $budgets; do _keep="$_keep --filter budget=$b"; done
    for w in $windows; do
        # shellcheck disable=SC2086 # one --filter budget=B per budget
        plot --x budget --y loss_last --group method --spread --logx --filter window="$w" $_keep \
            --title "loss on the last 32 tokens of $w-token windows, against the fine-tuning steps" \
            --xlabel "fine-tuning steps at $long tokens" -o "$out/loss_last_w$w.svg" "$out/results.csv"
    done
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
begin_experiment finetune_budget.sh train eval plot
command="$command --budgets \"$(echo $budgets)\""

# ft_over STEPS: the fine-tuning recipe for a budget of STEPS (warm-up a tenth, at least 1 step)
ft_over() {
    _w=$(( $1 / 10 )); [ $_w -ge 1 ] || _w=1
    rope_finetune "$1" "$long" "$_w" "$(( $1 < 50 ? 5 : $1 / 10 ))"
}
pretrainings() {
    for seed in $(seq_list "$seeds"); do
        # shellcheck disable=SC2086 # the overrides are separate words
        train_run "$out/runs/pre-s$seed" "$pre_steps" configs/lm/rope.ini run.seed="$seed" $extra
    done
}
finetunings() {
    for seed in $(seq_list "$seeds"); do
        for b in $budgets; do
            for m in $FT_METHODS; do
                # shellcheck disable=SC2046,SC2086
                train_run "$out/runs/$m-n$b-s$seed" "$b" configs/lm/rope.ini run.seed="$seed" $extra \
                    $(ft_over "$b") $(stretch_of "$m") train.init_from="$out/runs/pre-s$seed"
            done
        done
    done
}
t0=$(now)
run_trainings pretrainings "$out"
run_trainings finetunings "$out"
wall_train=$(( $(now) - t0 )); t0=$(now)

# ---- every model on every window: METHOD BUDGET SEED RUN
models() {
    for seed in $(seq_list "$seeds"); do
        echo "pretrained 0 $seed $out/runs/pre-s$seed"
        for b in $budgets; do for m in $FT_METHODS; do echo "$m $b $seed $out/runs/$m-n$b-s$seed"; done; done
    done
}
# (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    echo "method,budget,seed,window,examples,loss,token_acc,loss_last,cpu_seconds" >"$out/results.csv.tmp"
    models | while read -r m b seed run; do
        run_finished "$run" "$([ "$b" = 0 ] && echo "$pre_steps" || echo "$b")" || die "$run is not finished"
        cpu=$(run_cpu_seconds "$run")
        for w in $windows; do
            cached_eval "$run/eval_w$w.csv" "$BIN_DIR/eval" "$run" lengths="$w"
            eval_rows "$run/eval_w$w.csv" val "$w" "$m,$b,$seed" "length examples loss token_acc loss_last" ",$cpu"
        done
    done >>"$out/results.csv.tmp"
    mv "$out/results.csv.tmp" "$out/results.csv"
    models | while read -r m b seed run; do echo "$m,$b,$seed $run/log.csv"; done |
        curves_csv "$out/curves.csv" method,budget,seed
fi

wall_eval=$(( $(now) - t0 ))

[ "$tables" = 1 ] || draw_figures

# compare A B BUDGET WINDOW: a table row "A - B" with its paired 95% interval
compare() {
    _a=$(seed_values "$out/results.csv" loss_last 1 method="$1" budget="$3" window="$4")
    _b=$(seed_values "$out/results.csv" loss_last 1 method="$2" budget="$3" window="$4")
    [ -n "$_a" ] && [ -n "$_b" ] || return 0
    _n=$(echo "$_a" | wc -w)
    if [ "$_n" -lt 2 ]; then
        printf '| %s | %s | %s | %s | | one seed: no interval |\n' "$1" "$2" "$3" "$4"; return 0
    fi
    set -- "$@" $(scripts/verdicts.sh --paired "$_a" "$_b")
    printf '| %s | %s | %s | %s | %+.3f | [%+.3f, %+.3f] |\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}
# each run's CPU seconds once (they are on every row of the run)
cpu_total=$("$BIN_DIR/table" --plain --first-of '{method},{budget},{seed}' --value cpu_seconds:sum:%.0f "$out/results.csv") ||
    die "./table failed"
wall=$(( $(now) - start ))
{
    echo "# How long to fine-tune a stretched RoPE"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation: training $wall_train s, evaluation"
    echo "$wall_eval s; finished runs and evaluations are reused). CPU time of the trainings: $cpu_total s."
    provenance
    echo "The RoPE language model of \`configs/lm/rope.ini\` pretrained $pre_steps steps at a $original-token window"
    echo "(seeds 1..$seeds), then fine-tuned at $long tokens for each budget with the stretch of the method"
    _last=$(echo $budgets | awk '{ print $NF }')
    echo "(s = $factor, L = $original; yarn_alpha 0.5, yarn_beta 4), for $_last steps \`$(ft_over "$_last")\`"
    echo "(the warm-up is a tenth of the steps at every budget). \`pretrained\` (budget 0): the model before fine-tuning, no stretch. Cells: loss"
    echo "on the last 32 tokens of each window (nats; lower is better), mean ± sample standard deviation"
    echo "over the seeds, on at most 256 windows of the held-out text."
    for w in $windows; do
        echo
        echo "## Windows of $w tokens"
        echo
        md_pivot "$out/results.csv" method budget loss_last 1 %.3f window="$w"
    done
    echo
    echo "## Each stretch against plain RoPE fine-tuned alike"
    echo
    echo "A − B in nats (negative: the stretch is better) with its 95% interval, paired per seed:"
    echo "both fine-tunings start from that seed's pretrained model (\`scripts/verdicts.sh --paired\`)."
    echo
    echo "| A | B | steps | window | A − B | 95% interval |"
    echo "| --- | --- | ---: | ---: | ---: | --- |"
    for w in $windows; do
        [ "$w" = "$original" ] && continue
        for b in $budgets; do
            for m in $FT_METHODS; do [ $m = rope_ft ] || compare "$m" rope_ft "$b" "$w"; done
        done
    done
    echo
    for w in $windows; do echo "![loss on the last 32 tokens, $w-token windows](loss_last_w$w.svg)"; done
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
