#!/bin/sh
# Where the wall time of a small model's training step goes, by perf samples (cycles, every
# thread, user and kernel), on 1 and 2 threads; the instruction counts of one thread are
# scripts/profile_step.sh's. Writes OUT/profile_perf.csv and .md.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF'
usage: scripts/profile_perf.sh [--out DIR] [--runs N] [--only LIST] [--threads LIST]

Records `perf record -g build/opt/bin/bench --only SHAPE --threads T --runs N` (default
runs 5) for each SHAPE of LIST (default toy,lmcopy) and each T of LIST (default 1,2), and
puts each function's own samples into a category: matrix products, attention (with RoPE),
elementwise and norms, loss, optimizer, tape and arena, memset/memcpy, OpenMP runtime
(libgomp: fork/join and the waiting of a thread with no work), kernel (page faults of fresh
arena pages, futex sleeps and wake-ups, scheduling), other. bench's register-only peak
loop (its `peak` line, run before every shape) is left out of the shares. On a host shared
with other processes the samples of a waiting thread grow with the load: record the load
(the first line of the .md) with the figures. Writes into DIR (default results/bench):
  profile_perf.csv  shape,threads,category,share
  profile_perf.md   commit, CPU, load, commands and one table of the categories
Needs perf (linux-tools) and a kernel that lets this user record (perf_event_paranoid <= 2).
EOF
}

out=results/bench runs=5 only=toy,lmcopy threads=1,2
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --only) [ $# -ge 2 ] || die "--only needs a list"; only=$2; shift 2 ;;
        --threads) [ $# -ge 2 ] || die "--threads needs a list"; threads=$2; shift 2 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
case "$runs" in ''|*[!0-9]*|0) die "--runs wants a positive number, not '$runs'" ;; esac
command -v perf >/dev/null || die "perf not found (apt-get install linux-tools-generic)"
make -s -j2 build/opt/bin/bench build/opt/bin/table
table=build/opt/bin/table
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

categorise() {
    # perf also samples the bench's peak loop and the kernel; a kernel function is never
    # libgomp's, so testing it first keeps step_category's order
    awk "$(cat scripts/step_categories.awk)"'
    function category(fn, obj) {
        if (fn ~ /^peak_loop/) return "peak loop (left out)"
        if (obj ~ /kernel/) return "kernel (page faults; futex; scheduling)"
        return step_category(fn, obj)
    }
    { print category($3, $2) "\t" $1 }'
}

commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo "+changes")
cpu=$(awk -F': ' '/^model name/ && !n { n = $2 } END { print n }' /proc/cpuinfo)
csv="$out/profile_perf.csv"; md="$out/profile_perf.md"
echo "shape,threads,category,share" >"$csv"
for shape in $(echo "$only" | tr , ' '); do
    for t in $(echo "$threads" | tr , ' '); do
        cmd="build/opt/bin/bench --only $shape --threads $t --runs $runs --tsv"
        perf record -q -g -o "$tmp/perf.data" $cmd >"$tmp/bench.out" 2>/dev/null
        rate=$(awk '$1 == "train" { print $4 }' "$tmp/bench.out")
        # "share dso [.] symbol"
        perf report -i "$tmp/perf.data" --no-children -g none --sort dso,sym --stdio \
            -F overhead,dso,sym 2>/dev/null |
            awk '/%/ && !/^#/ { s = $1; sub(/%/, "", s); sym = $4; for (i = 5; i <= NF; i++) sym = sym " " $i
                               print s "\t" $2 "\t" sym }' |
            awk -F'\t' '{ print $1, $2, $3 }' | categorise | tr '\t' , >"$tmp/cats"
        # each category's share of the samples outside the peak loop
        { echo "category,samples"; cat "$tmp/cats"; } >"$tmp/cats.csv"
        $table --plain --rows category --value samples:share:%.4f \
            --filter "category!=peak loop (left out)" "$tmp/cats.csv" |
            sed "s|^|$shape,$t,|" | sort -t, -k4,4nr >>"$csv"
        echo "- $shape, $t thread(s): \`$cmd\` ($rate tokens/s while recorded)" >>"$tmp/cmds"
    done
done
{
    echo "CPU: $cpu, $(nproc) cores; load average when recorded: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "Commit $commit. Written by \`scripts/profile_perf.sh\`: \`perf record -g\` of each"
    echo "command, each function's own (self) samples by category, as a share of the samples"
    echo "outside bench's peak loop (every thread, user and kernel):"
    echo
    cat "$tmp/cmds"
    echo
    echo "## Shares of the samples"
    echo
    # one column a shape and thread count ("toy/1 threads"), in the order recorded
    sed '1s/^shape,threads,/run,/; 2,$s|^\([^,]*\),\([^,]*\),|\1/\2 threads,|' "$csv" >"$tmp/runs.csv"
    $table --rows category --cols run --value 'share:sum:%.1f %%' --scale 100 "$tmp/runs.csv"
} >"$md"
echo "wrote $csv and $md"
