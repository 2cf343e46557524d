# scripts/dog_bites_man.sh, extrapolate.sh, lengthgen.sh, eos_decision.sh, rope_base.sh, finetune_budget.sh, extend_context.sh and lm_score.sh in --quick mode: they
# finish, and what they write is well-formed (CSV: the header's column count on every row,
# numbers where numbers belong; SVG: parses as XML; Markdown tables: every row as wide as its
# header) and says what the lessons say where even a tiny run must show it.
. tests/lib.sh
export BIN_DIR

# csv_check FILE NCOLS NUMERIC OPTIONAL: every row has NCOLS fields; the columns listed in
# NUMERIC (1-based, space-separated) hold numbers, those in OPTIONAL numbers or nothing.
# Prints the first problem, nothing if the file is fine.
csv_check() {
    awk -F, -v ncols="$2" -v numeric="$3" -v optional="$4" '
    BEGIN { nn = split(numeric, num, " "); no = split(optional, opt, " ") }
    function isnum(s) { return s ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
    NF != ncols { printf "%s:%d: %d fields, want %d\n", FILENAME, NR, NF, ncols; bad = 1; exit }
    NR == 1 { next }
    {
        for (i = 1; i <= nn; i++) if (!isnum($num[i])) { printf "%s:%d: column %d is \"%s\", not a number\n", FILENAME, NR, num[i], $num[i]; bad = 1; exit }
        for (i = 1; i <= no; i++) if ($opt[i] != "" && !isnum($opt[i])) { printf "%s:%d: column %d is \"%s\", not a number\n", FILENAME, NR, opt[i], $opt[i]; bad = 1; exit }
    }
    END { if (!bad && NR < 2) printf "%s: no data rows\n", FILENAME }' "$1"
}

# md_check FILE: every Markdown table row has as many cells as its header row.
md_check() {
    awk '/^\|/ { n = gsub(/\|/, "|"); if (!inside) { want = n; inside = 1 } else if (n != want) { printf "%s:%d: %d bars, header has %d\n", FILENAME, NR, n, want; exit } next }
         { inside = 0 }' "$1"
}

# svg_check FILE...: each parses as XML with an <svg> root holding a plotted line.
svg_check() {
    if ! command -v python3 >/dev/null 2>&1; then echo "python3 not found"; return; fi
    python3 - "$@" <<'PY'
import sys, xml.dom.minidom
for path in sys.argv[1:]:
    try:
        doc = xml.dom.minidom.parse(path)
    except Exception as e:
        print("%s: %s" % (path, e)); break
    root = doc.documentElement
    if root.tagName != "svg" or not root.getAttribute("viewBox"):
        print("%s: root is <%s>, want <svg viewBox=...>" % (path, root.tagName)); break
    if not (doc.getElementsByTagName("path") or doc.getElementsByTagName("polyline")):
        print("%s: no plotted line" % path); break
PY
}

report() {   # NAME PROBLEM
    if [ -z "$2" ]; then ok "$1"; else fail "$1" "$2"; fi
}

# figures_redraw PREFIX SCRIPT DIR: SCRIPT --quick --figures draws DIR's figures again from its
# CSV files, byte for byte the ones the full call drew, without training or evaluating.
figures_redraw() {
    mkdir -p "$TMP/$1.svgs"; cp "$3"/*.svg "$TMP/$1.svgs/"; rm -f "$3"/*.svg
    "$2" --quick --out "$3" --figures >"$TMP/$1.figures" 2>&1
    _rc=$?; _bad=""
    for _f in "$TMP/$1.svgs"/*.svg; do cmp -s "$_f" "$3/${_f##*/}" || _bad="$_bad ${_f##*/}"; done
    if [ $_rc -eq 0 ] && [ -z "$_bad" ] && ! grep -q "train \|eval" "$TMP/$1.figures"; then ok "$1_figures_redraw"
    else fail "$1_figures_redraw" "exit $_rc; differ or missing:${_bad:- none}; $(head -c 300 "$TMP/$1.figures")"; fi
}

# markdown_svg_rerun PREFIX SCRIPT DIR: SCRIPT --quick wrote well-formed DIR/results.md and
# DIR/*.svg; run again, it reuses every run and trains none; an unknown option is refused.
markdown_svg_rerun() {
    report "$1_markdown" "$(md_check "$3/results.md")"
    report "$1_svg" "$(svg_check "$3"/*.svg)"
    if "$2" --quick --out "$3" >"$TMP/$1.rerun" 2>&1 && ! grep -q "train  " "$TMP/$1.rerun" \
            && grep -q "reuse" "$TMP/$1.rerun"; then ok "$1_reuses_runs"
    else fail "$1_reuses_runs" "$(grep -m 3 -E 'train  |error' "$TMP/$1.rerun")"; fi
    expect_error "$1_bad_option" "unknown argument '--fast'" "$2" --fast
    figures_redraw "$1" "$2" "$3"
}

# Every script runs every scheme of the registry.
n_schemes=$("$TRAIN" --list-schemes | wc -l)

# ---- dog_bites_man.sh
D=$TMP/dbm
if scripts/dog_bites_man.sh --quick --out "$D" >"$TMP/dbm.out" 2>&1; then ok dbm_quick_runs
else fail dbm_quick_runs "exit status $?: $(tail -5 "$TMP/dbm.out")"; fi
missing=""
for f in runs.csv permute.csv curves.csv results.md pair_acc.svg train_loss.svg; do [ -s "$D/$f" ] || missing="$missing $f"; done
report dbm_outputs "${missing:+missing:$missing}"
report dbm_runs_csv "$(csv_check "$D/runs.csv" 8 "2 3 4 5 6 7 8" "")"
rows=$(awk 'END { print NR - 1 }' "$D/runs.csv")
report dbm_runs_csv_rows "$([ "$rows" = $((2 * n_schemes)) ] || echo "$rows rows, want $n_schemes schemes x 2 forms = $((2 * n_schemes))")"
report dbm_permute_csv "$(csv_check "$D/permute.csv" 7 "6 7" "")"
report dbm_curves_csv "$(csv_check "$D/curves.csv" 11 "2 3 5 6" "7 8 9 10 11")"
report dbm_markdown "$(md_check "$D/results.md")"
# The commit, or in a tree without git (a tarball; make mutate's scratch copy) that it is unknown.
rev='[0-9a-f]\{7,\}'
git rev-parse HEAD >/dev/null 2>&1 || rev='unknown (not a git checkout)'
report dbm_provenance "$(grep -q "^Produced by commit $rev.*; tools: .*; CPU: ." "$D/results.md" || echo "no provenance line (commit $rev, tools, CPU) in results.md")"
report dbm_svg "$(svg_check "$D"/*.svg)"
figures_redraw dbm scripts/dog_bites_man.sh "$D"
# Without positions a sentence and its twin get the same logits, however short the training.
report dbm_none_blind "$(awk -F, '$1 == "none" && ($7 != 0 || $8 > 1e-4) { print "none, form " $3 ": pair_acc " $7 ", twin diff " $8; exit }' "$D/runs.csv")"
report dbm_permute_none "$(awk -F, '$1 == "none" && (($2 == "bidirectional" && $6 > 1e-4) || ($2 == "causal" && $6 < 1e-2)) { print $2 " " $3 ": max diff " $6; exit }' "$D/permute.csv")"

# ---- extrapolate.sh
E=$TMP/ex
if scripts/extrapolate.sh --quick --out "$E" >"$TMP/ex.out" 2>&1; then ok ex_quick_runs
else fail ex_quick_runs "exit status $?: $(tail -5 "$TMP/ex.out")"; fi
missing=""
for f in results.csv results.md curves.csv positions.csv tr_train_loss.svg tr_val_loss_1x.svg tr_val_loss_4x.svg tr_length_loss.svg \
        tr_length_token_acc.svg tr_length_exact_match.svg tr_offset_loss.svg tr_offset_token_acc.svg lm_train_loss.svg \
        lm_val_loss_1x.svg lm_val_loss_4x.svg lm_window_loss.svg lm_window_loss_last.svg; do
    [ -s "$E/$f" ] || missing="$missing $f"
done
report ex_outputs "${missing:+missing:$missing}"
report ex_results_csv "$(csv_check "$E/results.csv" 9 "3 4 5 6 7" "8 9")"
# Views 1 and 3 add the two stretched rope models (rope_pi4, rope_base40k) to the schemes, view 1
# the lstm too.
report ex_results_views "$(awk -F, -v s="$n_schemes" 'NR > 1 { n[$1]++ } NR > 1 && $1 !~ /^(length|offset|window)$/ { print "unknown view " $1; exit }
    END { if (n["length"] != (s + 3) * 4 || n["offset"] != s * 3 || n["window"] != (s + 2) * 3)
          printf "rows: %d length (want %d x 4), %d offset (%d x 3), %d window (%d x 3)\n", n["length"], s + 3, n["offset"], s, n["window"], s + 2 }' "$E/results.csv")"
report ex_curves_csv "$(csv_check "$E/curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
report ex_markdown "$(md_check "$E/results.md")"
report ex_svg "$(svg_check "$E"/*.svg)"
figures_redraw ex scripts/extrapolate.sh "$E"
# Through ./eval: ALiBi and T5 print the same loss at every offset, the wrapped learned table
# the same at 0 and 32, sinusoidal something else at 8.
report ex_offset_invariance "$(awk -F, '$1 == "offset" { v[$2, $4] = $6 } END {
    for (k = 0; k <= 32; k += (k ? 24 : 8)) {
        if (v["alibi", k] != v["alibi", 0]) { print "alibi loss at offset " k ": " v["alibi", k] " vs " v["alibi", 0]; exit }
        if (v["t5", k] != v["t5", 0]) { print "t5 loss at offset " k ": " v["t5", k] " vs " v["t5", 0]; exit }
    }
    if (v["learned", 32] != v["learned", 0]) print "learned loss at offset 32: " v["learned", 32] " vs " v["learned", 0]
    else if (v["sinusoidal", 8] == v["sinusoidal", 0]) print "sinusoidal loss unchanged at offset 8"
}' "$E/results.csv")"
# A second run reuses every checkpoint and evaluation.
if scripts/extrapolate.sh --quick --out "$E" --views 1 >"$TMP/ex2.out" 2>&1 && ! grep -q "train  " "$TMP/ex2.out" \
        && grep -q "reuse" "$TMP/ex2.out"; then ok ex_reuses_runs
else fail ex_reuses_runs "$(grep -m 3 -E 'train  |error' "$TMP/ex2.out")"; fi
expect_error ex_bad_option "unknown argument '--fast'" scripts/extrapolate.sh --fast
expect_error ex_bad_views "--views wants a list of 1, 2, 3" scripts/extrapolate.sh --views 4
# View 3's trained variants: each trains its scheme's config with its override, as its own row.
if scripts/extrapolate.sh --quick --out "$TMP/exv" --views 3 --schemes 'xpos_g512 fire_learned' >"$TMP/exv.out" 2>&1 &&
        grep -qx 'xpos_gamma = 512' "$TMP/exv/runs/lm-xpos_g512-s1/config.ini" &&
        grep -qx 'fire_learned = true' "$TMP/exv/runs/lm-fire_learned-s1/config.ini" &&
        grep -q '^window,fire_learned,1,128,' "$TMP/exv/results.csv"; then ok ex_lm_variants
else fail ex_lm_variants "$(tail -3 "$TMP/exv.out")"; fi
expect_error ex_variant_view "use it with --views 3 alone" scripts/extrapolate.sh --views 1,3 --schemes fire_learned

# ---- lengthgen.sh
L=$TMP/lg
if scripts/lengthgen.sh --quick --out "$L" >"$TMP/lg.out" 2>&1; then ok lg_quick_runs
else fail lg_quick_runs "exit status $?: $(tail -5 "$TMP/lg.out")"; fi
missing=""
for f in results.csv results.md curves.csv positions.csv copy_exact.svg copy_token_acc.svg reverse_exact.svg \
        reverse_token_acc.svg; do
    [ -s "$L/$f" ] || missing="$missing $f"
done
report lg_outputs "${missing:+missing:$missing}"
# The lstm row: the recurrent translator at the Transformer's parameter count, diagnosed per position.
report lg_lstm_row "$(grep -q '^model = lstm$' "$L/runs/copy-lstm-s1/config.ini" || echo "copy-lstm is no lstm"
    grep -q '^copy,lstm,1,32,20,' "$L/results.csv" || echo "no lstm row in results.csv"
    grep -q '^reverse,lstm,1,test,32,position,31,' "$L/positions.csv" || echo "no lstm position 31 in positions.csv"
    [ ! -e "$L/runs/copy-lstm-random-s1" ] || echo "lstm was randomized")"
report lg_results_csv "$(csv_check "$L/results.csv" 8 "3 4 5 6 7 8" "")"
# 2 tasks x (every scheme and lstm, plain; every scheme but none randomized, scored on drawn and
# on plain positions) x lengths 16 and 32, 20 inputs each, accuracies within [0, 1].
report lg_results_rows "$(awk -F, -v s="$n_schemes" 'NR > 1 { n++; if ($4 != 16 && $4 != 32) { print "length " $4; exit } }
    NR > 1 && ($5 != 20 || $7 < 0 || $7 > 1 || $8 < 0 || $8 > 1) { print "row " NR ": " $0; exit }
    END { if (n != 4 * (3 * s - 1)) print n " rows, want 2 tasks x (" s + 1 " + 2 x " s - 1 ") rows x 2 lengths = " 4 * (3 * s - 1) }' "$L/results.csv")"
# The randomized variant: its runs draw from 2048 positions, both evaluations are in the table.
report lg_random_variant "$(grep -q '^pos_random = 2048$' "$L/runs/copy-rope-random-s1/config.ini" || echo "no pos_random in the run's config"
    grep -q '^copy,rope + random,1,32,' "$L/results.csv" || echo "no 'rope + random' row"
    grep -q '^copy,rope + random (plain),1,32,' "$L/results.csv" || echo "no 'rope + random (plain)' row"
    grep -q '| rope + random (plain) |' "$L/results.md" || echo "no 'rope + random (plain)' row in results.md"
    [ ! -e "$L/runs/copy-none-random-s1" ] || echo "none was randomized")"
report lg_curves_csv "$(csv_check "$L/curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
markdown_svg_rerun lg scripts/lengthgen.sh "$L"
expect_error lg_bad_variant "unknown variant 'shuffled' \\(plain, random\\)" scripts/lengthgen.sh --quick --variants shuffled
expect_error lg_bad_part "--part wants translator, decoder or all, not 'both'" scripts/lengthgen.sh --part both
expect_error lg_bad_task "unknown task 'sort' \\(copy, reverse, duplicate\\)" scripts/lengthgen.sh --quick --tasks "copy sort"
expect_error lg_no_translator_task "has no translator task" scripts/lengthgen.sh --quick --tasks duplicate
expect_error lg_ceiling_alone "--ceiling goes with --converge" scripts/lengthgen.sh --quick --ceiling 20
# --converge: every run trains with train.until and a ceiling of 10 x 30 steps. First with a
# ceiling of 5 x 30 (--ceiling 5): every run stops there; the default ceiling then resumes
# each from step 150 to 300; a third call trains nothing. With an until every run meets at its
# first evaluation (val_loss <= 100), each converges at step 150, and the 300-step call reuses it.
C=$TMP/lgc
lgc() { scripts/lengthgen.sh --quick --converge --variants plain --part translator --out "$@"; }
if lgc "$C" --ceiling 5 >"$TMP/lgc1.out" 2>&1 &&
   [ "$(awk -F, 'NR > 1 && $9 != "not in 150 steps"' "$C/results.csv" | wc -l)" = 0 ] &&
   lgc "$C" >"$TMP/lgc2.out" 2>&1 && [ "$(grep -c '^\[.*\] resume ' "$TMP/lgc2.out")" = "$(( 2 * n_schemes + 2 ))" ] &&
   [ "$(grep -c '^\[.*\] train  ' "$TMP/lgc2.out")" = "$(( 2 * n_schemes + 2 ))" ] &&
   lgc "$C" >"$TMP/lgc3.out" 2>&1 && ! grep -q 'train  ' "$TMP/lgc3.out" && [ ! -e "$C/.plan" ] && [ ! -e "$C/.lock" ]; then
    ok lg_converge_ceiling_resumes
else fail lg_converge_ceiling_resumes "$(tail -n 3 "$TMP"/lgc*.out)"; fi
report lg_converge_results_csv "$(csv_check "$C/results.csv" 10 "4 5 6 7 8 10" ""
    awk -F, 'NR == 1 && $9 != "converged" { print "column 9 is " $9 } NR > 1 && $9 != "not in 300 steps" { print "row " NR ": " $0; exit }' "$C/results.csv"
    tail -n 1 "$C/runs/copy-rope-s1/log.csv" | grep -q '^300,ceiling,0,' || echo "copy-rope ends with: $(tail -n 1 "$C/runs/copy-rope-s1/log.csv")")"
report lg_converge_markdown "$(md_check "$C/results.md"; grep -q '^| rope | - | [0-9.]* | - | [0-9.]* |$' "$C/results.md" || echo "no steps-to-converge row for rope"
    grep -q '^| rope (not in 300 steps) | [0-9]' "$C/results.md" || echo "the accuracy tables do not mark rope as stopped at the ceiling")"
C=$TMP/lgc_met
if CONVERGE_UNTIL='train.until=val_loss<=100' CONVERGE_FACTOR=5 lgc "$C" >"$TMP/lgm1.out" 2>&1 &&
   CONVERGE_UNTIL='train.until=val_loss<=100' lgc "$C" >"$TMP/lgm2.out" 2>&1 && ! grep -q 'train  \|resume ' "$TMP/lgm2.out" &&
   [ "$(awk -F, 'NR > 1 && $9 != "150"' "$C/results.csv" | wc -l)" = 0 ] &&
   grep -q '^| rope | 150 | [0-9.]* | 150 | [0-9.]* |$' "$C/results.md" && ! grep -q '(not in ' "$C/results.md"; then
    ok lg_converge_reuses_converged
else fail lg_converge_reuses_converged "$(tail -n 3 "$TMP"/lgm*.out) $(sed -n 2p "$C/results.csv")"; fi
# The decoder-only part of the same --quick call: 3 tasks x (every scheme x 2 variants (plain,
# logscale) + every scheme but none randomized) x lengths 16 and 32, 20 inputs each, and a mean
# reciprocal rank per scheme and variant.
missing=""
for f in lm_results.csv lm_curves.csv lm_mrr.csv decoder_only.md lm_copy_plain_exact.svg lm_reverse_logscale_exact.svg \
        lm_duplicate_plain_exact.svg; do
    [ -s "$L/$f" ] || missing="$missing $f"
done
report lg_lm_outputs "${missing:+missing:$missing}"
report lg_lm_results_csv "$(csv_check "$L/lm_results.csv" 9 "4 5 6 7 8 9" "")"
report lg_lm_results_rows "$(awk -F, -v s="$n_schemes" 'NR > 1 { n++; v[$3]++; t[$1]++ }
    NR > 1 && ($5 != 16 && $5 != 32 || $6 != 20 || $8 < 0 || $8 > 1 || $9 < 0 || $9 > 1) { print "row " NR ": " $0; exit }
    NR > 1 && $3 == "random" && $2 == "none" { print "none was randomized: row " NR; exit }
    END { if (n != 18 * s - 6 || v["plain"] != 6 * s || v["logscale"] != 6 * s || v["random"] != 6 * (s - 1) || t["duplicate"] != 6 * s - 2)
          print n " rows, want 3 tasks x (" s " schemes x 2 variants + " s - 1 " randomized) x 2 lengths = " 18 * s - 6 }' "$L/lm_results.csv")"
# The randomized decoder-only runs draw from 2048 positions and have their curves.
report lg_lm_random_variant "$(grep -q '^pos_random = 2048$' "$L/runs/lm-copy-rope-random-s1/config.ini" || echo "no pos_random in lm-copy-rope-random's config"
    [ ! -e "$L/runs/lm-copy-none-random-s1" ] || echo "none was randomized"
    grep -q '^copy,rope + random,1,' "$L/lm_curves.csv" || echo "no 'rope + random' curve in lm_curves.csv"
    grep -q '^## copy (random): token accuracy' "$L/decoder_only.md" || echo "no random token-accuracy table")"
report lg_lm_curves_csv "$(csv_check "$L/lm_curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
# Every task hands out 1 + 1/2 + ... + 1/k (ties share places), so the MRRs of a variant add
# up to the harmonic number H_k whatever the accuracies.
report lg_lm_mrr "$(awk -F, -v s="$n_schemes" 'NR > 1 { sum[$1] += $3; n[$1]++; if ($3 <= 0 || $3 > 1 || $4 != 3) { print "row " NR ": " $0; exit } }
    END { for (v in sum) { k = (v == "random") ? s - 1 : s; h = 0; for (i = 1; i <= k; i++) h += 1 / i
              if (n[v] != k || sum[v] < h - 0.001 || sum[v] > h + 0.001) { print v ": " n[v] " schemes, MRRs add up to " sum[v] ", want H_" k " = " h; exit } }
          if (!("plain" in sum) || !("logscale" in sum) || !("random" in sum)) print "variants: want plain, logscale and random" }' "$L/lm_mrr.csv")"
report lg_lm_markdown "$(md_check "$L/decoder_only.md")"
report lg_lm_mrr_table "$(grep -q '^| none | [0-9.]* | [0-9.]* |  | 0.69 |$' "$L/decoder_only.md" || echo "no MRR row for none beside the paper's 0.69")"
# scripts/mrr.sh on a hand-made table (scripts/mrr.sh --help gives the rule): task x: a 0.75
# (seeds 1 and 0.5; its length-16 row is not beyond 16), b and c 0.25, tied for places 2 and 3:
# each (1/2 + 1/3) / 2 = 5/12; task y: all three 0, each (1 + 1/2 + 1/3) / 3 = 11/18.
# MRR a = (1 + 11/18) / 2 = 29/36 = 0.8056, b = c = (5/12 + 11/18) / 2 = 37/72 = 0.5139.
printf 'task,scheme,seed,length,exact_match\nx,a,1,20,1\nx,a,2,20,0.5\nx,a,1,16,0\nx,b,1,20,0.25\nx,c,1,24,0.25\ny,a,1,20,0\ny,b,1,20,0\ny,c,1,20,0\n' >"$TMP/mrr.csv"
printf 'variant,scheme,mrr,tasks\n,a,0.8056,2\n,b,0.5139,2\n,c,0.5139,2\n' >"$TMP/mrr.want"
if scripts/mrr.sh --beyond 16 "$TMP/mrr.csv" >"$TMP/mrr.got" 2>&1 && cmp -s "$TMP/mrr.got" "$TMP/mrr.want"; then ok mrr_by_hand
else fail mrr_by_hand "got: $(tr '\n' ' ' <"$TMP/mrr.got")"; fi
# Every length counted, and a fourth scheme d on task x only (0.9): on x, d is first, a second
# ((1 + 0.5 + 0) / 3 = 0.5), b and c share places 3 and 4; a = (1/2 + 11/18) / 2 = 0.5556,
# d = 1 over its one task.
printf 'x,d,1,20,0.9\n' >>"$TMP/mrr.csv"
scripts/mrr.sh "$TMP/mrr.csv" >"$TMP/mrr.got" 2>&1
report mrr_partial_tasks "$(awk -F, '$2 == "d" && ($3 != "1.0000" || $4 != 1) { print "d: " $0 } $2 == "a" && $3 != "0.5556" { print "a: " $0 }' "$TMP/mrr.got")"
expect_error mrr_missing_column 'mrr.want:1: no column "task"' scripts/mrr.sh "$TMP/mrr.want"

# ---- eos_decision.sh
Q=$TMP/ed
if scripts/eos_decision.sh --quick --out "$Q" >"$TMP/ed.out" 2>&1; then ok ed_quick_runs
else fail ed_quick_runs "exit status $?: $(tail -5 "$TMP/ed.out")"; fi
missing=""
for f in results.csv positions.csv curves.csv results.md exact_eos.svg exact_eos+oracle.svg exact_noeos+oracle.svg \
         exact_random.svg exact_random+oracle.svg exact_random+plainpos.svg rope_eos_position.svg \
         rope_noeos+oracle_departures.svg rope_random_departures.svg; do
    [ -s "$Q/$f" ] || missing="$missing $f"
done
report ed_outputs "${missing:+missing:$missing}"
report ed_results_csv "$(csv_check "$Q/results.csv" 8 "3 4 5 6 7 8" "")"
# (3 variants x every scheme + 3 randomized variants x every scheme but none) x 3 and 4 clauses,
# 20 sentences each, accuracies within [0, 1].
report ed_results_rows "$(awk -F, -v s="$n_schemes" 'NR > 1 { n++; v[$1]++ }
    NR > 1 && ($4 != 3 && $4 != 4 || $5 != 20 || $7 < 0 || $7 > 1 || $8 < 0 || $8 > 1) { print "row " NR ": " $0; exit }
    END { if (n != 12 * s - 6 || v["eos"] != 2 * s || v["eos+oracle"] != 2 * s || v["noeos+oracle"] != 2 * s ||
              v["random"] != 2 * s - 2 || v["random+oracle"] != 2 * s - 2 || v["random+plainpos"] != 2 * s - 2)
          print n " rows, want (3 variants x " s " schemes + 3 x " s - 1 ") x 2 lengths = " 12 * s - 6 }' "$Q/results.csv")"
# The randomized training draws from 2048 positions; none is not randomized.
report ed_random_variant "$(grep -q '^pos_random = 2048$' "$Q/runs/random-rope-s1/config.ini" || echo "no pos_random in the run's config"
    [ ! -e "$Q/runs/random-none-s1" ] || echo "none was randomized"
    grep -q '^random+plainpos,rope,1,4,' "$Q/results.csv" || echo "no random+plainpos row for rope")"
report ed_positions_csv "$(csv_check "$Q/positions.csv" 14 "3 5 7 8 10 11 13 14" "9 12")"
# Every output starts at position 0; with the length oracle no output ends early (<eos>, ".");
# and the outputs that never depart are the exact matches of results.csv.
report ed_positions_agree "$(awk -F, 'FNR == 1 { file++; next }
    file == 1 { exact[$1 "," $2 "," $4] = $8 * $5; next }
    $6 == "position" && $7 == 0 && $10 != 20 { print "reached " $10 " at position 0: " $0; exit }
    $1 ~ /oracle/ && ($13 != 0 || $14 != 0) { print "early <eos> or \".\" under the oracle: " $0; exit }
    $6 == "clause" { dep[$1 "," $2 "," $5] += $11 }
    END { for (k in exact) if (20 - dep[k] != exact[k]) { print k ": " 20 - dep[k] " outputs never depart, exact matches " exact[k]; exit } }' \
    "$Q/results.csv" "$Q/positions.csv")"
report ed_curves_csv "$(csv_check "$Q/curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
markdown_svg_rerun ed scripts/eos_decision.sh "$Q"
# --partial trains nothing, leaves a missing run out of the tables and names it in results.md;
# with the diagnosed scheme's randomized run missing too, that variant gets no diagnosis plot.
mv "$Q/runs/noeos-fire-s1" "$TMP/noeos-fire-s1"
mv "$Q/runs/random-rope-s1" "$TMP/random-rope-s1"
rm -f "$Q/rope_random_position.svg"
if scripts/eos_decision.sh --quick --out "$Q" --partial >"$TMP/ed.partial" 2>&1 && ! grep -q "train  " "$TMP/ed.partial" \
        && [ ! -e "$Q/runs/noeos-fire-s1" ]; then
    report ed_partial "$(grep -q 'or are empty:\*\* `noeos-fire-s1`, `random-rope-s1`\.$' "$Q/results.md" || echo "results.md does not name the missing runs"
        ! grep -q '^noeos+oracle,fire,' "$Q/results.csv" || echo "the missing run has rows in results.csv"
        [ ! -e "$Q/rope_random_position.svg" ] || echo "a diagnosis plot of a run that is missing")"
else fail ed_partial "$(tail -3 "$TMP/ed.partial")"; fi
mv "$TMP/noeos-fire-s1" "$Q/runs/noeos-fire-s1"
mv "$TMP/random-rope-s1" "$Q/runs/random-rope-s1"

# --converge: with an until every run meets at its only evaluation (val_loss <= 100, ceiling
# 1 x 30 steps), each run converges at step 30, and the table says so per training
Q=$TMP/edc
if CONVERGE_UNTIL='train.until=val_loss<=100' CONVERGE_FACTOR=1 scripts/eos_decision.sh --quick --converge --out "$Q" \
        >"$TMP/edc.out" 2>&1; then
    report ed_converge "$(csv_check "$Q/results.csv" 10 "3 4 5 6 7 8 9 10" ""
        awk -F, 'NR == 1 && $9 != "converged" { print "column 9 is " $9 } NR > 1 && $9 != 30 { print "row " NR ": " $0; exit }' "$Q/results.csv"
        md_check "$Q/results.md"
        grep -q '^| rope | 30 | [0-9.]* | 30 | [0-9.]* | 30 | [0-9.]* |$' "$Q/results.md" || echo "no steps-to-converge row for rope"
        grep -q '^| none | 30 | [0-9.]* | 30 | [0-9.]* | | |$' "$Q/results.md" || echo "none: not one row without the randomized training"
        tail -n 1 "$Q/runs/noeos-rope-s1/log.csv" | grep -q '^30,converged,0,' || echo "noeos-rope ends with: $(tail -n 1 "$Q/runs/noeos-rope-s1/log.csv")")"
else fail ed_converge "exit status $?: $(tail -5 "$TMP/edc.out")"; fi

# ---- rope_base.sh
R=$TMP/rb
if scripts/rope_base.sh --quick --out "$R" >"$TMP/rb.out" 2>&1; then ok rb_quick_runs
else fail rb_quick_runs "exit status $?: $(tail -5 "$TMP/rb.out")"; fi
report rb_results_csv "$(csv_check "$R/results.csv" 10 "2 3 5 6 7 8 9 10" "")"
# 2 trained bases x 2 evaluated bases x 2 decodings x 3 and 4 clauses
report rb_results_rows "$(awk -F, 'NR > 1 { n++ } END { if (n != 16) print n " rows, want 16" }' "$R/results.csv")"
# The cells are ./eval's own: the run trained with base 160000 scored with rope_base=10000
# is the ./eval call with that override, and its own base is the one ./eval keeps unasked.
"$EVAL" "$R/runs/base160000-s1" splits=none lengths=4 test_size=20 rope_base=10000 >"$TMP/rb.e1" 2>/dev/null
"$EVAL" "$R/runs/base160000-s1" splits=none lengths=4 test_size=20 >"$TMP/rb.e2" 2>/dev/null
report rb_cells_are_evals "$(awk -F, 'FNR == 1 { f++ } f == 1 && $1 == "test" { e1 = $4 } f == 2 && $1 == "test" { e2 = $4 }
    f == 3 && $5 == 1 && $6 == 4 && $4 == "model" && $2 == 160000 && $3 == 10000 { r1 = $8 }
    f == 3 && $5 == 1 && $6 == 4 && $4 == "model" && $2 == 160000 && $3 == 160000 { r2 = $8 }
    END { if (e1 == "" || r1 != e1 || r2 != e2 || e1 == e2) print "loss at 4 clauses: rows " r1 ", " r2 "; ./eval " e1 ", " e2 }' \
    "$TMP/rb.e1" "$TMP/rb.e2" "$R/results.csv")"
report rb_trained_base "$(grep -q '^rope_base = 160000$' "$R/runs/base160000-s1/config.ini" || echo "no rope_base in the run's config")"
# With the length oracle, no output ends early.
report rb_oracle_positions "$(awk -F, 'NR > 1 && $2 == "oracle" && ($13 != 0 || $14 != 0) { print "early end under the oracle: " $0; exit }' "$R/positions.csv")"
report rb_comparisons "$(grep -c '^| a larger base at evaluation | train 10k / eval 160k (model) | train 10k / eval 10k (model) | 4 clauses | ' "$R/results.md" | grep -qx 1 || echo "no comparison row in results.md")"
markdown_svg_rerun rb scripts/rope_base.sh "$R"

# ---- finetune_budget.sh
F=$TMP/fb
if scripts/finetune_budget.sh --quick --out "$F" >"$TMP/fb.out" 2>&1; then ok fb_quick_runs
else fail fb_quick_runs "exit status $?: $(tail -5 "$TMP/fb.out")"; fi
report fb_results_csv "$(csv_check "$F/results.csv" 9 "2 3 4 5 6 7 8 9" "")"
# the pretrained model and 4 methods x budgets 4 and 8, x windows 32 and 128
report fb_results_rows "$(awk -F, 'NR > 1 { n++ } END { if (n != 18) print n " rows, want (1 + 4 x 2) x 2 = 18" }' "$F/results.csv")"
# Each budget is its own fine-tuning of the seed's pretrained model, with that many steps and the
# method's stretch; its cells are ./eval's own.
report fb_runs "$(for m in rope_ft rope_linear_ft; do for b in 4 8; do r=$F/runs/$m-n$b-s1
    head -n 1 "$r/log.csv" | grep -q "^# init_from = $F/runs/pre-s1/model.safetensors (step 30)$" || echo "$m-n$b: $(head -n 1 "$r/log.csv")"
    tail -n 1 "$r/log.csv" | grep -q "^$b,val," || echo "$m-n$b ends with: $(tail -n 1 "$r/log.csv")"
    done; done
    grep -q '^rope_scaling = linear$' "$F/runs/rope_linear_ft-n8-s1/config.ini" || echo "rope_linear_ft: no stretch in its config"
    grep -q '^rope_scaling = none$' "$F/runs/rope_ft-n8-s1/config.ini" || echo "rope_ft: $(grep rope_scaling "$F/runs/rope_ft-n8-s1/config.ini")")"
"$EVAL" "$F/runs/rope_ntk_ft-n8-s1" lengths=128 >"$TMP/fb.e" 2>/dev/null
report fb_cells_are_evals "$(awk -F, 'NR == FNR && $1 == "val" { e = $9 } NR != FNR && $1 == "rope_ntk_ft" && $2 == 8 && $4 == 128 { r = $8 }
    END { if (e == "" || r != e) print "loss_last at 128: row " r ", ./eval " e }' "$TMP/fb.e" "$F/results.csv")"
report fb_comparisons "$(grep -c '^| rope_linear_ft | rope_ft | 8 | 128 | ' "$F/results.md" | grep -qx 1 || echo "no comparison row in results.md")"
expect_error fb_bad_budget "--budgets: 'x' is not a positive number of steps" scripts/finetune_budget.sh --quick --budgets "4 x" --out "$F"
markdown_svg_rerun fb scripts/finetune_budget.sh "$F"

# ---- extend_context.sh
E=$TMP/ec
if scripts/extend_context.sh --quick --out "$E" >"$TMP/ec.out" 2>&1; then ok ec_quick_runs
else fail ec_quick_runs "exit status $?: $(tail -5 "$TMP/ec.out")"; fi
missing=""
for f in results.csv results.md curves.csv default_loss_last.svg default_rope_loss_last.svg; do
    [ -s "$E/$f" ] || missing="$missing $f"
done
report ec_outputs "${missing:+missing:$missing}"
report ec_results_csv "$(csv_check "$E/results.csv" 9 "4 5 6 7 8 9" "")"
# Every scheme, 4 stretches without and 4 runs with fine-tuning, x windows 32 and 128.
report ec_results_rows "$(awk -F, -v s="$n_schemes" 'NR > 1 { n++; if ($5 != 32 && $5 != 128) { print "window " $5; exit } }
    END { if (n != 2 * (s + 8)) print n " rows, want (" s " schemes + 8 rope methods) x 2 windows = " 2 * (s + 8) }' "$E/results.csv")"
# Dynamic NTK is no stretch within the training window: at 32 it scores exactly what rope does;
# the fixed NTK stretch does not.
loss_at() { awk -F, -v m="$1" -v w="$2" '$2 == m && $5 == w { print $7 "," $9 }' "$E/results.csv"; }
if [ -n "$(loss_at rope 32)" ] && [ "$(loss_at rope_dynamic 32)" = "$(loss_at rope 32)" ] &&
   [ "$(loss_at rope_ntk 32)" != "$(loss_at rope 32)" ]; then ok ec_dynamic_is_rope_within_window
else fail ec_dynamic_is_rope_within_window "rope '$(loss_at rope 32)' dynamic '$(loss_at rope_dynamic 32)' ntk '$(loss_at rope_ntk 32)'"; fi
# The fine-tuned runs name the pretrained run their weights came from.
report ec_finetune_provenance "$(for m in rope_ft rope_linear_ft rope_ntk_ft rope_yarn_ft; do
    head -n 1 "$E/runs/default-$m-s1/log.csv" | grep -q "^# init_from = $E/runs/default-pre-rope-s1/model.safetensors (step 30)$" ||
        echo "$m: $(head -n 1 "$E/runs/default-$m-s1/log.csv")"; done)"
report ec_curves_csv "$(csv_check "$E/curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
markdown_svg_rerun ec scripts/extend_context.sh "$E"
# Evaluations are cached per model and window size: the rerun above evaluated nothing, and
# with one window's file removed the next run redoes that evaluation alone, to the same numbers.
report ec_reuses_evals "$(grep -m 3 'eval   ' "$TMP/ec.rerun")"
cp "$E/results.csv" "$TMP/ec_results_before.csv"
rm -f "$E/runs/default-pre-rope-s1/eval_rope_w128.csv"
if scripts/extend_context.sh --quick --out "$E" >"$TMP/ec.rerun2" 2>&1 && [ "$(grep -c 'eval   ' "$TMP/ec.rerun2")" = 1 ] \
        && grep -q 'eval   .*/default-pre-rope-s1/eval_rope_w128\.csv$' "$TMP/ec.rerun2" && cmp -s "$E/results.csv" "$TMP/ec_results_before.csv"; then
    ok ec_evals_per_window
else fail ec_evals_per_window "$(grep -m 3 -E 'eval   |error' "$TMP/ec.rerun2")"; fi
# ./eval lm_windows=N scores the first N windows of a size only (the script's cap at 4096):
# 3 windows of 128 tokens, and without the key the 256 that the cached evaluation holds.
w3=$("$BIN_DIR/eval" "$E/runs/default-pre-rope-s1" lengths=128 lm_windows=3 2>/dev/null | awk -F, '$1 == "val" { print $2 "," $3 }')
w256=$(awk -F, '$1 == "val" { print $2 "," $3 }' "$E/runs/default-pre-rope-s1/eval_rope_w128.csv")
report ec_eval_lm_windows "$([ "$w3" = 128,3 ] && [ "$w256" = 128,256 ] || echo "lm_windows=3 gave '$w3', the cached evaluation '$w256'")"
# --quick trains the default block alone (the rows check above counts one block); the usage
# names both block styles.
report ec_help_blocks "$(scripts/extend_context.sh --help | grep -q '^  llama  *model.norm=rmsnorm' || echo "--help does not list the llama block")"
expect_error ec_bad_block "no block style 'gpt'" scripts/extend_context.sh --quick --blocks gpt --out "$E"

# ---- stretch_long.sh: its options are checked before anything trains (no run here: the study
# reruns through test_tables' regeneration of results/stretch_long/results.md)
expect_error sl_window_one "'1' is not a whole number above 1" scripts/stretch_long.sh --window 1 --out "$TMP/sl"
expect_error sl_bad_factors "'x' is not a whole number above 1" scripts/stretch_long.sh --factors "4 x" --out "$TMP/sl"
expect_error sl_no_figures "--figures: this script draws no figures" scripts/stretch_long.sh --figures --out "$TMP/sl"

# ---- lm_score.sh
S=$TMP/ls
if scripts/lm_score.sh --quick --out "$S" >"$TMP/ls.out" 2>&1; then ok ls_quick_runs
else fail ls_quick_runs "exit status $?: $(tail -5 "$TMP/ls.out")"; fi
missing=""
for f in scores.csv loss.csv loss.svg samples.md results.md; do [ -s "$S/$f" ] || missing="$missing $f"; done
report ls_outputs "${missing:+missing:$missing}"
report ls_scores_csv "$(csv_check "$S/scores.csv" 4 "2 3 4" "")"
report ls_loss_csv "$(csv_check "$S/loss.csv" 6 "2 3 4 5 6" "")"
# One series per scheme plus 2 rope stretches, x 2 texts x positions 0..255; windows of 16 -> 16
# rows each holding 32 losses.
series=$((n_schemes + 2))
report ls_rows "$(awk -F, -v want="$series" 'NR > 1 { n[$1]++; if ($3 < 0 || $3 > 255 || $4 <= 0) { print "row " NR ": " $0; exit } }
    END { for (s in n) { k++; if (n[s] != 512) print s ": " n[s] " rows, want 2 x 256" } if (k != want) print k " series, want " want }' "$S/scores.csv")"
report ls_windows "$(awk -F, -v want="$series" 'NR > 1 && $6 != 32 { print "row " NR ": " $0; exit } NR > 1 { n++ } END { if (n != 16 * want) print n " windows, want " want " x 16" }' "$S/loss.csv")"
report ls_markdown "$(md_check "$S/results.md")"
report ls_svg "$(svg_check "$S"/*.svg)"
figures_redraw ls scripts/lm_score.sh "$S"
cp "$S/loss.csv" "$TMP/ls_loss_before.csv"
if scripts/lm_score.sh --quick --out "$S" >"$TMP/ls2.out" 2>&1 && ! grep -q "train  " "$TMP/ls2.out" \
        && grep -q "reuse" "$TMP/ls2.out" && cmp -s "$S/loss.csv" "$TMP/ls_loss_before.csv"; then ok ls_reuses_runs
else fail ls_reuses_runs "$(grep -m 3 -E 'train  |error' "$TMP/ls2.out")"; fi
expect_error ls_bad_option "unknown argument '--fast'" scripts/lm_score.sh --fast
expect_error ls_short_length "is not beyond the training window" scripts/lm_score.sh --quick --out "$S" --length 16
