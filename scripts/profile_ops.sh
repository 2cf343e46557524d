#!/bin/sh
# Where a small model's training step goes, op by op (forward and backward): perf samples of
# the bench's training steps on one thread, each function's own samples put into the row of
# the op whose source file defines it. Writes OUT/profile_ops.csv and .md.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'USAGE'
usage: scripts/profile_ops.sh [--out DIR] [--only LIST] [--runs N] [--rev REV]

Records `perf record -F 4000 -e cpu-clock build/opt/bin/bench --only SHAPE --threads 1
--runs N` (default runs 5) for each SHAPE of LIST (default toy,copy,lmcopy,lstm) and puts
each function's own (self) samples into one row:
  OP forward / OP backward  a function of src/core/ops_OP.c: op_* or a name with
                "forward" in it, a name with "backward" in it; static helpers inlined
                into them count with them
  OP helpers (both directions)  its other functions (attention's block kernels)
  products (gemm)           src/core/kernels.c: the matrix products of every op, both
                directions (no call graph: -O3 code unwinds unreliably)
  optimizer                 src/core/optim.c, params.c (AdamW, gradient norm, zeroing)
  memset/memcpy, OpenMP runtime, kernel (page faults of the arena's first touch,
  scheduling), tape and arena (tape.c, arena.c, tensor.c), model code (src/models, src/nn,
  src/pos, src/run), other
The bench's peak loop (run before each timed run) is left out of the shares. Samples of a
loaded host still fall where the step spends its time, but memory-bound code slows more
under load than the products: record the load (first line of the .md) with the figures.
Writes into DIR (default results/bench):
  profile_ops.csv  shape,row,share
  profile_ops.md   commit, CPU, load, commands and one table (rows by mean share)
--rev REV profiles git revision REV's bench instead of the working tree's, built in
${TMPDIR:-/tmp}/revs/COMMIT as scripts/bench_ab.sh builds it (a profile before a change).
Needs perf (linux-tools) and perf_event_paranoid <= 2.
USAGE
}

out=results/bench only=toy,copy,lmcopy,lstm runs=5 rev=''
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
        --only) [ $# -ge 2 ] || die "--only needs a list"; only=$2; shift 2 ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --rev) [ $# -ge 2 ] || die "--rev needs a git revision"; rev=$2; shift 2 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
case "$runs" in ''|*[!0-9]*|0) die "--runs wants a positive number, not '$runs'" ;; esac
command -v perf >/dev/null || die "perf not found (apt-get install linux-tools-generic)"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -j2 build/opt/bin/bench build/opt/bin/table
bench=build/opt/bin/bench table=build/opt/bin/table
. scripts/rev_tree.sh
if [ -n "$rev" ]; then
    tree=$(rev_tree "$rev" build/opt/bin/bench)
    bench=$tree/build/opt/bin/bench
fi
# function -> its source file, from the debug information
nm -l --defined-only "$bench" | awk 'NF >= 4 { f = $4; sub(/:[0-9]+$/, "", f); sub(/^.*\/src\//, "", f)
                                               print $3, f }' >"$tmp/files"
load=$(cut -d' ' -f1-3 /proc/loadavg)
export OMP_NUM_THREADS=1
csv="$out/profile_ops.csv" shapes=""
echo "shape,row,share" >"$csv"
for shape in $(echo "$only" | tr , ' '); do
    perf record -q -F 4000 -e cpu-clock -o "$tmp/$shape.data" \
        "$bench" --only "$shape" --threads 1 --runs "$runs" --tsv >"$tmp/$shape.tsv" 2>/dev/null ||
        die "perf record of bench --only $shape failed"
    grep -q "^train" "$tmp/$shape.tsv" || die "bench --only $shape: not a training shape"
    perf report -i "$tmp/$shape.data" --no-children --sort dso,symbol --stdio -q 2>/dev/null |
        awk 'NF >= 4 { sub(/%/, "", $1); print $1, $2, $3, $4 }' >"$tmp/$shape.self"
    awk '
        NR == FNR { file[$1] = $2; next }
        { pct = $1; dso = $2; fn = $4; sub(/\.(constprop|isra|part|cold)\..*$/, "", fn)
          f = (fn in file) ? file[fn] : ""
          if (fn ~ /^peak_loop/) next
          if ($3 == "[k]") row = "kernel (page faults; scheduling)"
          else if (dso ~ /libgomp/) row = "OpenMP runtime"
          else if (fn ~ /^__mem(set|move|cpy)/) row = "memset/memcpy"
          else if (f ~ /core\/kernels\.c$/) row = "products (gemm; both directions)"
          else if (f ~ /core\/ops_[a-z]+\.c$/) {
              op = f; sub(/^.*ops_/, "", op); sub(/\.c$/, "", op)
              row = op (fn ~ /backward/ ? " backward" : fn ~ /^op_|forward/ ? " forward" \
                                                       : " helpers (both directions)")
          } else if (f ~ /core\/(optim|params)\.c$/) row = "optimizer"
          else if (f ~ /core\/(tape|arena|tensor)\.c$/) row = "tape and arena"
          else if (f ~ /^(models|nn|pos|run)\//) row = "model code"
          else row = "other"
          print row "," pct }' "$tmp/files" "$tmp/$shape.self" >"$tmp/$shape.rows"
    { echo "row,samples"; cat "$tmp/$shape.rows"; } >"$tmp/$shape.csv"
    $table --plain --rows row --value samples:share:%.4f "$tmp/$shape.csv" |
        sed "s|^|$shape,|" | sort -t, -k3,3gr >>"$csv"
    awk -F'\t' -v s="$shape" '$1 == "train" { printf "- %s: `%s --only %s --threads 1 --runs %s` (%.0f tokens/s, %.1f %% peak while recorded)\n", s, "build/opt/bin/bench", s, "'"$runs"'", $4, $NF }' \
        "$tmp/$shape.tsv" >>"$tmp/commands"
    shapes="$shapes $shape"
done
if [ -n "$rev" ]; then commit=$(git rev-parse --short "$rev")
else commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo "+changes"); fi
{
    echo "$(cpu_line); load average when recorded: $load"
    echo
    echo "Commit $commit. Written by \`scripts/profile_ops.sh --only $(echo "$shapes" | sed "s/^ //; s/ /,/g") --runs $runs${rev:+ --rev $rev}\`:"
    echo "\`perf record -F 4000 -e cpu-clock\` of one thread, each function's own samples in the row"
    echo "of the source file that defines it, as a share of the samples outside bench's peak loop:"
    echo
    cat "$tmp/commands"
    echo
    echo "## Shares of a step"
    echo
    # rows by their mean share over the shapes, largest first; those under 0.3 % left out
    set -- $shapes
    $table --csv --rows row --value "mean=share/$#:sum:%.17g" "$csv" >"$tmp/means.csv"
    $table --plain --rows row --value mean:text --filter 'mean>=0.003' "$tmp/means.csv" |
        sort -s -t, -k2,2gr | cut -d, -f1 >"$tmp/kept"
    { head -1 "$csv"; while read -r row; do grep -F ",$row," "$csv"; done <"$tmp/kept"; } \
        >"$tmp/kept.csv"
    $table --rows row --cols shape --value 'share:sum:%.1f %%' --scale 100 "$tmp/kept.csv" |
        sed 's/| |/| – |/g; s/| |/| – |/g'
    [ -z "$($table --plain --value mean:count:%d --filter 'mean<0.003' "$tmp/means.csv")" ] ||
        printf '\nRows under 0.3 %% on average are left out (profile_ops.csv has them).\n'
} >"$out/profile_ops.md"
echo "wrote $csv and $out/profile_ops.md"
