# Helpers for shell tests (tests/test_*.sh): source it, then call ok/fail/skip.
# BIN_DIR points at the build's tools (optimised or sanitized); run from the top level.
BIN_DIR=${BIN_DIR:-build/opt/bin}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
ok()   { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "skip $1: $2"; }   # the premise is missing: says why, never counts as a pass
# only_optimised NAME WHY: unless BIN_DIR is the optimised build (build/opt/bin), print
# `skip NAME: tools from BIN_DIR, WHY` and exit 0 (a check of committed results, which that
# build made, or of what does not depend on the build).
only_optimised() {
    case "$BIN_DIR" in
        build/opt/bin|*/build/opt/bin) ;;
        *) skip "$1" "tools from $BIN_DIR, $2"; exit 0 ;;
    esac
}
# field CSV ROW N: column N of the CSV row that starts with ROW (./eval: "split,length").
field() { grep "^$2," "$1" | cut -d, -f"$3"; }
# expect_error NAME PATTERN CMD...: CMD must exit non-zero and print PATTERN (grep -E) on stderr.
expect_error() {
    name=$1; pat=$2; shift 2
    if "$@" >"$TMP/out" 2>"$TMP/err"; then fail "$name" "exited 0"; return; fi
    if grep -Eq -- "$pat" "$TMP/err"; then ok "$name"
    else fail "$name" "stderr did not match '$pat': $(head -c 300 "$TMP/err")"; fi
}

# A process's state letter (T: stopped), from /proc/PID/stat: the field after the command
# name, which is in parentheses and may itself hold spaces.
proc_state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
# wait_stopped PID: returns once PID is stopped (TF_PAUSE_AT, src/core/crash_point.h), or 1 if
# it ended (or is a zombie) first or is not stopped after 10 minutes.
wait_stopped() {
    ws_i=0
    while :; do
        case $(proc_state "$1") in T) return 0 ;; Z|X|'') return 1 ;; esac
        [ $ws_i -lt 6000 ] || return 1
        ws_i=$((ws_i + 1)); sleep 0.1
    done
}
# stopped_child PPID: waits (as wait_stopped) until a child of PPID is stopped and prints its
# pid; returns 1 if PPID ended first or none stopped within 10 minutes. The children are those
# of PPID's main thread (/proc/PPID/task/PPID/children), as a shell's are.
stopped_child() {
    sc_i=0
    while :; do
        for sc_pid in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
            [ "$(proc_state "$sc_pid")" = T ] && { echo "$sc_pid"; return 0; }
        done
        case $(proc_state "$1") in Z|X|'') return 1 ;; esac
        [ $sc_i -lt 6000 ] || return 1
        sc_i=$((sc_i + 1)); sleep 0.1
    done
}

# The tools under test, and the folder the tiny runs go to.
TRAIN=$BIN_DIR/train
EVAL=$BIN_DIR/eval
RUNS=$TMP/runs

# tiny_config FILE [KEY=VALUE ...]: writes FILE, a toy_translate config that trains in about a
# second (d_model 16, one encoder and one decoder layer, 20 steps, one thread) into $RUNS.
# Each KEY=VALUE replaces the value of that key's line (a key of the file; lines do not move:
# d_model is line 11, steps line 18, as tests/test_cli_errors.sh relies on).
tiny_config() {
    tc_file=$1; shift
    cat >"$tc_file" <<EOT
[run]
out_dir = $RUNS
seed = 3
threads = 1
[task]
task = toy_translate
train_size = 200
val_size = 20
test_size = 20
[model]
d_model = 16
n_heads = 2
d_ff = 32
enc_layers = 1
dec_layers = 1
pos = rope
[train]
steps = 20
batch_size = 8
log_every = 2
eval_every = 10
ckpt_every = 5
EOT
    for tc_kv in "$@"; do
        tc_key=${tc_kv%%=*}
        if ! grep -q "^$tc_key = " "$tc_file"; then echo "tiny_config: no key '$tc_key' in the tiny config" >&2; return 1; fi
        sed -i "s|^$tc_key = .*|$tc_key = ${tc_kv#*=}|" "$tc_file"
    done
}

# same_results REF DIR: every output of scripts/dog_bites_man.sh in DIR (and every run's log.csv
# and eval.csv) equals REF's byte for byte; results.md but for its wall-time line, the one number
# that depends on how the runs were executed. Otherwise prints what differs and returns 1.
same_results() {
    for f in runs.csv permute.csv curves.csv acc.csv diff.csv pair_acc.svg train_loss.svg; do
        cmp -s "$1/$f" "$2/$f" || { echo "$f differs"; return 1; }
    done
    for r in "$1"/runs/*; do
        for f in log.csv eval.csv; do
            cmp -s "$r/$f" "$2/runs/${r##*/}/$f" || { echo "runs/${r##*/}/$f differs"; return 1; }
        done
    done
    grep -v '^wall time' "$1/results.md" >"$TMP/same_a.md"; grep -v '^wall time' "$2/results.md" >"$TMP/same_b.md"
    cmp -s "$TMP/same_a.md" "$TMP/same_b.md" || { echo "results.md differs: $(diff "$TMP/same_a.md" "$TMP/same_b.md" | head -4)"; return 1; }
}
