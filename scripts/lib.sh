# Shared by scripts/dog_bites_man.sh and scripts/extrapolate.sh (POSIX sh; sourced, not run).
# Tools come from BIN_DIR (default: the top level, where `make` puts them).
BIN_DIR=${BIN_DIR:-.}
SCHEMES="none sinusoidal learned alibi rope t5"

die() { echo "$0: $*" >&2; exit 1; }
now() { date +%s; }
say() { echo "[$(date +%H:%M:%S)] $*"; }

need_tools() {
    for tool in "$@"; do
        [ -x "$BIN_DIR/$tool" ] || die "$BIN_DIR/$tool not found: run 'make' first (or set BIN_DIR)"
    done
}

# config_value SECTION KEY FILE: KEY's value in [SECTION] of an INI file (spaces removed)
config_value() {
    awk -F= -v s="[$1]" -v k="$2" '/^\[/ { in_s = ($0 == s) } in_s && $1 ~ "^"k" *$" { gsub(/ /, "", $2); print $2 }' "$3"
}

# seq_list N -> "1 2 ... N"
seq_list() { _i=1; _o=""; while [ "$_i" -le "$1" ]; do _o="$_o $_i"; _i=$((_i + 1)); done; echo $_o; }

# train_run DIR STEPS CONFIG [overrides...]: train into DIR unless DIR already holds the
# finished run (a checkpoint and a validation row at the final step). A folder left by an
# interrupted run is removed and trained again; the trainer's output goes to DIR/train.out.
train_run() {
    _dir=$1; _steps=$2; _cfg=$3; shift 3
    if [ -f "$_dir/model.safetensors" ] && grep -q "^$_steps,val," "$_dir/log.csv" 2>/dev/null; then
        say "reuse  $_dir (step $_steps)"
        return 0
    fi
    rm -rf "$_dir"
    mkdir -p "$(dirname "$_dir")"
    _t0=$(now)
    if ! "$BIN_DIR/train" "$_cfg" run.out_dir="$(dirname "$_dir")" run.name="$(basename "$_dir")" \
            train.steps="$_steps" "$@" >"$_dir.train.out" 2>&1; then
        cat "$_dir.train.out" >&2
        die "training $_dir failed (command: $BIN_DIR/train $_cfg train.steps=$_steps $*)"
    fi
    mv "$_dir.train.out" "$_dir/train.out"
    say "train  $_dir: $(( $(now) - _t0 )) s"
}

# cached_eval OUT CMD...: run CMD (an ./eval call) into OUT unless OUT exists; atomic, so an
# interrupted evaluation is simply redone.
cached_eval() {
    _out=$1; shift
    [ -s "$_out" ] && return 0
    if ! "$@" >"$_out.tmp" 2>"$_out.err"; then
        cat "$_out.err" >&2
        die "evaluation failed: $*"
    fi
    rm -f "$_out.err"
    mv "$_out.tmp" "$_out"
}

# prefix_csv PREFIX_VALUES FILE: the data rows of FILE (header dropped), each prefixed.
prefix_csv() { awk -v p="$1" 'NR > 1 && NF { print p "," $0 }' "$2"; }

# md_pivot CSV ROWCOL COLCOL METRIC SCALE FORMAT [FILTER...] -> a Markdown table: one row per
# distinct ROWCOL value (first-seen order), one column per COLCOL value (numeric order; words
# keep their first-seen order), cells "mean ± sd" of METRIC * SCALE over the rows sharing
# (row, column) (the seeds), sd the sample standard deviation, numbers printed with the printf
# FORMAT (e.g. %.1f); a bare mean for a single value. FILTER is COL=VALUE (all must match).
md_pivot() {
    awk -F, -v rowcol="$2" -v colcol="$3" -v metric="$4" -v scale="$5" -v fmt="$6" \
        -v filters="$(shift 6; echo "$*")" '
    NR == 1 {
        for (i = 1; i <= NF; i++) h[$i] = i
        nf = split(filters, f, " ")
        for (i = 1; i <= nf; i++) { eq = index(f[i], "="); fc[i] = h[substr(f[i], 1, eq - 1)]; fv[i] = substr(f[i], eq + 1) }
        next
    }
    {
        for (i = 1; i <= nf; i++) if ($fc[i] != fv[i]) next
        v = $h[metric]; if (v == "") next
        r = $h[rowcol]; c = $h[colcol]; k = r SUBSEP c
        if (!(r in rs)) { rs[r] = 1; rows[++nr] = r }
        if (!(c in cs)) { cs[c] = 1; cols[++nc] = c }
        vals[k, ++n[k]] = v * scale
    }
    END {
        for (i = 2; i <= nc; i++) for (j = i; j > 1 && cols[j - 1] + 0 > cols[j] + 0; j--) { t = cols[j]; cols[j] = cols[j - 1]; cols[j - 1] = t }
        line = "| " rowcol " |"; sep = "| --- |"
        for (j = 1; j <= nc; j++) { line = line " " cols[j] " |"; sep = sep " ---: |" }
        print line; print sep
        for (i = 1; i <= nr; i++) {
            line = "| " rows[i] " |"
            for (j = 1; j <= nc; j++) {
                k = rows[i] SUBSEP cols[j]; m = n[k]
                if (!m) { line = line " |"; continue }
                s = 0; for (q = 1; q <= m; q++) s += vals[k, q]; mean = s / m
                cell = sprintf(fmt, mean)
                if (m > 1) { ss = 0; for (q = 1; q <= m; q++) ss += (vals[k, q] - mean) ^ 2
                             cell = cell " ± " sprintf(fmt, sqrt(ss / (m - 1))) }
                line = line " " cell " |"
            }
            print line
        }
    }' "$1"
}

# plot ARGS...: ./plot, failing loudly.
plot() { "$BIN_DIR/plot" "$@" >/dev/null || die "plot failed: $*"; }

# provenance: the line every results.md carries, naming the commit, the build of the tools and
# the CPU that made its numbers. They are bit-identical for the same build on the same CPU
# (any thread count); -march=native makes another CPU a different build (README, Tests).
provenance() {
    _rev=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
    git diff --quiet HEAD -- src Makefile 2>/dev/null || _rev="$_rev with uncommitted changes to src/ or Makefile"
    # gcc records the compiler and its options, -march=native resolved, in the debug info.
    _cc=$(LC_ALL=C grep -a -o -m1 'GNU C[0-9]* [[:print:]]*' "$BIN_DIR/train" 2>/dev/null | head -1)
    _build="unknown build"
    [ -n "$_cc" ] && _build="$(echo "$_cc" | grep -o '^GNU C[0-9]* [0-9.]*')$(echo "$_cc" |
        grep -o -- ' -march=[^ ]*\| -O[^ ]*\| -ffp-contract=[^ ]*\| -fsanitize=[^ ]*' | tr -d '\n')"
    _cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)
    echo "Produced by commit $_rev; tools: $_build; CPU: ${_cpu:-unknown}."
}
