# The registry (src/pos/registry.c) is the only list of positional schemes: ./train
# --list-schemes prints it, scripts/lib.sh takes it from there, every scheme is its own file,
# and no other source line names four or more schemes (which would be a second list).
. tests/lib.sh

listed=$("$TRAIN" --list-schemes 2>"$TMP/err")
in_registry=$(sed -n 's/^ *X(\([a-z0-9_]*\),.*/\1/p' src/pos/registry.c)
if [ -z "$in_registry" ]; then fail list_schemes "no X(name, style) lines found in src/pos/registry.c"
elif [ "$listed" = "$in_registry" ]; then ok list_schemes
else fail list_schemes "--list-schemes printed [$(echo $listed)], registry.c has [$(echo $in_registry)]"; fi

missing=""
for s in $in_registry; do [ -f "src/pos/$s.c" ] || missing="$missing $s"; done
if [ -z "$missing" ]; then ok scheme_per_file; else fail scheme_per_file "no src/pos/NAME.c for:$missing"; fi

got=$(BIN_DIR=$BIN_DIR sh -c '. scripts/lib.sh; echo "$SCHEMES"')
if [ "$got" = "$(echo $in_registry)" ]; then ok scripts_ask_registry
else fail scripts_ask_registry "scripts/lib.sh SCHEMES = [$got], want [$(echo $in_registry)]"; fi

# A line naming four or more distinct schemes anywhere but the registry is a copy of the list
# (tests that pick two or three schemes for a property are choices, not copies).
files=$(ls src/*/*.c src/*/*.h scripts/*.sh tests/*.c tests/*.h tests/*.sh Makefile |
        grep -v -e '^src/pos/registry.c$' -e '^tests/test_registry.sh$')
copies=$(awk -v names="$(echo $in_registry)" '
    BEGIN { n = split(names, s, " ") }
    { k = 0; line = tolower($0)
      for (i = 1; i <= n; i++) if (line ~ ("(^|[^a-z0-9_])" s[i] "([^a-z0-9_]|$)")) k++
      if (k >= 4) print FILENAME ":" FNR ": " $0 }' $files)
if [ -z "$copies" ]; then ok no_other_scheme_list
else fail no_other_scheme_list "scheme names listed outside src/pos/registry.c: $(echo "$copies" | head -5)"; fi
