#!/bin/sh
# The figures and results.md of scripts/extrapolate.sh, from the CSVs in its folder: run by it
# (its settings in the environment), for it to stay a launcher of the trainings and evaluations.
set -eu
cd "$(dirname "$0")/.."
_tables=${tables:-0}
. scripts/lib.sh
tables=$_tables
case "${1:-}" in
    figures|tables) ;;
    -h|--help) echo "usage: scripts/extrapolate_report.sh figures|tables   (run by scripts/extrapolate.sh:"
               echo "its settings out, views, quick, seeds, converge, tr_steps, lm_steps, command, wall and"
               echo "diag_lengths in the environment; see scripts/extrapolate.sh --help)"; exit 0 ;;
    *) die "figures or tables? (run by scripts/extrapolate.sh)" ;;
esac
want_view() { case ",$views," in *,$1,*) return 0 ;; esac; return 1; }
seed_list=$(seq_list "$seeds")
# draw_figures: the SVGs, from results.csv, offsets.csv and curves.csv
draw_figures() {
    rm -f "$out"/*.svg
    p_curve() {   # NAME MODEL SPLIT LENGTH TITLE YLABEL
        plot --x step --y loss --group scheme --spread --logy --filter model="$2" --filter split="$3" \
            --filter length="$4" --title "$5" --ylabel "$6" -o "$out/$1.svg" "$out/curves.csv"
    }
    if want_view 1 || want_view 2; then
        p_curve tr_train_loss translator train 0 "Translator: training loss" "training loss (batch, label smoothing 0.1)"
        p_curve tr_val_loss_1x translator val 3 "Translator: validation loss on 3-clause sentences (1x)" "validation loss"
        p_curve tr_val_loss_4x translator val 12 "Translator: validation loss on 12-clause sentences (4x)" "validation loss"
    fi
    if want_view 1; then
        for m in loss:"loss":--logy token_acc:"token accuracy": exact_match:"exact match (greedy)":; do
            col=${m%%:*}; rest=${m#*:}; label=${rest%%:*}; logy=${rest#*:}
            # exact match is 0 for every scheme past 5 clauses: show 1-6, the schemes apart
            xrange=""; [ "$col" = exact_match ] && xrange="--xmax 6 --dodge 4"
            # shellcheck disable=SC2086
            plot --x x --y "$col" --group scheme --spread $logy --filter view=length --vline 3 \
                --vline-label "longest training sentences" --title "Translator: $label against sentence length" \
                --xlabel "clauses per sentence (trained on 1-3)" --ylabel "$label" $xrange \
                -o "$out/tr_length_$col.svg" "$out/results.csv"
        done
    fi
    if want_view 2; then
        plot --x offset_plus_1 --y loss --group scheme --spread --logx --logy \
            --title "Translator: loss with every position shifted by k" --xlabel "k + 1 (position offset k, log scale)" \
            --ylabel "validation loss" -o "$out/tr_offset_loss.svg" "$out/offsets.csv"
        plot --x offset_plus_1 --y token_acc --group scheme --spread --logx \
            --title "Translator: token accuracy with every position shifted by k" \
            --xlabel "k + 1 (position offset k, log scale)" --ylabel "token accuracy" \
            -o "$out/tr_offset_token_acc.svg" "$out/offsets.csv"
    fi
    if want_view 3; then
        p_curve lm_train_loss lm train 0 "Language model: training loss (32-token windows)" "training loss (batch)"
        p_curve lm_val_loss_1x lm val 32 "Language model: validation loss, 32-token windows (1x)" "validation loss"
        if [ $quick = 1 ]; then four=64; else four=128; fi
        p_curve lm_val_loss_4x lm val $four "Language model: validation loss, $four-token windows" "validation loss"
        for col in loss loss_last; do
            label="loss over the whole window"; [ $col = loss_last ] && label="loss on the last 32 tokens"
            plot --x x --y $col --group scheme --spread --logx --filter view=window --vline 32 \
                --vline-label "training window" --title "Language model: $label" \
                --xlabel "evaluation window (tokens, log scale)" --ylabel "$label" \
                -o "$out/lm_window_$col.svg" "$out/results.csv"
        done
    fi
}
if [ "$1" = figures ]; then draw_figures; exit 0; fi

# md_table TITLE METRIC SCALE FORMAT VIEW: a blank line, TITLE, a blank line, and the table of
# METRIC * SCALE (FORMAT) of VIEW, one row per scheme and one column per x (see md_pivot).
md_table() {
    heading "$1"
    "$BIN_DIR/table" --rows scheme --cols x --value "$2" --scale "$3" --format "$4" --filter view="$5" "$out/results.csv"
}
{
    echo "## Extrapolation: length generalisation"
    echo
    echo "Command: \`$command\` (seeds $(echo $seed_list | tr ' ' ','); translator configs/<scheme>.ini, $tr_steps steps;"
    echo "language model configs/lm/<scheme>.ini, $lm_steps steps$([ $quick = 1 ] && echo '; quick mode: tiny models, not meaningful'));"
    echo "wall time ${wall} s on this machine (finished runs and evaluations are reused, so a rerun is faster)."
    provenance
    echo "Cells: mean ± sample standard deviation over the seeds. rope_pi4 = the rope models evaluated with"
    echo "\`rope_scale=4\` (position interpolation), rope_base40k = with \`rope_base=40000\`; no retraining."
    if want_view 1; then
        echo
        echo "### 1. Longer sentences (translator trained on 1-3 clauses; test sets of k clauses)"
        md_table "Token accuracy (%):" token_acc 100 %.1f length
        md_table "Exact match (%, greedy decoding):" exact_match 100 %.1f length
        md_table "Loss (token cross-entropy):" loss 1 %.3f length
        heading "![loss](tr_length_loss.svg) ![token accuracy](tr_length_token_acc.svg) ![exact match](tr_length_exact_match.svg)"
        echo "Teacher-forced token accuracy (%) by clause (0 = the first; positions.csv, by = clause),"
        echo "on the test sets of $(echo $diag_lengths | sed 's/ / and /') clauses:"
        for k in $diag_lengths; do
            heading "$k clauses:"
            "$BIN_DIR/table" --rows scheme --cols index --value token_acc --scale 100 --filter length="$k" \
                --filter by=clause "$out/positions.csv"
        done
    fi
    if [ $converge = 1 ] && { want_view 1 || want_view 2; }; then
        heading "### Steps to converge (validation exact match >= 99%, ceiling $tr_steps steps) and CPU seconds"
        "$BIN_DIR/table" --steps --rows scheme --cols task "$out/converge.csv"
    fi
    if want_view 2; then
        echo
        echo "### 2. Shifted positions (validation sentences, 1-3 clauses, every position index + k)"
        md_table "Loss:" loss 1 %.4f offset
        md_table "Token accuracy (%):" token_acc 100 %.2f offset
        echo
        echo "![loss](tr_offset_loss.svg) ![token accuracy](tr_offset_token_acc.svg)"
    fi
    if want_view 1 || want_view 2; then
        echo
        echo "Training curves: ![training loss](tr_train_loss.svg) ![validation loss 1x](tr_val_loss_1x.svg) ![validation loss 4x](tr_val_loss_4x.svg)"
    fi
    if want_view 3; then
        echo
        echo "### 3. Longer windows (language model trained on 32-token windows)"
        md_table "Loss over the whole window:" loss 1 %.3f window
        md_table "Loss on the last 32 tokens of each window (loss_last):" loss_last 1 %.3f window
        heading "![loss](lm_window_loss.svg) ![loss on the last 32 tokens](lm_window_loss_last.svg)"
        echo "Training curves: ![training loss](lm_train_loss.svg) ![validation loss 1x](lm_val_loss_1x.svg) ![validation loss 4x](lm_val_loss_4x.svg)"
    fi
} >"$out/results.md.new"
write_md "$out/results.md"
