#!/bin/sh
# RoPE's stretches at the papers' own settings on a language model whose training window is long
# enough for them to differ (docs/longer_contexts.md, "A 128-token window"): RoPE pretrained at
# L tokens, stretched s-fold without training (NTK, dynamic NTK, YaRN with α = 1, β = 32, and PI)
# and with a short fine-tuning at s·L (PI and YaRN fine-tune), all scored on windows of L ... 16·L
# tokens, paired per seed. Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh

# The papers' YaRN ramp (Peng et al. 2024, LLaMA): pairs turning fewer than α times in the
# training window are interpolated, more than β times kept.
YARN_ALPHA=1 YARN_BETA=32

usage() {
    cat <<'EOF'
usage: scripts/stretch_long.sh [--quick] [--seeds N] [--window L] [--factors "S..."]
                               [--ft-steps N] [--out DIR]

Pretrains configs/lm/rope.ini at a window of L tokens (seeds 1..N), stretches RoPE by each
factor S without training (rope_linear_sS, rope_ntk_sS, rope_yarn_sS; rope_dynamic follows the
input length), fine-tunes each seed's model at S·L tokens for the first S with each stretch and
without one (rope_ft, the control), and scores every model with ./eval on windows of L and
S·L tokens for each S (the first 128 windows of each size). YaRN uses the paper's α = 1 and β = 32. The setting and the reading:
docs/longer_contexts.md; the files in DIR: results.csv (method, kind, seed, window),
curves.csv, results.md. Finished runs and evaluations are reused.

  --quick        a smoke test: tiny models (d_model 16), L = 32, 30 pretraining and 4
                 fine-tuning steps, 1 seed (unless --seeds); DIR defaults to
                 results/quick/stretch_long
  --seeds N      seeds 1..N (default 3)
  --window L     the pretraining window (default 128)
  --factors LIST the stretches without training (default "4 8"); the first is fine-tuned
  --ft-steps N   fine-tuning steps, the same for every method (default 200; 8 windows a step)
  --out DIR      output folder (default results/stretch_long)
EOF
    echo "$TABLES_USAGE"; echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; seeds=""; out=""; L=""; factors=""; ft_steps=""
while [ $# -gt 0 ]; do
    case $1 in
        --window|--factors|--ft-steps)
            [ $# -ge 2 ] || die "$1 needs a value"
            case $1 in --window) L=$2 ;; --factors) factors=$2 ;; *) ft_steps=$2 ;; esac
            shift 2; continue ;;
    esac
    common_option "$@"
    [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$used"
done
[ $figures = 0 ] || die "--figures: this script draws no figures (results.md holds its tables)"
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/stretch_long}; L=${L:-32}; ft_steps=${ft_steps:-4}
    pre_steps=30
    extra="model.d_model=16 model.n_heads=2 model.d_ff=32 task.train_size=2000 train.eval_every=30 train.log_every=10"
else
    seeds=${seeds:-3}; out=${out:-results/stretch_long}; L=${L:-128}; ft_steps=${ft_steps:-200}
    pre_steps=$(config_value train steps configs/lm/rope.ini); extra=""
fi
factors=${factors:-"4 8"}
for v in $L $factors $ft_steps; do
    case $v in ''|*[!0-9]*|0|1) die "'$v' is not a whole number above 1 (--window, --factors, --ft-steps)" ;; esac
done
s_ft=${factors%% *}; long=$((s_ft * L))
windows="$L"; for s in $factors; do windows="$windows $((s * L))"; done
# At most CAP windows of each size are scored (the first CAP of the held-out text), for time.
cap=128
# stretch KIND S: the ./train and ./eval overrides that stretch RoPE S-fold from L tokens
stretch() {
    case $1 in
        none) echo "" ;;
        yarn) echo "model.rope_scaling=yarn model.rope_factor=$2 model.rope_original_len=$L model.yarn_alpha=$YARN_ALPHA model.yarn_beta=$YARN_BETA" ;;
        dynamic) echo "model.rope_scaling=dynamic model.rope_original_len=$L" ;;
        *) echo "model.rope_scaling=$1 model.rope_factor=$2 model.rope_original_len=$L" ;;
    esac
}
# The fine-tuning: 8 windows of S·L tokens a step (the pretraining's 32 windows of L for S = 4),
# lr 5e-4, a tenth of the steps warm-up, cosine; evaluated and saved at the end.
ft_over="task.window=$long train.batch_size=$((32 * L / long > 0 ? 32 * L / long : 1)) train.lr=5e-4"
ft_over="$ft_over train.warmup=$((ft_steps / 10 > 0 ? ft_steps / 10 : 1)) train.schedule=cosine"
ft_over="$ft_over train.eval_every=$ft_steps train.ckpt_every=$ft_steps train.log_every=$((ft_steps < 50 ? 1 : 10))"
FT="rope_ft:none rope_linear_ft:linear rope_ntk_ft:ntk rope_yarn_ft:yarn"
begin_experiment stretch_long.sh train eval
command="$command --window $L --factors \"$factors\" --ft-steps $ft_steps"

pretrainings() {
    for seed in $(seq_list "$seeds"); do
        # shellcheck disable=SC2086 # the overrides are separate words
        train_run "$out/runs/pre-s$seed" "$pre_steps" configs/lm/rope.ini run.seed="$seed" \
            task.window="$L" train.eval_lengths="$long" $extra
    done
}
finetunings() {
    for seed in $(seq_list "$seeds"); do
        for mk in $FT; do
            # shellcheck disable=SC2046,SC2086
            train_run "$out/runs/${mk%%:*}-s$seed" "$ft_steps" configs/lm/rope.ini run.seed="$seed" \
                $extra $ft_over $(stretch "${mk#*:}" "$s_ft") train.init_from="$out/runs/pre-s$seed"
        done
    done
}
t0=$(now)
run_trainings pretrainings "$out"
wall_pre=$(( $(now) - t0 )); t0=$(now)
run_trainings finetunings "$out"
wall_ft=$(( $(now) - t0 )); t0=$(now)

# models: METHOD KIND RUN [./eval overrides], RUN without its seed
models() {
    echo "rope pretrained pre"
    echo "rope_dynamic stretched pre $(stretch dynamic 1)"
    for s in $factors; do for k in linear ntk yarn; do
        echo "rope_${k}_s$s stretched pre $(stretch $k "$s")"; done; done
    for mk in $FT; do echo "${mk%%:*} fine-tuned ${mk%%:*}"; done
}
evals_here() {
    models | while read -r method kind name over; do
        echo "$out/runs/$name-s$seed/eval_${method}_w$w.csv $out/runs/$name-s$seed $w $method $kind $seed $over"
    done
}
# every_eval: FILE RUN WINDOW METHOD KIND SEED [overrides] a line, the windows outermost
every_eval() { for w in $windows; do for seed in $(seq_list "$seeds"); do evals_here; done; done; }
evaluations() {
    every_eval >"$out/evals.tmp"
    while read -r file run w method kind seed over; do
        # shellcheck disable=SC2086 # the overrides are separate words
        cached_eval "$file" "$BIN_DIR/eval" "$run" lengths="$w" lm_windows=$cap $over || :
    done <"$out/evals.tmp"; rm -f "$out/evals.tmp"
}
if [ $tables = 0 ]; then
    run_evaluations evaluations
    { echo "method,kind,seed,window,examples,loss,token_acc,loss_last"
      every_eval | while read -r file run w method kind seed over; do
          eval_rows "$file" val "$w" "$method,$kind,$seed" "length examples loss token_acc loss_last"; done
    } >"$out/results.csv.tmp"
    mv "$out/results.csv.tmp" "$out/results.csv"
    { for seed in $(seq_list "$seeds"); do
        echo "pretrained,$seed $out/runs/pre-s$seed/log.csv"
        for mk in $FT; do echo "${mk%%:*},$seed $out/runs/${mk%%:*}-s$seed/log.csv"; done
    done; } | curves_csv "$out/curves.csv" run,seed
fi
wall_eval=$(( $(now) - t0 ))

# compare A B WINDOW: a table row "A − B" with its paired 95% interval (seed by seed)
compare() {
    _a=$(seed_values "$out/results.csv" loss_last 1 method="$1" window="$3")
    _b=$(seed_values "$out/results.csv" loss_last 1 method="$2" window="$3")
    [ -n "$_a" ] && [ -n "$_b" ] || return 0
    if [ "$(echo "$_a" | wc -w)" -lt 2 ]; then printf '| %s | %s | %s | | one seed: no interval |\n' "$1" "$2" "$3"; return 0; fi
    set -- "$@" $(scripts/verdicts.sh --paired "$_a" "$_b")
    printf '| %s | %s | %s | %+.3f | [%+.3f, %+.3f] |\n' "$1" "$2" "$3" "$4" "$5" "$6"
}
# pairs: the comparisons of the papers' claims, A B (A − B < 0: A is better)
pairs() {
    for m in rope_linear_ft rope_ntk_ft rope_yarn_ft; do echo "$m rope_ft"; done
    echo "rope_yarn_ft rope_linear_ft"
    for s in $factors; do echo "rope_ntk_s$s rope_linear_s$s"; echo "rope_yarn_s$s rope_ntk_s$s"; echo "rope_ntk_s$s rope"; done
    echo "rope_dynamic rope"
}
wall=$(( $(now) - start ))
{
    echo "# RoPE stretched at the papers' settings, from a $L-token window"
    echo
    echo "Command: \`$command\` ($wall s wall for this invocation: pretraining $wall_pre s, fine-tuning"
    echo "$wall_ft s, evaluation $wall_eval s; finished runs and evaluations are reused)."
    provenance
    echo "The RoPE language model of \`configs/lm/rope.ini\` pretrained for $pre_steps steps at a $L-token"
    echo "window (seeds 1..$seeds). \`rope_K_sS\`: that model stretched S-fold from L = $L as an ./eval"
    echo "override, not trained (K: linear = PI, ntk, yarn with α = $YARN_ALPHA, β = $YARN_BETA); \`rope_dynamic\`: NTK with"
    echo "s = n/L from the window n. \`*_ft\`: the seed's model fine-tuned for $ft_steps steps at $long tokens"
    echo "(\`$ft_over\`) with the stretch s = $s_ft of the method, \`rope_ft\` without one. Cells: loss on the"
    echo "last 32 tokens of each window (nats; lower is better), mean ± sample standard deviation over"
    echo "the seeds, on the first $cap windows of each size of the 200,000-token held-out text (\`lm_windows=$cap\`)."
    echo
    echo "## Loss on the last 32 tokens"
    echo
    md_pivot "$out/results.csv" method window loss_last 1 %.3f
    echo
    echo "## Loss over the whole window"
    echo
    md_pivot "$out/results.csv" method window loss 1 %.3f
    echo
    echo "## Paired differences"
    echo
    echo "A − B in nats on the last 32 tokens (negative: A is better) with its 95% interval, paired per"
    echo "seed: every arm of a seed starts from that seed's pretrained model (\`scripts/verdicts.sh --paired\`)."
    echo
    echo "| A | B | window | A − B | 95% interval |"
    echo "| --- | --- | ---: | ---: | --- |"
    for w in $windows; do pairs | while read -r a b; do compare "$a" "$b" "$w"; done; done
} >"$out/results.md.new"
write_md "$out/results.md"
say "done in $wall s: $out/results.md"
