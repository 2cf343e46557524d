# The renderer of scripts/render_docs.sh (run after scripts/markdown.awk, for trim() and
# fenced()): reads one doc, writes it with every table block re-rendered to the file `out`, and
# for each block prints "INDEX<TAB>LINE<TAB>PATH<TAB>same|differs<TAB>LINE in the output"; a
# differing block's present and rendered bodies go to PFX.INDEX.cur and PFX.INDEX.new.
# Errors: "DOC:LINE: message" on stderr and exit status 2. Variables: doc, out, pfx.
#
# A marker: <!-- table: results/DIR/FILE.md section="TEXT" n=2 rows=a,b cols=x,y -->, then the
# block, then <!-- end table -->. PATH is relative to the repository root, under results/.
#   FILE.md  the source tables are the maximal runs of consecutive lines starting with `|`;
#            section="TEXT": only tables that start after the first line holding TEXT (a
#            literal substring) count; n=K takes the K-th of them (default 1). Lines are
#            copied byte for byte.
#   FILE.csv the header line names the columns; rendered as `| a | b |` rows with a
#            separator row (`---:` for a column whose non-empty values are all numbers,
#            `---` otherwise); cells verbatim after RFC-4180 unquoting (a `|` in a cell is
#            written `\|`, a line break inside a quoted cell becomes a space).
#   FILE.txt the file verbatim in a fenced block (```text ... ```); no options.
#   rows=a,b keeps the header, the separator and the data rows whose first cell (trimmed) is
#            listed; cols=x,y keeps the first column and the columns whose header cell
#            (trimmed) is listed; file order is kept, and every name must exist; quoted,
#            rows="a b,c d" (as section="...") the names may hold spaces.
# Markers inside fenced code blocks are left alone. POSIX awk (mawk, gawk).
function err(line, msg) {
    printf "%s:%d: %s\n", doc, line, msg > "/dev/stderr"
    failed = 1
    exit 2
}
function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?%?$/ }
# cells(s): splits the table line s at its unescaped pipes into cell[1..ncell] (raw, spaces
# kept); tail is what follows the last cell ("|" and any blanks), "" when no trailing pipe.
function cells(s,   i, c, n, seg, k) {
    n = length(s); k = 0; seg = ""
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c == "\\" && i < n) { seg = seg c substr(s, i + 1, 1); i++; continue }
        if (c == "|") { part[k++] = seg; seg = ""; continue }
        seg = seg c
    }
    part[k] = seg
    # part[0] is what precedes the first pipe (nothing: a table line starts with one)
    if (k > 1 && trim(part[k]) == "") { ncell = k - 1; tail = "|" part[k] }
    else { ncell = k; tail = "" }
    for (i = 1; i <= ncell; i++) cell[i] = part[i]
    return ncell
}
# csv_records(path): parses the CSV file into rec[r, f] (r = 1..nrec, f = 1..nf[r]).
function csv_records(path,   line, rc, r, i, n, c, inq, fld, f, nl, ln) {
    nrec = 0; inq = 0; ln = 0
    while ((rc = (getline line < path)) > 0) {
        ln++
        sub(/\r$/, "", line)
        if (ln == 1 && substr(line, 1, 3) == "\357\273\277") line = substr(line, 4)
        if (!inq) {
            if (line == "") continue
            if (index(line, "\"") == 0) {
                n = split(line, tmpf, ",")
                nrec++; nf[nrec] = n; recline[nrec] = ln
                for (i = 1; i <= n; i++) rec[nrec, i] = tmpf[i]
                continue
            }
            nrec++; f = 1; fld = ""; recline[nrec] = ln
        } else fld = fld " "
        n = length(line)
        for (i = 1; i <= n; i++) {
            c = substr(line, i, 1)
            if (inq) {
                if (c == "\"") {
                    if (substr(line, i + 1, 1) == "\"") { fld = fld "\""; i++ }
                    else inq = 0
                } else fld = fld c
            } else if (c == "\"") inq = 1
            else if (c == ",") { rec[nrec, f++] = fld; fld = "" }
            else fld = fld c
        }
        if (!inq) { rec[nrec, f] = fld; nf[nrec] = f }
    }
    close(path)
    if (inq) err(mline, "unterminated quoted field in " path " (record starting on its line " recline[nrec] ")")
}
function mdcell(s) { gsub(/\|/, "\\|", s); return s }
# render(): fills out_[1..nout] with the table the current marker asks for.
function render(   line, rc, m, i, j, start, tcount, want, L, r, ncol, numeric, sep, s, keep, name, nk, found, row1) {
    nout = 0
    if (kind == "txt") {
        out_[++nout] = "```text"
        while ((rc = (getline line < path)) > 0) {
            if (line ~ /^[ \t]*(```|~~~)/) err(mline, path ": a line starts a fence, so no fenced block can hold it")
            out_[++nout] = line
        }
        close(path)
        out_[++nout] = "```"
        return
    }
    if (kind == "md") {
        m = 0
        while ((rc = (getline line < path)) > 0) src[++m] = line
        close(path)
        L = 0
        if (section != "") {
            for (i = 1; i <= m; i++) if (index(src[i], section) > 0) { L = i; break }
            if (L == 0) err(mline, "section \"" section "\" not found in " path)
        }
        tcount = 0; start = 0
        for (i = 1; i <= m; i++) {
            if (substr(src[i], 1, 1) != "|") continue
            if (i > 1 && substr(src[i - 1], 1, 1) == "|") continue
            if (i <= L) continue
            if (++tcount == nth) { start = i; break }
        }
        if (start == 0) {
            if (section != "") err(mline, path " has " tcount " table(s) after section \"" section "\"; n=" nth " asked")
            err(mline, path " has " tcount " table(s); n=" nth " asked")
        }
        for (i = start; i <= m && substr(src[i], 1, 1) == "|"; i++) out_[++nout] = src[i]
    } else {
        csv_records(path)
        if (nrec == 0) err(mline, path " is empty")
        ncol = nf[1]
        for (r = 2; r <= nrec; r++)
            if (nf[r] != ncol)
                err(mline, path ": its line " recline[r] " has " nf[r] " fields, the header " ncol)
        s = "|"
        for (j = 1; j <= ncol; j++) s = s " " mdcell(rec[1, j]) " |"
        out_[++nout] = s
        sep = "|"
        for (j = 1; j <= ncol; j++) {
            numeric = 1
            for (r = 2; r <= nrec; r++) if (rec[r, j] != "" && !isnum(rec[r, j])) { numeric = 0; break }
            sep = sep (numeric ? " ---: |" : " --- |")
        }
        out_[++nout] = sep
        for (r = 2; r <= nrec; r++) {
            s = "|"
            for (j = 1; j <= ncol; j++) s = s " " mdcell(rec[r, j]) " |"
            out_[++nout] = s
        }
        for (r = 1; r <= nrec; r++) { for (j = 1; j <= nf[r]; j++) delete rec[r, j]; delete nf[r] }
    }
    if (rows == "" && cols == "") return
    if (nout < 2) err(mline, "rows/cols: the table in " path " has no header and separator")
    # rows=: keep the header, the separator and the listed data rows
    if (rows != "") {
        nk = split(rows, keep, ",")
        for (i = 1; i <= nk; i++) found[keep[i]] = 0
        j = 2
        for (i = 3; i <= nout; i++) {
            cells(out_[i]); name = trim(cell[1])
            if (name in found) { found[name] = 1; out_[++j] = out_[i] }
        }
        nout = j
        for (i = 1; i <= nk; i++)
            if (!found[keep[i]]) err(mline, "rows: no row named " keep[i] " in " path)
        for (name in found) delete found[name]
    }
    # cols=: keep the first column and the listed ones
    if (cols != "") {
        nk = split(cols, keep, ",")
        for (i = 1; i <= nk; i++) found[keep[i]] = 0
        ncol = cells(out_[1])
        for (j = 1; j <= ncol; j++) {
            colkeep[j] = (j == 1)
            name = trim(cell[j])
            if (name in found) { found[name] = 1; colkeep[j] = 1 }
        }
        for (i = 1; i <= nk; i++)
            if (!found[keep[i]]) err(mline, "cols: no column named " keep[i] " in " path)
        for (name in found) delete found[name]
        for (i = 1; i <= nout; i++) {
            r = cells(out_[i]); s = ""
            for (j = 1; j <= r; j++) if (j <= ncol && colkeep[j]) s = s "|" cell[j]
            out_[i] = s tail
        }
    }
}
# marker(s): parses a marker line into path, kind, section, nth, rows, cols.
function marker(s,   t, word, key, val, q, seen) {
    t = s
    sub(/^<!-- table:/, "", t)
    if (t !~ /-->[ \t]*$/) err(NR, "table marker does not end with -->")
    sub(/-->[ \t]*$/, "", t)
    t = trim(t)
    path = t; sub(/[ \t].*/, "", path)
    t = trim(substr(t, length(path) + 1))
    section = ""; nth = 1; rows = ""; cols = ""
    while (t != "") {
        if (match(t, /^(section|rows|cols)="/)) {   # a quoted value may hold spaces
            key = substr(t, 1, RLENGTH - 2)
            q = index(substr(t, RLENGTH + 1), "\"")
            if (q == 0) err(NR, key "=\" has no closing quote")
            val = substr(t, RLENGTH + 1, q - 1); t = trim(substr(t, RLENGTH + 1 + q))
            if (val == "") err(NR, key "=\"\" is empty")
        } else {
            word = t; sub(/[ \t].*/, "", word)
            t = trim(substr(t, length(word) + 1))
            q = index(word, "=")
            key = q ? substr(word, 1, q - 1) : word
            val = q ? substr(word, q + 1) : ""
            if (key != "n" && key != "rows" && key != "cols")
                err(NR, "unknown option \"" word "\" in table marker (section=\"TEXT\", n=K, rows=a,b, cols=x,y)")
            if (val == "" || val ~ /^,|,,|,$/) err(NR, key "= needs a value (" word ")")
        }
        if (key in seen) err(NR, key " given twice in table marker")
        seen[key] = 1
        if (key == "section") section = val
        else if (key == "n") {
            if (val !~ /^[1-9][0-9]*$/) err(NR, "n=" val ": want a positive whole number")
            nth = val + 0
        } else if (key == "rows") rows = val
        else cols = val
    }
    if (path == "") err(NR, "table marker names no file")
    if (path !~ /^results\// || path ~ /(^|\/)\.\.?(\/|$)/)
        err(NR, "table source " path " is not under results/")
    if (path ~ /\.md$/) kind = "md"
    else if (path ~ /\.csv$/) kind = "csv"
    else if (path ~ /\.txt$/) kind = "txt"
    else err(NR, "table source " path ": want a .md, .csv or .txt file")
    if (kind == "txt" && (section != "" || nth != 1 || rows != "" || cols != ""))
        err(NR, "a .txt source takes no options: it is quoted whole")
    if ((getline t < path) < 0) err(NR, "no file " path)
    close(path)
}
BEGIN { inblock = 0; nb = 0; shift = 0 }
inblock {
    if ($0 ~ /^<!-- end table -->[ \t]*$/) {
        render()
        same = (ncur == nout)
        for (i = 1; same && i <= nout; i++) if (cur[i] != out_[i]) same = 0
        for (i = 1; i <= nout; i++) print out_[i] > out
        print > out
        nb++
        printf "%d\t%d\t%s\t%s\t%d\n", nb, mline, path, same ? "same" : "differs", mline + shift
        shift += nout - ncur
        if (!same) {
            f = pfx "." nb ".cur"; printf "" > f
            for (i = 1; i <= ncur; i++) print cur[i] > f
            close(f)
            f = pfx "." nb ".new"; printf "" > f
            for (i = 1; i <= nout; i++) print out_[i] > f
            close(f)
        }
        inblock = 0
        next
    }
    if ($0 ~ /^<!-- table:/) err(mline, "table marker without <!-- end table --> (the next marker is on line " NR ")")
    cur[++ncur] = $0
    next
}
{
    if (fenced($0, fst) || fst[1] != "") { print > out; next }
    if ($0 ~ /^<!-- table:/) {
        marker($0)
        mline = NR; inblock = 1; ncur = 0
        print > out
        next
    }
    if ($0 ~ /^<!-- end table -->/) err(NR, "<!-- end table --> without a table marker before it")
    print > out
}
END {
    if (failed) exit 2
    if (inblock) err(mline, "table marker without <!-- end table -->")
}
