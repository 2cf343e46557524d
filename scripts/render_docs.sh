#!/bin/sh
# Renders the result tables of the documentation from the files in results/: each
# `<!-- table: PATH ... -->` ... `<!-- end table -->` block of a doc is rewritten with what
# scripts/render_docs.awk renders from PATH (the marker's options are described there).
# Needs only POSIX sh, awk (mawk or gawk) and diff; AWK=gawk picks another awk.
usage() {
    cat <<'EOF2'
Usage: scripts/render_docs.sh [--check] [FILE.md ...]

Rewrites every `<!-- table: PATH ... -->` ... `<!-- end table -->` block of the given
Markdown files (default: README.md and docs/*.md of the repository) with the table rendered
from PATH, a .md or .csv file under results/, or with PATH's text verbatim in a fenced block
for a .txt file (a command's output). Options of a table's marker: section="TEXT", n=K,
rows=a,b and cols=x,y (see the comment at the top of scripts/render_docs.awk).

  --check   write nothing; print a unified diff for each block that differs from what it
            renders, with FILE:LINE of its marker, and exit 1 if any differs
  --help    print this text

Without --check a file is rewritten (atomically) only when one of its blocks changed, and
each changed block is named; a file with an error is left unchanged.
Exit status: 0 fine, 1 a block differs (--check), 2 an error (a missing source file,
section, row or column; a marker without its end; a bad option).
EOF2
}

check=0
while [ $# -gt 0 ]; do
    case $1 in
        --check) check=1 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        -*) echo "render_docs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done

AWK=${AWK:-awk}
export LC_ALL=C
orig=$PWD
cd "$(dirname "$0")/.." || exit 2
root=$PWD
defaults=0
if [ $# -eq 0 ]; then
    defaults=1
    set -- README.md
    for f in docs/*.md; do [ -f "$f" ] && set -- "$@" "$f"; done
fi
# abspath FILE: where FILE is, for a FILE named on the command line (relative to the caller's
# directory) or a default one (relative to the repository root).
abspath() {
    case $1 in
        /*) echo "$1" ;;
        *) if [ $defaults = 1 ]; then echo "$root/$1"; else echo "$orig/$1"; fi ;;
    esac
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP

errors=0; ndiff=0; nblocks=0; nfiles=0
i=0
for f in "$@"; do
    i=$((i + 1))
    a=$(abspath "$f")
    if [ ! -f "$a" ]; then echo "render_docs.sh: no file $f" >&2; errors=1; continue; fi
    : >"$tmp/o$i"
    if ! $AWK -v doc="$f" -v out="$tmp/o$i" -v pfx="$tmp/b$i" -f scripts/markdown.awk \
        -f scripts/render_docs.awk "$a" >"$tmp/m$i"; then
        errors=1; : >"$tmp/e$i"; continue
    fi
    nfiles=$((nfiles + 1))
    while IFS='	' read -r n line path state newline; do
        nblocks=$((nblocks + 1))
        [ "$state" = differs ] || continue
        ndiff=$((ndiff + 1))
        if [ $check = 1 ]; then
            echo "$f:$line: table block differs from what $path renders (scripts/render_docs.sh rewrites it)"
            diff -u "$tmp/b$i.$n.cur" "$tmp/b$i.$n.new" |
                $AWK -v a="$f:$line (in the document)" -v b="$path (rendered)" \
                    'NR == 1 { print "--- " a; next } NR == 2 { print "+++ " b; next } { print }'
        fi
    done <"$tmp/m$i"
done
if [ $check = 1 ]; then
    [ $errors = 0 ] || exit 2
    if [ $ndiff -gt 0 ]; then
        echo "$ndiff of $nblocks table blocks in $nfiles files differ from what they render" >&2
        exit 1
    fi
    exit 0
fi

# Rewrite each file that rendered without error and changed, by a rename; a file with an
# error is left as it is.
i=0
for f in "$@"; do
    i=$((i + 1))
    [ -f "$tmp/m$i" ] && [ ! -f "$tmp/e$i" ] || continue
    grep -q '	differs	' "$tmp/m$i" || continue
    a=$(abspath "$f")
    t="$a.render_docs.$$"
    if cp -p "$a" "$t" && cat "$tmp/o$i" >"$t" && mv -f "$t" "$a"; then
        while IFS='	' read -r n line path state newline; do
            [ "$state" = differs ] && echo "$f:$newline: updated from $path"
        done <"$tmp/m$i"
    else
        rm -f "$t"; echo "render_docs.sh: could not rewrite $f" >&2; exit 2
    fi
done
echo "$nblocks table blocks in $nfiles files; $ndiff updated"
[ $errors = 0 ] || { echo "render_docs.sh: files with an error above were left unchanged" >&2; exit 2; }
