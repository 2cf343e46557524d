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
    echo "each section names the tests/storm.sh command that made it. Times are wall seconds on this"
    echo "machine, loaded by whatever else ran; the storm's moments and the Slurm scheduling vary"
    echo "between runs, the checks do not."
    echo
} >"$report"
failed=0
for args in "--study dog --signals $signals --seed 1" "--study dog --signals $signals --seed 1 --slurm" \
            "--study dog --disk $disk"; do
    echo "# tests/storm.sh $args"
    # shellcheck disable=SC2086 # the options are separate words
    sh tests/storm.sh $args --work "$work/storm" --report "$report" >"$work/out" 2>&1
    cat "$work/out"
    grep -q '^FAIL' "$work/out" && failed=1
    grep -q '^ok\|^skip\|^FAIL' "$work/out" || { echo "FAIL tests/storm.sh $args: no verdict"; failed=1; }
    grep '^skip' "$work/out" | sed 's/^skip [^:]*: \(.*\)/Skipped (`tests\/storm.sh '"$args"'`): \1.\n/' >>"$report"
done
mkdir -p results/robustness
cp "$report" results/robustness/stress.md.tmp && mv results/robustness/stress.md.tmp results/robustness/stress.md
echo "# figures: results/robustness/stress.md"
exit $failed
