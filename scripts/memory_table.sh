#!/bin/sh
# usage: scripts/memory_table.sh [--out DIR] [--tables] [CONFIG...]   (default: every configs/**/*.ini)
#
# The memory estimate against the measured peak for every config in configs/: each trains 3
# steps (the run's evaluations included) under ulimit -v 6000000, and its peak resident memory
# (tests/peak_rss.py) is compared with the estimate it printed first. Writes
# results/robustness/memory.csv and memory.md (with the commit, command and CPU that made
# them); docs/robustness.md shows the table.
# Multi30k configs read ../shared/data/multi30k (scripts/get_data.sh); without it they are
# left out. BIN_DIR as in scripts/lib.sh. --tables: measure nothing, write memory.md again from
# DIR/memory.csv (its lines up to the one naming the meter kept).
case "${1:-}" in
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/.." || exit 2
. scripts/lib.sh
out=results/robustness
while :; do
    case "${1:-}" in
        --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
        --tables) tables=1; shift ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) break ;;
    esac
done
[ -x "$BIN_DIR/train" ] || die "no $BIN_DIR/train (make tools)"
[ $tables = 1 ] || command -v python3 >/dev/null 2>&1 || die "python3 is needed (tests/peak_rss.py)"
M30K=${M30K:-../shared/data/multi30k}
if [ $# -eq 0 ]; then set -- $(find configs -name '*.ini' | sort); fi
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memory_table.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# measure OUT CMD...: "exit-status peak-KiB" of CMD into OUT. GNU time forks CMD from a small
# process; tests/peak_rss.py forks it from Python, whose resident memory at the fork (about
# 14 MiB) getrusage then counts as the child's, a floor under every measured peak.
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    measure() { o=$1; shift; /usr/bin/time -f "%x %M" -o "$o" "$@"; }
    meter="GNU time (%M)"
else
    measure() { o=$1; shift; python3 tests/peak_rss.py "$o.py" "$@"; awk '{ print $1, $3 }' "$o.py" >"$o"; }
    meter="tests/peak_rss.py, which counts about 14 MiB of Python's own at the fork"
fi
# The estimate is for a run's largest batch: batch_size rows of the longest source and the
# longest target. 3 steps of Multi30k rarely draw that, so the Multi30k runs train on its
# batch_size longest pairs (words of source and target), the same config otherwise: every
# step is then that batch.
long_pairs() {   # long_pairs N
    paste "$M30K/train.de" "$M30K/train.en" |
        awk -F'\t' '{ print split($1, a, " ") + split($2, b, " ") "\t" $0 }' |
        sort -t "$(printf '\t')" -k1,1nr | head -"$1" >"$tmp/long.tsv"
    cut -f2 "$tmp/long.tsv" >"$tmp/long.de"
    cut -f3 "$tmp/long.tsv" >"$tmp/long.en"
}
csv=$tmp/memory.csv
echo "config,estimate_mib,peak_mib,difference_pct,within_25" >"$csv"
[ $tables = 0 ] || { cp "$out/memory.csv" "$csv"; set --; }   # --tables: no config is measured
for cfg in "$@"; do
    extra=
    case "$cfg" in
        configs/multi30k/*)
            [ -f "$M30K/train.de" ] || { say "skip $cfg: no data at $M30K"; continue; }
            long_pairs "$(awk -F= '$1 ~ /^batch_size *$/ { gsub(/ /, "", $2); print $2 }' "$cfg")"
            extra="task.train_src=$tmp/long.de task.train_tgt=$tmp/long.en
                   task.val_src=$M30K/val.de task.val_tgt=$M30K/val.en task.test_src= task.test_tgt=" ;;
    esac
    rm -rf "$tmp/runs"
    (ulimit -v 6000000 && measure "$tmp/usage" "$BIN_DIR/train" "$cfg" \
        train.steps=3 $extra run.out_dir="$tmp/runs" run.name=m >"$tmp/out" 2>"$tmp/err")
    read -r rc kib <"$tmp/usage" || rc=999
    # "memory: about 59.1 MiB (...)": the number and the MiB in a unit of it
    echo "estimate,unit" >"$tmp/est.csv"
    head -1 "$tmp/out" | sed -n 's/^memory: about \([0-9.]*\) \([KMG]\)iB.*/\1,\2/p' |
        sed 's/,K$/,0.0009765625/; s/,M$/,1/; s/,G$/,1024/' >>"$tmp/est.csv"
    est=$("$BIN_DIR/table" --plain --value estimate*unit:sum:%.1f "$tmp/est.csv")
    if [ "$rc" -ne 0 ] || [ -z "$est" ]; then
        say "$cfg failed (exit $rc): $(tail -c 200 "$tmp/err")"
        echo "$cfg,,,," >>"$csv"
        continue
    fi
    printf 'config,estimate_mib,peak_kib\n%s,%s,%s\n' "$cfg" "$est" "$kib" >"$tmp/peak.csv"
    difference=peak_kib/1024-estimate_mib/estimate_mib*100   # (peak - estimate) / estimate, %
    "$BIN_DIR/table" --csv --rows config --value estimate_mib:text \
        --value peak_mib=peak_kib/1024:sum:%.1f --value "difference_pct=$difference:sum:%+.0f" \
        --value "exact=$difference:sum:%.17g" "$tmp/peak.csv" >"$tmp/row.csv"
    # within 25 % when the row is kept by both bounds (on the unrounded difference)
    within=$("$BIN_DIR/table" --plain --value exact:count:%d --filter exact\>=-25 \
        --filter exact\<=25 "$tmp/row.csv")
    echo "$(tail -1 "$tmp/row.csv" | cut -d, -f1-4),$([ "$within" = 1 ] && echo yes || echo no)" >>"$csv"
    say "$(tail -1 "$csv")"
done
cp "$csv" "$out/memory.csv"
{
    echo "# Memory estimate against measured peak"
    echo
    echo "Written by \`sh scripts/memory_table.sh\` at commit $(git rev-parse --short HEAD 2>/dev/null ||
        echo unknown) on $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
    echo "($(nproc 2>/dev/null || echo '?') logical CPUs). Each config trains 3 steps with its"
    echo "evaluations (\`./train CONFIG train.steps=3\`; Multi30k on its batch_size longest training"
    echo "pairs and without its test split, so that every step is the largest batch, the one the"
    echo "estimate is for); the"
    echo "estimate is the one the run printed first, the peak is the resident memory \`getrusage\`"
    echo "reports, read by $meter. MiB; difference = (peak - estimate) / estimate."
    echo
    echo "| config | estimate (MiB) | peak (MiB) | difference (%) | within 25% |"
    echo "| --- | ---: | ---: | ---: | --- |"
    tail -n +2 "$csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
} >"$out/memory.md.new"
write_md "$out/memory.md" ' read by '   # the machine and its meter: those that measured
say "wrote $out/memory.csv and $out/memory.md"
