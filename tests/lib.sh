# Helpers for shell tests (tests/test_*.sh): source it, then call ok/fail.
# BIN_DIR points at the build's tools (optimised or sanitized); run from the top level.
BIN_DIR=${BIN_DIR:-build/opt/bin}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
ok()   { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }
# expect_error NAME PATTERN CMD...: CMD must exit non-zero and print PATTERN (grep -E) on stderr.
expect_error() {
    name=$1; pat=$2; shift 2
    if "$@" >"$TMP/out" 2>"$TMP/err"; then fail "$name" "exited 0"; return; fi
    if grep -Eq -- "$pat" "$TMP/err"; then ok "$name"
    else fail "$name" "stderr did not match '$pat': $(head -c 300 "$TMP/err")"; fi
}
