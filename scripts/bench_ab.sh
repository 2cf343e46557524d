#!/bin/sh
# Whole training steps of two revisions side by side: each revision's bench, run alternately
# (A, B, B, A, ...), and per shape the median over the pairs of tokens/s(B) / tokens/s(A).
set -eu
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: scripts/bench_ab.sh [--only LIST] [--threads N] [--pairs N] [--args ARGS] [--b-args ARGS] [--tsv FILE]
                          REV_A [REV_B]

Builds build/opt/bin/bench of REV_A and of REV_B (default: the working tree) and times them
alternately, one `bench --only LIST --threads N --runs 1 --tsv` each, A first in odd pairs
and B first in even ones, so that a host whose speed drifts (other processes on a shared
machine) slows both alike. Prints, per training shape, the median over the pairs of
tokens/s(B) / tokens/s(A) (above 1: B is faster), the lowest and highest pair ratio, and
each side's median tokens/s, % of the peak loop (bench's column) and peak resident MiB.

  REV_A, REV_B  git revisions (a commit, a branch, HEAD~2); each is extracted with git
                archive into ${TMPDIR:-/tmp}/revs/COMMIT and built there once (kept for
                the next call); the working tree is built in place (make build/opt/bin/bench)
  --only LIST   bench shapes, comma-separated (default toy,lmcopy); see ./bench --help
  --threads N   OpenMP threads of both sides (default 2)
  --pairs N     pairs to time (default 7)
  --args ARGS   more arguments of both sides' bench, e.g. "--micro-batches 2"
  --b-args ARGS more arguments of B's bench only
  --tsv FILE    also write every pair: shape, pair, tokens/s of A, of B, ratio B/A
  --md FILE     also write the table as markdown, headed by the command, commits, CPU and load
Example: scripts/bench_ab.sh --only toy,lmcopy,copy --threads 2 --pairs 9 cb9cb46
EOF
}

only=toy,lmcopy threads=2 pairs=7 tsv='' md='' b_args='' both_args=''
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --only) only=${2:?--only needs a list}; shift 2 ;;
        --threads) threads=${2:?--threads needs a number}; shift 2 ;;
        --pairs) pairs=${2:?--pairs needs a number}; shift 2 ;;
        --b-args) b_args=${2?--b-args needs arguments}; shift 2 ;;
        --args) both_args=${2?--args needs arguments}; shift 2 ;;
        --tsv) tsv=${2:?--tsv needs a file}; shift 2 ;;
        --md) md=${2:?--md needs a file}; shift 2 ;;
        --*) echo "bench_ab.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || { usage >&2; exit 2; }
for n in "$threads" "$pairs"; do
    case "$n" in ''|*[!0-9]*|0) echo "bench_ab.sh: '$n' is not a positive number" >&2; exit 2 ;; esac
done

. scripts/rev_tree.sh
# bench_of REV: the path of REV's bench (built if needed); empty REV: the working tree's.
bench_of() {
    if [ -z "$1" ]; then
        make -s -j2 build/opt/bin/bench >&2
        echo "$PWD/build/opt/bin/bench"
    else
        tree=$(rev_tree "$1" build/opt/bin/bench)
        echo "$tree/build/opt/bin/bench"
    fi
}
rev_a=$1 rev_b=${2:-}
args="$*"
bench_a=$(bench_of "$rev_a")
bench_b=$(bench_of "$rev_b")
make -s -j2 build/opt/bin/table >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
# one run of SIDE's bench: "shape pair tokens/s % peak MiB" lines appended to $work/SIDE
run() {
    extra=$both_args
    [ "$1" = b ] && extra="$both_args $b_args"
    # shellcheck disable=SC2086 # both_args and b_args are lists of arguments
    "$2" --only "$only" --threads "$threads" --runs 1 --tsv $extra |
        awk -v p="$3" '$1 == "train" { print $2, p, $4, $12, $8 }' >> "$work/$1"
}
echo "# A = $rev_a, B = ${rev_b:-the working tree ($(git rev-parse --short HEAD) + changes)};" \
     "--only $only --threads $threads${both_args:+; both $both_args}${b_args:+; B also $b_args}; $pairs pairs; $(nproc) cores"
alternate "$pairs" run "$bench_a" "$bench_b"

# pairs.csv: shape, pair, then tokens/s, % peak and peak MiB of A and of B; the ratios and
# medians are ./table's
{ echo shape,pair,a,b,peak_a,peak_b,mib_a,mib_b
  awk 'NR == FNR { a[$1 " " $2] = $3 "," $4 "," $5; next } ($1 " " $2) in a {
    split(a[$1 " " $2], x, ","); print $1 "," $2 "," x[1] "," $3 "," x[2] "," $4 "," x[3] "," $5 }' \
    "$work/a" "$work/b"; } > "$work/pairs.csv"
if [ -n "$tsv" ]; then
    { printf 'shape\tpair\ttokens_per_s_a\ttokens_per_s_b\tratio_b_a\n'
      build/opt/bin/table --plain --rows shape --rows pair --value a:text --value b:text --value b/a:mean:%.4f \
          "$work/pairs.csv" | tr , '\t'; } > "$tsv"
fi
printf '%-10s %8s %8s %8s %12s %12s %8s %8s %7s %7s\n' shape median lowest highest "A tokens/s" \
    "B tokens/s" "A %peak" "B %peak" "A MiB" "B MiB"
# stats SHAPE: the median, lowest and highest B/A (6 digits), then the medians of A and of B:
# tokens/s, % peak, peak MiB
stats() { build/opt/bin/table --plain --filter shape="$1" --value b/a:median:%.6g --value b/a:min:%.6g \
    --value b/a:max:%.6g --value a:median:%.17g --value b:median:%.17g --value peak_a:median:%.6g \
    --value peak_b:median:%.6g --value mib_a:median:%.6g --value mib_b:median:%.6g \
    "$work/pairs.csv" | tr , ' '; }
for shape in $(echo "$only" | tr , ' '); do
    grep -q "^$shape," "$work/pairs.csv" || {
        for side in a b; do
            grep -q "^$shape " "$work/$side" 2>/dev/null || echo "$shape: not a training shape of $side's bench"
        done
        continue; }
    # shellcheck disable=SC2046,SC2183 # nine numbers
    printf '%-10s %8.3f %8.3f %8.3f %12.0f %12.0f %7.1f%% %7.1f%% %7.0f %7.0f\n' "$shape" $(stats "$shape")
done
if [ -n "$md" ]; then
    {
        echo "$(cpu_line); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo
        echo "Written by \`scripts/bench_ab.sh --only $only --threads $threads --pairs $pairs${both_args:+ --args \"$both_args\"}${b_args:+ --b-args \"$b_args\"} $args\`:"
        echo "A = $rev_a ($(git rev-parse --short "$rev_a")), B = ${rev_b:-the working tree} ($(git rev-parse --short "${rev_b:-HEAD}")$( [ -n "$rev_b" ] || git diff --quiet HEAD -- src || echo "+changes"));"
        echo "each pair one \`bench --runs 1\` of each, alternated; ratio = tokens/s(B) / tokens/s(A)."
        echo
        echo "## Paired ratios"
        echo
        echo "| shape | B / A: median | lowest | highest | A: tokens/s | B: tokens/s | A: % peak | B: % peak | A: peak MiB | B: peak MiB |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for shape in $(echo "$only" | tr , ' '); do
            grep -q "^$shape," "$work/pairs.csv" || continue
            # shellcheck disable=SC2046,SC2183 # nine numbers
            printf '| %s | %.3f | %.3f | %.3f | %.0f | %.0f | %.1f %% | %.1f %% | %.0f | %.0f |\n' "$shape" $(stats "$shape")
        done
    } >"$md"
    echo "wrote $md"
fi
