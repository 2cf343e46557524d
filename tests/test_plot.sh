# ./plot: CSV columns to an SVG line plot; grouping, averaging over seeds, filters, errors.
. tests/lib.sh
PLOT=$BIN_DIR/plot

cat >"$TMP/results.csv" <<'CSV'
scheme,seed,length,loss,token_acc,exact_match
rope,0,16,0.10,0.90,0.5
rope,1,16,0.20,0.80,0.4
rope,0,64,1.00,0.60,0.1
rope,1,64,2.00,0.40,0.0
alibi,0,64,0.50,0.70,0.2
alibi,0,16,0.05,0.95,0.6
"my <scheme>, v2",0,16,0.3,0.5,0.1
none,0,16,2.5,,0.0
CSV

if $PLOT --x length --y token_acc --group scheme --spread --logx --vline 32 \
        --vline-label "training length" -o "$TMP/acc.svg" "$TMP/results.csv" >"$TMP/out" 2>"$TMP/err"; then
    ok plot_runs
else
    fail plot_runs "exit $?: $(cat "$TMP/err")"
fi

svg="$TMP/acc.svg"
missing=""
for name in rope alibi 'my &lt;scheme&gt;, v2' 'training length' length; do
    grep -q ">$name</text>" "$svg" 2>/dev/null || missing="$missing [$name]"
done
if [ -s "$svg" ] && [ -z "$missing" ]; then ok plot_has_series_names
else fail plot_has_series_names "missing:$missing"; fi

# Axis titles say what a known column holds (token_acc); an unknown one keeps its name (length).
if grep -q 'class="ylabel"[^>]*>token accuracy</text>' "$svg" && grep -q 'class="xlabel"[^>]*>length</text>' "$svg"
then ok plot_axis_titles_describe_columns
else fail plot_axis_titles_describe_columns "$(grep -o 'class="[xy]label"[^<]*' "$svg" | tr '\n' ' ')"; fi

# Seeds averaged per (scheme, length): rope at 16 -> 0.85, at 64 -> 0.5; band from the spread.
if grep -q "rope: x=16 y=0.85<" "$svg" && grep -q "rope: x=64 y=0.5<" "$svg" \
        && grep -q 'class="band"' "$svg"; then ok plot_averages_seeds
else fail plot_averages_seeds "$(grep -o 'rope: x=[^<]*' "$svg" | tr '\n' ' ')"; fi

# Points joined in x order whatever the row order: alibi's 16 comes before its 64.
if grep -o 'alibi: x=[0-9]*' "$svg" | tr '\n' ' ' | grep -q 'x=16 alibi: x=64'; then ok plot_sorts_by_x
else fail plot_sorts_by_x "$(grep -o 'alibi: x=[0-9]*' "$svg" | tr '\n' ' ')"; fi

# A row with an empty y cell is skipped: 'none' has no token_acc, so no series.
if ! grep -q 'data-name="none"' "$svg"; then ok plot_skips_empty_cells
else fail plot_skips_empty_cells "series 'none' drawn from an empty cell"; fi

if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout "$svg" 2>"$TMP/xml"; then ok plot_svg_is_xml
    else fail plot_svg_is_xml "$(head -c 300 "$TMP/xml")"; fi
fi

# Filters: same column ORs, different columns AND.
$PLOT --x length --y loss --group scheme --filter scheme=alibi --filter scheme=none \
    -o "$TMP/f.svg" "$TMP/results.csv" >/dev/null 2>&1
if grep -q 'data-name="alibi"' "$TMP/f.svg" && grep -q 'data-name="none"' "$TMP/f.svg" \
        && ! grep -q 'data-name="rope"' "$TMP/f.svg"; then ok plot_filters
else fail plot_filters "wrong series in $(grep -o 'data-name="[^"]*"' "$TMP/f.svg" | tr '\n' ' ')"; fi

# Nine series: two panels of 4 and 5 (at most 8 a panel), in first-seen order; with --panel,
# one panel per value of the column.
{ echo "g,k,x,y"; for i in 1 2 3 4 5 6 7 8 9; do echo "s$i,$((i % 2)),1,$i"; echo "s$i,$((i % 2)),2,$i"; done; } >"$TMP/nine.csv"
$PLOT --x x --y y --group g -o "$TMP/nine.svg" "$TMP/nine.csv" >"$TMP/out" 2>&1
panels=$(awk '/<svg class="panel"/ { n++ } /data-name=/ { c[n]++ } END { for (i = 1; i <= n; i++) printf "%d ", c[i] }' "$TMP/nine.svg")
if [ "$panels" = "4 5 " ] && grep -q "9 series in 2 panels" "$TMP/out"; then ok plot_panels_at_most_8
else fail plot_panels_at_most_8 "series per panel: [$panels]; $(cat "$TMP/out")"; fi
$PLOT --x x --y y --group g --panel k -o "$TMP/nine.svg" "$TMP/nine.csv" >/dev/null 2>&1
panels=$(awk '/<svg class="panel"/ { n++ } /data-name=/ { c[n]++ } END { for (i = 1; i <= n; i++) printf "%d ", c[i] }' "$TMP/nine.svg")
if [ "$panels" = "5 4 " ] && grep -q '>k = 1</text>' "$TMP/nine.svg" && grep -q '>k = 0</text>' "$TMP/nine.svg"
then ok plot_panel_by_column; else fail plot_panel_by_column "series per panel: [$panels]"; fi

# A row named after a scheme keeps the scheme's colour (src/pos/registry.c: alibi is slot 2, #009E73).
printf 'scheme,x,y\nalibi + random,1,1\nalibi + random,2,2\n' >"$TMP/variant.csv"
$PLOT --x x --y y --group scheme -o "$TMP/variant.svg" "$TMP/variant.csv" >/dev/null 2>&1
if grep -A1 'data-name="alibi + random"' "$TMP/variant.svg" | grep -q 'stroke="#009E73"'; then ok plot_variant_keeps_scheme_colour
else fail plot_variant_keeps_scheme_colour "$(grep -A1 'data-name="alibi + random"' "$TMP/variant.svg" | grep -o 'stroke="[^"]*"')"; fi

# --xmin/--xmax cut the axis; --dodge shifts the series apart (the pixel values: tests/test_svg.c)
$PLOT --x length --y loss --group scheme --xmax 20 --dodge 4 -o "$TMP/r.svg" "$TMP/results.csv" >/dev/null 2>&1
if grep -q 'rope: x=16 ' "$TMP/r.svg" && ! grep -q 'x=64 ' "$TMP/r.svg"; then ok plot_xmax
else fail plot_xmax "$(grep -o 'rope: x=[^<]*' "$TMP/r.svg" | tr '\n' ' ')"; fi
expect_error plot_xrange_backwards "--xmin 5 is not below --xmax 2" \
    $PLOT --x length --y loss --xmin 5 --xmax 2 -o "$TMP/x.svg" "$TMP/results.csv"
expect_error plot_dodge_not_a_number "--dodge wants a number, got 'wide'" \
    $PLOT --x length --y loss --dodge wide -o "$TMP/x.svg" "$TMP/results.csv"

if $PLOT --help | grep -q -- '--group COL'; then ok plot_help; else fail plot_help "no usage text"; fi

expect_error plot_bad_column "unknown y column 'acc' \(columns: scheme, seed, length, loss, token_acc, exact_match\)" \
    $PLOT --x length --y acc -o "$TMP/x.svg" "$TMP/results.csv"
expect_error plot_missing_file "nope.csv: cannot open" $PLOT --x a --y b -o "$TMP/x.svg" "$TMP/nope.csv"
expect_error plot_missing_output "missing -o" $PLOT --x length --y loss "$TMP/results.csv"
expect_error plot_unknown_option "unknown option '--colour'" \
    $PLOT --colour red --x length --y loss -o "$TMP/x.svg" "$TMP/results.csv"
expect_error plot_no_match "no rows match the filters" \
    $PLOT --x length --y loss --filter scheme=t5 -o "$TMP/x.svg" "$TMP/results.csv"

printf 'a,b\n1,2\n3,x\n' >"$TMP/bad.csv"
expect_error plot_not_a_number "bad.csv:3: column 'b' holds 'x', not a number" \
    $PLOT --x a --y b -o "$TMP/x.svg" "$TMP/bad.csv"
printf 'a,b\n1,2\n3\n' >"$TMP/ragged.csv"
expect_error plot_ragged_row "ragged.csv:3: row has 1 field but the header has 2" \
    $PLOT --x a --y b -o "$TMP/x.svg" "$TMP/ragged.csv"
if [ ! -e "$TMP/x.svg" ]; then ok plot_no_output_on_error; else fail plot_no_output_on_error "x.svg written"; fi
