#!/bin/sh
# Stress check, not part of `make test`: runs `make test` N times in a row while a busy loop
# (`while :; do :; done`) is started and stopped at random moments beside it (on for 0-15 s, off
# for 0-15 s). Every run must pass: a test whose verdict depends on the load shows up here.
#   tests/stress_load.sh [N]      N runs (default 20); each run's output in $STRESS_DIR/run_I.log
# Prints one line per run (its `N passed, N failed, N skipped` and how often the loop started)
# and exits 1 if any run failed.
set -u
n=${1:-20}
case "$n" in ''|*[!0-9]*|0) echo "usage: tests/stress_load.sh [N]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
dir=${STRESS_DIR:-$(mktemp -d /tmp/stress_load.XXXXXX)}
mkdir -p "$dir"

# The controller: a loop that starts the spinner, waits, stops it, waits, at random lengths,
# counting starts in $dir/starts. It stops its spinner when it is stopped itself.
(
    spinner=""
    trap '[ -n "$spinner" ] && kill $spinner 2>/dev/null; exit 0' TERM INT
    seed=$$
    pause() { seed=$((seed + 1)); sleep "$(awk -v s=$seed 'BEGIN { srand(s); printf "%.1f", rand() * 15 }')"; }
    while :; do
        pause
        sh -c 'while :; do :; done' &
        spinner=$!
        echo x >>"$dir/starts"
        pause
        kill $spinner 2>/dev/null; wait $spinner 2>/dev/null
        spinner=""
    done
) &
controller=$!
trap 'kill $controller 2>/dev/null; wait $controller 2>/dev/null' EXIT
trap 'exit 130' INT TERM

failed_runs=0
for i in $(seq 1 "$n"); do
    before=$(cat "$dir/starts" 2>/dev/null | wc -l)
    make test >"$dir/run_$i.log" 2>&1
    rc=$?
    starts=$(( $(cat "$dir/starts" 2>/dev/null | wc -l) - before ))
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$dir/run_$i.log" | tail -1)
    [ $rc -eq 0 ] || failed_runs=$((failed_runs + 1))
    echo "run $i/$n: exit $rc, ${summary:-no summary line}, busy loop started $starts times$(
        [ $rc -eq 0 ] || echo "; failures: $(grep '^FAIL' "$dir/run_$i.log" | cut -c1-160 | tr '\n' ' ')")"
done
echo "$((n - failed_runs)) of $n runs passed (logs in $dir)"
[ $failed_runs -eq 0 ]
