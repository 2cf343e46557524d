# scripts/dog_bites_man.sh, scripts/extrapolate.sh and scripts/lengthgen.sh in --quick mode: they
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
report dbm_provenance "$(grep -q "^Produced by commit [0-9a-f]\{7,\}.*; tools: .*; CPU: ." "$D/results.md" || echo "no provenance line (commit, tools, CPU) in results.md")"
report dbm_svg "$(svg_check "$D"/*.svg)"
# Without positions a sentence and its twin get the same logits, however short the training.
report dbm_none_blind "$(awk -F, '$1 == "none" && ($7 != 0 || $8 > 1e-4) { print "none, form " $3 ": pair_acc " $7 ", twin diff " $8; exit }' "$D/runs.csv")"
report dbm_permute_none "$(awk -F, '$1 == "none" && (($2 == "bidirectional" && $6 > 1e-4) || ($2 == "causal" && $6 < 1e-2)) { print $2 " " $3 ": max diff " $6; exit }' "$D/permute.csv")"

# ---- extrapolate.sh
E=$TMP/ex
if scripts/extrapolate.sh --quick --out "$E" >"$TMP/ex.out" 2>&1; then ok ex_quick_runs
else fail ex_quick_runs "exit status $?: $(tail -5 "$TMP/ex.out")"; fi
missing=""
for f in results.csv results.md curves.csv tr_train_loss.svg tr_val_loss_1x.svg tr_val_loss_4x.svg tr_length_loss.svg \
        tr_length_token_acc.svg tr_length_exact_match.svg tr_offset_loss.svg tr_offset_token_acc.svg lm_train_loss.svg \
        lm_val_loss_1x.svg lm_val_loss_4x.svg lm_window_loss.svg lm_window_loss_last.svg; do
    [ -s "$E/$f" ] || missing="$missing $f"
done
report ex_outputs "${missing:+missing:$missing}"
report ex_results_csv "$(csv_check "$E/results.csv" 9 "3 4 5 6 7" "8 9")"
# Views 1 and 3 add the two stretched rope models (rope_pi4, rope_base40k) to the schemes.
report ex_results_views "$(awk -F, -v s="$n_schemes" 'NR > 1 { n[$1]++ } NR > 1 && $1 !~ /^(length|offset|window)$/ { print "unknown view " $1; exit }
    END { if (n["length"] != (s + 2) * 4 || n["offset"] != s * 3 || n["window"] != (s + 2) * 3)
          printf "rows: %d length (want %d x 4), %d offset (%d x 3), %d window (%d x 3)\n", n["length"], s + 2, n["offset"], s, n["window"], s + 2 }' "$E/results.csv")"
report ex_curves_csv "$(csv_check "$E/curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
report ex_markdown "$(md_check "$E/results.md")"
report ex_svg "$(svg_check "$E"/*.svg)"
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

# ---- lengthgen.sh
L=$TMP/lg
if scripts/lengthgen.sh --quick --out "$L" >"$TMP/lg.out" 2>&1; then ok lg_quick_runs
else fail lg_quick_runs "exit status $?: $(tail -5 "$TMP/lg.out")"; fi
missing=""
for f in results.csv results.md curves.csv copy_exact.svg copy_token_acc.svg reverse_exact.svg reverse_token_acc.svg; do
    [ -s "$L/$f" ] || missing="$missing $f"
done
report lg_outputs "${missing:+missing:$missing}"
report lg_results_csv "$(csv_check "$L/results.csv" 8 "3 4 5 6 7 8" "")"
# 2 tasks x every scheme x lengths 16 and 32, 20 inputs each, accuracies within [0, 1].
report lg_results_rows "$(awk -F, -v s="$n_schemes" 'NR > 1 { n++; if ($4 != 16 && $4 != 32) { print "length " $4; exit } }
    NR > 1 && ($5 != 20 || $7 < 0 || $7 > 1 || $8 < 0 || $8 > 1) { print "row " NR ": " $0; exit }
    END { if (n != 4 * s) print n " rows, want 2 tasks x " s " schemes x 2 lengths = " 4 * s }' "$L/results.csv")"
report lg_curves_csv "$(csv_check "$L/curves.csv" 12 "3 4 6 7" "8 9 10 11 12")"
report lg_markdown "$(md_check "$L/results.md")"
report lg_svg "$(svg_check "$L"/*.svg)"
if scripts/lengthgen.sh --quick --out "$L" >"$TMP/lg2.out" 2>&1 && ! grep -q "train  " "$TMP/lg2.out" \
        && grep -q "reuse" "$TMP/lg2.out"; then ok lg_reuses_runs
else fail lg_reuses_runs "$(grep -m 3 -E 'train  |error' "$TMP/lg2.out")"; fi
expect_error lg_bad_option "unknown argument '--fast'" scripts/lengthgen.sh --fast

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
cp "$S/loss.csv" "$TMP/ls_loss_before.csv"
if scripts/lm_score.sh --quick --out "$S" >"$TMP/ls2.out" 2>&1 && ! grep -q "train  " "$TMP/ls2.out" \
        && grep -q "reuse" "$TMP/ls2.out" && cmp -s "$S/loss.csv" "$TMP/ls_loss_before.csv"; then ok ls_reuses_runs
else fail ls_reuses_runs "$(grep -m 3 -E 'train  |error' "$TMP/ls2.out")"; fi
expect_error ls_bad_option "unknown argument '--fast'" scripts/lm_score.sh --fast
expect_error ls_short_length "is not beyond the training window" scripts/lm_score.sh --quick --out "$S" --length 16
