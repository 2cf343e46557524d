# Every tool (src/tools/*.c) and every script (scripts/*.sh, lib.sh included) answers --help:
# exit status 0 and, as its first line, a usage line naming it ("usage: ./plot ...",
# "usage: scripts/lengthgen.sh ...").
. tests/lib.sh

for src in src/tools/*.c; do
    tool=$(basename "$src" .c)
    if [ ! -x "$BIN_DIR/$tool" ]; then fail "help_$tool" "$BIN_DIR/$tool not built"; continue; fi
    "$BIN_DIR/$tool" --help >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    first=$(grep -m 1 . "$TMP/out")
    if [ $rc -eq 0 ] && echo "$first" | grep -iq "^usage: \./$tool\b"; then ok "help_$tool"
    else fail "help_$tool" "exit $rc, first line '$first' $(head -c 200 "$TMP/err")"; fi
done

for script in scripts/*.sh; do
    name=$(basename "$script")
    sh "$script" --help >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    first=$(grep -m 1 . "$TMP/out")
    if [ $rc -eq 0 ] && echo "$first" | grep -iq "^usage: \(\. \)\{0,1\}scripts/$name\b"; then ok "help_$name"
    else fail "help_$name" "exit $rc, first line '$first' $(head -c 200 "$TMP/err")"; fi
done
