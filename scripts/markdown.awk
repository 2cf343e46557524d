# Markdown helpers shared by scripts/render_docs.sh (awk -f, before scripts/render_docs.awk) and
# tests/test_docs.sh (put in front of its awk programs); a library, not a command. POSIX awk.
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# fenced(s, st): st[1] is the open fence character ("" when none), st[2] its length; returns 1
# when s opens or closes a fenced code block (``` or ~~~, up to 3 spaces in).
function fenced(s, st,   t, c, n) {
    t = s; sub(/^ +/, "", t)
    if (length(s) - length(t) > 3) return 0
    c = substr(t, 1, 1)
    if (c != "`" && c != "~") return 0
    n = 0
    while (substr(t, n + 1, 1) == c) n++
    if (n < 3) return 0
    if (st[1] == "") {
        if (c == "`" && index(substr(t, n + 1), "`") > 0) return 0
        st[1] = c; st[2] = n; return 1
    }
    if (c == st[1] && n >= st[2] && trim(substr(t, n + 1)) == "") { st[1] = ""; return 1 }
    return 0
}
