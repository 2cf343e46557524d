# Stated counts of Markdown prose against the results files they cite, for tests/test_docs.sh:
#
#   awk -f scripts/markdown.awk -f tests/counts.awk FILE.md ...     (from the repository root)
#
# prints `FILE:LINE: "N KIND" but PATH has M` for each stated count that disagrees with its
# file, `FILE:LINE: "N KIND": PATH is not a file` for a cited CSV that is missing, and at the
# end one line `counts checked=C uncited=U`. Exit status 1 when a count disagrees.
#
# A stated count: a number (digits, or a word from two to twenty, thirty, forty, ... ninety,
# also hyphenated as in twenty-three) followed by one space and `seeds`, `runs` or
# `trainings`, in prose: outside fenced code, HTML comments, table rows, headings and inline
# code spans. "1 seed" (a part of a study) is not a stated count of the study.
# The file it cites, the first that applies:
#   1. the CSV paths (`results/DIR/F.csv`, as a link, in code or bare; `../` allowed) of its
#      paragraph, nearest first by characters; a path `results/DIR/F.md` cites DIR/F.csv, or
#      DIR/runs.csv when there is no F.csv, or for a decoder_only.md DIR/lm_results.csv;
#   2. else the table blocks of its section (from a heading of level 1 or 2 to the next; a
#      block `<!-- table: results/DIR/F.md -->` cites as the path does): the nearest before it,
#      else the nearest after it (prose reads the table above it);
#   3. else the paths of the other paragraphs of its section, nearest first by lines;
#   for "seeds", the nearest candidate with a `seed` column; for runs and trainings, the nearest
#   candidate with a `run` column or a curves.csv beside it. No candidate: the count is uncited (counted, not checked).
# What a file has: seeds, the distinct values of its `seed` column; runs and trainings, the
# distinct values of its `run` column, or without one the trainings of the curves.csv beside
# it (lm_curves.csv beside an lm_*.csv): the distinct tuples of its columns left of `step`.
# A paragraph: lines up to a blank line, a heading, a table row, a fence or a new list item.
function csv_split(s, f,   n, i, c, inq, fld) {
    n = 0; inq = 0; fld = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (inq) { if (c == "\"") { if (substr(s, i + 1, 1) == "\"") { fld = fld c; i++ } else inq = 0 } else fld = fld c }
        else if (c == "\"") inq = 1
        else if (c == ",") { f[++n] = fld; fld = "" }
        else fld = fld c
    }
    f[++n] = fld
    return n
}
# load(path): fills SEEDS[path] (-1: no seed column) and RUNS[path] (-1: unknown) once; 0 if
# no file. RUNS: the distinct values of a `run` column, else the trainings of the folder's
# curves.csv (lm_curves.csv for an lm_*.csv file): its distinct tuples of the columns left of
# `step`, one per training curve.
function load(path,   line, f, n, i, seedc, runc, curves) {
    if (path in EXISTS) return EXISTS[path]
    if ((getline line < path) <= 0) { EXISTS[path] = 0; return 0 }
    sub(/\r$/, "", line)
    n = csv_split(line, f); seedc = 0; runc = 0
    for (i = 1; i <= n; i++) { if (f[i] == "seed") seedc = i; if (f[i] == "run") runc = i }
    SEEDS[path] = seedc ? distinct(path, seedc, seedc) : -1
    RUNS[path] = -1
    if (runc) RUNS[path] = distinct(path, runc, runc)
    else {
        curves = path; sub(/[^\/]*$/, (path ~ /\/lm_[^\/]*$/ ? "lm_" : "") "curves.csv", curves)
        if ((getline line < curves) > 0) {
            n = csv_split(line, f)
            for (i = 1; i <= n; i++) if (f[i] == "step") break
            if (i > 1 && i <= n) RUNS[path] = distinct(curves, 1, i - 1)
        }
        close(curves)
    }
    close(path)
    EXISTS[path] = 1
    return 1
}
# distinct(path, a, b): the distinct tuples of columns a..b of path's rows (header left out)
function distinct(path, a, b,   line, f, k, key, n, seen) {
    close(path); getline line < path; n = 0
    while ((getline line < path) > 0) {
        sub(/\r$/, "", line)
        if (line == "") continue
        csv_split(line, f)
        key = f[a]; for (k = a + 1; k <= b; k++) key = key SUBSEP f[k]
        if (!(key in seen)) { seen[key] = 1; n++ }
    }
    close(path)
    return n
}
# norm(p): p relative to the repository root (docs link with ../)
function norm(p) { while (sub(/^\.\.\//, "", p)) ; sub(/^\.\//, "", p); return p }
# csv_of(p): the CSV a cited path stands for
function csv_of(p,   c) {
    p = norm(p)
    if (p ~ /\.csv$/) return p
    c = p; sub(/\.md$/, ".csv", c)
    if (load(c)) return c
    c = p; sub(/[^\/]*$/, "runs.csv", c)
    if (load(c) || p !~ /\/decoder_only\.md$/) return c
    c = p; sub(/[^\/]*$/, "lm_results.csv", c)
    return c
}
function number(w,   n, i, t, u, parts) {
    if (w ~ /^[0-9]+$/) return w + 0
    w = tolower(w)
    if (w in NUM) return NUM[w]
    if (split(w, parts, "-") == 2 && (parts[1] in NUM) && (parts[2] in NUM) && NUM[parts[1]] % 10 == 0 && NUM[parts[1]] >= 20 && NUM[parts[2]] < 10)
        return NUM[parts[1]] + NUM[parts[2]]
    return -1
}
BEGIN {
    split("two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty", w, " ")
    for (i = 1; i <= 19; i++) NUM[w[i]] = i + 1
    split("thirty forty fifty sixty seventy eighty ninety", w, " ")
    for (i = 1; i <= 7; i++) NUM[w[i]] = 30 + 10 * (i - 1)
    split("one", w, " "); NUM["one"] = 1
    bad = 0; checked = 0; uncited = 0
}
# Paragraph bookkeeping: PT[p] its text, PL[p, k] the line of its k-th character chunk.
function par_end() { if (cur) { cur = 0 } }
function par_add(t) {
    if (!cur) { np++; cur = np; PT[np] = ""; PSEC[np] = sec; PLINE[np] = FNR; PN[np] = 0 }
    PN[cur]++; PLS[cur, PN[cur]] = length(PT[cur]) + 1; PLL[cur, PN[cur]] = FNR
    PT[cur] = PT[cur] t " "
}
function line_at(p, off,   k, l) { l = PLL[p, 1]; for (k = 1; k <= PN[p]; k++) if (PLS[p, k] <= off) l = PLL[p, k]; return l }
# cites(p, sec_only): appends the paragraph's cited paths to CAND[] with their positions
function paths(p, text,   rest, off, t) {
    rest = text; off = 0
    while (match(rest, /(\.\.\/)*results\/[A-Za-z0-9_.\/-]+\.(csv|md)/)) {
        t = substr(rest, RSTART, RLENGTH)
        NPP[p]++; PP[p, NPP[p]] = csv_of(t); PPO[p, NPP[p]] = off + RSTART; PPL[p, NPP[p]] = line_at(p, off + RSTART)
        off += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH)
    }
}
function absd(x) { return x < 0 ? -x : x }
# best(kind, p, off, line): the cited CSV for a count of kind at offset off of paragraph p
function best(kind, p, off, line,   i, q, d, bd, b, c) {
    b = ""; bd = 1e18
    for (i = 1; i <= NPP[p]; i++) {
        c = PP[p, i]; d = absd(PPO[p, i] - off)
        if (d < bd && usable(kind, c)) { bd = d; b = c }
    }
    if (b != "") return b
    bd = 1e18
    for (i = 1; i <= nblk; i++) {
        if (BSEC[i] != PSEC[p]) continue
        c = BCSV[i]; d = BLINE[i] < line ? line - BLINE[i] : 1e9 + BLINE[i] - line
        if (d < bd && usable(kind, c)) { bd = d; b = c }
    }
    if (b != "") return b
    for (q = 1; q <= np; q++) {
        if (PSEC[q] != PSEC[p]) continue
        for (i = 1; i <= NPP[q]; i++) {
            c = PP[q, i]; d = absd(PPL[q, i] - line)
            if (d < bd && usable(kind, c)) { bd = d; b = c }
        }
    }
    return b
}
function usable(kind, c) { return load(c) && (kind == "seeds" ? SEEDS[c] : RUNS[c]) >= 0 }
function finish(   p, text, rest, off, m, w, n, kind, c, have, line, phrase) {
    for (p = 1; p <= np; p++) paths(p, PT[p])
    for (p = 1; p <= np; p++) {
        text = PT[p]
        # inline code is no prose: blank it, keeping the offsets
        while (match(text, /`[^`]*`/)) text = substr(text, 1, RSTART - 1) sprintf("%" RLENGTH "s", "") substr(text, RSTART + RLENGTH)
        rest = text; off = 0
        while (match(rest, /[A-Za-z0-9-]+ (seeds|runs|trainings)[^A-Za-z0-9]/)) {
            phrase = substr(rest, RSTART, RLENGTH - 1)
            w = phrase; sub(/ .*/, "", w); kind = phrase; sub(/^[^ ]* /, "", kind)
            n = number(w)
            if (RSTART > 1 && substr(rest, RSTART - 1, 1) ~ /[.,]/ && w ~ /^[0-9]/) n = -1   # 1.5 runs, 2,000 runs
            line = line_at(p, off + RSTART)
            if (n >= 2) {
                c = best(kind, p, off + RSTART, line)
                if (c == "") uncited++
                else {
                    checked++
                    have = (kind == "seeds") ? SEEDS[c] : RUNS[c]
                    if (have != n) { printf "%s:%d: \"%s\" but %s has %d\n", doc, line, phrase, c, have; bad = 1 }
                }
            }
            off += RSTART + RLENGTH - 2; rest = substr(rest, RSTART + RLENGTH - 1)
        }
    }
    np = 0; nblk = 0; cur = 0; sec = 0
    for (k in PT) delete PT[k]
    for (k in NPP) delete NPP[k]
}
FNR == 1 { if (doc != "") finish(); doc = FILENAME; st[1] = ""; incomment = 0; sec = 0 }
{
    line = $0; sub(/\r$/, "", line)
    if (fenced(line, st)) { par_end(); next }
    if (st[1] != "") next
    if (incomment) { if (index(line, "-->")) incomment = 0; next }
    t = trim(line)
    if (t ~ /^<!-- table: /) {
        par_end(); nblk++; BSEC[nblk] = sec; BLINE[nblk] = FNR
        b = substr(t, 13); sub(/[ \t].*/, "", b); sub(/-->$/, "", b); BCSV[nblk] = csv_of(b)
        next
    }
    if (t ~ /^<!--/) { par_end(); if (!index(t, "-->")) incomment = 1; next }
    if (t ~ /^##?[ \t]/ || t ~ /^##?$/) { par_end(); sec++; next }
    if (t == "" || t ~ /^\|/ || t ~ /^#/) { par_end(); next }
    if (t ~ /^([-*+]|[0-9]+[.)])[ \t]/) par_end()
    par_add(t)
}
END {
    if (doc != "") finish()
    printf "counts checked=%d uncited=%d\n", checked, uncited
    exit bad
}
