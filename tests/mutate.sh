#!/bin/sh
# Mutation testing (`make mutate`): each mutant of tests/mutants.txt is one small breakage of
# the source. It is applied to a scratch copy of the tree (never the working tree), the tests
# listed for it are rebuilt and run, and the file is restored. A mutant is killed when one
# of its tests fails, crashes or times out; a survivor means the tests do not pin that code.
#
#   sh tests/mutate.sh [FILTER]     FILTER: run only the mutants whose name contains it
#   sh tests/mutate.sh --check      only check that every `from` text still matches (no builds)
#   MUTANTS=FILE (another list), MUTANT_TIMEOUT=SECONDS (per test run, default 300)
#
# Prints one verdict per mutant, the kill rate and the survivors. Mutants marked
# `equivalent:` in the list (the change cannot alter any output) are still run and reported,
# but left out of the rate. Exits 1 when a mutant's `from` text is not found exactly once in
# its file (the source moved on: re-anchor it) or a mutant does not build (a broken entry),
# and when the kill rate is below 95%.
set -u
LIST=${MUTANTS:-tests/mutants.txt}
FILTER=${1:-}
CHECK_ONLY=0
[ "$FILTER" = --check ] && { CHECK_ONLY=1; FILTER=; }
TIMEOUT=${MUTANT_TIMEOUT:-300}
# The tests run with a mutant applied; tests/test_docs.sh then leaves out its --check of the list.
export MUTATE_SCRATCH=1
top=$(pwd)
case "$LIST" in /*) ;; *) LIST="$top/$LIST" ;; esac
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mutate.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# The scratch tree: sources, tests, data, README.md and docs (tests/test_docs.sh checks them),
# the committed results (tests/test_tables.sh writes their tables again) and the current build (timestamps kept, so only what
# a mutant touches is recompiled).
[ "$CHECK_ONLY" = 1 ] || mkdir -p "$scratch/tree"
[ "$CHECK_ONLY" = 1 ] || for d in Makefile README.md src tests data configs scripts results docs; do [ -e "$d" ] && cp -pR "$d" "$scratch/tree/"; done
[ "$CHECK_ONLY" = 0 ] && [ -d build/opt ] && mkdir -p "$scratch/tree/build" && cp -pR build/opt "$scratch/tree/build/"
# Tests find the Multi30k data at ../shared/data (beside the checkout): the same beside the copy.
[ "$CHECK_ONLY" = 1 ] || { [ -d ../shared ] && ln -s "$(cd ../shared && pwd)" "$scratch/shared"; }
[ "$CHECK_ONLY" = 1 ] || cd "$scratch/tree" || exit 2
[ "$CHECK_ONLY" = 1 ] || echo "# mutate: scratch tree $scratch/tree; building it once"
[ "$CHECK_ONLY" = 1 ] || make -j2 tools >"$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; echo "the unmutated tree does not build"; exit 2; }

# The list as one record per line, fields split by \037 (so empty ones survive `read`):
# name, tests, note, number of edits, then file/from/to triples (see tests/mutants.txt).
awk '
    function flush() { if (name != "") { printf "%s\037%s\037%s\037%d%s\n", name, tests, note, n, edits } name = ""; tests = ""; note = ""; n = 0; edits = "" }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    { key = $0; sub(/:.*/, "", key); val = $0; sub(/^[a-z]+: ?/, "", val) }
    key == "mutant" { flush(); name = val; next }
    key == "file"   { file = val; next }
    key == "from"   { from = val; next }
    key == "to"     { edits = edits "\037" file "\037" from "\037" val; n++; next }
    key == "tests"  { tests = val; next }
    key == "note"   { note = val; next }
    { print "mutants.txt: cannot read line: " $0 > "/dev/stderr"; bad = 1 }
    END { flush(); exit bad }
' "$LIST" >"$scratch/records" || exit 2

# --check: each mutant's edits applied in order to the text of its files in memory (nothing is
# copied or written: about a second for the whole list); a `from` found 0 or 2+ times is stale.
if [ "$CHECK_ONLY" = 1 ]; then
    awk -F '\037' '
        function slurp(f,   line, t, rc) {
            if (f in TEXT) return 1
            t = ""; while ((rc = (getline line < f)) > 0) t = t line "\n"
            if (rc < 0) return 0
            close(f); TEXT[f] = t; return 1
        }
        {
            split("", cur)
            for (e = 5; e + 2 <= NF; e += 3) {
                f = $e; from = $(e + 1); to = $(e + 2)
                if (!(f in cur)) { if (!slurp(f)) { why = "no file " f; break } cur[f] = TEXT[f] }
                at = index(cur[f], from)
                if (at == 0 || index(substr(cur[f], at + length(from)), from)) {
                    why = "\047" from "\047 is not found exactly once in " f; break
                }
                cur[f] = substr(cur[f], 1, at - 1) to substr(cur[f], at + length(from))
                why = ""
            }
            if (why != "") { print "ERROR " $1 ": STALE (stale: " why ")"; stale++ }
            why = ""
        }
        END {
            if (!stale) { print "every mutant\047s text matches"; exit 0 }
            print stale " mutants are stale: fix tests/mutants.txt"; exit 1
        }' "$scratch/records"
    exit
fi

# replace FILE: the only occurrence of $FROM becomes $TO. Exit 3 when FROM occurs 0 or 2+ times.
replace() {
    FROM=$2 TO=$3 awk '
        BEGIN { from = ENVIRON["FROM"]; to = ENVIRON["TO"]; RS = "^$" }
        { text = $0 }
        END {
            at = index(text, from); if (at == 0) exit 3
            if (index(substr(text, at + length(from)), from)) exit 3
            printf "%s%s%s", substr(text, 1, at - 1), to, substr(text, at + length(from))
        }' "$1" >"$1.mut" && mv "$1.mut" "$1"
}

# Build target of a test: a C test program or a shell test (which runs the tools).
target() { case "$1" in *.sh) echo tools build/opt/bin/bench ;; *) echo "build/opt/tests/$1" ;; esac; }
run_one() {
    case "$1" in
        *.sh) BIN_DIR=build/opt/bin timeout "$TIMEOUT" sh "tests/$1" ;;
        *)    timeout "$TIMEOUT" "build/opt/tests/$1" ;;
    esac </dev/null >"$scratch/out" 2>&1
    rc=$?
    [ "$rc" -ne 0 ] || grep -q '^FAIL ' "$scratch/out" && return 1
    return 0
}

# The listed tests must pass on the unmutated tree, or a "kill" would mean nothing.
sep=$(printf '\037')
if [ "$CHECK_ONLY" = 0 ]; then
    all_tests=$(while IFS="$sep" read -r name tests rest; do
                    case "$name" in *"$FILTER"*) echo "$tests" ;; esac
                done <"$scratch/records" | tr ' ' '\n' | sort -u)
    targets=""; for t in $all_tests; do targets="$targets $(target "$t")"; done
    make -j2 $targets </dev/null >"$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; exit 2; }
    for t in $all_tests; do
        run_one "$t" || { cat "$scratch/out"; echo "$t fails on the unmutated tree: fix it first"; exit 2; }
    done
    echo "# baseline: $(echo $all_tests | wc -w) tests pass unmutated"
fi

total=0; killed=0; equiv=0; broken=0; survivors=""
while IFS="$sep" read -r name tests note n rest; do
    case "$name" in *"$FILTER"*) ;; *) continue ;; esac
    # Apply every edit; the originals go to $scratch/orig.
    rm -rf "$scratch/orig"; mkdir -p "$scratch/orig"
    status=ok; files=""
    set -f; IFS="$sep"; set -- $rest; IFS=' '; set +f
    while [ $# -ge 3 ]; do
        f=$1; [ -e "$scratch/orig/$(echo "$f" | tr / _)" ] || cp -p "$f" "$scratch/orig/$(echo "$f" | tr / _)"
        files="$files $f"
        replace "$f" "$2" "$3" || { status="stale: '$2' is not found exactly once in $f"; break; }
        shift 3
    done
    verdict=""
    if [ "$status" != ok ]; then
        verdict="STALE ($status)"; broken=$((broken + 1))
    elif [ "$CHECK_ONLY" = 1 ]; then
        verdict=checked
    else
        targets=""; for t in $tests; do targets="$targets $(target "$t")"; done
        if ! make -j2 $targets </dev/null >"$scratch/build.log" 2>&1; then
            verdict="DOES NOT BUILD"; broken=$((broken + 1))
        else
            for t in $tests; do
                if ! run_one "$t"; then verdict="killed by $t"; break; fi
            done
        fi
    fi
    # Restore (the copies get a new mtime, so the next build recompiles them).
    for f in $files; do o="$scratch/orig/$(echo "$f" | tr / _)"; [ -e "$o" ] && cp "$o" "$f" && touch "$f"; done
    case "$verdict" in STALE*|DOES*) echo "ERROR $name: $verdict"; continue ;; checked) continue ;; esac
    total=$((total + 1))
    case "$note" in equivalent:*) eq=1 ;; *) eq=0 ;; esac
    if [ -n "$verdict" ]; then killed=$((killed + 1)); echo "killed   $name ($verdict)"
    elif [ "$eq" = 1 ]; then equiv=$((equiv + 1)); echo "survived $name [$note]"
    else survivors="$survivors
  $name"; echo "SURVIVED $name (tests: $tests)"
    fi
done <"$scratch/records"

if [ "$CHECK_ONLY" = 1 ]; then
    [ "$broken" -eq 0 ] && echo "every mutant's text matches" && exit 0
    echo "$broken mutants are stale: fix tests/mutants.txt"; exit 1
fi
scored=$((total - equiv))
rate=$(awk -v k="$killed" -v s="$scored" 'BEGIN { printf "%.1f", s ? 100 * k / s : 100 }')
echo "mutants: $total run, $killed killed, $equiv equivalent, $((scored - killed)) survived; kill rate $rate% ($killed/$scored)"
[ -n "$survivors" ] && echo "survivors:$survivors"
[ "$broken" -eq 0 ] || { echo "$broken mutants are stale or do not build: fix tests/mutants.txt"; exit 1; }
awk -v r="$rate" 'BEGIN { exit !(r + 0 >= 95) }' || { echo "kill rate below 95%"; exit 1; }
