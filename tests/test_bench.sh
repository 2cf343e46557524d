# ./bench measures each shape in a forked child: the smallest shape on one and two threads must
# finish (a parent that had started OpenMP threads left every two-thread child waiting forever
# at its first parallel region) and print a positive speed and memory for each.
. tests/lib.sh

if [ ! -x "$BIN_DIR/bench" ]; then
    fail "bench: toy on 1 and 2 threads" "$BIN_DIR/bench not built (make test builds it)"
elif ! timeout 120 "$BIN_DIR/bench" --only toy --threads 1,2 --runs 1 --tsv \
        >"$TMP/out" 2>"$TMP/err"; then
    fail "bench: toy on 1 and 2 threads" "exit or timeout (120 s): $(tail -c 300 "$TMP/err")"
else
    rows=$(awk -F'\t' '$1 == "train" && $2 == "toy" && ($3 == 1 || $3 == 2) && $4 > 0 &&
                       $8 > 0' "$TMP/out" | wc -l)
    if [ "$rows" -eq 2 ]; then ok "bench: toy on 1 and 2 threads"
    else fail "bench: toy on 1 and 2 threads" "$rows rows of 2: $(head -c 300 "$TMP/out")"; fi
fi
