# Sentence lengths of Markdown prose, for tests/test_docs.sh (and by hand while writing):
#
#   awk -f scripts/markdown.awk -f tests/sentences.awk [-v long=60] FILE.md ...
#
# prints one line per file, `FILE sentences=N words=W mean=M longest=L`, and before it one line
# `FILE:LINE: N words: first words...` for each sentence longer than `long` words (default 60).
#
# What counts as prose: every line outside fenced code blocks, indented code blocks (4 spaces
# or a tab in, not continuing a paragraph, outside a list item) and HTML comments, except table rows (`|`
# first), headings (`#` first), lone images and blank lines. A paragraph (lines up to a
# blank line, a new list item or a block quote marker) is split into sentences after `.`, `!`
# or `?` (closing quotes, brackets or `*` may follow) when the next word starts with a capital
# letter, a digit, a backtick, `(`, `*`, `"` or `./` (a command); "e.g.", "i.e.", "et al.", "cf.", "vs." and a
# one-letter initial do not end a sentence. The last sentence of a paragraph ends with it (a
# list item without a full stop is one sentence). A word is a run of non-space characters with
# a letter or digit in it; an inline code span counts as one word, a link as its text.
function flush_par(   text, n, i, w, words, nw, start, sent, first) {
    if (par == "") return
    text = par; par = ""
    gsub(/`[^`]*`/, "CODE", text)                       # inline code: one word
    gsub(/!\[[^]]*\]\([^)]*\)/, "", text)               # images
    while (match(text, /\[[^]]*\]\([^)]*\)/)) {         # links: their text
        w = substr(text, RSTART + 1, RLENGTH)
        sub(/\]\(.*$/, "", w)
        text = substr(text, 1, RSTART - 1) w substr(text, RSTART + RLENGTH)
    }
    gsub(/<[^>]*>/, " ", text)                          # inline HTML tags
    n = split(text, words, /[ \t]+/)
    nw = 0; first = ""
    for (i = 1; i <= n; i++) {
        w = words[i]
        if (w !~ /[A-Za-z0-9]/) continue
        nw++
        if (nw <= 8) first = first (nw > 1 ? " " : "") w
        if (ends_sentence(w, (i < n ? words[i + 1] : ""), i == n)) { count(nw, first); nw = 0; first = "" }
    }
    if (nw > 0) count(nw, first)
}
function ends_sentence(w, next_w, last,   core) {
    if (last) return 1
    core = w; sub(/[)"'*\]]+$/, "", core)
    if (core !~ /[.!?]$/) return 0
    if (core ~ /(^|[^A-Za-z])(e\.g|i\.e|al|cf|vs)\.$/) return 0
    if (core ~ /(^|[^A-Za-z])[A-Za-z]\.$/) return 0
    return next_w ~ /^([A-Z0-9`("*]|\.\/)/
}
function count(nw, first) {
    sentences++; total += nw
    if (nw > longest) longest = nw
    if (nw > long) printf "%s:%d: %d words: %s ...\n", FILENAME, par_line, nw, first
}
function report() {
    if (fname == "") return
    flush_par()
    printf "%s sentences=%d words=%d mean=%.1f longest=%d\n", fname, sentences, total, (sentences ? total / sentences : 0), longest
}
BEGIN { if (long == "") long = 60 }
FNR == 1 { report(); fname = FILENAME; sentences = 0; total = 0; longest = 0; par = ""; st[1] = ""; incomment = 0; inlist = 0 }
{
    line = $0
    if (fenced(line, st)) { flush_par(); next }
    if (st[1] != "") next
    if (incomment) { if (index(line, "-->")) incomment = 0; next }
    if (line ~ /^[ \t]*<!--/) { flush_par(); if (!index(line, "-->")) incomment = 1; next }
    # an indented code block: 4 spaces (or a tab) in, not continuing a paragraph
    if (par == "" && line ~ /^(    |\t)/ && !inlist) next
    t = trim(line)
    if (t != "" && line !~ /^[ \t]/) inlist = 0      # back at the margin: the list has ended
    if (t ~ /^([-*+]|[0-9]+[.)])[ \t]/) inlist = 1
    if (t == "" || t ~ /^\|/ || t ~ /^#/ || t ~ /^!\[[^]]*\]\([^)]*\)$/) { flush_par(); next }
    if (t ~ /^([-*+]|[0-9]+[.)])[ \t]/ || t ~ /^>/) { flush_par(); sub(/^([-*+]|[0-9]+[.)]|>)[ \t]*/, "", t) }
    if (par == "") par_line = FNR
    par = par " " t
}
END { report() }
