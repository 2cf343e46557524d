#!/bin/sh
# Longer contexts for RoPE: every scheme pretrained at 32 tokens, RoPE stretched to 4x that with
# and without fine-tuning at 128, all scored on windows of 32 ... 4096 tokens, once per block
# style (docs/longer_contexts.md). Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh

# Block styles, NAME:overrides (empty: the configs as they are), one a line: every run is trained
# once per style, and the tables and figures have one section per style.
BLOCK_STYLES='default:
llama:model.norm=rmsnorm model.activation=swiglu model.bias=false'

usage() {
    echo 'usage: scripts/extend_context.sh [--quick] [--seeds N] [--blocks "NAMES"] [--out DIR]'
    echo
    echo "Pretrains configs/lm/<scheme>.ini at 32 tokens for every scheme, seed 1..N and block style:"
    echo "$BLOCK_STYLES" | awk -F: '{ printf "  %-14s %s\n", $1, ($2 == "" ? "the configs as they are (LayerNorm, ReLU, biases)" : $2) }'
    cat <<'EOF'
stretches RoPE with and without fine-tuning at 128 tokens, and scores every model with ./eval
on windows of 32 ... 4096 tokens: docs/longer_contexts.md; the files in DIR: docs/design.md
(4.8). Finished runs and evaluations are reused; with --jobs N, N evaluations run at once too.

  --quick        a smoke test: tiny models (d_model 16), 30 pretraining and 4 fine-tuning
                 steps, 1 seed (unless --seeds), windows 32 and 128, the default block only
                 (unless --blocks); DIR defaults to results/quick/extend_context
  --seeds N      seeds 1..N (default 3)
  --blocks NAMES the block styles to run, e.g. "default llama" (default: all; --quick: default)
  --out DIR      output folder (default results/extend_context)
EOF
    echo "$FIGURES_USAGE"; echo "$TABLES_USAGE"; echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""; blocks=""
while [ $# -gt 0 ]; do
    if [ "$1" = --blocks ]; then
        [ $# -ge 2 ] || die "--blocks needs names, e.g. \"default\""
        blocks=$2; shift 2; continue
    fi
    common_option "$@"
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
all_blocks=$(echo "$BLOCK_STYLES" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')
if [ $quick = 1 ]; then blocks=${blocks:-default}; else blocks=${blocks:-$all_blocks}; fi
for b in $blocks; do echo "$BLOCK_STYLES" | grep -q "^$b:" || die "--blocks: no block style '$b' (the script lists: $all_blocks)"; done
# block_overrides NAME: the overrides of block style NAME
block_overrides() { echo "$BLOCK_STYLES" | sed -n "s/^$1://p"; }

# cap_of WINDOW: the ./eval override that limits the windows of that size: at 4096 the first 16
# (65,536 tokens) of the 48 that fit, whose cost is that of all windows 32..2048 together.
cap_4096=16   # the cached evaluations at 4096 were made with it: delete them after changing it
cap_of() { if [ "$1" -ge 4096 ]; then echo "lm_windows=$cap_4096"; fi; }
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/extend_context}
    windows="32 128"; pre_steps=30; ft_steps=4
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=2000 train.eval_every=30 train.log_every=10"
else
    seeds=${seeds:-3}; out=${out:-results/extend_context}
    windows="32 64 128 256 512 1024 2048 4096"
    pre_steps=$(config_value train steps configs/lm/rope.ini); ft_steps=40; extra=""
fi
ft_over=$(rope_finetune "$ft_steps" "$long" 4 5)
# draw_figures: loss on the last 32 tokens against the window (log x), mean and spread over
# seeds, per block: the schemes as pretrained, then the RoPE stretches (from results.csv)
draw_figures() {
    for block in $blocks; do for kind in scheme rope; do
        f=${block}_loss_last t="$block block: the schemes as pretrained"
        [ $kind = scheme ] || f=${block}_rope_loss_last t="$block block: RoPE stretched, without and with fine-tuning at $long"
        plot --x window --y loss_last --group method --spread --logx --vline "$original" --vline-label "pretraining window" \
            --filter block="$block" --filter kind=$kind --title "$t" -o "$out/$f.svg" "$out/results.csv"
    done; done
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
begin_experiment extend_context.sh train eval plot
command="$command --blocks \"$(echo $blocks)\""

# ---- 1. pretrain every scheme at 32 tokens; 2. fine-tune the rope models at 128
# for_runs COMMAND...: COMMAND once per block style and seed ($block and $seed set)
for_runs() { for block in $blocks; do for seed in $(seq_list "$seeds"); do "$@"; done; done; }
pretrain() {
    for scheme in $SCHEMES; do
        # shellcheck disable=SC2046,SC2086 # the overrides are separate words
        train_run "$out/runs/$block-pre-$scheme-s$seed" "$pre_steps" "configs/lm/$scheme.ini" \
            run.seed="$seed" $extra $(block_overrides "$block")
    done
}
finetune() {
    for method in $FT_METHODS; do
        # shellcheck disable=SC2046,SC2086
        train_run "$out/runs/$block-$method-s$seed" "$ft_steps" configs/lm/rope.ini \
            run.seed="$seed" $extra $(block_overrides "$block") $ft_over $(stretch_of "$method") \
            train.init_from="$out/runs/$block-pre-rope-s$seed"
    done
}
pretrainings() { for_runs pretrain; }; finetunings() { for_runs finetune; }
t_phase=$(now)
run_trainings pretrainings "$out"
wall_pre=$(( $(now) - t_phase )); t_phase=$(now)
run_trainings finetunings "$out"
wall_ft=$(( $(now) - t_phase )); t_phase=$(now)

# ---- 3. evaluate every model (METHOD KIND RUN [overrides]; RUN: the name without block and seed)
models() {
    for scheme in $SCHEMES; do echo "$scheme scheme pre-$scheme"; done
    for method in rope_dynamic rope_linear rope_ntk rope_yarn; do echo "$method rope pre-rope $(stretch_of "$method")"; done
    for method in $FT_METHODS; do echo "$method rope $method"; done
}
# every_eval: one line per evaluation, FILE RUN WINDOW BLOCK METHOD SEED [overrides], the windows
# outermost (so the evaluations running at once take about as long as each other)
evals_here() {
    models | while read -r method kind name over; do
        run=$out/runs/$block-$name-s$seed
        echo "$run/eval_${method}_w$w.csv $run $w $block $method $seed $over"
    done
}
every_eval() { for w in $windows; do for_runs evals_here; done; }
# Every evaluation, up to $run_jobs at once (run_evaluations); a failed one stops the script. A
# window the scheme refuses (xPos: past 80·γ/ln(1/ζ_0) tokens, 2043 at γ = 32, its keys would be
# scaled beyond float32's range) is listed under the tables (refused.csv: ./eval's message,
# commas and all), not a failed run.
evaluations() {
    every_eval >"$out/evals.tmp"
    while read -r file run w block method seed over; do
        [ -n "$EVAL_PLAN" ] || eval_is_fresh "$file" || say "eval   $file"
        # shellcheck disable=SC2046,SC2086 # the overrides are separate words
        cached_eval --refused "beyond float32's safe" "$file" "$BIN_DIR/eval" "$run" lengths="$w" $(cap_of "$w") $over || :
    done <"$out/evals.tmp"; rm -f "$out/evals.tmp"
}
# gather: this block and seed's rows of results.csv (models, then windows)
gather() {
    models | while read -r method kind name over; do
        for w in $windows; do
            eval_rows "$out/runs/$block-$name-s$seed/eval_${method}_w$w.csv" val "$w" \
                "$block,$method,$kind,$seed" "length examples loss token_acc loss_last"
        done
    done
}
# logs_here: this block and seed's training logs, for curves.csv
logs_here() {
    for name in $(models | awk '!seen[$3]++ { print $3 }'); do echo "$block,$name,$seed $out/runs/$block-$name-s$seed/log.csv"; done
}
# (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    run_evaluations evaluations
    { echo "block,method,kind,seed,window,examples,loss,token_acc,loss_last"; for_runs gather; } >"$out/results.csv.tmp"
    mv "$out/results.csv.tmp" "$out/results.csv"
    { echo "block,method,window,seed,message"; every_eval | while read -r file run w block method seed over; do
        sed -n "s|^# refused: |$block,$method,$w,$seed,|p" "$file"; done; } >"$out/refused.csv"
    for_runs logs_here | curves_csv "$out/curves.csv" block,run,seed
fi

wall_eval=$(( $(now) - t_phase ))

[ "$tables" = 1 ] || draw_figures

# ---- results.md
[ -f "$out/refused.csv" ] || die "no $out/refused.csv: its runs were made before the script wrote one; run without --tables"
# refusals BLOCK: the evaluations of BLOCK that the scheme refused (refused.csv), one Markdown
# item each (METHOD at WINDOW, the seeds, ./eval's message)
refusals() {   # the seeds counted by ./table on the columns before the message (it has commas)
    cut -d, -f1-4 "$out/refused.csv" | "$BIN_DIR/table" --plain --rows method --rows window --value seed:count:%d \
        --filter block="$1" /dev/stdin | while IFS=, read -r _m _w _n; do
        echo "- \`$_m\` at $_w ($_n seeds): $(grep "^$1,$_m,$_w," "$out/refused.csv" | tail -n 1 | cut -d, -f5-)"; done
}
# table TITLE METRIC: METRIC by method (rows) and window (columns) for $block, under TITLE
table() { echo; echo "$1"; echo; md_pivot "$out/results.csv" method window "$2" 1 %.3f block="$block"; }
wall=$(( $(now) - start ))
{
    echo "# Longer contexts: stretching RoPE, with and without fine-tuning"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation: pretraining $wall_pre s, fine-tuning"
    echo "$wall_ft s, evaluation $wall_eval s; finished runs and evaluations are reused)."
    provenance
    echo "Language models pretrained for $pre_steps steps at a 32-token window (configs/lm/<scheme>.ini,"
    echo "one line changed per scheme: model.pos). \`*_ft\`: the seed's rope model fine-tuned for $ft_steps"
    echo "steps at a $long-token window (\`$ft_over\`) with the stretch of the method (s = $factor,"
    echo "L = $original; yarn_alpha 0.5, yarn_beta 4); the other rope_* rows are the pretrained rope model"
    echo "with the stretch as an ./eval override, not fine-tuned. Cells: mean ± sample standard"
    echo "deviation over seeds 1..$seeds; windows of the held-out text (at most 256 per window size; the"
    echo "200,000 tokens give 195 windows at 1024, 97 at 2048; at 4096 the first $cap_4096 of the 48 that"
    echo "fit, \`./eval lm_windows=$cap_4096\`, for time: the 4096 column rests on $((cap_4096 * 4096)) tokens a model, its"
    echo "loss on the last 32 tokens on $((cap_4096 * 32)))."
    for block in $blocks; do
        echo
        echo "## Block style \`$block\`$(o=$(block_overrides "$block"); [ -n "$o" ] && echo " ($o)")"
        table "Loss on the last 32 tokens of each window:" loss_last
        table "Loss over the whole window:" loss
        r=$(refusals "$block")
        if [ -n "$r" ]; then echo; echo "Empty cells: ./eval refused these windows (the scheme's own length limit):"; echo; echo "$r"; fi
        echo
        echo "![$block: loss on the last 32 tokens against the window](${block}_loss_last.svg)"
        echo "![$block: the RoPE methods](${block}_rope_loss_last.svg)"
    done
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
