#!/bin/sh
# Two trainings at once on one thread each against one training on two threads: the
# aggregate tokens/s of each, alternated, for the choice of --jobs (scripts/lib.sh).
set -eu
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: scripts/bench_jobs.sh [--only LIST] [--pairs N] [--out DIR]

Alternates (odd pairs first one way, even pairs the other) two ways of using the cores:
  together  `bench --only SHAPE --threads 1 --runs 1` twice at once: the sum of their tokens/s
  alone     `bench --only SHAPE --threads N --runs 1` once, N = the cores (nproc)
and prints per shape of LIST (default toy,lmcopy,copy) the median over the pairs of
tokens/s(together) / tokens/s(alone), the lowest and highest pair, and each side's median.
Above 1, running small trainings side by side on one thread each (scripts/lib.sh --jobs N with
N = the cores) gets more done than one training at a time on every core.
  --pairs N   pairs (default 7)
  --out DIR   also write DIR/jobs.csv (every pair) and DIR/jobs.md (the table, commit, CPU,
              load average)
EOF
}

only=toy,lmcopy,copy pairs=7 out=
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --only) only=${2:?--only needs a list}; shift 2 ;;
        --pairs) pairs=${2:?--pairs needs a number}; shift 2 ;;
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        *) echo "bench_jobs.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$pairs" in ''|*[!0-9]*|0) echo "bench_jobs.sh: '$pairs' is not a positive number" >&2; exit 2 ;; esac
make -s -j2 build/opt/bin/bench build/opt/bin/table
bench=build/opt/bin/bench cores=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_jobs.XXXXXX")
trap 'rm -rf "$work"' EXIT
rate() { awk '$1 == "train" { print $4 }' "$1"; }
echo shape,pair,alone,t1,t2 >"$work/pairs.csv"
for shape in $(echo "$only" | tr , ' '); do
    i=1
    while [ "$i" -le "$pairs" ]; do
        alone() { "$bench" --only "$shape" --threads "$cores" --runs 1 --tsv >"$work/alone"; }
        together() {
            "$bench" --only "$shape" --threads 1 --runs 1 --tsv >"$work/t1" &
            p=$!
            "$bench" --only "$shape" --threads 1 --runs 1 --tsv >"$work/t2"
            wait "$p"
        }
        if [ $((i % 2)) = 1 ]; then alone; together; else together; alone; fi
        [ -n "$(rate "$work/alone")" ] || { echo "bench_jobs.sh: '$shape' is not a training shape of bench" >&2; exit 2; }
        echo "$shape,$i,$(rate "$work/alone"),$(rate "$work/t1"),$(rate "$work/t2")" >>"$work/pairs.csv"
        i=$((i + 1))
    done
done
# per shape (./table): together = t1 + t2; the median, lowest and highest together / alone (6
# digits), the median tokens/s alone and together
table() {
    echo "| shape | together / alone: median | lowest | highest | alone: tokens/s | together: tokens/s |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    for shape in $(echo "$only" | tr , ' '); do
        # shellcheck disable=SC2046,SC2183 # five numbers
        printf '| %s | %.3f | %.3f | %.3f | %.0f | %.0f |\n' "$shape" $(build/opt/bin/table --plain --filter shape="$shape" \
            --value t1+t2/alone:median:%.6g --value t1+t2/alone:min:%.6g --value t1+t2/alone:max:%.6g \
            --value alone:median:%.17g --value t1+t2:median:%.6g "$work/pairs.csv" | tr , ' ')
    done
}
echo "# together: 2 x bench --threads 1 at once; alone: bench --threads $cores; $pairs pairs"
table
if [ -n "$out" ]; then
    mkdir -p "$out"
    { echo "shape,pair,alone_tokens_per_s,together_tokens_per_s,ratio"
      build/opt/bin/table --plain --rows shape --rows pair --value alone:text --value t1+t2:sum:%.6g \
          --value t1+t2/alone:mean:%.4f "$work/pairs.csv"; } >"$out/jobs.csv"
    commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo "+changes")
    { echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $cores cores;" \
           "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
      echo
      echo "Commit $commit. Written by \`scripts/bench_jobs.sh --only $only --pairs $pairs\`:"
      echo "together = two \`build/opt/bin/bench --only SHAPE --threads 1 --runs 1\` at once, the"
      echo "sum of their tokens/s; alone = one \`--threads $cores\`; alternated, medians over the pairs."
      echo
      echo "## Two trainings on one thread each against one on every core"
      echo
      table; } >"$out/jobs.md"
    echo "wrote $out/jobs.csv and $out/jobs.md"
fi
