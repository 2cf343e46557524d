#!/bin/sh
# `make stress`: the long robustness runs, outside `make test` (docs/robustness.md). A kill
# storm of STRESS_SIGNALS (default 50) signals on scripts/dog_bites_man.sh --quick --jobs 2,
# the same study on a single-node Slurm whose tasks are cancelled with scancel (a skip without
# Slurm or root), and the study on a full disk at STRESS_DISK (default 6) points (a skip without
# root). Writes the figures to results/robustness/stress.md; exits 1 if any check fails.
set -u
cd "$(dirname "$0")/.." || exit 2
case "${1:-}" in -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
export BIN_DIR=${BIN_DIR:-build/opt/bin}
signals=${STRESS_SIGNALS:-50}; disk=${STRESS_DISK:-6}
work=$(mktemp -d "${TMPDIR:-/tmp}/stress.XXXXXX")
trap 'rm -rf "$work"' EXIT
report=$work/stress.md
{
    echo "# Stress runs"
    echo
    echo "Written by \`make stress\` (tests/stress.sh: STRESS_SIGNALS=$signals, STRESS_DISK=$disk);"
    echo "each section names the tests/storm.sh command that made it. The three ran at once; times"
    echo "are wall seconds on this machine, loaded by them and whatever else ran. The storm's"
    echo "moments and the Slurm scheduling vary between runs, the checks do not."
    echo
} >"$report"
# The three at once (each with its folders and its part of the report): they load the machine
# together, and their wall times say so.
i=0
for args in "--study dog --signals $signals --seed 1" "--study dog --signals $signals --seed 1 --slurm" \
            "--study dog --disk $disk"; do
    i=$((i + 1))
    echo "$args" >"$work/args$i"
    # shellcheck disable=SC2086 # the options are separate words
    sh tests/storm.sh $args --work "$work/storm$i" --report "$work/report$i" >"$work/out$i" 2>&1 &
done
wait
failed=0
for i in 1 2 3; do
    args=$(cat "$work/args$i")
    echo "# tests/storm.sh $args"
    cat "$work/out$i"
    grep -q '^FAIL' "$work/out$i" && failed=1
    grep -q '^ok\|^skip\|^FAIL' "$work/out$i" || { echo "FAIL tests/storm.sh $args: no verdict"; failed=1; }
    [ ! -f "$work/report$i" ] || cat "$work/report$i" >>"$report"
    grep '^skip' "$work/out$i" | sed 's/^skip [^:]*: \(.*\)/Skipped (`tests\/storm.sh '"$args"'`): \1.\n/' >>"$report"
done
mkdir -p results/robustness
cp "$report" results/robustness/stress.md.tmp && mv results/robustness/stress.md.tmp results/robustness/stress.md
echo "# figures: results/robustness/stress.md"
exit $failed
