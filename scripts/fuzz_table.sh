#!/bin/sh
# usage: scripts/fuzz_table.sh [DIR]      (default: build/fuzz/runs, make fuzz's FUZZ_DIR)
#
# The fuzzing table: for every libFuzzer log that `make fuzz` left in DIR (NAME.log, with the
# commit and command in NAME.run), the seconds and executions of libFuzzer's final stats, the
# coverage of its last status line (cov: edges, ft: features, corp: inputs kept), and the
# findings: those fixed, listed in tests/fuzz/findings.txt, and an open one when the log ends
# in a crash. Writes results/robustness/fuzz.md (with the CPU); docs/robustness.md shows it.
case "${1:-}" in
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz_table.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.." || exit 2
dir=${1:-build/fuzz/runs}
ls "$dir"/*.log >/dev/null 2>&1 || { echo "fuzz_table.sh: no logs in $dir (make fuzz)" >&2; exit 2; }
out=results/robustness/fuzz.md
mkdir -p results/robustness
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
tmp=$out.tmp.$$
make -s build/opt/bin/table
table=build/opt/bin/table
trap 'rm -f "$tmp" "$tmp.fixed" "$tmp.log"' EXIT
{
    echo "# Fuzzing"
    echo
    echo "Written by \`sh scripts/fuzz_table.sh\` from the logs of \`make fuzz\` on ${cpu:-an unknown CPU}"
    echo "($(nproc) logical CPUs, shared with other jobs: executions depend on the load)."
    echo "Each target ran under ASan + UBSan (clang, \`-fsanitize=fuzzer,address,undefined\`) from"
    echo "its seeds in \`tests/fuzz/corpus_NAME\`. Coverage is libFuzzer's: edges (cov) and"
    echo "features (ft) of its last status line. Findings: fixed ones from \`tests/fuzz/findings.txt\`."
    echo "The commit is the one checked out when the run started; a + marks uncommitted changes in"
    echo "\`src/\` or \`tests/fuzz/\` then."
    echo
    echo "| target | commit | command | seconds | executions | edges | features | corpus | findings |"
    echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
    # findings.txt's targets as CSV rows line,target (the lines that are not comments)
    { echo "line,target"; grep -n '^[^#	][^	]*	' tests/fuzz/findings.txt 2>/dev/null |
        sed 's/^\([0-9]*\):\([^	]*\)	.*/\1,\2/'; } >"$tmp.fixed"
    for log in "$dir"/*.log; do
        t=$(basename "$log" .log)
        run=$(cat "$dir/$t.run" 2>/dev/null)
        # the log's lines that count, as CSV: status (cov: edges, ft: features, corp: inputs
        # kept), done and units (executions, seconds), crash
        awk 'BEGIN { print "line,kind,cov,ft,corp,runs,secs" }
            / cov: / { cov = ft = corp = ""
                       for (i = 1; i < NF; i++) { if ($i == "cov:") cov = $(i + 1)
                                                  if ($i == "ft:") ft = $(i + 1)
                                                  if ($i == "corp:") { corp = $(i + 1); sub(/\/.*/, "", corp) } }
                       print NR ",status," cov "," ft "," corp ",," }
            /^Done [0-9]+ runs in [0-9]+ second/ { print NR ",done,,,," $2 "," $5 }
            /^stat::number_of_executed_units:/ { print NR ",units,,,," $2 "," }
            /ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error:|^SUMMARY: / {
                print NR ",crash,,,,," }' "$log" >"$tmp.log"
        status=$($table --plain --value cov:last --value ft:last --value corp:last \
            --filter kind=status "$tmp.log" | sed 's/,/ | /g')
        runs=$($table --plain --value runs:last --filter kind=done --filter kind=units "$tmp.log")
        secs=$($table --plain --value secs:last --filter kind=done "$tmp.log")
        crash=$($table --plain --value line:count:%d --filter kind=crash "$tmp.log")
        fixed=$($table --plain --value line:count:%d --filter "target=$t" "$tmp.fixed")
        f="${fixed:-0} fixed"
        [ -z "$crash" ] || f="$f, 1 open (the log ends in a crash)"
        [ -n "$secs" ] || { secs="—"; f="$f, run did not finish"; }
        echo "| $t | ${run%% *} | \`${run#* }\` | $secs | ${runs:-—} | ${status:- |  | } | $f |"
    done
    echo
    echo "Findings, each fixed with a regression test in the normal test suite:"
    echo
    echo "| target | found by | finding | regression test |"
    echo "| --- | --- | --- | --- |"
    grep -v '^#' tests/fuzz/findings.txt | awk -F'\t' 'NF >= 4 { printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
} >"$tmp" && mv "$tmp" "$out" && echo "wrote $out"
