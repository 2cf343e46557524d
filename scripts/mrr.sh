#!/bin/sh
# Mean reciprocal rank of positional schemes over tasks, as Kazemnejad et al. (2023) rank them.
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

beyond=0; metric=exact_match; csv=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --beyond) [ $# -ge 2 ] || { echo "$0: --beyond needs a length" >&2; exit 1; }; beyond=$2; shift 2 ;;
        --metric) [ $# -ge 2 ] || { echo "$0: --metric needs a column" >&2; exit 1; }; metric=$2; shift 2 ;;
        -*) usage >&2; echo "$0: unknown option '$1'" >&2; exit 1 ;;
        *) [ -z "$csv" ] || { echo "$0: one CSV file, not '$csv' and '$1'" >&2; exit 1; }; csv=$1; shift ;;
    esac
done
[ -n "$csv" ] || { usage >&2; exit 1; }
[ -r "$csv" ] || { echo "$0: cannot read '$csv'" >&2; exit 1; }
case "$beyond" in ''|*[!0-9]*) echo "$0: --beyond wants a length, not '$beyond'" >&2; exit 1 ;; esac

rank_awk=$(cat "$(dirname "$0")/rank.awk") || exit 2
awk -F, -v beyond="$beyond" -v metric="$metric" -v file="$csv" "$rank_awk"'
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    split("task scheme length " metric, need, " ")
    for (i = 1; i <= 4; i++) if (!(need[i] in col)) { printf "%s:1: no column \"%s\"\n", file, need[i] > "/dev/stderr"; bad = 1; exit 1 }
    next
}
{
    if ($col["length"] + 0 <= beyond || $col[metric] == "") next
    if ($col[metric] !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) { printf "%s:%d: %s is \"%s\", not a number\n", file, NR, metric, $col[metric] > "/dev/stderr"; bad = 1; exit 1 }
    v = ("variant" in col) ? $col["variant"] : ""
    t = $col["task"]; s = $col["scheme"]
    if (!((v, s) in seen_vs)) { seen_vs[v, s] = 1; schemes[v, ++ns[v]] = s }
    if (!(v in seen_v)) { seen_v[v] = 1; variants[++nv] = v }
    if (!((v, t) in seen_vt)) { seen_vt[v, t] = 1; tasks[v, ++nt[v]] = t }
    sum[v, t, s] += $col[metric]; cnt[v, t, s]++
}
END {
    if (bad) exit 1
    print "variant,scheme,mrr,tasks"
    for (a = 1; a <= nv; a++) {
        v = variants[a]
        for (b = 1; b <= nt[v]; b++) {
            t = tasks[v, b]; k = 0
            for (c = 1; c <= ns[v]; c++) {
                s = schemes[v, c]
                if (!((v, t, s) in cnt)) continue
                score[++k] = sum[v, t, s] / cnt[v, t, s]; who[k] = s
            }
            for (i = 1; i <= k; i++) {
                total[v, who[i]] += reciprocal_rank(score, k, i); ntask[v, who[i]]++
            }
        }
        for (c = 1; c <= ns[v]; c++) {
            s = schemes[v, c]
            printf "%s,%s,%.4f,%d\n", v, s, total[v, s] / ntask[v, s], ntask[v, s]
        }
    }
}' "$csv"
