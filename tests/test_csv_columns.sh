# scripts/lib.sh's CSV_COLUMNS: awk programs that read CSV columns by name give the same output
# whatever the order of the columns, each file of one awk call by its own header, and a name no
# header has stops awk with the file, line and name.
. tests/lib.sh
. scripts/lib.sh

# A CSV as ./eval writes it (a comment first, as a refused evaluation leaves), and the same
# table with its columns reversed.
cat >"$TMP/a.csv" <<'CSV'
# made by hand
split,length,examples,loss,token_acc,exact_match
val,9,200,1.5,0.5,0.25
test,9,200,1.25,0.625,0.5
test,16,200,2,0.375,0
CSV
awk -F, '/^#/ { print; next } { s = $NF; for (i = NF - 1; i >= 1; i--) s = s "," $i; print s }' \
    "$TMP/a.csv" >"$TMP/b.csv"

# rows of the test split longer than 10 (a number, not a string: "9" > "16" as text), and the
# header seen once per file
prog="$CSV_COLUMNS"'head { h++ } row && cell("split") == "test" && cell("length") + 0 > 10 {
    print cells("length exact_match loss") } END { print h " headers" }'
want='16,0,2
1 headers'
for f in a b; do
    got=$(awk -F, "$prog" "$TMP/$f.csv")
    if [ "$got" = "$want" ]; then ok "csv_columns_by_name_$f"
    else fail "csv_columns_by_name_$f" "got [$got], want [$want]"; fi
done

got=$(awk -F, "$CSV_COLUMNS"'row { print FILENAME ":" cell("examples") + cell("exact_match") }' \
    "$TMP/a.csv" "$TMP/b.csv" | sed "s|$TMP/||" | tr '\n' ' ')
want='a.csv:200.25 a.csv:200.5 a.csv:200 b.csv:200.25 b.csv:200.5 b.csv:200 '
if [ "$got" = "$want" ]; then ok csv_columns_each_file_its_header
else fail csv_columns_each_file_its_header "got [$got], want [$want]"; fi

awk -F, "$CSV_COLUMNS"'row { print cell("bleu") }' "$TMP/b.csv" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$TMP/out" ] && grep -qx "$TMP/b.csv:3: no column \"bleu\"" "$TMP/err"; then
    ok csv_columns_unknown_name
else fail csv_columns_unknown_name "exit $rc, stderr [$(cat "$TMP/err")]"; fi
