#!/bin/sh
# Runs each test program or script given, echoes its output, and counts `ok`, `FAIL` and `skip`
# lines. A skip is a check whose premise is missing (no data, no python3, a busy machine); it
# says why (`skip NAME: reason`) and is never counted as a pass. A program that exits non-zero
# without printing a FAIL line (a crash, a sanitizer report) counts as one failure.
# Ends with the line `N passed, N failed, N skipped`; exit 1 on any failure.
export OMP_WAIT_POLICY=passive
passed=0; failed=0; skipped=0
out=$(mktemp); trap 'rm -f "$out"' EXIT
for t in "$@"; do
    echo "# $t"
    case "$t" in
        *.sh) sh "$t" >"$out" 2>&1 ;;
        *)    "$t" >"$out" 2>&1 ;;
    esac
    rc=$?
    cat "$out"
    p=$(grep -c '^ok ' "$out"); f=$(grep -c '^FAIL ' "$out"); s=$(grep -c '^skip ' "$out")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $t: exited with status $rc"; f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
