# Folders are layers (docs/design.md §7.5): every `#include "folder/..."` in src/ points into
# its own folder or one on an earlier line of the layer list, which this test reads from the
# block after the `<!-- layers:` marker in docs/design.md (the one place the order is written).
. tests/lib.sh

# layer_of FOLDER: its line number in the list ($TMP/layers), or nothing when it is not listed.
layer_of() { awk -v f="$1" '{ for (i = 1; i <= NF; i++) if ($i == f) print NR }' "$TMP/layers"; }

# check_includes ROOT: prints `file:line: message` for each include of ROOT/src/*/*.[ch] that
# the list does not allow, and for each folder of ROOT/src that is on no line.
check_includes() {
    for dir in "$1"/src/*/; do
        folder=$(basename "$dir")
        [ -n "$(layer_of "$folder")" ] || echo "src/$folder/: folder on no line of the layer list"
    done
    (cd "$1" && grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]*/' src/*/*.[ch]) |
    while IFS=: read -r file line text; do
        from=$(echo "$file" | cut -d/ -f2)
        to=$(echo "$text" | sed 's/^[^"]*"\([^"/]*\)\/.*/\1/')
        [ "$from" = "$to" ] && continue
        lf=$(layer_of "$from"); lt=$(layer_of "$to")
        if [ -z "$lt" ]; then echo "$file:$line: $from includes $to/, which is on no line"
        elif [ -n "$lf" ] && [ "$lt" -ge "$lf" ]; then
            echo "$file:$line: $from (line $lf) includes $to/ (line $lt): not below it"
        fi
    done
}

# The lines between the fences that follow the marker.
awk '/^<!-- layers:/ { m = 1; next } m && /^```/ { if (++f == 2) exit; next } f == 1' \
    docs/design.md >"$TMP/layers"
if [ ! -s "$TMP/layers" ]; then
    fail layer_list "no block after '<!-- layers:' in docs/design.md"
    exit 0
fi
twice=$(tr -s ' ' '\n' <"$TMP/layers" | grep . | sort | uniq -d)
if [ -z "$twice" ]; then ok layer_list; else fail layer_list "listed twice: $(echo $twice)"; fi

bad=$(check_includes .)
if [ -z "$bad" ]; then ok includes_point_down
else fail includes_point_down "$(echo "$bad" | head -10)"; fi

# The check itself: an upward include planted in a copy of src/ (config including the
# positional schemes above it) must be caught and named by file and line.
cp -R src "$TMP/src"
echo '#include "pos/pos.h"' >>"$TMP/src/config/config.h"
n=$(wc -l <"$TMP/src/config/config.h" | tr -d ' ')
caught=$(check_includes "$TMP")
case "$caught" in
    *"src/config/config.h:$n: config (line "*") includes pos/ (line "*"): not below it"*)
        ok planted_upward_include_caught ;;
    *) fail planted_upward_include_caught "got [$caught]" ;;
esac

# ---------------------------------------------------------------- function length
# long_functions ROOT: `file:line: name N lines` for each function of ROOT/src/*/*.c longer than
# 80 lines, from its signature's first line to its closing brace. House style: a definition
# starts at column 0, its `{` ends the signature's last line and its `}` stands at column 0.
long_functions() {
    (cd "$1" && awk -v max=80 '
        FNR == 1 { start = 0; body = 0 }
        body && /^}/ {
            if (FNR - start + 1 > max)
                printf "%s:%d: %s %d lines\n", FILENAME, start, name, FNR - start + 1
            body = 0; start = 0; next
        }
        body { next }
        !start && /^[A-Za-z_]/ && /\(/ && !/=/ {
            start = FNR; name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
        }
        start && (/;[ \t]*$/ || /\{.*\}[ \t]*$/) { start = 0 }   # a prototype, a one-line body
        start && /\{[ \t]*$/ { body = 1 }' src/*/*.c)
}
long=$(long_functions .)
if [ -z "$long" ]; then ok functions_at_most_80_lines
else fail functions_at_most_80_lines "$(echo "$long" | head -10)"; fi

# The check itself: in a copy of src/, a function of exactly 80 lines passes and one of 81
# is named with its file, line and length.
# planted NAME N: a function of N lines (signature, N - 2 statements, closing brace).
planted() {
    echo "int $1(int x) {"
    awk -v n="$2" 'BEGIN { for (i = 2; i < n; i++) print "    x += 1;" }'
    echo '}'
}
{ planted planted_80 80; echo; planted planted_81 81; } >"$TMP/src/util/planted.c"
caught=$(long_functions "$TMP" | grep planted)
if [ "$caught" = "src/util/planted.c:82: planted_81 81 lines" ]; then ok planted_long_function_caught
else fail planted_long_function_caught "got [$caught]"; fi

# ---------------------------------------------------------------- call graph
# call_edges ROOT OBJ: `caller callee symbol` (source files) for each symbol an object of
# OBJ/src/*/*.o leaves undefined and another one of them defines, from `nm` (the objects of
# ROOT/src/*/*.c only: those of deleted sources are ignored).
call_edges() {
    objs=$( (cd "$1" && ls src/*/*.c) | sed "s|^|$2/|; s|\\.c\$|.o|")
    for o in $objs; do [ -f "$o" ] || echo "missing $o" >&2; done
    nm -A -P -g $(for o in $objs; do [ -f "$o" ] && echo "$o"; done) |
    awk -v obj="$2/" '{ f = $1; sub(/:$/, "", f); sub(obj, "", f); sub(/\.o$/, ".c", f) }
        $3 != "U" { def[$2] = f; next } { use[++n] = f " " $2 }
        END { for (i = 1; i <= n; i++) { split(use[i], u, " ")
                  if ((u[2] in def) && def[u[2]] != u[1]) print u[1], def[u[2]], u[2] } }' | sort
}
# upward_calls EDGES: `caller calls symbol (callee): folder (line L) calls folder (line M)` for
# each edge into a folder on the same or a later line of the layer list.
upward_calls() {
    awk 'NR == FNR { for (i = 1; i <= NF; i++) line[$i] = FNR; next }
        { split($1, a, "/"); split($2, b, "/")
          if (a[2] != b[2] && line[b[2]] >= line[a[2]])
              printf "%s calls %s (%s): %s (line %d) calls %s (line %d)\n",
                  $1, $3, $2, a[2], line[a[2]], b[2], line[b[2]] }' "$TMP/layers" "$1"
}
# call_circle EDGES: the files of a circle of calls between source files (tsort's report), or
# nothing when the calls are a hierarchy.
call_circle() { cut -d' ' -f1,2 "$1" | sort -u | tsort 2>&1 >/dev/null | grep -v 'input contains a loop'; }

OBJ=${BIN_DIR%/bin}
if ! command -v nm >/dev/null; then skip calls_point_down "no nm"
elif [ ! -d "$OBJ/src/core" ]; then skip calls_point_down "no objects in $OBJ/src"
else
    call_edges . "$OBJ" >"$TMP/edges" 2>"$TMP/missing"
    if [ -s "$TMP/missing" ]; then skip calls_point_down "$(head -3 "$TMP/missing")"
    else
        up=$(upward_calls "$TMP/edges")
        if [ -z "$up" ]; then ok calls_point_down
        else fail calls_point_down "$(echo "$up" | head -10)"; fi
        circle=$(call_circle "$TMP/edges")
        if [ -z "$circle" ]; then ok no_call_circle
        else fail no_call_circle "$(echo $circle)"; fi
    fi
fi

# The check itself: objects compiled from a planted tree, where config calls up into pos and
# two core files call each other, must be reported.
mkdir -p "$TMP/plant/src/config" "$TMP/plant/src/pos" "$TMP/plant/src/core"
echo 'int pos_planted(void) { return 1; }' >"$TMP/plant/src/pos/p.c"
echo 'int pos_planted(void); int config_planted(void) { return pos_planted(); }' \
    >"$TMP/plant/src/config/c.c"
echo 'int core_b(int); int core_a(int n) { return n ? core_b(n - 1) : 0; }' >"$TMP/plant/src/core/a.c"
echo 'int core_a(int); int core_b(int n) { return n ? core_a(n - 1) : 1; }' >"$TMP/plant/src/core/b.c"
for c in "$TMP"/plant/src/*/*.c; do ${CC:-cc} -c "$c" -o "${c%.c}.o" || break; done
call_edges "$TMP/plant" "$TMP/plant" >"$TMP/plant_edges" 2>/dev/null
caught=$(upward_calls "$TMP/plant_edges")
case "$caught" in
    "src/config/c.c calls pos_planted (src/pos/p.c): config (line "*") calls pos (line "*")")
        ok planted_upward_call_caught ;;
    *) fail planted_upward_call_caught "got [$caught]" ;;
esac
caught=$(call_circle "$TMP/plant_edges" | sort | tr '\n' ' ')
case "$caught" in
    *"src/core/a.c"*"src/core/b.c"*) ok planted_call_circle_caught ;;
    *) fail planted_call_circle_caught "got [$caught]" ;;
esac
