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
make -s -j2 build/opt/bin/bench
bench=build/opt/bin/bench cores=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_jobs.XXXXXX")
trap 'rm -rf "$work"' EXIT
rate() { awk '$1 == "train" { print $4 }' "$1"; }
: >"$work/pairs"
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
        echo "$shape $i $(rate "$work/alone") $(rate "$work/t1") $(rate "$work/t2")" >>"$work/pairs"
        i=$((i + 1))
    done
done
# shape pair alone together ratio
awk '{ t = $4 + $5; print $1, $2, $3, t, t / $3 }' "$work/pairs" >"$work/r"
table() {
    echo "| shape | together / alone: median | lowest | highest | alone: tokens/s | together: tokens/s |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    for shape in $(echo "$only" | tr , ' '); do
        awk -v s="$shape" '$1 == s { print $5, $3, $4 }' "$work/r" | sort -g | awk -v s="$shape" '
            { r[NR] = $1; a[NR] = $2; t[NR] = $3 }
            function med(v, n,   i, j, x) {   # median of v[1..n] (sorted copy)
                for (i = 1; i <= n; i++) w[i] = v[i]
                for (i = 2; i <= n; i++) for (j = i; j > 1 && w[j - 1] > w[j]; j--) { x = w[j]; w[j] = w[j - 1]; w[j - 1] = x }
                return n % 2 ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
            }
            END { printf "| %s | %.3f | %.3f | %.3f | %.0f | %.0f |\n", s, med(r, NR), r[1], r[NR],
                         med(a, NR), med(t, NR) }'
    done
}
echo "# together: 2 x bench --threads 1 at once; alone: bench --threads $cores; $pairs pairs"
table
if [ -n "$out" ]; then
    mkdir -p "$out"
    { echo "shape,pair,alone_tokens_per_s,together_tokens_per_s,ratio"
      awk -v OFS=, '{ print $1, $2, $3, $4, sprintf("%.4f", $5) }' "$work/r"; } >"$out/jobs.csv"
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
