# The documentation is generated from results/ and holds together:
#   a. every table block of README.md and docs/*.md is what scripts/render_docs.sh renders
#      from its results/ file (one line per document), and no table outside a block copies
#      the rows of a results/*.md table (it would be typed, not generated);
#   b. every relative link and image of README.md and docs/*.md (outside code and comments)
#      names a file or folder of the repository (one git tracks, in a checkout), and every
#      #anchor a heading (GitHub's slug) or an <a id>; so does every table block's source;
#   c. README.md, docs, src, tests, scripts and results hold no word of the team's working
#      history (the pattern below; history lives in git log);
#   d. README.md has at most 350 lines (none over 200 characters), docs/performance.md at most
#      300;
#   g. sentences: README.md and every docs/*.md average at most 25 words a sentence, none over
#      60 (tests/sentences.awk says what a sentence and a word are);
#   h. stated counts: every "N seeds", "N runs", "N trainings" of their prose is what the
#      results file it cites holds (tests/counts.awk defines the citation and the count);
#   i. every mutant of tests/mutants.txt still finds its `from` text exactly once in its file
#      (sh tests/mutate.sh --check, no builds): code that moves cannot leave mutants that
#      `make mutate` would stop on as stale;
#   e. self-tests: the same checks, pointed at a scratch copy with planted faults, catch them;
#   f. unit checks of the renderer against hand-written output (with every awk at hand).
# Runs in a second or two and reads nothing but the checkout.
. tests/lib.sh
export LC_ALL=C
RENDER=scripts/render_docs.sh
# The words: built from pieces so that this file does not match itself.
WORDS='sess''ion|iss''ue #?[0-9]'

# doc_files: README.md and docs/*.md of the current directory.
doc_files() {
    set -- README.md
    for df in docs/*.md; do [ -f "$df" ] && set -- "$@" "$df"; done
    printf '%s\n' "$@"
}

# The link checker. Input: the documents (paths relative to the repository root, the current
# directory). Output, tab-separated: "CHECK loc path link" for each relative link (the shell
# tests that path exists), "ERR message" for a broken anchor or a link that leaves the
# repository, and "COUNT n" at the end. Anchors: ATX and setext headings outside fenced code,
# slugged as GitHub does (lowercase; letters, digits, space, - and _ kept, other characters
# dropped, non-ASCII letters kept; spaces to -; a repeated slug gets -1, -2, ...), and
# <a id="x"> / <a name="x">. Byte-based, run with LC_ALL=C; works with mawk and gawk.
# trim() and fenced(), shared with scripts/render_docs.sh
MD_AWK=$(cat scripts/markdown.awk)
LINKS_AWK='
# nocode(s): s with its inline code spans (a run of n backticks to the next run of exactly n)
# replaced by a blank.
function nocode(s,   out, i, n, run, rest, pos, j, m, found) {
    out = ""
    while ((i = index(s, "`")) > 0) {
        n = 0; while (substr(s, i + n, 1) == "`") n++
        run = substr(s, i, n); rest = substr(s, i + n)
        pos = 1; found = 0
        while ((j = index(substr(rest, pos), run)) > 0) {
            j = pos + j - 1
            m = 0; while (substr(rest, j + m, 1) == "`") m++
            if (m == n) { found = j; break }
            pos = j + m
        }
        if (found) { out = out substr(s, 1, i - 1) " "; s = substr(rest, found + n) }
        else { out = out substr(s, 1, i + n - 1); s = rest }
    }
    return out s
}
function hexval(h) {
    h = tolower(h)
    return (index("0123456789abcdef", substr(h, 1, 1)) - 1) * 16 + index("0123456789abcdef", substr(h, 2, 1)) - 1
}
function pdecode(s,   out, i, h) {
    out = ""
    while ((i = index(s, "%")) > 0) {
        h = substr(s, i + 1, 2)
        if (h ~ /^[0-9A-Fa-f][0-9A-Fa-f]$/ && h != "00") { out = out substr(s, 1, i - 1) sprintf("%c", hexval(h)); s = substr(s, i + 3) }
        else { out = out substr(s, 1, i); s = substr(s, i + 1) }
    }
    return out s
}
# letter(cp): 1 when the non-ASCII code point cp is kept in a slug (a letter or mark, roughly:
# Latin-1 symbols, general punctuation, arrows, maths and the like are dropped).
function letter(cp) {
    if (cp < 192) return cp == 170 || cp == 181 || cp == 186
    if (cp == 215 || cp == 247 || cp == 894 || cp == 903) return 0
    if (cp >= 8192 && cp <= 11263) return 0
    if (cp >= 12288 && cp <= 12351) return 0
    if (cp >= 65024 && cp <= 65039) return 0
    return 1
}
function lower(cp) {
    if (cp >= 192 && cp <= 222 && cp != 215) return cp + 32
    if ((cp >= 256 && cp <= 303) || (cp >= 306 && cp <= 311) || (cp >= 330 && cp <= 375))
        return cp % 2 ? cp : cp + 1
    if ((cp >= 313 && cp <= 328) || (cp >= 377 && cp <= 382)) return cp % 2 ? cp + 1 : cp
    if (cp == 376) return 255
    if (cp >= 913 && cp <= 937 && cp != 930) return cp + 32
    if (cp >= 1040 && cp <= 1071) return cp + 32
    if (cp >= 1024 && cp <= 1039) return cp + 80
    return cp
}
function utf8(cp) {
    if (cp < 2048) return sprintf("%c%c", 192 + int(cp / 64), 128 + cp % 64)
    return sprintf("%c%c%c", 224 + int(cp / 4096), 128 + int(cp / 64) % 64, 128 + cp % 64)
}
# plain(s): a heading as text: [text](url) and ![alt](url) to their text, no tags or entities.
function plain(s,   i, j, k, t, pre) {
    while ((i = index(s, "](")) > 0) {
        j = index(substr(s, i + 2), ")")
        if (j == 0) break
        t = substr(s, 1, i - 1)
        for (k = length(t); k > 0 && substr(t, k, 1) != "["; k--) ;
        if (k == 0) break
        pre = substr(t, 1, k - 1)
        sub(/!$/, "", pre)
        s = pre substr(t, k + 1) substr(s, i + 2 + j)
    }
    gsub(/<[^>]*>/, "", s)
    gsub(/&[A-Za-z0-9#]+;/, "", s)
    return s
}
function slug(h,   s, out, n, i, c, b, cp) {
    s = plain(h); out = ""; n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1); b = ord[c]
        if (b < 128) {
            if (c ~ /[A-Za-z0-9_-]/) out = out tolower(c)
            else if (c == " ") out = out "-"
            continue
        }
        if (b >= 240) { i += 3; continue }
        if (b >= 224) {
            cp = (b - 224) * 4096 + (ord[substr(s, i + 1, 1)] - 128) * 64 + ord[substr(s, i + 2, 1)] - 128
            i += 2
        } else if (b >= 192) {
            cp = (b - 192) * 64 + ord[substr(s, i + 1, 1)] - 128
            i += 1
        } else continue
        if (letter(cp)) out = out utf8(lower(cp))
    }
    return out
}
function addslug(file, text,   s, k) {
    s = slug(trim(text))
    k = used[file, s]++
    if (k) s = s "-" k
    anchors[file, s] = 1
}
# load(file): reads the anchors of file once; 1 if it could be read, 0 if not.
function load(file,   line, rc, st, t, ind, para, rest, k, v, q) {
    if (file in loaded) return loaded[file]
    st[1] = ""; para = ""; rc = 0
    while ((rc = (getline line < file)) > 0) {
        sub(/\r$/, "", line)
        if (fenced(line, st)) { para = ""; continue }
        if (st[1] != "") continue
        rest = line
        while ((k = index(rest, "<a ")) > 0) {
            rest = substr(rest, k + 3)
            t = rest; sub(/>.*/, "", t)
            if (match(t, /(id|name)=("[^"]*"|\047[^\047]*\047)/)) {
                v = substr(t, RSTART, RLENGTH); sub(/^[a-z]*=./, "", v); v = substr(v, 1, length(v) - 1)
                anchors[file, v] = 1
            }
        }
        t = line; sub(/^ +/, "", t); ind = length(line) - length(t)
        if (ind <= 3 && match(t, /^#+/) && RLENGTH <= 6 && (length(t) == RLENGTH || substr(t, RLENGTH + 1, 1) ~ /[ \t]/)) {
            t = trim(substr(t, RLENGTH + 1))
            if (t ~ /^#+$/) t = ""
            sub(/[ \t]+#+$/, "", t)
            addslug(file, t); para = ""; continue
        }
        if (para != "" && ind <= 3 && t ~ /^(=+|-+)[ \t]*$/) { addslug(file, para); para = ""; continue }
        if (trim(line) == "" || ind > 3 || t ~ /^(\||<|>|[-*+][ \t]|[0-9]+[.)][ \t])/) { para = ""; continue }
        para = para == "" ? trim(line) : para " " trim(line)
    }
    close(file)
    loaded[file] = (rc == 0)
    return loaded[file]
}
# norm(p): p with . and .. resolved; ".." when it leaves the repository.
function norm(p,   n, i, part, out, k) {
    n = split(p, part, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (part[i] == "" || part[i] == ".") continue
        if (part[i] == "..") { if (k == 0) return ".."; k--; continue }
        stack[++k] = part[i]
    }
    out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") stack[i]
    return out == "" ? "." : out
}
function checklink(tgt,   orig, anchor, k, p) {
    tgt = trim(tgt)
    if (substr(tgt, 1, 1) == "<") { k = index(tgt, ">"); tgt = k ? substr(tgt, 2, k - 2) : substr(tgt, 2) }
    else sub(/[ \t].*/, "", tgt)
    if (tgt == "" || tgt ~ /^[A-Za-z][A-Za-z0-9+.-]*:/ || substr(tgt, 1, 2) == "//") return
    nlinks++; orig = tgt; anchor = ""
    if ((k = index(tgt, "#")) > 0) { anchor = pdecode(substr(tgt, k + 1)); tgt = substr(tgt, 1, k - 1) }
    sub(/\?.*/, "", tgt)
    tgt = pdecode(tgt)
    if (tgt == "") p = FILENAME
    else {
        p = norm(substr(tgt, 1, 1) == "/" ? substr(tgt, 2) : (docdir == "" ? tgt : docdir "/" tgt))
        if (p == "..") { printf "ERR\t%s: link %s leaves the repository\n", loc, orig; return }
        printf "CHECK\t%s\t%s\t%s\n", loc, p, orig
    }
    if (anchor != "" && p ~ /\.md$/ && load(p) && !((p, anchor) in anchors))
        printf "ERR\t%s: broken anchor in %s: no heading or <a id> in %s has the slug %s\n", loc, orig, p, anchor
}
BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
FNR == 1 {
    fs[1] = ""; incomment = 0
    docdir = FILENAME
    if (!sub(/\/[^\/]*$/, "", docdir)) docdir = ""
}
{
    line = $0; sub(/\r$/, "", line)
    if (fenced(line, fs) || fs[1] != "") next
    s = nocode(line); loc = FILENAME ":" FNR
    # a table block source, relative to the repository root
    if (!incomment && line ~ /^<!-- table: /) {
        t = substr(line, 13); sub(/[ \t].*/, "", t); sub(/-->$/, "", t)
        p = norm(t)
        if (p != "..") { nlinks++; printf "CHECK\t%s\t%s\t%s\n", loc, p, t }
        next
    }
    # HTML comments are not rendered: their text is no link
    if (incomment) { if (!(k = index(s, "-->"))) next; s = substr(s, k + 3); incomment = 0 }
    while ((k = index(s, "<!--")) > 0) {
        t = substr(s, k + 4)
        if (!(j = index(t, "-->"))) { s = substr(s, 1, k - 1); incomment = 1; break }
        s = substr(s, 1, k - 1) " " substr(t, j + 3)
    }
    if (s ~ /^ ? ? ?\[[^]]+\]:/) { t = s; sub(/^[^]]*\]:/, "", t); checklink(t); next }
    rest = s
    while ((i = index(rest, "](")) > 0) {
        rest = substr(rest, i + 2)
        j = index(rest, ")")
        if (j == 0) break
        checklink(substr(rest, 1, j - 1))
        rest = substr(rest, j + 1)
    }
    rest = s
    while (match(rest, /(src|href)="[^"]*"/)) {
        t = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
        sub(/^[a-z]*="/, "", t); checklink(substr(t, 1, length(t) - 1))
    }
}
END { printf "COUNT\t%d\n", nlinks }
'

# check_links DIR: prints "FILE:LINE: ..." for each broken link of DIR's README.md and
# docs/*.md (and each missing table block source) and returns 1 if there is one; sets nlinks
# to the number of links checked. When DIR is the top of a git checkout, a link must also
# name a file git tracks (or a folder holding one): a clone has nothing else.
check_links() {
    (cd "$1" && doc_files >"$TMP/links.files" && awk "$MD_AWK
$LINKS_AWK" $(cat "$TMP/links.files")) >"$TMP/links.raw" ||
        { echo "link checker failed in $1"; return 2; }
    cl_bad=0; nlinks=0; : >"$TMP/links.exist"
    while IFS='	' read -r cl_kind cl_a cl_b cl_c; do
        case $cl_kind in
            CHECK) if [ -e "$1/$cl_b" ]; then printf '%s\t%s\t%s\n' "$cl_a" "$cl_b" "$cl_c" >>"$TMP/links.exist"
                   else echo "$cl_a: broken link $cl_c: no file or folder $cl_b"; cl_bad=1; fi ;;
            ERR) echo "$cl_a"; cl_bad=1 ;;
            COUNT) nlinks=$cl_a ;;
        esac
    done <"$TMP/links.raw"
    if [ "$(cd "$1" && git rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$1" && pwd -P)" ] &&
        (cd "$1" && git -c core.quotepath=off ls-files) >"$TMP/links.tracked" 2>/dev/null; then
        awk -F'\t' 'FNR == NR {
                t[$0] = 1; n = split($0, part, "/"); d = ""
                for (i = 1; i < n; i++) { d = d (i > 1 ? "/" : "") part[i]; t[d] = 1 }
                next
            }
            $2 != "." && !($2 in t) { print $1 ": link " $3 ": " $2 " is not tracked by git (a clone lacks it)"; bad = 1 }
            END { exit bad }' "$TMP/links.tracked" "$TMP/links.exist" || cl_bad=1
    fi
    return $cl_bad
}

# check_words DIR: prints the lines of DIR's README.md, docs, src, tests, scripts and results
# (run folders left out) that hold one of $WORDS (as `grep -rniE` does); returns 0 when there is
# none.
check_words() {
    (
        cd "$1" || exit 2
        set --
        for cw in README.md docs src tests scripts results; do [ -e "$cw" ] && set -- "$@" "$cw"; done
        [ $# -gt 0 ] || exit 0
        # run folders (git-ignored: runs/) hold the data's own words, e.g. vocabularies
        ! grep -rniE --exclude-dir=runs "$WORDS" "$@"
    )
}

# check_typed DIR: prints "FILE:LINE: ..." for each table of DIR's README.md and docs/*.md
# outside a table block (and outside fenced code) whose data rows are copied from a table of a
# .md file under results/ (two rows or more, or all of them), and returns 1 if there is one:
# such a table is typed, not generated.
TYPED_AWK='
function flush() {
    if (start && (hits >= 2 || (hits >= 1 && hits == rows)))
        printf "%s:%d: a table typed by hand: %d of its %d rows are in %s; make it a table block\n", doc, start, hits, rows, where
    start = 0; rows = 0; hits = 0
}
FILENAME ~ /^results\// { if (substr($0, 1, 1) == "|" && !($0 in seen)) seen[$0] = FILENAME; next }
FNR == 1 { flush(); doc = FILENAME; fence = 0; block = 0 }
/^(```|~~~)/ { flush(); fence = !fence; next }
fence { next }
/^<!-- table:/ { flush(); block = 1; next }
/^<!-- end table -->/ { block = 0; next }
block { next }
substr($0, 1, 1) == "|" {
    if (!start) { start = FNR; n = 0 }
    if (++n >= 3) { rows++; if ($0 in seen) { hits++; where = seen[$0] } }
    next
}
{ flush() }
END { flush() }
'
check_typed() {
    (cd "$1" && find results -name '*.md' -type f | sort >"$TMP/typed.files" && doc_files >>"$TMP/typed.files" &&
        awk "$TYPED_AWK" $(cat "$TMP/typed.files")) >"$TMP/typed.raw" || { echo "typed-table check failed in $1"; return 2; }
    cat "$TMP/typed.raw"
    [ ! -s "$TMP/typed.raw" ]
}

# --- a. the table blocks of the real documents ---
for f in $(doc_files); do
    n=$(grep -c '^<!-- table:' "$f")
    if $RENDER --check "$f" >"$TMP/render.out" 2>&1; then ok "docs_render $f ($n table blocks)"
    else
        fail "docs_render $f" "scripts/render_docs.sh --check $f failed; scripts/render_docs.sh rewrites the blocks"
        head -n 30 "$TMP/render.out" | sed 's/^/    /'
    fi
done

if check_typed . >"$TMP/typed.out"; then ok "docs_tables_generated (no table outside a block copies rows of results/*.md)"
else
    fail docs_tables_generated "$(grep -c . "$TMP/typed.out") tables copy rows of results/ by hand"
    head -n 20 "$TMP/typed.out" | sed 's/^/    /'
fi

# --- b. links and anchors ---
if check_links . >"$TMP/links.out"; then ok "docs_links ($nlinks relative links, anchors and table sources resolve to tracked files)"
else
    fail docs_links "$(grep -c . "$TMP/links.out") broken links or anchors in README.md and docs/*.md"
    head -n 20 "$TMP/links.out" | sed 's/^/    /'
fi

# --- c. words of the working history ---
if check_words . >"$TMP/words.out"; then ok "docs_words (grep -rniE finds none of the words in README.md docs src tests scripts results)"
else
    fail docs_words "$(grep -c . "$TMP/words.out") lines of README.md docs src tests scripts results hold a word of the working history (WORDS in tests/test_docs.sh)"
    head -n 20 "$TMP/words.out" | cut -c1-200 | sed 's/^/    /'
fi

# --- d. lengths ---
for spec in README.md:350 docs/performance.md:300; do
    f=${spec%:*}; max=${spec#*:}
    if [ ! -f "$f" ]; then fail "docs_length $f" "no such file"; continue; fi
    n=$(wc -l <"$f")
    if [ "$n" -le "$max" ]; then ok "docs_length $f ($n <= $max lines)"
    else fail "docs_length $f" "$n lines, at most $max"; fi
done

# check_lines DIR: prints "README.md:LINE: N characters" for each line of DIR's README.md over
# 200 characters (UTF-8 characters, not bytes); returns 1 if there is one.
check_lines() {
    (cd "$1" && awk '{ s = $0; gsub(/[\200-\277]/, "", s) }
         length(s) > 200 { printf "%s:%d: %d characters\n", FILENAME, FNR, length(s); bad = 1 }
         END { exit bad }' README.md)
}
# check_sentences DIR FILE: prints the sentences of DIR/FILE over 60 words and its summary line
# (tests/sentences.awk); returns 1 if the mean is over 25 words or a sentence over 60.
check_sentences() {
    (cd "$1" && awk -v long=60 -f "$OLDPWD/scripts/markdown.awk" -f "$OLDPWD/tests/sentences.awk" "$2") |
        awk '{ print } / sentences=/ { n = split($0, f, /[ =]/); for (i = 1; i < n; i++) v[f[i]] = f[i + 1] }
             END { exit !(v["mean"] + 0 <= 25 && v["longest"] + 0 <= 60) }'
}
# check_counts DIR: prints each stated count of DIR's README.md and docs/*.md that its results
# file contradicts (tests/counts.awk, run in DIR) and the closing "counts checked=C uncited=U";
# returns 1 if one disagrees.
check_counts() {
    (cd "$1" && doc_files >"$TMP/counts.files" &&
        awk -f "$OLDPWD/scripts/markdown.awk" -f "$OLDPWD/tests/counts.awk" $(cat "$TMP/counts.files"))
}

if check_lines . >"$TMP/lines.out"; then ok "docs_line_length (no line of README.md over 200 characters)"
else fail docs_line_length "$(grep -c . "$TMP/lines.out") lines over 200 characters: $(head -n 3 "$TMP/lines.out" | tr '\n' ' ')"; fi

# --- g. sentence lengths ---
for f in $(doc_files); do
    if check_sentences . "$f" >"$TMP/sent.out"; then ok "docs_sentences $f ($(sed -n 's/.* \(mean=.*\)/\1/p' "$TMP/sent.out"))"
    else
        fail "docs_sentences $f" "$(sed -n 's/.* \(mean=.*\)/\1/p' "$TMP/sent.out"): want mean <= 25 words, longest <= 60"
        grep ':[0-9]*: ' "$TMP/sent.out" | head -n 5 | cut -c1-160 | sed 's/^/    /'
    fi
done

# --- h. stated counts ---
if check_counts . >"$TMP/counts.out"; then ok "docs_counts ($(tail -n 1 "$TMP/counts.out" | sed 's/^counts //'): seeds, runs and trainings agree with their results files)"
else
    fail docs_counts "$(grep -c ': "' "$TMP/counts.out") stated counts disagree with the results file they cite (tests/counts.awk)"
    grep ': "' "$TMP/counts.out" | head -n 20 | sed 's/^/    /'
fi

# --- f. the renderer against hand-written output ---
# make_repo DIR: a scratch repository with the renderer and two source files in results/t.
make_repo() {
    mkdir -p "$1/scripts" "$1/results/t" "$1/docs"
    cp "$RENDER" "$1/scripts/render_docs.sh"
    cp scripts/markdown.awk scripts/render_docs.awk "$1/scripts/"
    cat >"$1/results/t/src.md" <<'EOF'
## Source tables

A line with a | inside is no table.

| scheme | 1 | 2 | 3 |
| --- | ---: | ---: | ---: |
| none | 10.0 | 20.0 | 30.0 |
| rope | 11.5 ± 0.5 | 21.5 | 31.5 |
| alibi | 12 | 22 | 32 |

## Exact match (% of 200)

| scheme | 1 | 2 |
|:---|---:|---:|
| none | 1 | 2 |
| a \| b | 3 | 4 |

| pos | exact |
| --- | ---: |
| learned | 5 |
EOF
    printf '%s\n' '$ ./train x' 'step 1: | pipes | stay' '  indented, `code` and <b>tags</b> as they are' >"$1/results/t/out.txt"
    printf '%s\n' 'a' '```' >"$1/results/t/fence.txt"
    cat >"$1/results/t/src.csv" <<'EOF'
scheme,note,acc,pct,delta
none,"plain, no position",50.0,50%,-1.5e-3
rope,"say ""hi""",n/a,99.5%,
alibi,x,7,1e2,2
EOF
}
# The document: one block of each kind, bodies empty but for one stale line.
unit_doc() {
    cat <<'EOF'
# Doc

<!-- table: results/t/src.md -->
<!-- end table -->
<!-- table: results/t/src.md n=2 -->
stale
<!-- end table -->
<!-- table: results/t/src.md section="Exact match (%" n=2 -->
<!-- end table -->
<!-- table: results/t/src.md rows=alibi,none cols=3,1 -->
<!-- end table -->
<!-- table: results/t/src.md section="Exact match" rows=none cols=2 -->
<!-- end table -->

```md
<!-- table: results/t/none.md -->
```
<!-- table: results/t/src.csv -->
<!-- end table -->
<!-- table: results/t/src.csv rows=rope cols=note,delta -->
<!-- end table -->
<!-- table: results/t/src.md n=2 rows="a \| b" cols="2" -->
<!-- end table -->
<!-- table: results/t/out.txt -->
old output
<!-- end table -->
EOF
}
unit_expected() {
    cat <<'EOF'
# Doc

<!-- table: results/t/src.md -->
| scheme | 1 | 2 | 3 |
| --- | ---: | ---: | ---: |
| none | 10.0 | 20.0 | 30.0 |
| rope | 11.5 ± 0.5 | 21.5 | 31.5 |
| alibi | 12 | 22 | 32 |
<!-- end table -->
<!-- table: results/t/src.md n=2 -->
| scheme | 1 | 2 |
|:---|---:|---:|
| none | 1 | 2 |
| a \| b | 3 | 4 |
<!-- end table -->
<!-- table: results/t/src.md section="Exact match (%" n=2 -->
| pos | exact |
| --- | ---: |
| learned | 5 |
<!-- end table -->
<!-- table: results/t/src.md rows=alibi,none cols=3,1 -->
| scheme | 1 | 3 |
| --- | ---: | ---: |
| none | 10.0 | 30.0 |
| alibi | 12 | 32 |
<!-- end table -->
<!-- table: results/t/src.md section="Exact match" rows=none cols=2 -->
| scheme | 2 |
|:---|---:|
| none | 2 |
<!-- end table -->

```md
<!-- table: results/t/none.md -->
```
<!-- table: results/t/src.csv -->
| scheme | note | acc | pct | delta |
| --- | --- | --- | ---: | ---: |
| none | plain, no position | 50.0 | 50% | -1.5e-3 |
| rope | say "hi" | n/a | 99.5% |  |
| alibi | x | 7 | 1e2 | 2 |
<!-- end table -->
<!-- table: results/t/src.csv rows=rope cols=note,delta -->
| scheme | note | delta |
| --- | --- | ---: |
| rope | say "hi" |  |
<!-- end table -->
<!-- table: results/t/src.md n=2 rows="a \| b" cols="2" -->
| scheme | 2 |
|:---|---:|
| a \| b | 4 |
<!-- end table -->
<!-- table: results/t/out.txt -->
```text
$ ./train x
step 1: | pipes | stay
  indented, `code` and <b>tags</b> as they are
```
<!-- end table -->
EOF
}
R=$TMP/repo
make_repo "$R"
# The system's awk, and mawk and gawk when they are installed and are not that one.
awks=awk
sysawk=$(readlink -f "$(command -v awk)" 2>/dev/null)
for a in mawk gawk; do
    p=$(command -v $a 2>/dev/null) || continue
    [ "$(readlink -f "$p")" = "$sysawk" ] || awks="$awks $a"
done
for a in $awks; do
    unit_doc >"$R/docs/unit.md"
    unit_expected >"$TMP/unit.expected"
    name="render_unit ($a: two .md tables and a section, n=2, rows=, cols=, quoted rows=\"...\", a quoted CSV, alignment, a .txt verbatim)"
    if ! (cd "$R" && AWK=$a scripts/render_docs.sh docs/unit.md) >"$TMP/unit.out" 2>&1; then
        fail "$name" "exited non-zero: $(head -c 300 "$TMP/unit.out")"
    elif ! cmp -s "$R/docs/unit.md" "$TMP/unit.expected"; then
        fail "$name" "output differs from the expected text"
        diff -u "$TMP/unit.expected" "$R/docs/unit.md" | head -n 30 | sed 's/^/    /'
    elif ! grep -q '^docs/unit.md:10: updated from results/t/src.md$' "$TMP/unit.out"; then
        fail "$name" "did not name the changed block docs/unit.md:10 (its line after the render): $(head -c 300 "$TMP/unit.out")"
    else ok "$name"; fi
    # A second run finds nothing to do and leaves the file alone (same inode: not rewritten).
    i1=$(ls -i "$R/docs/unit.md" | cut -d' ' -f1)
    if (cd "$R" && AWK=$a scripts/render_docs.sh --check docs/unit.md) >"$TMP/unit.out" 2>&1 &&
        (cd "$R" && AWK=$a scripts/render_docs.sh docs/unit.md) >"$TMP/unit.out" 2>&1 &&
        grep -q '; 0 updated$' "$TMP/unit.out" && [ "$(ls -i "$R/docs/unit.md" | cut -d' ' -f1)" = "$i1" ]
    then ok "render_unchanged ($a: --check passes after a render; a second render rewrites nothing)"
    else fail "render_unchanged ($a)" "$(head -c 300 "$TMP/unit.out")"; fi
done

# --- e. self-tests: the checks catch planted faults ---
# A changed cell: --check exits 1, names FILE:LINE of the marker and shows the cell.
sed 's/^| alibi | 12 | 32 |$/| alibi | 12 | 33 |/' "$TMP/unit.expected" >"$R/docs/unit.md"
(cd "$R" && scripts/render_docs.sh --check docs/unit.md) >"$TMP/chk.out" 2>&1
rc=$?
if [ $rc != 1 ]; then fail self_render_changed_cell "exit status $rc, want 1: $(head -c 300 "$TMP/chk.out")"
elif grep -q '^docs/unit.md:21: table block differs' "$TMP/chk.out" &&
    grep -q '^-| alibi | 12 | 33 |$' "$TMP/chk.out" && grep -q '^+| alibi | 12 | 32 |$' "$TMP/chk.out"
then ok "self_render_changed_cell (--check exits 1, names docs/unit.md:21, shows the diff)"
else fail self_render_changed_cell "no FILE:LINE or diff: $(head -c 300 "$TMP/chk.out")"; fi
if grep -q '| 12 | 33 |' "$R/docs/unit.md"; then ok "self_render_check_writes_nothing"
else fail self_render_check_writes_nothing "--check changed the file"; fi
# A block with a row deleted by hand.
unit_expected | awk '/^\| learned \| 5 \|$/ { next } { print }' >"$R/docs/unit.md"
expect_error self_render_missing_row '^docs/unit.md:16: table block differs' sh -c "cd '$R' && scripts/render_docs.sh --check docs/unit.md >&2"
# Errors: each names FILE:LINE of the marker, exits 2 and writes nothing.
self_error() {
    se_name=$1; se_pat=$2; shift 2
    printf '%s\n' "# x" "$@" >"$R/docs/err.md"
    cp "$R/docs/err.md" "$TMP/err.before"
    expect_error "$se_name" "$se_pat" sh -c "cd '$R' && scripts/render_docs.sh docs/err.md"
    cmp -s "$R/docs/err.md" "$TMP/err.before" || fail "$se_name" "the file was changed"
}
self_error self_render_no_section '^docs/err.md:2: section "No such part" not found in results/t/src.md$' \
    '<!-- table: results/t/src.md section="No such part" -->' '<!-- end table -->'
self_error self_render_no_file '^docs/err.md:2: no file results/t/gone.md$' \
    '<!-- table: results/t/gone.md -->' '<!-- end table -->'
self_error self_render_not_results '^docs/err.md:2: table source README.md is not under results/$' \
    '<!-- table: README.md -->' '<!-- end table -->'
self_error self_render_no_row '^docs/err.md:3: rows: no row named t5 in results/t/src.md$' \
    'text' '<!-- table: results/t/src.md rows=none,t5 -->' '<!-- end table -->'
self_error self_render_no_col '^docs/err.md:2: cols: no column named 9 in results/t/src.csv$' \
    '<!-- table: results/t/src.csv cols=9 -->' '<!-- end table -->'
self_error self_render_n_too_big '^docs/err.md:2: results/t/src.md has 3 table\(s\); n=4 asked$' \
    '<!-- table: results/t/src.md n=4 -->' '<!-- end table -->'
self_error self_render_unknown_option '^docs/err.md:2: unknown option "limit=3"' \
    '<!-- table: results/t/src.md limit=3 -->' '<!-- end table -->'
self_error self_render_txt_options '^docs/err.md:2: a .txt source takes no options: it is quoted whole$' \
    '<!-- table: results/t/out.txt n=2 -->' '<!-- end table -->'
self_error self_render_txt_fence '^docs/err.md:2: results/t/fence.txt: a line starts a fence' \
    '<!-- table: results/t/fence.txt -->' '<!-- end table -->'
self_error self_render_no_end '^docs/err.md:2: table marker without <!-- end table -->' \
    '<!-- table: results/t/src.md -->' '| a |'
# An error in one file leaves it alone, and the other files are still rendered; exit 2.
printf '%s\n' '<!-- table: results/t/gone.md -->' '<!-- end table -->' >"$R/docs/err.md"
printf '%s\n' '<!-- table: results/t/src.md n=3 -->' '<!-- end table -->' >"$R/docs/good.md"
(cd "$R" && scripts/render_docs.sh docs/err.md docs/good.md) >"$TMP/two.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q '^| learned | 5 |$' "$R/docs/good.md" && [ "$(wc -l <"$R/docs/err.md")" -eq 2 ]
then ok "self_render_error_isolated (exit 2; the file with the error kept, the other rendered)"
else fail self_render_error_isolated "exit $rc: $(head -c 300 "$TMP/two.out")"; fi
expect_error self_render_bad_flag "unknown option '--chek'" "$R/scripts/render_docs.sh" --chek
if "$R/scripts/render_docs.sh" --help | grep -q '^Usage: scripts/render_docs.sh'; then ok self_render_help
else fail self_render_help "--help printed no usage or failed"; fi

# Links: a scratch tree with good links of every kind and planted broken ones; the checker
# must report exactly the broken ones.
L=$TMP/links
mkdir -p "$L/docs" "$L/results/x"
: >"$L/results/x/plot.svg"
cat >"$L/README.md" <<'EOF'
# Project

[usage](docs/usage.md), [its setup](docs/usage.md#setup-1), [the folder](results/x/),
![plot](results/x/plot.svg), [a café](docs/usage.md#café-über--naïve-quotes),
[speed](#speed--2-faster-5) [résumé](#résumé) [x](#x-and--) [jobs](#the---jobs-option)
[web](https://example.org/nothing) [mail](mailto:a@b.c) [here](#explicit) [ref][r]
`[code](missing-in-code.md)` and ``[a `b` c](also-missing.md)`` <!-- [c](gone.md) -->

## Speed → 2× faster (±5%)
## Résumé
## x² and … ·
## The `--jobs` option
<a id="explicit"></a>

```sh
[fenced](missing-in-fence.md)
```
<!-- a comment over lines
[commented](gone.md) -->

[r]: docs/usage.md
[broken file](docs/nothing.md)
[broken anchor](#no-such-heading) ![broken image](results/x/none.svg)
[broken other](docs/usage.md#setup-2)
[outside](../../etc/passwd)
EOF
cat >"$L/docs/usage.md" <<'EOF'
# Usage
## Setup
## Setup
Café über — naïve “quotes”
--------------------------
[back](../README.md#project) [up](../results/x/plot.svg) [self](#usage)
EOF
cat >"$TMP/links.want" <<'EOF'
README.md:22: broken link docs/nothing.md: no file or folder docs/nothing.md
README.md:23: broken anchor in #no-such-heading: no heading or <a id> in README.md has the slug no-such-heading
README.md:23: broken link results/x/none.svg: no file or folder results/x/none.svg
README.md:24: broken anchor in docs/usage.md#setup-2: no heading or <a id> in docs/usage.md has the slug setup-2
README.md:25: link ../../etc/passwd leaves the repository
EOF
check_links "$L" >"$TMP/links.got"
rc=$?
if [ $rc = 1 ] && cmp -s "$TMP/links.want" "$TMP/links.got"; then
    ok "self_links (5 planted broken links and anchors reported, $((nlinks - 5)) good ones not; code and comments skipped)"
else
    fail self_links "exit $rc; the report differs from the expected one:"
    diff "$TMP/links.want" "$TMP/links.got" | sed 's/^/    /'
fi
# The same tree without the planted faults passes.
sed -i '/^\[broken/d; /^\[outside/d' "$L/README.md"
if check_links "$L" >"$TMP/links.got"; then ok "self_links_clean ($nlinks links resolve once the faults are gone)"
else fail self_links_clean "$(head -c 300 "$TMP/links.got")"; fi

# Typed tables: a hand copy of a results table is caught; the same lines in a block, a table
# of the doc's own and a copy inside fenced code are not.
T=$TMP/typed
mkdir -p "$T/docs" "$T/results/t"
cp "$R/results/t/src.md" "$T/results/t/src.md"
{
    echo "# Typed"
    echo
    sed -n '/^| scheme | 1 | 2 | 3 |$/,/^| alibi /p' "$T/results/t/src.md"
    echo
    echo "| option | default |"
    echo "| --- | ---: |"
    echo "| steps | 20 |"
    echo '```'
    sed -n '/^| scheme | 1 | 2 | 3 |$/,/^| alibi /p' "$T/results/t/src.md"
    echo '```'
} >"$T/README.md"
{
    echo "<!-- table: results/t/src.md -->"
    sed -n '/^| scheme | 1 | 2 | 3 |$/,/^| alibi /p' "$T/results/t/src.md"
    echo "<!-- end table -->"
} >"$T/docs/a.md"
echo "README.md:3: a table typed by hand: 3 of its 3 rows are in results/t/src.md; make it a table block" >"$TMP/typed.want"
check_typed "$T" >"$TMP/typed.got"
rc=$?
if [ $rc = 1 ] && cmp -s "$TMP/typed.want" "$TMP/typed.got"; then
    ok "self_typed_table (the hand copy reported; the block, a table of its own, fenced code not)"
else fail self_typed_table "exit $rc: $(head -c 300 "$TMP/typed.got")"; fi

# In a git checkout a link to a file git does not track is broken too (a clone lacks it).
if command -v git >/dev/null 2>&1 && (cd "$L" && git init -q . && git add README.md docs results) 2>/dev/null; then
    : >"$L/results/x/new.svg"
    echo "[new](results/x/new.svg) [folder](results/x)" >>"$L/README.md"
    echo "README.md:$(wc -l <"$L/README.md"): link results/x/new.svg: results/x/new.svg is not tracked by git (a clone lacks it)" >"$TMP/links.want"
    check_links "$L" >"$TMP/links.got"
    rc=$?
    if [ $rc = 1 ] && cmp -s "$TMP/links.want" "$TMP/links.got"; then ok "self_links_untracked (a link to a file git does not track)"
    else fail self_links_untracked "exit $rc: $(head -c 300 "$TMP/links.got")"; fi
else skip self_links_untracked "no git to make a scratch checkout"; fi

# Words: a planted word in each form is caught, in any folder, and a clean tree passes.
W=$TMP/words
mkdir -p "$W/docs" "$W/src" "$W/results/x"
echo "A clean line." >"$W/README.md"
echo "int x; /* fine */" >"$W/src/a.c"
if check_words "$W" >"$TMP/words.got"; then ok self_words_clean
else fail self_words_clean "matched: $(head -c 300 "$TMP/words.got")"; fi
for planted in "src/a.c:As measured in the third Sess""ion." "docs/x.md:see iss""ue 12" \
    "results/x/r.md:fixed in iss""ue #7" "README.md:earlier sess""ions"; do
    f=${planted%%:*}
    cp "$W/$f" "$TMP/words.keep" 2>/dev/null || : >"$TMP/words.keep"
    echo "${planted#*:}" >>"$W/$f"
    if check_words "$W" >"$TMP/words.got"; then fail "self_words $f" "a planted word was not caught"
    elif grep -q "^$f:" "$TMP/words.got"; then ok "self_words $f (a planted word is caught)"
    else fail "self_words $f" "caught elsewhere: $(head -c 200 "$TMP/words.got")"; fi
    cp "$TMP/words.keep" "$W/$f"
done

# Sentences: a scratch document whose sentences and words are counted by hand.
S=$TMP/sent
mkdir -p "$S"
cat >"$S/a.md" <<'EOF'
# A heading is no sentence

One two three. Four five, e.g. six seven et al. 2020 here. It ends here.
./train starts a sentence, `a code span` is one word and [a link](x.md) its text.

- a list item without a full stop
- Second item. Third sentence here

| a | table | row |
```sh
echo a fenced block is no prose. Nor this.
```
<!-- a comment. Not prose. -->

    an indented block is no prose. Nor this.

- Item one.

    Its second paragraph counts.
EOF
# One two three (3) | Four five, e.g. six seven et al. 2020 here (9) | It ends here (3) |
# ./train starts a sentence, CODE is one word and a link its text (13) | a list item
# without a full stop (7) | Second item (2) | Third sentence here (3) | Item one (2) | Its
# second paragraph counts (4): 9 sentences, 46 words; the indented code block is no prose.
want="a.md sentences=9 words=46 mean=5.1 longest=13"
for a in $awks; do
    got=$(cd "$S" && $a -f "$OLDPWD/scripts/markdown.awk" -f "$OLDPWD/tests/sentences.awk" a.md)
    if [ "$got" = "$want" ]; then ok "self_sentences_unit ($a: 9 sentences, 46 words counted by hand)"
    else fail "self_sentences_unit ($a)" "got '$got', want '$want'"; fi
done
# A mean over 25 fails; a sentence of 60 words passes, one of 61 fails (and is named).
words() { i=1; while [ $i -lt "$1" ]; do printf 'w%d ' $i; i=$((i + 1)); done; echo "end."; }
{ echo "# T"; echo; words 60; } >"$S/b.md"
if check_sentences "$S" b.md >"$TMP/s.out"; then fail self_sentences_mean "a mean of 60 words passed"
else ok "self_sentences_mean (one sentence of 60 words: mean 60 > 25 caught)"; fi
{ echo "# T"; echo; words 60; echo; for i in 1 2 3; do echo "Short one two three."; done; } >"$S/b.md"
if check_sentences "$S" b.md >"$TMP/s.out"; then ok "self_sentences_60 (a sentence of 60 words, mean 18: passes)"
else fail self_sentences_60 "$(cat "$TMP/s.out")"; fi
{ echo "# T"; echo; words 61; echo; for i in 1 2 3; do echo "Short one two three."; done; } >"$S/b.md"
if check_sentences "$S" b.md >"$TMP/s.out"; then fail self_sentences_61 "a sentence of 61 words passed"
elif grep -q '^b.md:3: 61 words: w1 w2' "$TMP/s.out"; then ok "self_sentences_61 (a sentence of 61 words caught, named b.md:3)"
else fail self_sentences_61 "$(cat "$TMP/s.out")"; fi

# Line length: 200 characters (é is one character, two bytes) pass, 201 fail.
mkdir -p "$S/l"
line_of() { i=0; while [ $i -lt "$1" ]; do printf 'é'; i=$((i + 1)); done; echo; }
line_of 200 >"$S/l/README.md"
if check_lines "$S/l" >/dev/null; then ok "self_line_200 (200 characters, 400 bytes: passes)"
else fail self_line_200 "a line of 200 characters failed"; fi
line_of 201 >"$S/l/README.md"
if check_lines "$S/l" >"$TMP/l.out"; then fail self_line_201 "a line of 201 characters passed"
elif grep -q 'README.md:1: 201 characters$' "$TMP/l.out"; then ok "self_line_201 (a line of 201 characters caught)"
else fail self_line_201 "$(cat "$TMP/l.out")"; fi

# Stated counts: a scratch document citing the committed results files. Clean, every count
# agrees (19 runs in multi30k_study/runs.csv; 65 trainings in finetune_budget/curves.csv, the
# file beside the cited results.csv; 5 seeds in extrapolate/results.csv, cited by the table
# block before it, though the three-seed dog_bites_man block after it is nearer); each
# contradiction of the docs, planted back, must be caught.
C=$TMP/counts
mkdir -p "$C/docs"
ln -s "$PWD/results" "$C/results"
counts_doc() {
    cat <<EOF
# Counts

## A study

The $1 trainings ran two at a time ([runs](../results/multi30k_study/runs.csv)); one of
them has 1 seed, and \`3 seeds\` in code is no statement.

The fine-tunings: CPU seconds for the $2 runs
(\`results/finetune_budget/results.csv\`); two of the five seeds fail.

## Lesson 2

<!-- table: results/extrapolate/results.md section="Exact match (%" cols=1,2 -->
<!-- end table -->

Text between.

**Caveats.** $3 seeds; small models.

<!-- table: results/dog_bites_man/results.md -->
<!-- end table -->

## Elsewhere

Twelve seeds, cited nowhere, are not checked.
EOF
}
counts_doc 19 65 Five >"$C/docs/a.md"
echo "# R" >"$C/README.md"
if check_counts "$C" >"$TMP/c.out" && grep -q '^counts checked=4 uncited=1$' "$TMP/c.out"; then
    ok "self_counts_clean (19 trainings, 65 runs, five seeds twice: 4 checked and agree, 1 uncited)"
else fail self_counts_clean "$(head -c 400 "$TMP/c.out")"; fi
for plant in '23 65 Five:docs/a.md:5: "23 trainings" but results/multi30k_study/runs.csv has 19' \
             '19 63 Five:docs/a.md:8: "63 runs" but results/finetune_budget/results.csv has 65' \
             '19 65 Three:docs/a.md:18: "Three seeds" but results/extrapolate/results.csv has 5'; do
    set -- ${plant%%:*}
    counts_doc "$1" "$2" "$3" >"$C/docs/a.md"
    want=${plant#*:}
    if check_counts "$C" >"$TMP/c.out"; then fail "self_counts $want" "not caught"
    elif grep -qxF "$want" "$TMP/c.out"; then ok "self_counts ($want)"
    else fail "self_counts $want" "$(head -c 300 "$TMP/c.out")"; fi
done

# i. The mutants still match the code (tests/mutate.sh --check), and a planted stale one is named.
# Under `make mutate` one mutant is applied to the tree, so its own text is gone: not checked.
if [ -n "${MUTATE_SCRATCH:-}" ]; then skip mutants_match "a mutant is applied (tests/mutate.sh)"
elif sh tests/mutate.sh --check >"$TMP/m.out" 2>&1; then ok "mutants_match ($(grep -c '^mutant:' tests/mutants.txt) mutants)"
else fail mutants_match "$(grep '^ERROR' "$TMP/m.out" | head -n 20)"; fi
printf 'mutant: planted\nfile: tests/mutate.sh\nfrom: no such text in the runner\nto: x\ntests: test_docs.sh\n' >"$TMP/m.txt"
if MUTANTS=$TMP/m.txt sh tests/mutate.sh --check >"$TMP/m.out" 2>&1; then fail self_mutants_stale "not caught"
elif grep -q "^ERROR planted: STALE (stale: 'no such text in the runner' is not found exactly once in tests/mutate.sh)" "$TMP/m.out"
then ok self_mutants_stale
else fail self_mutants_stale "$(head -c 300 "$TMP/m.out")"; fi
