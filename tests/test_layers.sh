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
