# scripts/bench_ab.sh, scripts/bench_jobs.sh and scripts/walls_ab.sh: --help and bad arguments
# (a real comparison builds two revisions and takes minutes: docs/performance.md shows its use).
. tests/lib.sh

for s in bench_ab bench_jobs walls_ab; do
    if out=$(scripts/$s.sh --help 2>&1) && echo "$out" | grep -q "usage: scripts/$s.sh"; then ok "$s --help"
    else fail "$s --help" "$(echo "$out" | head -c 300)"; fi
done
expect_error "bench_ab: unknown revision" "is not a git revision" scripts/bench_ab.sh no-such-revision-here HEAD
expect_error "bench_ab: unknown option" "unknown option" scripts/bench_ab.sh --fast HEAD
expect_error "bench_ab: bad pairs" "is not a positive number" scripts/bench_ab.sh --pairs 0 HEAD
expect_error "bench_jobs: bad pairs" "is not a positive number" scripts/bench_jobs.sh --pairs x
expect_error "bench_jobs: unknown argument" "unknown argument" scripts/bench_jobs.sh --fast
expect_error "walls_ab: unknown revision" "is not a git revision" scripts/walls_ab.sh no-such-revision-here HEAD extrapolate.sh
expect_error "walls_ab: bad pairs" "is not a positive number" scripts/walls_ab.sh --pairs 0 HEAD HEAD extrapolate.sh
expect_error "walls_ab: a path, not a script name" "a name in scripts/" scripts/walls_ab.sh HEAD HEAD scripts/extrapolate.sh
expect_error "walls_ab: too few arguments" "usage: scripts/walls_ab.sh" scripts/walls_ab.sh HEAD HEAD
