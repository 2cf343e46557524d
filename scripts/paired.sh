#!/bin/sh
# Old and new code side by side in one process: the paired drivers (tests/paired/) of
# docs/performance.md.
set -eu

usage() {
    cat <<'EOF'
usage: scripts/paired.sh [--threads N] [--pairs N] gemm REV_A [REV_B] [ROWS [D FF [V]]]
       scripts/paired.sh [--threads N] [--pairs N] [--cpu] attention REV_A [REV_B] [B T C H [MIN_T]]

Compares two versions of one kernel file in one process, alternating call by call, and
prints the median over the pairs of time(A) / time(B): above 1, B is faster. On a shared
virtual machine whose speed drifts by 20-50 % between minutes, separate runs cannot resolve
a few per cent; pairs can.

  gemm       src/core/kernels.c: the products of one layer of width D, FFN FF (default
             768, 3072: GPT-2; q/k/v/o, fc1, fc2, and with V an output layer D -> V;
             forward, dX, dW) with ROWS tokens (default 1024); timed by CPU time on one
             thread (other processes' time left out), by the wall clock on more; also
             checks that A and B give the same bits for every product
  attention  src/core/ops_attention.c: one layer's causal attention, forward + backward
             (default B 4, T 256, C 768, H 12; with MIN_T, entry b has MIN_T + 7b mod
             (T - MIN_T + 1) tokens and the rest is padding, masked as keys and queries);
             also checks that A and B give the same y, dq, dk and dv bit for bit
  REV_A      a git revision (e.g. HEAD~2, a commit, a branch)
  REV_B      another one (not a plain number: that is a size); default: the working tree
  --threads  OpenMP threads (default 1)
  --pairs    pairs to time (default 15)
  --cpu      attention: time by the process's CPU seconds, not the wall clock (a loaded
             host preempts calls of a millisecond; their wall time is other processes')
  --cflags-a, --cflags-b FLAGS
             extra compiler flags for A's or B's kernel file, e.g. -DKC=512 to compare
             the blockings kernels.c lets -D set (REV_A and REV_B may then be the same)

The file of each version is compiled with that version's own headers and linked against
the working tree's build/opt/libtf.a (built if needed), so the structs it shares with the
rest (Tensor, AttnArgs, MatView) must not differ between A and B. Needs gcc, objcopy and
git. Example: scripts/paired.sh gemm HEAD~1
EOF
}

threads=1 pairs=15 cflags_a= cflags_b= clock=wall
while [ $# -gt 0 ]; do
    case "$1" in
        --help|-h) usage; exit 0 ;;
        --threads) threads=${2:?--threads needs a number}; shift 2 ;;
        --pairs) pairs=${2:?--pairs needs a number}; shift 2 ;;
        --cpu) clock=cpu; shift ;;
        --cflags-a) cflags_a=${2?--cflags-a needs flags}; shift 2 ;;
        --cflags-b) cflags_b=${2?--cflags-b needs flags}; shift 2 ;;
        --*) echo "paired.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { usage >&2; exit 2; }
what=$1 rev_a=$2
shift 2
case "$what" in
    gemm) file=src/core/kernels.c driver=gemm_pairs ;;
    attention) file=src/core/ops_attention.c driver=attention_pairs ;;
    *) echo "paired.sh: '$what' is not gemm or attention (see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
# REV_B when the next word names a commit; a number is a size (1024 would also pass for an
# abbreviated hash).
rev_b=
case "${1:-}" in
    ''|*[!0-9]*) if [ $# -gt 0 ] && git rev-parse --verify -q "$1^{commit}" >/dev/null; then rev_b=$1; shift; fi ;;
esac
git rev-parse --verify -q "$rev_a^{commit}" >/dev/null || { echo "paired.sh: '$rev_a' is not a git revision here" >&2; exit 2; }
# The optimised library whatever build called us: `make sanitize` exports BUILD, OPT and SAN and
# passes them in MAKEFLAGS, which would point this make at build/san.
(unset BUILD OPT SAN MAKEFLAGS MAKEOVERRIDES MFLAGS MAKELEVEL; make -s build/opt/libtf.a)
work=$(mktemp -d "${TMPDIR:-/tmp}/paired.XXXXXX")
trap 'rm -rf "$work"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -O3 -march=native -ffp-contract=fast -fno-math-errno -fopenmp"

# build SIDE REV FLAGS: the kernel file of REV (empty: the working tree) with its headers and
# the extra FLAGS, every global symbol it defines renamed NAME_SIDE.
build() {
    side=$1 rev=$2 extra=$3 tree=$work/$1
    mkdir -p "$tree"
    if [ -n "$rev" ]; then git archive "$rev" src | tar -x -C "$tree"; else cp -R src "$tree/"; fi
    # shellcheck disable=SC2086
    gcc $CFLAGS $extra -I"$tree/src" -c "$tree/$file" -o "$work/$side.o"
    renames=$(nm --defined-only -g "$work/$side.o" | awk -v s="$side" '{printf " --redefine-sym %s=%s_%s", $3, $3, s}')
    # shellcheck disable=SC2086
    objcopy $renames "$work/$side.o" "$work/${side}_renamed.o"
}
build a "$rev_a" "$cflags_a"
build b "$rev_b" "$cflags_b"
gcc $CFLAGS -Isrc "tests/paired/$driver.c" "$work/a_renamed.o" "$work/b_renamed.o" build/opt/libtf.a -lm -o "$work/$driver"

echo "# A = $rev_a${cflags_a:+ ($cflags_a)}, B = ${rev_b:-the working tree}${cflags_b:+ ($cflags_b)}; $file; $threads thread(s), $pairs pairs"
export OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-3000}
if [ "$what" = gemm ]; then
    "$work/$driver" "$pairs" "$@"
else
    [ $# -eq 0 ] && set -- 4 256 768 12
    [ $# -eq 4 ] || [ $# -eq 5 ] || { echo "paired.sh: attention takes B T C H [MIN_T] (see --help)" >&2; exit 2; }
    PAIRED_CLOCK=$clock DUMP_A=$work/a.bin DUMP_B=$work/b.bin "$work/$driver" "$pairs" "$@"
    if cmp -s "$work/a.bin" "$work/b.bin"; then echo "y, dq, dk, dv: the same bits"
    else echo "y, dq, dk, dv: the bits DIFFER"; fi
fi
