#!/bin/sh
# The verdicts of every claim in data/claims.csv against the results CSVs: a launcher of
# ./verdicts (src/tools/verdicts.c), which names the commit in verdicts.md.
set -eu

usage() {
    cat <<'EOF2'
usage: scripts/verdicts.sh [--out DIR]
       scripts/verdicts.sh --paired "A1 A2 ..." "B1 B2 ..." | --welch "A1 ..." "B1 ..."

Runs ./verdicts (from BIN_DIR, default the top level) at the top of the checkout: every line
of data/claims.csv compared, with the words of data/remedies.csv, into DIR/verdicts.csv,
DIR/verdicts.md, DIR/summary.md, DIR/summary.svg and DIR/mrr_KEY.csv (DIR: results/verdicts); `./verdicts
--help` has the rules. Then DIR/compute.md: the CPU hours of the studies trained to
convergence, per results file (each run's cpu_seconds counted once).
--paired and --welch print "effect lo hi df t" of one 95% interval and exit.
EOF2
}

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN_DIR:-.}/verdicts
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --paired|--welch) exec "$bin" "$@" ;;
esac
cd "$root"
[ -x "$bin" ] || { echo "$0: $bin not found: run 'make' first (or set BIN_DIR)" >&2; exit 1; }
out=results/verdicts
[ "${1:-}" = --out ] && [ $# -ge 2 ] && out=$2
"$bin" --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$@"

# What the studies trained to convergence cost: runs and CPU hours per results file (each run's
# cpu_seconds, the sum of its compute.csv, counted once however many rows evaluate it).
EOSC=results/eos_decision_converge/results.csv RB=results/rope_base_converge/results.csv
LMC=results/lengthgen_converge/lm_results.csv LGC=results/lengthgen_converge/results.csv
LMRC=results/lengthgen_lm_random_converge/lm_results.csv
{
    echo "# Compute"; echo
    echo "CPU time of the studies trained to convergence that the verdicts read: each run's user + system seconds over all its"
    echo "./train invocations (its compute.csv, the results' cpu_seconds column), counted once a run."
    echo "The other studies recorded wall time only, in the headers of their results.md."; echo
    echo "| results | runs | CPU hours | mean CPU s a run | remedies |"
    echo "| --- | ---: | ---: | ---: | --- |"
    # runs.csv: results,run,seed,cpu_seconds, the run named as each study names it
    for f in "$EOSC" "$RB" "$LMC" "$LGC" "$LMRC"; do [ -r "$f" ] && echo "$f"; done | while read -r f; do
        awk -F, -v f="$f" -v EOSC="$EOSC" -v RB="$RB" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { v = $c["scheme"]; if (f == EOSC) { r = $c["variant"]; sub(/\+.*/, "", r); r = r "|" v }
              else if (f == RB) r = $c["train_base"]; else { sub(/ \(plain\)$/, "", v); r = $c["task"] "|" v }
              print f "," r "," $c["seed"] "," $c["cpu_seconds"] }' "$f"
    done | { echo results,run,seed,cpu_seconds; cat; } >"$out/runs.csv.tmp"
    # the runs (each counted once), their CPU hours and mean CPU seconds (./table), per file and in all
    cpu() { "${bin%/verdicts}/table" --plain --first-of '{results},{run},{seed}' --value cpu_seconds:count:%d \
        --value cpu_seconds/3600:sum:%.2f --value cpu_seconds:mean:%.1f "$@" "$out/runs.csv.tmp"; }
    cpu --rows results | while IFS=, read -r f n h m; do
        case "$f" in "$EOSC") u="eos_oracle_converged, random_translator_converged" ;; "$RB") u=rope_base_converged ;;
            "$LMC") u="nope_rank_converged, temperature_converged, random_lm_converged" ;;
            "$LGC") u=random_copy_converged ;; *) u=random_lm_converged ;; esac
        echo "| \`$f\` | $n | $h | $m | $u |"
    done
    cpu | { IFS=, read -r n h m; echo "| all | $n | $h | $m | |"; }
    rm -f "$out/runs.csv.tmp"
} >"$out/compute.md.tmp" && mv "$out/compute.md.tmp" "$out/compute.md"
echo "wrote $out/compute.md"
