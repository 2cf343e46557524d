#!/bin/sh
# The wall time of one experiment script at two revisions, run alternately on one machine
# (A, B, then B, A, ...), each run from nothing in a fresh output folder; per pair the ratio
# wall(A) / wall(B) (above 1: B is faster), its median by ./table.
set -eu
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: scripts/walls_ab.sh [--pairs N] [--md FILE] REV_A REV_B SCRIPT [ARGS...]

Extracts REV_A and REV_B with git archive into ${TMPDIR:-/tmp}/revs/COMMIT (as
scripts/bench_ab.sh does), builds each once with make, and runs `scripts/SCRIPT ARGS --out
DIR` there, DIR a new empty folder each time (no run is reused), alternately: A then B in odd
pairs, B then A in even ones. Prints each run's wall seconds and the median over the pairs
of wall(A) / wall(B) with the lowest and highest pair.

  --pairs N   pairs to time (default 1)
  --md FILE   also write the runs and the ratio as markdown, headed by the command,
              commits, CPU and load
Example: scripts/walls_ab.sh --pairs 2 c244876 HEAD extrapolate.sh --seeds 1
EOF
}

pairs=1 md=''
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --pairs) pairs=${2:?--pairs needs a number}; shift 2 ;;
        --md) md=${2:?--md needs a file}; shift 2 ;;
        --*) echo "walls_ab.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -ge 3 ] || { usage >&2; exit 2; }
case "$pairs" in ''|*[!0-9]*|0) echo "walls_ab.sh: '$pairs' is not a positive number" >&2; exit 2 ;; esac
rev_a=$1 rev_b=$2 script=$3
shift 3
case "$script" in */*|'') echo "walls_ab.sh: SCRIPT is a name in scripts/, such as extrapolate.sh" >&2; exit 2 ;; esac

# tree_of REV: a built copy of REV (made once, kept for the next call)
. scripts/rev_tree.sh
tree_of() {
    dir=$(rev_tree "$1")
    [ -x "$dir/scripts/$script" ] || { echo "walls_ab.sh: $1 has no scripts/$script" >&2; exit 2; }
    echo "$dir"
}
tree_a=$(tree_of "$rev_a")
tree_b=$(tree_of "$rev_b")
make -s -j2 build/opt/bin/table >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/walls_ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo side,pair,wall > "$work/runs.csv"
: > "$work/phases.csv"
shown="$*"
. scripts/lib.sh   # shell_quote
args=$(for a in "$@"; do shell_quote "$a"; done)
# run_side SIDE TREE PAIR: one run of the script (its arguments, each quoted in $args) from
# nothing; its wall seconds to runs.csv
run_side() { side=$1 tree=$2 pair=$3; eval "set -- $args"; run_with "$side" "$tree" "$pair" "$@"; }
run_with() {
    side=$1 tree=$2 pair=$3; shift 3
    out=$work/out_${side}_$pair
    start=$(date +%s.%N)
    (cd "$tree" && "scripts/$script" "$@" --out "$out") >"$work/log_${side}_$pair" 2>&1 ||
        { echo "walls_ab.sh: scripts/$script failed at side $side, pair $pair:" >&2
          tail -5 "$work/log_${side}_$pair" >&2; exit 1; }
    end=$(date +%s.%N)
    rm -rf "$out"
    wall=$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')
    echo "$side,$pair,$wall" >> "$work/runs.csv"
    # the script's own phase lines ("training: 150 s", "evaluated: 40 s"), if it prints them
    phases=$(sed -n 's/^\[[0-9:]*\] \([a-z ]*: [0-9]* s\)$/\1/p' "$work/log_${side}_$pair" | tr '\n' ';' |
        sed 's/;$//; s/;/; /g')
    echo "$side,$pair,$phases" >> "$work/phases.csv"
    echo "pair $pair: $side $wall s${phases:+ ($phases)}"
}
alternate "$pairs" run_side "$tree_a" "$tree_b"

# pairs.csv: pair, wall of A and of B; the ratios and medians are ./table's
{ echo pair,a,b; awk -F, 'NR > 1 && $1 == "a" { a[$2] = $3 } NR > 1 && $1 == "b" { b[$2] = $3 }
    END { for (p in a) if (p in b) print p "," a[p] "," b[p] }' "$work/runs.csv" | sort -n; } > "$work/pairs.csv"
stats=$(build/opt/bin/table --plain --value a/b:median:%.3f --value a/b:min:%.3f --value a/b:max:%.3f \
    --value a:median:%.1f --value b:median:%.1f "$work/pairs.csv" | tr , ' ')
# shellcheck disable=SC2086 # five numbers
set -- $stats
echo "wall(A) / wall(B): median $1 (lowest $2, highest $3); median walls A $4 s, B $5 s"
if [ -n "$md" ]; then
    {
        echo "$(cpu_line); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo
        echo "Written by \`scripts/walls_ab.sh --pairs $pairs $rev_a $rev_b $script $shown\`:"
        echo "A = $rev_a ($(git rev-parse --short "$rev_a")), B = $rev_b ($(git rev-parse --short "$rev_b"));"
        echo "each run \`scripts/$script $shown --out DIR\` from nothing in a fresh DIR, A and B alternated."
        echo
        echo "| pair | A: wall s | B: wall s | A / B | A: phases | B: phases |"
        echo "| ---: | ---: | ---: | ---: | --- | --- |"
        build/opt/bin/table --plain --rows pair --value a:text --value b:text --value a/b:mean:%.3f "$work/pairs.csv" |
            awk -F, 'NR == FNR { ph[$1 "," $2] = $3; next }
                { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, ph["a," $1], ph["b," $1] }' \
                "$work/phases.csv" -
        echo
        echo "Median A / B: **$1** (lowest $2, highest $3); median walls: A $4 s, B $5 s."
    } > "$md"
    echo "wrote $md"
fi
