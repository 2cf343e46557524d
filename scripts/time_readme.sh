#!/bin/sh
# usage: scripts/time_readme.sh [--alone] [--repo DIR] [--shared DIR] [--out DIR]
#                               [--command CMD]... [--keep] [--dry-run]
#
# The README's two commands, timed as a newcomer meets them: clones the repository's committed
# HEAD into a fresh temporary folder, runs `make && ./train configs/rope.ini` and then
# `make test` there, exactly as the README writes them, and records each one's wall time and
# what it ends with (the last evaluation line of the training and the line `./train` ends
# with; the test runner's `N passed, N failed, N skipped`). Writes OUT/SLUG.md and OUT/SLUG.csv,
# SLUG named after the CPU (lscpu's Model name) and its core count, with the commit, the
# command, the CPU, the cores, the tools' build and the load average around the run.
#
#   --alone        clone into an empty folder: no ../shared beside the clone, so the checks
#                  that need its data (Multi30k) skip. SLUG gets the suffix -alone.
#                  Default: the clone sits beside a link `shared` to the real ../shared (the
#                  folder beside --repo), as the tests and CI expect it.
#   --repo DIR     the repository to clone (default: the one this script is in)
#   --shared DIR   the folder to link as ../shared (default: ../shared beside --repo)
#   --out DIR      where the .md and .csv go (default: results/readme_commands of the
#                  repository this script is in)
#   --command CMD  run CMD instead of the README's commands (repeat for several; a check
#                  of this script on something quick, e.g. --command 'make help')
#   --keep         keep the temporary folder (the clone and each command's full output)
#   --dry-run      print the plan (clone, link, commands, files) and stop
#
# Both README commands take about ten minutes of both cores of a 2-core machine: run it on a
# machine nothing else is using, or read the load average in the file it writes.
set -eu

usage() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; }
self=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "time_readme.sh: $*" >&2; exit 1; }

invocation="scripts/time_readme.sh${*:+ $*}"
alone=0; repo=$self; shared=; out=$self/results/readme_commands; keep=0; dry=0
n_cmd=0
while [ $# -gt 0 ]; do
    case "$1" in
        --alone) alone=1; shift ;;
        --repo) [ $# -ge 2 ] || die "--repo needs a folder"; repo=$2; shift 2 ;;
        --shared) [ $# -ge 2 ] || die "--shared needs a folder"; shared=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
        --command) [ $# -ge 2 ] || die "--command needs a command"
                   n_cmd=$((n_cmd + 1)); eval "cmd_$n_cmd=\$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        --dry-run) dry=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "time_readme.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
readme=0
if [ $n_cmd -eq 0 ]; then   # the README's two commands, as it writes them
    readme=1
    cmd_1='make && ./train configs/rope.ini'
    cmd_2='make test'
    n_cmd=2
fi

repo=$(cd "$repo" 2>/dev/null && git rev-parse --show-toplevel 2>/dev/null) ||
    die "--repo: not a git checkout"
if [ $alone = 0 ]; then
    [ -n "$shared" ] || shared=$(dirname "$repo")/shared
    [ -d "$shared" ] || die "no folder $shared to link beside the clone (give --shared DIR, or --alone)"
    shared=$(cd "$shared" && pwd)
fi

# The CPU as lscpu names it; the slug drops the trademarks, clock and "CPU"/"Processor".
cpu=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
[ -n "$cpu" ] || cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)
[ -n "$cpu" ] || cpu=unknown
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
slug=$(echo "$cpu" | tr 'A-Z' 'a-z' | sed 's/(r)//g; s/(tm)//g; s/@.*//; s/[^a-z0-9]\{1,\}/-/g;
       s/-cpu-/-/g; s/-cpu$//; s/-processor-/-/g; s/-processor$//; s/^-//; s/-$//')
slug="${slug:-cpu}-${cores}c"
[ $alone = 0 ] || slug=$slug-alone

commit=$(git -C "$repo" rev-parse --short HEAD)
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
    echo "time_readme.sh: note: $repo has uncommitted changes; the clone has commit $commit only" >&2

if [ $dry = 1 ]; then
    echo "clone:    git clone -q $repo TMP/$(basename "$repo")  (commit $commit)"
    if [ $alone = 0 ]; then echo "link:     TMP/shared -> $shared"
    else echo "link:     none (--alone)"; fi
    i=1; while [ $i -le $n_cmd ]; do
        eval "c=\$cmd_$i"; printf 'command %d: %s\n' $i "$c"; i=$((i + 1))
    done
    echo "CPU:      $cpu; cores: $cores"
    echo "writes:   $out/$slug.md and $out/$slug.csv"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/time_readme.XXXXXX")
if [ $keep = 1 ]; then trap 'echo "time_readme.sh: kept $tmp" >&2' EXIT
else trap 'rm -rf "$tmp"' EXIT; fi
trap 'exit 130' INT TERM
clone=$tmp/$(basename "$repo")
git clone -q "$repo" "$clone"
[ $alone = 1 ] || ln -s "$shared" "$tmp/shared"
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# One row per command: wall seconds and what the output ends with.
rows=$tmp/rows; : >"$rows"
failed=0
i=1; while [ $i -le $n_cmd ]; do
    eval "c=\$cmd_$i"
    log=$tmp/command_$i.log
    printf '[%s] %s\n' "$(date +%H:%M:%S)" "$c" >&2
    t0=$(date +%s)
    set +e
    (unset BIN_DIR MAKEFLAGS MFLAGS MAKELEVEL; cd "$clone" && sh -c "$c") >"$log" 2>&1
    rc=$?
    set -e
    wall=$(( $(date +%s) - t0 ))
    # The test runner's closing line; else the training's last evaluation and its `done:`
    # line (time and throughput of ./train alone); else the last line printed.
    result=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
    if [ -z "$result" ]; then
        step=$(grep -E '^step [0-9]+: val ' "$log" | tail -n 1)
        done_line=$(grep -E '^done: ' "$log" | tail -n 1 | sed 's/^done: .* in \(.*\)$/.\/train: \1/')
        result=$step${done_line:+; $done_line}
    fi
    [ -n "$result" ] || result=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
    if [ $rc -ne 0 ]; then
        failed=1
        result="exit status $rc: $result"
        printf "time_readme.sh: '%s' failed (exit status %d); its output ends:\n" "$c" $rc >&2
        tail -n 20 "$log" | sed 's/^/    /' >&2
    fi
    printf '[%s] %s s: %s\n' "$(date +%H:%M:%S)" "$wall" "$result" >&2
    printf '%s\t%s\t%s\n' "$c" "$wall" "$result" >>"$rows"
    i=$((i + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# The tools' build, as every results.md names it (scripts/lib.sh provenance, run in the clone).
build=$(cd "$clone" && BIN_DIR=. sh -c '. scripts/lib.sh 2>/dev/null; provenance' 2>/dev/null |
        sed -n 's/.*; tools: \(.*\); CPU: .*/\1/p')
[ -n "$build" ] || build="not built"

mkdir -p "$out"
{
    if [ $readme = 1 ]; then echo "# The README's two commands, timed from a fresh clone"
    else echo "# Commands timed from a fresh clone"; fi
    echo
    printf 'Command: `%s` (%s); each command run in the clone as\n' "$invocation" "$(if [ $alone = 0 ]
        then echo "the clone beside a link to ../shared, as the tests find their data"
        else echo "the clone alone: no ../shared beside it"; fi)"
    if [ $readme = 1 ]; then echo "the README writes it, its wall time in seconds."
    else echo "given, its wall time in seconds."; fi
    echo "Commit: $commit. CPU: $cpu (lscpu Model name); cores: $cores. Tools: $build."
    echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
    echo
    echo "| command | wall s | result |"
    echo "| --- | ---: | --- |"
    awk -F'\t' '{ gsub(/\|/, "\\|"); printf "| %s | %s | %s |\n", $1, $2, $3 }' "$rows"
} >"$out/$slug.md.tmp"
{
    echo "command,wall_s,result"
    awk -F'\t' '{ for (i = 1; i <= 3; i++) { f = $i
                      if (f ~ /[",]/) { gsub(/"/, "\"\"", f); f = "\"" f "\"" }
                      printf "%s%s", f, (i < 3 ? "," : "\n") } }' "$rows"
} >"$out/$slug.csv.tmp"
mv "$out/$slug.md.tmp" "$out/$slug.md"
mv "$out/$slug.csv.tmp" "$out/$slug.csv"
echo "time_readme.sh: wrote $out/$slug.md and $out/$slug.csv" >&2
exit $failed
