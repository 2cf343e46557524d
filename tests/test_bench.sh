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

# Every model shape has its model FLOP/s (% peak needs them): the recurrent translator's count
# is its own (models/model_flops.h), and it must not fall back to the Transformer's.
if [ -x "$BIN_DIR/bench" ] && timeout 120 "$BIN_DIR/bench" --only lstm,copy --threads 1 --runs 1 \
        --tsv >"$TMP/out2" 2>"$TMP/err2"; then
    rows=$(awk -F'\t' '$1 == "train" && ($2 == "lstm" || $2 == "copy") && $11 > 0 && $12 > 0' \
           "$TMP/out2" | wc -l)
    if [ "$rows" -eq 2 ]; then ok "bench: lstm and copy rows with model FLOP/s"
    else fail "bench: lstm and copy rows with model FLOP/s" "$rows rows of 2: $(head -c 300 "$TMP/out2")"; fi
else
    fail "bench: lstm and copy rows with model FLOP/s" "exit or timeout: $(tail -c 300 "$TMP/err2" 2>/dev/null)"
fi

# A name --only does not know is an error, not an empty table.
if "$BIN_DIR/bench" --only toy,tyo >"$TMP/out3" 2>"$TMP/err3"; then
    fail "bench: unknown --only name refused" "exit 0: $(head -c 200 "$TMP/out3")"
elif grep -q "no shape or measurement 'tyo'" "$TMP/err3"; then ok "bench: unknown --only name refused"
else fail "bench: unknown --only name refused" "$(head -c 200 "$TMP/err3")"; fi

# --micro-batches: the forked children train on micro-batches (one a thread) and report rows.
if [ -x "$BIN_DIR/bench" ] && timeout 120 "$BIN_DIR/bench" --only lmcopy --threads 1,2 --runs 1 \
        --micro-batches 2 --tsv >"$TMP/out4" 2>"$TMP/err4"; then
    rows=$(awk -F'\t' '$1 == "train" && $2 == "lmcopy" && $4 > 0' "$TMP/out4" | wc -l)
    if [ "$rows" -eq 2 ]; then ok "bench: --micro-batches 2 on 1 and 2 threads"
    else fail "bench: --micro-batches 2 on 1 and 2 threads" "$rows rows of 2: $(head -c 300 "$TMP/out4")"; fi
else
    fail "bench: --micro-batches 2 on 1 and 2 threads" "exit or timeout: $(tail -c 300 "$TMP/err4" 2>/dev/null)"
fi
