# Every command the README and docs/*.md tell a user to type works as typed, from a clone: each
# `scripts/...` and `./tool` named in their shell code blocks exists, is executable as git records
# it (mode 100755 in the index; the mode on the developer's disk can differ from what a clone
# gets), and answers --help with exit status 0 and some text. Scripts are run by path, as the
# documents write them, never through `sh`: a missing run bit must fail here.
. tests/lib.sh

# The commands: words that start with scripts/ or ./ inside ```sh or ```bash blocks. A word
# counts only at the start of a line or after a blank or ; & | ( — not "../shared" or "runs/x".
awk 'FNR == 1 { inside = 0 }
     /^```/ { inside = !inside && ($0 ~ /^```(sh|bash)[[:space:]]*$/); next } inside' README.md docs/*.md |
    grep -oE '(^|[[:space:];&|(])(scripts/[A-Za-z0-9_.-]+|\./[A-Za-z0-9_-]+)' |
    sed 's/^[[:space:];&|(]//' | sort -u >"$TMP/commands"
n=$(wc -l <"$TMP/commands")
if [ "$n" -ge 5 ]; then ok "readme_commands_found ($n: $(tr '\n' ' ' <"$TMP/commands"))"
else fail readme_commands_found "only $n commands in the shell blocks of README.md and docs/*.md: $(tr '\n' ' ' <"$TMP/commands")"; fi

in_git=0
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
[ $in_git = 1 ] || skip readme_git_modes "not a git checkout: the run bits are checked on disk, not as git records them"

while read -r cmd; do
    case "$cmd" in
        scripts/*)   # a file of the repository: it must be there, and executable in git's index
            path=$cmd; run=$cmd
            if [ ! -f "$path" ]; then fail "readme_cmd $cmd" "no such file"; continue; fi
            if [ $in_git = 1 ]; then
                mode=$(git ls-files -s -- "$path" | cut -d' ' -f1)
                if [ "$mode" != 100755 ]; then
                    fail "readme_cmd $cmd" "git records mode '${mode:-untracked}', want 100755: a clone cannot run it (git update-index --chmod=+x $path)"
                    continue
                fi
            fi ;;
        ./*)         # a tool `make` builds at the top level: the build's copy of it
            tool=${cmd#./}; path=src/tools/$tool.c; run=$BIN_DIR/$tool
            if [ ! -f "$path" ]; then fail "readme_cmd $cmd" "no $path: make does not build it"; continue; fi ;;
    esac
    if [ ! -x "$run" ]; then fail "readme_cmd $cmd" "$run is not executable"; continue; fi
    case "$run" in
        *.py) command -v python3 >/dev/null 2>&1 || { skip "readme_cmd $cmd" "no python3 to run its --help"; continue; } ;;
    esac
    "$run" --help >"$TMP/help.out" 2>"$TMP/help.err"
    rc=$?
    if [ $rc -ne 0 ]; then fail "readme_cmd $cmd" "--help exited $rc: $(head -c 200 "$TMP/help.err")"
    elif [ ! -s "$TMP/help.out" ]; then fail "readme_cmd $cmd" "--help printed nothing on stdout"
    else ok "readme_cmd $cmd"; fi
done <"$TMP/commands"
