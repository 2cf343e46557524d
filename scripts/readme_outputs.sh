#!/bin/sh
# usage: scripts/readme_outputs.sh [--out DIR] [--keep]
#
# The outputs README.md quotes, written by running its commands in a fresh clone of HEAD (so a
# run folder of this checkout is neither reused nor overwritten):
#
#   make && ./train configs/rope.ini          OUT/train.txt      ./train's standard output
#   echo '...' | ./translate runs/rope        OUT/translate.txt  three sentences, three answers
#   ./eval runs/rope lengths=1..5 --table     OUT/eval.txt
#
# Each file starts with the command after "$ ", then what it printed, byte for byte (make's
# compiler lines and the progress line ./train redraws on a terminal's standard error are
# left out). OUT/outputs.md names the commit, the CPU, the cores and the wall time of each.
# README.md quotes the files with `<!-- table: results/readme_commands/FILE -->` blocks that
# scripts/render_docs.sh fills in.
#
#   --out DIR   where the files go (default: results/readme_commands of this repository)
#   --keep      keep the temporary clone (and its runs/rope)
#
# About a minute on 2 idle cores (the build and a 1000-step training).
set -eu

usage() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; }
self=$(cd "$(dirname "$0")/.." && pwd)
out=$self/results/readme_commands; keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) [ $# -ge 2 ] || { echo "readme_outputs.sh: --out needs a folder" >&2; exit 2; }
               out=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "readme_outputs.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

commit=$(git -C "$self" rev-parse --short HEAD)
[ -z "$(git -C "$self" status --porcelain --untracked-files=no)" ] ||
    echo "readme_outputs.sh: note: uncommitted changes; the clone has commit $commit only" >&2
cpu=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
cores=$(nproc 2>/dev/null || echo '?')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme_outputs.XXXXXX")
if [ $keep = 1 ]; then trap 'echo "readme_outputs.sh: kept $tmp" >&2' EXIT
else trap 'rm -rf "$tmp"' EXIT; fi
trap 'exit 130' INT TERM
git clone -q "$self" "$tmp/repo"
mkdir -p "$out"

# run FILE COMMAND: runs COMMAND in the clone and appends "$ COMMAND" and its standard output
# to FILE; adds its wall time to the provenance table
times=$tmp/times; : >"$times"
run() {
    _t0=$(date +%s)
    { printf '$ %s\n' "$2"; (cd "$tmp/repo" && sh -c "$2") 2>"$tmp/err"; } >>"$tmp/$1" ||
        { cat "$tmp/err" >&2; echo "readme_outputs.sh: '$2' failed" >&2; exit 1; }
    printf '| `%s` | %s | %s |\n' "$(printf '%s' "$2" | sed 's/|/\\|/g')" "$(( $(date +%s) - _t0 ))" "$1" >>"$times"
}
(cd "$tmp/repo" && make >"$tmp/make.log" 2>&1) || { tail -n 20 "$tmp/make.log" >&2; exit 1; }
run train.txt './train configs/rope.ini'
for s in 'der hund beißt den mann.' 'den hund beißt der mann.' 'heute sieht die kleine katze den alten könig.'; do
    run translate.txt "echo '$s' | ./translate runs/rope"
done
run eval.txt './eval runs/rope lengths=1..5 --table'
for f in train.txt translate.txt eval.txt; do cp "$tmp/$f" "$out/$f.tmp"; mv "$out/$f.tmp" "$out/$f"; done
{
    echo "# The README's example outputs"
    echo
    echo "Written by \`scripts/readme_outputs.sh\` in a fresh clone of commit $commit, after \`make\`."
    echo "CPU: ${cpu:-unknown} (lscpu Model name); cores: $cores. Load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')."
    echo
    echo "| command | wall s | file |"
    echo "| --- | ---: | --- |"
    cat "$times"
} >"$out/outputs.md.tmp"
mv "$out/outputs.md.tmp" "$out/outputs.md"
echo "readme_outputs.sh: wrote $out/train.txt, translate.txt, eval.txt and outputs.md" >&2
