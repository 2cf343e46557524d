# What the experiment scripts write (POSIX sh; sourced by scripts/lib.sh, not run): CSV columns
# read by name, the Markdown tables (./table), the figures (./plot), results.md with --tables
# and its provenance line.
case ${0##*/} in
    results.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/results.sh   (through scripts/lib.sh, from another script: not a command)"
        echo
        echo "The experiment scripts' CSV columns by name, tables (./table), figures (./plot) and results.md."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
# CSV_COLUMNS: an awk prelude for reading CSV columns by name rather than by position. Put it
# in front of the program, awk -F, "$CSV_COLUMNS"'...': on each file's header line (its first
# line that is not a `#` comment) it sets col[NAME] to the column's index; head is 1 on that
# line and row on each line after it (both 0 elsewhere); cell("exact_match") is that field of
# the current row, cells("length loss") several joined by commas. A name the header lacks
# stops awk with `FILE:LINE: no column "NAME"` on stderr and exit status 2.
CSV_COLUMNS='
function cell(name) {
    if (!(name in col)) {
        printf "%s:%d: no column \"%s\"\n", FILENAME, FNR, name > "/dev/stderr"; exit 2
    }
    return $(col[name])
}
function cells(names,   n, i, w, s) {
    n = split(names, w, " "); s = cell(w[1])
    for (i = 2; i <= n; i++) s = s "," cell(w[i])
    return s
}
FNR == 1 { csv_seen_head = 0 }
{ head = 0; row = csv_seen_head }
!csv_seen_head && !/^#/ {
    csv_seen_head = head = 1; split("", col)
    for (csv_i = 1; csv_i <= NF; csv_i++) col[$csv_i] = csv_i
}
'

# prefix_csv PREFIX_VALUES FILE: the data rows of FILE (comment lines and header dropped), each prefixed.
prefix_csv() { awk -v p="$1" '/^#/ && !h { next } !h { h = 1; next } NF { print p "," $0 }' "$2"; }

# md_pivot CSV ROWCOL COLCOL METRIC SCALE FORMAT [FILTER...] and converge_table CSV ROWCOL
# COLCOL: ./table's two commonest tables (./table --help), as the scripts call them.
md_pivot() {
    _f=$1 _r=$2 _c=$3 _m=$4 _s=$5 _fmt=$6; shift 6
    for _x in "$@"; do set -- "$@" --filter "$_x"; shift; done
    "$BIN_DIR/table" --rows "$_r" --cols "$_c" --value "$_m" --scale "$_s" --format "$_fmt" "$@" "$_f"
}
converge_table() { "$BIN_DIR/table" --steps --rows "$2" --cols "$3" "$1"; }

# heading TEXT: TEXT between blank lines (a Markdown heading or sentence before a table).
heading() { printf '\n%s\n\n' "$*"; }

# plot ARGS...: ./plot, failing loudly (nothing with --tables).
plot() { [ "$tables" = 1 ] || "$BIN_DIR/plot" "$@" >/dev/null || die "plot failed: $*"; }

# write_md FILE [LAST]: FILE.new (the Markdown a script has just written) becomes FILE. With
# --tables FILE must exist already: its lines up to its provenance line (the first that matches
# the extended regular expression LAST, default `^Produced by commit `: the command, wall time
# and machine of the runs behind the CSVs) are kept, and FILE.new's own lines up to its
# provenance line dropped. A FILE made before the provenance line existed says instead what is
# known ("... not recorded (these files predate the provenance line)."): its whole opening
# paragraph is kept (its prose on how those runs were measured too, which the script's may no
# longer match), and FILE.new's lines up to the end of its provenance line's paragraph dropped.
write_md() {
    if [ "$tables" = 1 ]; then
        _last=${2:-'^Produced by commit '}
        grep -Eq -- "$_last|these files predate the provenance line" "$1" 2>/dev/null ||
            die "--tables: $1 is missing or has no provenance line to keep"
        awk -v last="$_last" '
            NR == FNR { if (kept) next; if (older && $0 == "") { kept = 1; next }; print
                        if (/these files predate the provenance line/) older = 1
                        else if (!older && $0 ~ last) kept = 1
                        next }
            past { print; next }
            $0 ~ last { seen = 1; past = !older; next }
            seen && $0 == "" { past = 1; print }' "$1" "$1.new" >"$1.tmp"
        mv "$1.tmp" "$1.new"
    fi
    mv "$1.new" "$1"
}

# run_cpu_seconds RUN: the CPU seconds every ./train invocation of RUN took (its compute.csv).
run_cpu_seconds() { "$BIN_DIR/table" --plain --value cpu_seconds:sum:%.1f "$1/compute.csv"; }

# provenance: the line every results.md carries, naming the commit, the build of the tools and
# the CPU that made its numbers. They are bit-identical for the same build on the same CPU
# (any thread count); -march=native makes another CPU a different build (docs/usage.md, testing).
provenance() {
    _rev=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
    git diff --quiet HEAD -- src Makefile 2>/dev/null || _rev="$_rev with uncommitted changes to src/ or Makefile"
    # gcc records the compiler and its options, -march=native resolved, in the debug info.
    # ./eval, not ./train: every tool is one build, and a wrapper around ./train (a Slurm test
    # stops it mid-run that way) still leaves ./eval the real binary.
    _cc=$(LC_ALL=C grep -a -o -m1 'GNU C[0-9]* [[:print:]]*' "$BIN_DIR/eval" 2>/dev/null | head -1)
    _build="unknown build"
    [ -n "$_cc" ] && _build="$(echo "$_cc" | grep -o '^GNU C[0-9]* [0-9.]*')$(echo "$_cc" |
        grep -o -- ' -march=[^ ]*\| -O[^ ]*\| -ffp-contract=[^ ]*\| -fsanitize=[^ ]*' | tr -d '\n')"
    _cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)
    echo "Produced by commit $_rev; tools: $_build; CPU: ${_cpu:-unknown}."
}
