#!/bin/sh
# Mean reciprocal rank of positional schemes over tasks, as Kazemnejad et al. (2023) rank them:
# a launcher of ./verdicts --mrr (src/verdict/mrr_file.c).
set -eu

usage() {
    cat <<'EOF'
usage: scripts/mrr.sh [--beyond L] [--metric COL] CSV

Reads CSV (a header row, then rows with at least the columns task, scheme, length and the
metric; an optional variant column keeps variants apart) and prints
  variant,scheme,mrr,tasks
the mean reciprocal rank of each scheme over the tasks, per variant ("" when the file has no
variant column), schemes in the order they first appear.

  score(task, scheme)  the mean of the metric over every row of that task and scheme with
                       length > L (all seeds and lengths beyond training alike)
  rank                 per task and variant, by score, highest first. Tied schemes (scores
                       within 1e-9) share the places they occupy, and each gets the mean of
                       1/r over those places: the expected reciprocal rank when the tie is
                       broken at random. So every task hands out 1 + 1/2 + ... + 1/k in all,
                       and a task where all k schemes score the same (say 0) gives each the
                       same 1/k-average instead of a first place.
  mrr                  the mean over the tasks of the scheme's reciprocal rank

  --beyond L    only lengths > L count (default 0: every row)
  --metric COL  the column to rank by (default exact_match)
EOF
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
bin=${BIN_DIR:-.}/verdicts
[ -x "$bin" ] || { echo "$0: $bin not found: run 'make' first (or set BIN_DIR)" >&2; exit 1; }
exec "$bin" --mrr "$@"
