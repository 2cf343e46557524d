#!/bin/sh
# Longer contexts for RoPE: pretrain the language model at a 32-token window, then
# stretch RoPE to 4x that window with each method of docs/design.md §2.3.5, fine-tuned briefly
# at 128 tokens (linear = position interpolation, ntk, yarn; and plain RoPE as a control) or not
# at all (dynamic NTK, and every method as an evaluation override), beside the other schemes
# trained at 32 only; all of it once per block style (the configs' block and a Llama-style one).
# Every model is scored on windows of 32 … 4096 tokens: loss overall and on the last 32 tokens.
# Writes CSV, Markdown and SVG into the output folder. Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

# Block styles: NAME:overrides (words; empty = the configs as they are), one a line. Every run is
# trained once per style, and the tables and figures have one section per style. To compare
# the Llama-style block (RMSNorm, SwiGLU, no biases) is the second line.
BLOCK_STYLES='default:
llama:model.norm=rmsnorm model.activation=swiglu model.bias=false'

usage() {
    cat <<'EOF'
usage: scripts/extend_context.sh [--quick] [--seeds N] [--blocks "NAMES"] [--out DIR]

Pretrains configs/lm/<scheme>.ini (task lm, 32-token windows) with model.pos = each scheme of
`./train --list-schemes` and seeds 1..N, once per block style:
  default        the configs as they are (LayerNorm, ReLU, biases)
  llama          model.norm=rmsnorm model.activation=swiglu model.bias=false
Then, from each seed's rope model, fine-tunes with the
same budget (40 steps of 16 windows of 128 tokens: 6.7% of the 600 pretraining steps, 13% of
its tokens; lr 5e-4, 4 warm-up steps, cosine) each of
  rope_ft          plain RoPE (no stretch), the control
  rope_linear_ft   rope_scaling=linear (position interpolation), s = 4
  rope_ntk_ft      rope_scaling=ntk, s = 4
  rope_yarn_ft     rope_scaling=yarn, s = 4, yarn_alpha=0.5, yarn_beta=4
(rope_original_len = 32), and evaluates the pretrained rope model without fine-tuning as
rope_dynamic (dynamic NTK) and rope_linear / rope_ntk / rope_yarn (the same stretches as
./eval overrides). Every model is scored by ./eval on windows of 32, 64, …, 4096 tokens (at
most 256 windows of the 200,000-token held-out text each: 195 at 1024, 97 at 2048; at 4096
only the first 16 of the 48 that fit, ./eval lm_windows=16, to keep the 102 evaluations at
4096 within an evening on 2 shared cores). Writes into DIR:
  results.csv    block,method,kind,seed,window,examples,loss,token_acc,loss_last
                 (kind: scheme = trained at 32 only, as configs/lm has it; rope = a RoPE stretch)
  curves.csv     every run's log.csv, with block, run and seed columns in front
  refused.csv    block,method,window,seed,message: the windows a scheme refused (./eval's
                 message; empty cells of the tables)
  results.md     loss on the last 32 tokens and over the window, by window (mean ± sample sd
                 over seeds), the command, the wall times
  <block>_loss_last.svg        loss on the last 32 tokens against the window, the schemes
  <block>_rope_loss_last.svg   the same for the RoPE methods only
Finished runs (DIR/runs/) and evaluations (one file per model and window size,
runs/RUN/eval_METHOD_wWINDOW.csv) are reused, so an interrupted run can be restarted and a
new window size evaluates only that size. With --jobs N, up to N evaluations run at once too.

  --quick        a smoke test: tiny models (d_model 16), 30 pretraining and 4 fine-tuning
                 steps, 1 seed (unless --seeds), windows 32 and 128, the default block only
                 (unless --blocks); DIR defaults to results/quick/extend_context
  --seeds N      seeds 1..N (default 3)
  --blocks NAMES the block styles to run, e.g. "default llama" (default: all; --quick: default)
  --out DIR      output folder (default results/extend_context)
EOF
    echo "$FIGURES_USAGE"
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
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
for b in $blocks; do
    echo "$BLOCK_STYLES" | grep -q "^$b:" || die "--blocks: no block style '$b' (the script lists: $all_blocks)"
done
# block_overrides NAME: the overrides of block style NAME
block_overrides() { echo "$BLOCK_STYLES" | sed -n "s/^$1://p"; }

factor=4; original=32; long=128
# At 4096 tokens, the first 16 windows (65,536 tokens) instead of the 48 that fit: one model's
# 48 windows cost about as much CPU as all its windows 32..2048 together.
cap_4096=16   # the cached evaluations at 4096 were made with it: delete them after changing it
# cap_of WINDOW: the ./eval override that limits the windows of that size (none below 4096)
cap_of() { if [ "$1" -ge 4096 ]; then echo "lm_windows=$cap_4096"; fi; }
stretch_linear=$(rope_stretch linear $factor $original)
stretch_ntk=$(rope_stretch ntk $factor $original)
stretch_yarn=$(rope_stretch yarn $factor $original)
stretch_dynamic=$(rope_stretch dynamic $factor $original)
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/extend_context}
    windows="32 128"; pre_steps=30; ft_steps=4
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=2000 train.eval_every=30 train.log_every=10"
else
    seeds=${seeds:-3}; out=${out:-results/extend_context}
    windows="32 64 128 256 512 1024 2048 4096"; pre_steps=$(config_value train steps configs/lm/rope.ini); ft_steps=40
    extra=""
fi
ft_over=$(rope_finetune "$ft_steps" "$long" 4 5)
# draw_figures: loss on the last 32 tokens against the window (log x), mean and spread over
# seeds, per block: the schemes as pretrained, then the RoPE stretches (from results.csv)
draw_figures() {
    for block in $blocks; do
        plot --x window --y loss_last --group method --spread --logx --vline "$original" \
            --vline-label "pretraining window" --filter block="$block" --filter kind=scheme \
            --title "$block block: the schemes as pretrained" -o "$out/${block}_loss_last.svg" "$out/results.csv"
        plot --x window --y loss_last --group method --spread --logx --vline "$original" \
            --vline-label "pretraining window" --filter block="$block" --filter kind=rope \
            --title "$block block: RoPE stretched, without and with fine-tuning at $long" \
            -o "$out/${block}_rope_loss_last.svg" "$out/results.csv"
    done
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
begin_experiment extend_context.sh train eval plot
command="$command --blocks \"$(echo $blocks)\""

# ---- 1. pretrain every scheme at 32 tokens; 2. fine-tune the rope models at 128
pretrainings() {
    for block in $blocks; do
        for seed in $(seq_list "$seeds"); do
            for scheme in $SCHEMES; do
                # shellcheck disable=SC2046,SC2086 # the overrides are separate words
                train_run "$out/runs/$block-pre-$scheme-s$seed" "$pre_steps" "configs/lm/$scheme.ini" \
                    run.seed="$seed" $extra $(block_overrides "$block")
            done
        done
    done
}
FT_METHODS="rope_ft rope_linear_ft rope_ntk_ft rope_yarn_ft"
# stretch_of METHOD: the overrides that stretch RoPE for METHOD (empty for plain RoPE)
stretch_of() {
    case $1 in
        rope|rope_ft) echo "" ;;
        rope_linear*) echo "$stretch_linear" ;;
        rope_ntk*) echo "$stretch_ntk" ;;
        rope_yarn*) echo "$stretch_yarn" ;;
        rope_dynamic) echo "$stretch_dynamic" ;;
    esac
}
finetunings() {
    for block in $blocks; do
        for seed in $(seq_list "$seeds"); do
            for method in $FT_METHODS; do
                # shellcheck disable=SC2046,SC2086
                train_run "$out/runs/$block-$method-s$seed" "$ft_steps" configs/lm/rope.ini \
                    run.seed="$seed" $extra $(block_overrides "$block") $ft_over $(stretch_of "$method") \
                    train.init_from="$out/runs/$block-pre-rope-s$seed"
            done
        done
    done
}
t_phase=$(now)
run_trainings pretrainings "$out"
wall_pre=$(( $(now) - t_phase )); t_phase=$(now)
run_trainings finetunings "$out"
wall_ft=$(( $(now) - t_phase )); t_phase=$(now)

# ---- 3. evaluate every model on every window
# The evaluated models: METHOD KIND RUN [overrides]; RUN is the run's name without block and seed.
models() {
    for scheme in $SCHEMES; do echo "$scheme scheme pre-$scheme"; done
    for method in rope_dynamic rope_linear rope_ntk rope_yarn; do echo "$method rope pre-rope $(stretch_of "$method")"; done
    for method in $FT_METHODS; do echo "$method rope $method"; done
}
# every_eval: one line per evaluation, FILE RUN WINDOW [overrides], the windows outermost (so
# the evaluations running at once take about as long as each other)
every_eval() {
    for w in $windows; do
        for block in $blocks; do
            for seed in $(seq_list "$seeds"); do
                models | while read -r method kind name over; do
                    run=$out/runs/$block-$name-s$seed
                    echo "$run/eval_${method}_w$w.csv $run $w $over"
                done
            done
        done
    done
}
# refused_rows: block,method,window,seed,message of every evaluation the scheme refused (the
# message, ./eval's, may hold commas: it is the rest of the line), in every_eval's order
refused_rows() {
    echo "block,method,window,seed,message"
    every_eval | while read -r file run w over; do
        r=$(basename "$run"); m=$(basename "$file" .csv | sed 's/^eval_//; s/_w[0-9]*$//')
        sed -n "s|^# refused: |${r%%-*},$m,$w,${r##*-s},|p" "$file"
    done
}
# refusals BLOCK: the evaluations of BLOCK that the scheme refused (refused.csv), one Markdown
# item each (METHOD at WINDOW, the seeds, ./eval's message)
refusals() {
    awk -v b="$1" 'NR > 1 { split($0, f, ","); if (f[1] != b) next
            k = f[2] " " f[3]; m = $0; for (i = 1; i <= 4; i++) sub(/^[^,]*,/, "", m)
            n[k]++; msg[k] = m; if (!(k in seen)) { seen[k] = 1; order[++c] = k } }
        END { for (i = 1; i <= c; i++) { split(order[i], a, " "); printf "- `%s` at %s (%d seeds): %s\n", a[1], a[2], n[order[i]], msg[order[i]] } }' "$out/refused.csv"
}
# Up to $run_jobs evaluations at once (each on the run's run.threads); a failed one prints its
# error and leaves its file missing, which stops the script below.
# (with --tables: the CSVs as they are)
if [ $tables = 0 ]; then
    every_eval | {
        n=0
        while read -r file run w over; do
            [ -s "$file" ] && continue
            say "eval   $file"
            # shellcheck disable=SC2086 # the overrides are separate words
            # A window the scheme refuses (xPos: past 80·γ/ln(1/ζ_0) tokens, 2043 at γ = 32, its keys
            # would be scaled beyond float32's range) is listed under the tables, not a failed run.
            (cached_eval --refused "beyond float32's safe" "$file" "$BIN_DIR/eval" "$run" lengths="$w" $(cap_of "$w") $over) &
            n=$((n + 1))
            if [ "$n" -ge "$run_jobs" ]; then wait; n=0; fi
        done
        wait
    }
    missing=$(every_eval | while read -r file rest; do [ -s "$file" ] || echo "$file"; done)
    [ -z "$missing" ] || die "evaluations failed (see the .err files):
    $missing"
    echo "block,method,kind,seed,window,examples,loss,token_acc,loss_last" >"$out/results.csv.tmp"
    : >"$out/curves.body"
    for block in $blocks; do
        for seed in $(seq_list "$seeds"); do
            models | while read -r method kind name over; do
                for w in $windows; do
                    awk -F, -v p="$block,$method,$kind,$seed" -v w="$w" "$CSV_COLUMNS"'row &&
                        cell("split") == "val" && cell("length") + 0 == w + 0 {
                        print p "," cells("length examples loss token_acc loss_last") }' \
                        "$out/runs/$block-$name-s$seed/eval_${method}_w$w.csv" >>"$out/results.csv.tmp"
                done
            done
            for method in $SCHEMES $FT_METHODS; do
                name=$method; case $method in rope_*) ;; *) name=pre-$method ;; esac
                prefix_csv "$block,$name,$seed" "$out/runs/$block-$name-s$seed/log.csv" >>"$out/curves.body"
            done
        done
    done
    mv "$out/results.csv.tmp" "$out/results.csv"
    refused_rows >"$out/refused.csv"
    first=$(echo $blocks | cut -d' ' -f1)
    { echo "block,run,seed,$(grep -v '^#' "$out/runs/$first-pre-rope-s1/log.csv" | head -n 1)"; cat "$out/curves.body"; } >"$out/curves.csv"
    rm -f "$out/curves.body"
fi

wall_eval=$(( $(now) - t_phase ))

[ "$tables" = 1 ] || draw_figures

# ---- results.md
[ -f "$out/refused.csv" ] || die "no $out/refused.csv: its runs were made before the script wrote one; run without --tables"
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
