# scripts/bench_ab.sh and scripts/bench_jobs.sh: --help and bad arguments (a real comparison
# builds two benches and takes minutes: docs/performance.md shows its use).
. tests/lib.sh

for s in bench_ab bench_jobs; do
    if out=$(scripts/$s.sh --help 2>&1) && echo "$out" | grep -q "usage: scripts/$s.sh"; then ok "$s --help"
    else fail "$s --help" "$(echo "$out" | head -c 300)"; fi
done
expect_error "bench_ab: unknown revision" "is not a git revision" scripts/bench_ab.sh no-such-revision-here HEAD
expect_error "bench_ab: unknown option" "unknown option" scripts/bench_ab.sh --fast HEAD
expect_error "bench_ab: bad pairs" "is not a positive number" scripts/bench_ab.sh --pairs 0 HEAD
expect_error "bench_jobs: bad pairs" "is not a positive number" scripts/bench_jobs.sh --pairs x
expect_error "bench_jobs: unknown argument" "unknown argument" scripts/bench_jobs.sh --fast
