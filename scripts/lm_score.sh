#!/bin/sh
# Where does a positional scheme stop working? Train (or reuse) the toy language model for every
# scheme at its training window (configs/lm/<scheme>.ini), score long held-out texts with
# `./generate --score` (the loss at each position, read through the model's key/value cache),
# and write the loss against position: CSV, an SVG plot and results.md, plus greedy samples
# that run far past the window.
# Run from the top level after `make`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF2'
usage: scripts/lm_score.sh [--quick] [--out DIR] [--length N] [--texts K] [--bin W]
                           [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]]

Trains configs/lm/<scheme>.ini (seed 1) for every scheme (./train --list-schemes), then scores
K held-out texts of N + 1 tokens each (the task's own validation text, the one ./eval scores,
from tokens 0, N + 1, 2(N + 1), ...) with ./generate --score, and writes into DIR:
  scores.csv    scheme,text,position,loss: every position of every text
  loss.csv      scheme,position,from,to,loss,tokens: the mean loss over windows of W
                positions [from, to] (position = the window's middle), all texts together
  loss.svg      loss against position, the training window marked
  samples.md    100 greedy tokens after "the dog" from each model
  results.md    the mean loss per band of positions, per scheme; the plot; the command
The rope model is scored again with rope_scale=4 (rope_pi4, position interpolation) and with
rope_base=40000 (rope_base40k), without retraining. Finished runs (DIR/runs/<scheme>) and
scores are reused, so an interrupted run can simply be restarted.

  --quick       a smoke test: tiny models, 20 steps, 2 texts of 256 tokens;
                DIR defaults to results/quick/lm_score
  --out DIR     output folder (default results/lm_score)
  --length N    positions scored per text (default 1024)
  --texts K     texts per scheme (default 8)
  --bin W       positions per window of loss.csv (default 16)
EOF2
    echo "$FIGURES_USAGE"
    echo "$TABLES_USAGE"
    echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level)."
}

quick=0; out=""; length=""; texts=""; bin=""
positive() { case "$2" in ''|*[!0-9]*|0) die "$1 wants a positive number, not '$2'" ;; esac; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --figures) figures=1 ;;
        --tables) tables=1 ;;
        --out)    [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift ;;
        --length) [ $# -ge 2 ] || die "--length needs a number"; positive --length "$2"; length=$2; shift ;;
        --texts)  [ $# -ge 2 ] || die "--texts needs a number"; positive --texts "$2"; texts=$2; shift ;;
        --bin)    [ $# -ge 2 ] || die "--bin needs a number"; positive --bin "$2"; bin=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) run_option "$@" || { usage >&2; die "unknown argument '$1'"; }; shift $run_shift ;;
    esac
    shift
done
[ $figures = 1 ] || need_tools train generate plot

if [ $quick = 1 ]; then
    out=${out:-results/quick/lm_score}; length=${length:-256}; texts=${texts:-2}; bin=${bin:-16}
    steps=20
    over="model.d_model=32 model.d_ff=64 train.batch_size=8 task.train_size=400 train.eval_every=10 train.warmup=5 train.log_every=5 train.eval_lengths=64"
else
    out=${out:-results/lm_score}; length=${length:-1024}; texts=${texts:-8}; bin=${bin:-16}
    steps=$(config_value train steps configs/lm/rope.ini); over=""
fi
window=$(config_value task window configs/lm/rope.ini)
[ "$length" -gt "$window" ] || die "--length $length is not beyond the training window ($window)"
# draw_figures: the loss against position, from loss.csv
draw_figures() {
    rm -f "$out"/*.svg
    plot --x position --y loss --group scheme --logx --logy --vline "$window" --vline-label "training window" \
        --title "Language model: loss at each position of a long held-out text" \
        --xlabel "position in the text (log scale; trained on $window-token windows)" \
        --ylabel "loss (mean over $bin positions x $texts texts)" -o "$out/loss.svg" "$out/loss.csv"
}
if [ $figures = 1 ]; then need_tools plot; draw_figures; exit 0; fi
# results.md's bands of positions start at multiples of the window: each is whole windows of loss.csv
[ $((window % bin)) = 0 ] || die "--bin $bin does not divide the training window ($window)"
[ $tables = 1 ] || mkdir -p "$out/runs"
start=$(now)
command="scripts/lm_score.sh$(if [ $quick = 1 ]; then echo ' --quick'; fi) --length $length --texts $texts --bin $bin"

trainings() {
    for scheme in $SCHEMES; do
        # shellcheck disable=SC2086
        train_run "$out/runs/$scheme" "$steps" "configs/lm/$scheme.ini" run.seed=1 $over
    done
}
run_trainings trainings "$out"
say "training: $(( $(now) - start )) s"

# The series: every scheme as trained, and the rope model with two stretches.
series() {
    for scheme in $SCHEMES; do echo "$scheme:$scheme:"; done
    echo "rope_pi4:rope:rope_scale=4"
    echo "rope_base40k:rope:rope_base=40000"
}

# (with --tables: loss.csv as it is, no scores.csv needed)
if [ $tables = 0 ]; then
    t_score=$(now)
    : >"$out/scores.body"
    for s in $(series); do
        name=${s%%:*}; rest=${s#*:}; run=$out/runs/${rest%%:*}; extra=${rest#*:}
        k=0
        while [ $k -lt "$texts" ]; do
            # shellcheck disable=SC2086
            cached_eval "$run/score_${name}_$k.csv" "$BIN_DIR/generate" "$run" --score \
                --text-from-task $((length + 1)) --offset $((k * (length + 1))) $extra
            # the loss is the last field: a token may be a comma, which splits the row further
            awk -F, -v p="$name,$k" "$CSV_COLUMNS"'row { print p "," cell("position") "," $NF }' \
                "$run/score_${name}_$k.csv" >>"$out/scores.body"
            k=$((k + 1))
        done
    done
    { echo "scheme,text,position,loss"; cat "$out/scores.body"; } >"$out/scores.csv"
    rm -f "$out/scores.body"
    say "scoring: $(( $(now) - t_score )) s"

    # Mean loss per window of $bin positions, each scheme in its order of appearance.
    "$BIN_DIR/table" --csv --rows scheme --rows "position={position//$bin+0.5*$bin-0.5}" \
        --value "from=position//$bin*$bin:min:%d" --value "to=position//$bin*$bin+$bin-1:min:%d" \
        --value loss:mean:%.6f --value tokens=loss:count:%d "$out/scores.csv" >"$out/loss.csv"
fi

[ "$tables" = 1 ] || draw_figures

# (with --tables: samples.md as it is)
if [ $tables = 0 ]; then
    # Greedy samples, 100 tokens after "the dog": past the window for every scheme.
    {
        echo "# Greedy samples (\`./generate RUN --prompt \"the dog\" --tokens 100 --temperature 0\`)"
        for s in $(series); do
            name=${s%%:*}; rest=${s#*:}; extra=${rest#*:}
            echo
            echo "**$name**$([ -n "$extra" ] && echo " ($extra)"):"
            echo
            # shellcheck disable=SC2086
            echo "> $("$BIN_DIR/generate" "$out/runs/${rest%%:*}" --prompt "the dog" --tokens 100 --temperature 0 $extra)"
        done
    } >"$out/samples.md"
fi

# Bands of positions: inside the window, then doubling: [0, W), [W, 2W), [2W, 4W), ...
bands=""; lo=0; hi=$window
while [ $lo -lt "$length" ]; do
    [ $hi -gt "$length" ] && hi=$length
    bands="$bands $lo:$((hi - 1))"; lo=$hi; hi=$((hi * 2))
done
wall=$(( $(now) - start ))
{
    echo "## Language model: loss against position, beyond the training window"
    echo
    echo "Command: \`$command\` (configs/lm/<scheme>.ini, seed 1, $steps steps$([ $quick = 1 ] && echo '; quick mode: tiny models, not meaningful'));"
    echo "wall time ${wall} s on this machine (finished runs and scores are reused, so a rerun is faster)."
    provenance
    echo "Each model read $texts held-out texts of $((length + 1)) tokens through its key/value cache"
    echo "(\`./generate --score\`); a cell is the mean loss (nats per token) over the positions of the band in all"
    echo "texts. The training window is positions 0..$((window - 1)). rope_pi4 / rope_base40k: the rope model with"
    echo "\`rope_scale=4\` / \`rope_base=40000\`, not retrained."
    echo
    printf '| scheme |'; for b in $bands; do printf ' %s–%s |' "${b%%:*}" "${b#*:}"; done; echo
    printf '|---|'; for b in $bands; do printf -- '---:|'; done; echo
    # per scheme (loss.csv's order) and band: the mean over the band's positions, each window of
    # loss.csv weighted by its tokens; the bands' columns side by side
    k=0; files=""
    for b in $bands; do
        "$BIN_DIR/table" --plain --rows scheme --filter "from>=${b%%:*}" --filter "from<=${b#*:}" \
            --value 'loss:wmean(tokens):%.3f' "$out/loss.csv" >"$out/band.$k" || exit 1
        [ $k = 0 ] || { cut -d, -f2 "$out/band.$k" >"$out/band.cut"; mv "$out/band.cut" "$out/band.$k"; }
        files="$files $out/band.$k"; k=$((k + 1))
    done
    # shellcheck disable=SC2086
    paste -d, $files | sed 's/,/ | /g; s/^/| /; s/$/ |/'
    rm -f $files
    echo
    echo "![loss against position](loss.svg)"
    echo
    echo "Greedy samples past the window: [samples.md](samples.md)."
} >"$out/results.md.new"
write_md "$out/results.md"
cat "$out/results.md"
say "done in ${wall} s: $out/results.md"
