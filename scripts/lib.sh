# Shared by the experiment scripts in scripts/ (POSIX sh; sourced, not run).
# Tools come from BIN_DIR (default: the top level, where `make` puts them).
case ${0##*/} in
    lib.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/lib.sh   (from another script: not a command)"
        echo
        echo "The functions the experiment scripts share: their common options (--quick, --seeds,"
        echo "--out, --figures, --tables, --jobs, --slurm), running the trainings here or on Slurm, cached"
        echo "evaluations, Markdown tables from CSV files, ./plot, and the provenance line."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
BIN_DIR=${BIN_DIR:-.}
# The positional schemes in the registry's order, from the trainer (src/pos/registry.c is the
# only list); empty when the trainer is missing, which need_tools then reports.
SCHEMES=$(echo $("$BIN_DIR/train" --list-schemes 2>/dev/null))

die() { echo "$0: $*" >&2; exit 1; }
now() { date +%s; }

# common_option "$@": reads the options the seeded experiment scripts take from the front of
# their arguments: --quick (sets quick=1), --seeds N (seeds), --out DIR (out), --figures
# (figures=1), --tables (tables=1), -h/--help (calls the script's usage and exits), and where the
# trainings run (run_option: --jobs, --slurm, ...). Sets used to the number of words taken, 0 when
# $1 is none of these (the caller refuses it).
figures=0
FIGURES_USAGE='  --figures   only draw the figures again from the CSV files already in DIR (no training,
              no evaluation, no table)'
tables=0
TABLES_USAGE='  --tables    train, evaluate and plot nothing: write the Markdown again from the CSVs in
              DIR, with the options that made them; its lines up to the provenance line (the
              command, wall time, commit, tools and CPU of the runs) stay as they are'
common_option() {
    used=1
    case "$1" in
        --quick) quick=1 ;;
        --figures) figures=1 ;;
        --tables) tables=1 ;;
        --seeds) [ $# -ge 2 ] || die "--seeds needs a number"; seeds=$2; used=2 ;;
        --out)   [ $# -ge 2 ] || die "--out needs a folder"; out=$2; used=2 ;;
        -h|--help) usage; exit 0 ;;
        *) if run_option "$@"; then used=$((run_shift + 1)); else used=0; fi ;;
    esac
}
say() { echo "[$(date +%H:%M:%S)] $*"; }

# read_options "$@": the whole argument list of a script whose options are all common_option's;
# anything else prints the script's usage and stops.
read_options() {
    while [ $# -gt 0 ]; do
        common_option "$@"
        [ "$used" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
        shift "$used"
    done
}

# begin_experiment SCRIPT TOOL...: once seeds and out are settled: checks --seeds and the tools,
# makes $out/runs, and sets start (the clock) and command (the invocation, for results.md).
begin_experiment() {
    case "$seeds" in ''|*[!0-9]*|0) die "--seeds wants a positive number, not '$seeds'" ;; esac
    _script=$1; shift
    need_tools "$@"
    [ "$tables" = 1 ] || mkdir -p "$out/runs"
    start=$(now)
    command="scripts/$_script$(if [ $quick = 1 ]; then echo ' --quick'; fi) --seeds $seeds"
}

need_tools() {
    for tool in "$@"; do
        [ -x "$BIN_DIR/$tool" ] || die "$BIN_DIR/$tool not found: run 'make' first (or set BIN_DIR)"
    done
}

# config_value SECTION KEY FILE: KEY's value in [SECTION] of an INI file (spaces removed)
config_value() {
    awk -F= -v s="[$1]" -v k="$2" '/^\[/ { in_s = ($0 == s) } in_s && $1 ~ "^"k" *$" { gsub(/ /, "", $2); print $2 }' "$3"
}

# seq_list N -> "1 2 ... N"
seq_list() { _i=1; _o=""; while [ "$_i" -le "$1" ]; do _o="$_o $_i"; _i=$((_i + 1)); done; echo $_o; }
# each_claimed PLAN N WORKERS CLAIMS COMMAND: WORKERS processes at once, each taking the next
# of the N tasks (lines of PLAN) nobody has claimed (mkdir CLAIMS/I is atomic) and running
# COMMAND PLAN I, until none is left; a failed task does not stop its worker.
# A worker whose script has died (killed) claims nothing more: a later call does the rest.
each_claimed() {
    for _w in $(seq_list "$3"); do
        (
            _i=1
            while [ $_i -le "$2" ] && kill -0 $$ 2>/dev/null; do
                if mkdir "$4/$_i" 2>/dev/null; then "$5" "$1" $_i || :; fi
                _i=$((_i + 1))
            done
        ) &
    done
    wait
}

# cached_eval [--refused TEXT] OUT CMD...: run CMD (an ./eval call) into OUT unless OUT exists
# and is newer than the checkpoint beside it (a run that trained on, to a higher ceiling, is
# evaluated again); atomic, so an interrupted evaluation is simply redone. Any failure stops the script, except
# with --refused one whose message contains TEXT (a setting the model itself refuses): OUT then
# holds the refusal as a `# refused: ...` comment and no rows, an empty cell in the tables.
# eval_is_fresh OUT: OUT holds an evaluation of the checkpoint beside it as it is now.
eval_is_fresh() { [ -s "$1" ] && ! [ "$(dirname "$1")/model.safetensors" -nt "$1" ]; }
cached_eval() {
    if [ -n "$EVAL_PLAN" ]; then   # run_evaluations' listing pass: note it if missing, use nothing
        _o=$1; [ "$1" = --refused ] && _o=$3
        if ! eval_is_fresh "$_o"; then
            for _w in "$@"; do shell_quote "$_w"; done >>"$EVAL_PLAN"
            echo >>"$EVAL_PLAN"
        fi
        return 1
    fi
    _refused=
    if [ "$1" = --refused ]; then _refused=$2; shift 2; fi
    _out=$1; shift
    eval_is_fresh "$_out" && return 0
    if "$@" >"$_out.tmp" 2>"$_out.err"; then
        rm -f "$_out.err"; mv "$_out.tmp" "$_out"
    elif [ -n "$_refused" ] && grep -qF "$_refused" "$_out.err"; then
        echo "# refused: $(grep -m 1 '^error:' "$_out.err")" >"$_out.tmp"; rm -f "$_out.err"; mv "$_out.tmp" "$_out"
    else
        cat "$_out.err" >&2; die "evaluation failed: $*"
    fi
}

# run_evaluations FUNCTION: FUNCTION evaluates (cached_eval) and gathers the results; with
# run_jobs > 1 the evaluations it needs run first, run_jobs at once. A run trained with --jobs
# keeps run.threads = 1 in its config.ini, which ./eval takes too, so evaluations one after
# another would use one core of the machine. FUNCTION runs twice: first with EVAL_PLAN set,
# where cached_eval lists each missing evaluation and returns 1 without running it, so
# FUNCTION must skip what reads an evaluation's file when cached_eval fails
# (`cached_eval ... || continue`) and must start its output files afresh; then, once the
# listed evaluations are done, as usual, every evaluation cached.
EVAL_PLAN=""
eval_task() { _line=$(sed -n "$2p" "$1"); eval "cached_eval $_line"; }   # PLAN I: its line I
# The list and the claims go into the folder of the call's trainings (run_lock), where a call
# killed midway leaves them for the next to replace, rather than into TMPDIR.
run_evaluations() {
    [ "$tables" = 0 ] || return 0
    if [ "$run_jobs" -gt 1 ]; then
        if [ -n "${TF_CALL_OUT:-}" ]; then EVAL_PLAN=$TF_CALL_OUT/.eval_plan; : >"$EVAL_PLAN"
        else EVAL_PLAN=$(mktemp "${TMPDIR:-/tmp}/evals.XXXXXX"); fi
        "$1"
        _plan=$EVAL_PLAN; EVAL_PLAN=""
        _n=$(grep -c . "$_plan" || :)
        if [ "$_n" -gt 0 ]; then
            _workers=$(( run_jobs < _n ? run_jobs : _n ))
            say "$_n evaluations, $_workers at once"
            if [ -n "${TF_CALL_OUT:-}" ]; then _claims=$TF_CALL_OUT/.eval_claims; rm -rf "$_claims"; mkdir "$_claims"
            else _claims=$(mktemp -d "${TMPDIR:-/tmp}/eval_claims.XXXXXX"); fi
            each_claimed "$_plan" "$_n" "$_workers" "$_claims" eval_task
            rm -rf "$_claims"
        fi
        rm -f "$_plan"
    fi
    "$1"
}

# CSV_COLUMNS: an awk prelude for reading CSV columns by name rather than by position. Put it
# in front of the program, awk -F, "$CSV_COLUMNS"'...': on each file's header line (its first
# line that is not a `#` comment) it sets col[NAME] to the column's index; head is 1 on that
# line and row on each line after it (both 0 elsewhere); cell("exact_match") is that field of
# the current row, cells("length loss") several joined by commas. A name the header lacks
# stops awk with `FILE:LINE: no column "NAME"` on stderr and exit status 2.
CSV_COLUMNS='
function cell(name) {
    if (!(name in col)) {
        printf "%s:%d: no column \"%s\"\n", FILENAME, FNR, name > "/dev/stderr"; exit 2
    }
    return $(col[name])
}
function cells(names,   n, i, w, s) {
    n = split(names, w, " "); s = cell(w[1])
    for (i = 2; i <= n; i++) s = s "," cell(w[i])
    return s
}
FNR == 1 { csv_seen_head = 0 }
{ head = 0; row = csv_seen_head }
!csv_seen_head && !/^#/ {
    csv_seen_head = head = 1; split("", col)
    for (csv_i = 1; csv_i <= NF; csv_i++) col[$csv_i] = csv_i
}
'

# prefix_csv PREFIX_VALUES FILE: the data rows of FILE (comment lines and header dropped), each prefixed.
prefix_csv() { awk -v p="$1" '/^#/ && !h { next } !h { h = 1; next } NF { print p "," $0 }' "$2"; }

# md_pivot CSV ROWCOL COLCOL METRIC SCALE FORMAT [FILTER...] -> a Markdown table: one row per
# distinct ROWCOL value (first-seen order), one column per COLCOL value (numeric order; words
# keep their first-seen order), cells "mean ± sd" of METRIC * SCALE over the rows sharing
# (row, column) (the seeds), sd the sample standard deviation, numbers printed with the printf
# FORMAT (e.g. %.1f); a bare mean for a single value. FILTER is COL=VALUE (all must match).
# With a `converged` column (runs trained with train.until), a row some of whose seeds stopped
# at the ceiling says so: "none (not in 6000 steps)", "rope + random (2 of 3 seeds not in ...)".
md_pivot() {
    awk -F, -v rowcol="$2" -v colcol="$3" -v metric="$4" -v scale="$5" -v fmt="$6" \
        -v filters="$(shift 6; echo "$*")" '
    NR == 1 {
        for (i = 1; i <= NF; i++) h[$i] = i
        nf = split(filters, f, " ")
        for (i = 1; i <= nf; i++) { eq = index(f[i], "="); fc[i] = h[substr(f[i], 1, eq - 1)]; fv[i] = substr(f[i], eq + 1) }
        next
    }
    {
        for (i = 1; i <= nf; i++) if ($fc[i] != fv[i]) next
        v = $h[metric]; if (v == "") next
        r = $h[rowcol]; c = $h[colcol]; k = r SUBSEP c
        if ("converged" in h) {   # runs trained with train.until: which stopped at the ceiling
            sd = ("seed" in h) ? $h["seed"] : NR
            if (!((r, sd) in seen)) {
                seen[r, sd] = 1; runs[r]++
                if ($h["converged"] ~ /^not in /) { stuck[r]++; ceiling[r] = $h["converged"] }
            }
        }
        if (!(r in rs)) { rs[r] = 1; rows[++nr] = r }
        if (!(c in cs)) { cs[c] = 1; cols[++nc] = c }
        vals[k, ++n[k]] = v * scale
    }
    END {
        for (i = 2; i <= nc; i++) for (j = i; j > 1 && cols[j - 1] + 0 > cols[j] + 0; j--) { t = cols[j]; cols[j] = cols[j - 1]; cols[j - 1] = t }
        line = "| " rowcol " |"; sep = "| --- |"
        for (j = 1; j <= nc; j++) { line = line " " cols[j] " |"; sep = sep " ---: |" }
        print line; print sep
        for (i = 1; i <= nr; i++) {
            r = rows[i]
            if (stuck[r]) r = r " (" (stuck[r] < runs[r] ? stuck[r] " of " runs[r] " seeds " : "") ceiling[r] ")"
            line = "| " r " |"
            for (j = 1; j <= nc; j++) {
                k = rows[i] SUBSEP cols[j]; m = n[k]
                if (!m) { line = line " |"; continue }
                s = 0; for (q = 1; q <= m; q++) s += vals[k, q]; mean = s / m
                cell = sprintf(fmt, mean)
                if (m > 1) { ss = 0; for (q = 1; q <= m; q++) ss += (vals[k, q] - mean) ^ 2
                             cell = cell " ± " sprintf(fmt, sqrt(ss / (m - 1))) }
                line = line " " cell " |"
            }
            print line
        }
    }' "$1"
}

# rope_stretch KIND FACTOR ORIGINAL: the ./train or ./eval overrides that stretch RoPE by FACTOR
# from a window of ORIGINAL tokens (docs/design.md §2.3.5): linear (position interpolation), ntk,
# yarn, dynamic (no factor: it follows the input length); none: no overrides. YaRN's α = 0.5,
# β = 4 turns: at L = 32 pair 0 turns 5.1 times (kept), pair 1 1.6 times (blended), pairs 2-7
# under 0.51 times (interpolated); the paper's 1 and 32 would blend pair 0 too, which has seen
# every angle already.
rope_stretch() {
    case $1 in
        none) echo "" ;;
        linear|ntk) echo "model.rope_scaling=$1 model.rope_factor=$2 model.rope_original_len=$3" ;;
        yarn) echo "model.rope_scaling=yarn model.rope_factor=$2 model.rope_original_len=$3 model.yarn_alpha=0.5 model.yarn_beta=4" ;;
        dynamic) echo "model.rope_scaling=dynamic model.rope_original_len=$3" ;;
        *) die "rope_stretch: no stretch '$1'" ;;
    esac
}

# rope_finetune STEPS WINDOW WARMUP LOG_EVERY: the ./train overrides that fine-tune a pretrained
# language model (train.init_from) for STEPS steps at WINDOW tokens: 16 windows a step, lr 5e-4,
# cosine, evaluated and saved at the end; the recipe of extend_context.sh and finetune_budget.sh.
rope_finetune() {
    echo "task.window=$2 train.batch_size=16 train.lr=5e-4 train.warmup=$3 train.schedule=cosine train.eval_every=$1 train.ckpt_every=$1 train.log_every=$4"
}

# plot ARGS...: ./plot, failing loudly (nothing with --tables).
plot() { [ "$tables" = 1 ] || "$BIN_DIR/plot" "$@" >/dev/null || die "plot failed: $*"; }

# write_md FILE [LAST]: FILE.new (the Markdown a script has just written) becomes FILE. With
# --tables FILE must exist already: its lines up to its provenance line (the first that matches
# the extended regular expression LAST, default `^Produced by commit `: the command, wall time
# and machine of the runs behind the CSVs) are kept, and FILE.new's own lines up to its
# provenance line dropped.
write_md() {
    if [ "$tables" = 1 ]; then
        _last=${2:-'^Produced by commit '}
        grep -Eq -- "$_last" "$1" 2>/dev/null ||
            die "--tables: $1 is missing or has no provenance line to keep"
        awk -v last="$_last" 'NR == FNR { if (!kept) print; if ($0 ~ last) kept = 1; next }
             past { print } $0 ~ last { past = 1 }' "$1" "$1.new" >"$1.tmp"
        mv "$1.tmp" "$1.new"
    fi
    mv "$1.new" "$1"
}

# ---- Where the trainings run: one after another (default), --jobs N at once on this machine,
# or --slurm as one Slurm job array. A script lists its trainings in a function that calls
# train_run for each, and hands it to run_trainings; evaluation follows once all are finished.
# Finished runs are never redone; a run with a checkpoint resumes from it. The trainings are
# deterministic per seed, so where they ran does not change the results.
# A script of small models sets run_jobs=$(cores) after sourcing this file: two 1-thread
# trainings at once did 1.9-2.8x the tokens/s of one 2-thread training (results/bench/jobs.md).
run_jobs=1; run_jobs_given=0; run_slurm=0; run_sbatch_args=""; run_wait=1
RUN_THREADS=""        # run.threads=N appended to each training (--jobs, --slurm), else the config's
TRAIN_PID=""          # the training in progress, for the Slurm warning (scripts/run_task.sh)
RUN_USAGE='  --jobs N    up to N trainings at once on this machine, each with run.threads = cores / N
              (default 1; the cores for the scripts of small models: extrapolate, lengthgen)
  --slurm     train the remaining runs as one Slurm job array (sbatch --array, one task per run,
              Slurm logs in DIR/slurm/), wait for it, then evaluate as without it. A failed task
              is reported with its log and resubmitted by the next call; a task stopped by the
              time limit (warned with SIGTERM 3 minutes before) resumes from its checkpoint.
  --sbatch-args "ARGS"  extra sbatch options, e.g. "--time=2:00:00 --cpus-per-task=4 -p gpu"
              (each task trains with run.threads = its --cpus-per-task, default 1)
  --no-wait   with --slurm: submit and return; run the same command again to collect'

# run_option ARGS...: if $1 is one of the options above, take it (and its value) and set
# run_shift to the number of extra words used; else return 1.
run_option() {
    run_shift=0
    case "$1" in
        --jobs) [ $# -ge 2 ] || die "--jobs needs a number"
                case "$2" in ''|*[!0-9]*|0) die "--jobs wants a positive number, not '$2'" ;; esac
                run_jobs=$2; run_jobs_given=1; run_shift=1 ;;
        --slurm) run_slurm=1 ;;
        --sbatch-args) [ $# -ge 2 ] || die "--sbatch-args needs the options in one word, e.g. \"--time=1:00:00\""
                run_sbatch_args=$2; run_shift=1 ;;
        --no-wait) run_wait=0 ;;
        *) return 1 ;;
    esac
}

# checkpoint_step FILE: the training step of the checkpoint FILE (from its header), or nothing.
checkpoint_step() {
    _hl=$(od -An -tu8 -N8 "$1" 2>/dev/null | tr -d ' ')
    case "$_hl" in ''|*[!0-9]*) return 0 ;; esac
    [ "$_hl" -le 104857600 ] || return 0
    head -c $((8 + _hl)) "$1" | tr -c '[:print:]' '\n' | sed -n 's/.*"step":"\([0-9]*\)".*/\1/p' | head -n 1
}

# run_finished DIR STEPS: DIR holds the finished run: a checkpoint of step STEPS with its
# validation row, or a stop row saying that train.until or train.patience stopped it at the
# checkpoint's step (a run stopped at a lower ceiling is not finished: train_task resumes it up
# to STEPS). The trainer logs a step's rows before it saves its checkpoint, so a run killed in
# between has the rows of a step its checkpoint does not hold: it is not finished.
run_finished() {
    [ -f "$1/model.safetensors" ] || return 1
    awk -F, -v s="$2" -v ck="$(checkpoint_step "$1/model.safetensors")" '
        ck != "" && (($1 == s && $2 == "val" && ck == s) ||
                     (($2 == "converged" || $2 == "patience") && $1 == ck)) { f = 1 }
        END { exit !f }' "$1/log.csv" 2>/dev/null
}

# ---- Training until convergence (--converge): each run stops once its in-distribution exact
# match reaches 99% (train.until), with a ceiling of CONVERGE_FACTOR times the script's steps.
# (tests set both in the environment to make a short run converge, or to stop at a lower
# ceiling first)
CONVERGE_UNTIL=${CONVERGE_UNTIL:-"train.until=val_exact_match>=0.99"}
CONVERGE_FACTOR=${CONVERGE_FACTOR:-10}
CONVERGE_USAGE="  --converge  train each run until its validation exact match reaches 99%
              ($CONVERGE_UNTIL) with a ceiling of $CONVERGE_FACTOR x the steps, into
              DIR_converge by default; the tables get the steps each run took (\"not in N
              steps\" when it hit the ceiling) and its CPU seconds"

# run_cpu_seconds RUN: the CPU seconds every ./train invocation of RUN took (its compute.csv).
run_cpu_seconds() {
    awk -F, "$CSV_COLUMNS"'row { s += cell("cpu_seconds") } END { printf "%.1f\n", s }' "$1/compute.csv"
}

# converge_table CSV ROWCOL COLCOL: a Markdown table of a --converge results file (columns
# ROWCOL, COLCOL, seed, converged, cpu_seconds; one value per run, however many rows it has):
# per cell, the steps to converge of each seed ("-" for one that did not converge within the
# ceiling, whose value says "not in N steps"), then the runs' mean CPU seconds.
converge_table() {
    awk -F, -v rowcol="$2" -v colcol="$3" "$CSV_COLUMNS"'
    row {
        r = cell(rowcol); c = cell(colcol); k = r SUBSEP c; run = k SUBSEP cell("seed")
        if (run in seen) next
        seen[run] = 1
        if (!(r in rs)) { rs[r] = 1; rows[++nr] = r }
        if (!(c in cs)) { cs[c] = 1; cols[++nc] = c }
        v = cell("converged"); if (v ~ /^not in/) { v = "-"; ceiling = cell("converged") }
        steps[k] = (n[k] ? steps[k] " / " : "") v
        cpu[k] += cell("cpu_seconds"); n[k]++
    }
    END {
        line = "| " rowcol " |"; sep = "| --- |"
        for (j = 1; j <= nc; j++) { line = line " " cols[j] ": steps | " cols[j] ": CPU s |"; sep = sep " ---: | ---: |" }
        print line; print sep
        for (i = 1; i <= nr; i++) {
            line = "| " rows[i] " |"
            for (j = 1; j <= nc; j++) {
                k = rows[i] SUBSEP cols[j]
                line = line (n[k] ? sprintf(" %s | %.1f |", steps[k], cpu[k] / n[k]) : " | |")
            }
            print line
        }
        if (ceiling != "") print "\n\"-\": did not converge (" ceiling ")."
    }' "$1"
}

# shell_quote WORD: WORD in single quotes, for a line that `eval "set -- LINE"` splits back.
shell_quote() { printf "'%s' " "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# train_run DIR STEPS CONFIG [overrides...]: one training for run_trainings to do, unless DIR
# already holds the finished run.
# A call killed after the training ended but before train_task moved its output into the run
# left DIR.train.out beside it: it goes where an unbroken call puts it.
train_run() {
    if run_finished "$1" "$2"; then
        [ ! -f "$1.train.out" ] || mv "$1.train.out" "$1/train.out"
        say "reuse  $1 (step $2)"; return 0
    fi
    for _w in "$@"; do shell_quote "$_w"; done >>"$RUN_PLAN"
    echo >>"$RUN_PLAN"
}

# wait_pid PID: wait until the child PID exits, also when a trapped signal interrupts the wait.
wait_pid() { while kill -0 "$1" 2>/dev/null; do wait "$1" || :; done; }

# watch_driver PID: in the background, stop the training PID with SIGTERM (it saves a checkpoint
# and exits) once this script has died, so that no training goes on alone after a kill; prints
# the watcher's pid, for train_task to end it.
watch_driver() {
    ( while kill -0 $$ 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done
      kill -0 $$ 2>/dev/null || kill -TERM "$1" 2>/dev/null ) >/dev/null 2>&1 &
    echo $!
}

# train_task DIR STEPS CONFIG [overrides...]: train DIR. A folder with a checkpoint (a run
# interrupted by a signal or a crash) resumes from it; one without is started afresh. The
# trainer's output goes to DIR/train.out; returns 1 if the run did not finish.
train_task() {
    _dir=$1; _steps=$2; _cfg=$3; shift 3
    _resume=""
    if [ -f "$_dir/model.safetensors" ]; then _resume="train.resume=$_dir"; say "resume $_dir"
    else rm -rf "$_dir" "$_dir.train.out"; fi
    mkdir -p "$(dirname "$_dir")"
    kill -0 $$ 2>/dev/null || return 1   # the script died meanwhile: start nothing
    _t0=$(now)
    # shellcheck disable=SC2086 # RUN_THREADS and _resume are one word or none
    "$BIN_DIR/train" "$_cfg" run.out_dir="$(dirname "$_dir")" run.name="$(basename "$_dir")" \
        train.steps="$_steps" "$@" $RUN_THREADS $_resume >>"$_dir.train.out" 2>&1 &
    TRAIN_PID=$!
    _watch=$(watch_driver $TRAIN_PID)
    wait_pid $TRAIN_PID
    kill "$_watch" 2>/dev/null || :
    TRAIN_PID=""
    if ! run_finished "$_dir" "$_steps"; then
        tail -n 5 "$_dir.train.out" >&2
        echo "$0: training $_dir failed (output: $_dir.train.out; command: $BIN_DIR/train $_cfg train.steps=$_steps $* $RUN_THREADS $_resume)" >&2
        return 1
    fi
    mv "$_dir.train.out" "$_dir/train.out"
    say "train  $_dir: $(( $(now) - _t0 )) s"
}

# task_run FILE N: train_task with the words of line N of FILE (a plan that train_run wrote).
task_run() {
    _line=$(sed -n "$2p" "$1")
    [ -n "$_line" ] || die "$1 has no task $2"
    eval "train_task $_line"
}

# cores: the cores this process may use.
cores() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN; }

# run_lock OUT: one call at a time works in OUT (two would share its task list and train
# into the same run folders). Every process a call starts carries TF_CALL_OUT=OUT and
# TF_CALL_PID=its pid in its environment; a call that finds processes of another live call
# there stops with a message, and stops those a killed call left (SIGTERM: a training saves a
# checkpoint) and waits for them to end before it goes on. OUT/.lock holds the pid of the call
# that trains there (two calls starting at once: one takes it); a lock whose process has ended
# is taken over. run_trainings releases it when its trainings are done.
run_lock() {
    mkdir -p "$1"
    if ! mkdir "$1/.lock" 2>/dev/null; then
        _holder=$(cat "$1/.lock/pid" 2>/dev/null || :)
        if [ -n "$_holder" ] && [ "$_holder" != $$ ] && kill -0 "$_holder" 2>/dev/null; then
            die "$1 is in use: process $_holder is training there (another call of this or another script); wait for it, or give this call another --out"
        fi
        rm -rf "$1/.lock"; mkdir "$1/.lock" || die "cannot lock $1"
    fi
    echo $$ >"$1/.lock/pid"
    call_claim "$1"
}

# call_processes OUT: "PID CALL" for each process (but this call's) that a call into OUT
# started, CALL being that call's pid (read from /proc/*/environ; none where there is no /proc).
call_processes() {
    grep -lsazxF "TF_CALL_OUT=$1" /proc/[0-9]*/environ 2>/dev/null | while read -r _env; do
        _p=${_env#/proc/}; _p=${_p%/environ}
        _c=$(tr '\0' '\n' 2>/dev/null <"$_env" | sed -n 's/^TF_CALL_PID=//p')
        [ -z "$_c" ] || [ "$_c" = $$ ] || echo "$_p $_c"
    done
}

# call_claim OUT: what run_lock says of the processes of other calls into OUT; then marks the
# processes this call starts.
call_claim() {
    _abs=$(cd "$1" && pwd -P)
    _tries=0
    while _left=$(call_processes "$_abs") && [ -n "$_left" ]; do
        while read -r _p _c; do
            if kill -0 "$_c" 2>/dev/null; then
                rm -rf "$1/.lock"
                die "$1 is in use: process $_c is working there (another call of this or another script); wait for it, or give this call another --out"
            fi
            kill -TERM "$_p" 2>/dev/null || :
        done <<EOT
$_left
EOT
        [ $_tries -gt 0 ] || say "stopping what a killed call left running in $1"
        _tries=$((_tries + 1))
        [ $_tries -le 600 ] || die "processes of a killed call still run in $1 after 60 s: $(echo "$_left" | cut -d' ' -f1 | tr '\n' ' ')"
        sleep 0.1
    done
    # what a killed call left: its claims and evaluation list (its training list is rewritten)
    rm -rf "$1/.claims" "$1/.eval_claims" "$1/.eval_plan"
    export TF_CALL_OUT="$_abs" TF_CALL_PID=$$
}

# run_trainings FUNCTION OUT: FUNCTION calls train_run for every training; do those not yet
# finished as the options say (Slurm files in OUT/slurm/). Returns once all are finished;
# stops with a list of the failed ones otherwise (run the script again to retry them).
run_trainings() {
    [ "$tables" = 0 ] || return 0
    if [ $run_slurm = 1 ]; then
        [ "$run_jobs_given" = 0 ] || [ "$run_jobs" = 1 ] || die "--jobs and --slurm do not go together: choose this machine or the cluster"
        call_claim "$2"; slurm_trainings "$@"; return
    fi
    [ $run_wait = 1 ] && [ -z "$run_sbatch_args" ] || die "--no-wait and --sbatch-args go with --slurm"
    # Never train here what a Slurm job may be training into the same folders.
    [ ! -f "$2/slurm/job" ] || die "Slurm job $(cut -d' ' -f1 "$2/slurm/job") of an earlier --slurm call may still be training these runs: collect it with --slurm (or scancel it and remove $2/slurm/job)"
    run_lock "$2"
    RUN_PLAN=$2/.plan; : >"$RUN_PLAN"; "$1"
    _n=$(wc -l <"$RUN_PLAN")
    [ "$_n" -gt 0 ] || { rm -f "$RUN_PLAN"; rm -rf "$2/.lock"; return 0; }
    _workers=$run_jobs
    if [ "$run_jobs" -gt 1 ]; then
        _t=$(( $(cores) / run_jobs )); RUN_THREADS="run.threads=$(( _t > 0 ? _t : 1 ))"
        [ "$_workers" -gt "$_n" ] && _workers=$_n
        say "$_n trainings, $_workers at once, $RUN_THREADS each"
    fi
    _claims=$2/.claims; rm -rf "$_claims"; mkdir -p "$_claims"
    each_claimed "$RUN_PLAN" "$_n" "$_workers" "$_claims" task_run
    rm -rf "$_claims"
    : >"$RUN_PLAN"; "$1" >/dev/null
    _left=$(wc -l <"$RUN_PLAN")
    rm -f "$RUN_PLAN"; rm -rf "$2/.lock"
    [ "$_left" -eq 0 ] || die "$_left of $_n trainings failed (see above); run the same command again to retry them (they resume from their last checkpoint)"
}

# slurm_trainings FUNCTION OUT: run_trainings with --slurm. The job of the previous call, if
# any (OUT/slurm/job: its id and task file), is waited for (or, with --no-wait, left running)
# and its failed tasks reported; then the trainings still missing go out as one array job.
slurm_trainings() {
    command -v sbatch >/dev/null 2>&1 || die "--slurm: sbatch not found (is Slurm installed on this machine?)"
    _q=$(squeue -h -o %i 2>&1) || die "--slurm: the Slurm controller does not answer ($(echo "$_q" | head -n 1))"
    _sd=$2/slurm; mkdir -p "$_sd"
    if [ -f "$_sd/job" ]; then
        read -r _id _tasks <"$_sd/job"
        if slurm_active "$_id" && [ $run_wait = 0 ]; then
            say "Slurm job $_id is still queued or running; run the same command again when it is done"
            exit 0
        fi
        slurm_wait "$_id"
        slurm_report "$_id" "$_tasks" || say "resubmitting the failed tasks of job $_id"
    fi
    RUN_PLAN=$_sd/plan-$(date +%Y%m%d-%H%M%S)-$$.tasks; : >"$RUN_PLAN"; "$1"
    _n=$(wc -l <"$RUN_PLAN")
    if [ "$_n" -eq 0 ]; then rm -f "$RUN_PLAN"; return 0; fi
    # B:USR1 goes to the task's shell (scripts/run_task.sh), which passes it on to the trainer as
    # SIGTERM: checkpoint and stop, 3 minutes before the limit. scancel's SIGTERM reaches the
    # trainer directly, so it never gets two.
    # The tasks are the job's, not this call's: a later call waits for the job, never stops them.
    # shellcheck disable=SC2086 # the sbatch arguments are separate words
    _id=$(env -u TF_CALL_OUT -u TF_CALL_PID sbatch --parsable --array=1-"$_n" --job-name="$(basename "$0" .sh)" --output="$_sd/%A_%a.out" \
            --signal=B:USR1@180 $run_sbatch_args --wrap="exec scripts/run_task.sh $RUN_PLAN" 2>&1) \
        || die "--slurm: sbatch failed: $(echo "$_id" | head -n 1)"
    _id=${_id%%;*}
    echo "$_id $RUN_PLAN" >"$_sd/job.tmp" && mv "$_sd/job.tmp" "$_sd/job"
    say "submitted Slurm job $_id: $_n trainings (logs: $_sd/${_id}_<task>.out)"
    if [ $run_wait = 0 ]; then
        say "--no-wait: run the same command again to collect the results"
        exit 0
    fi
    slurm_wait "$_id"
    slurm_report "$_id" "$RUN_PLAN" || die "some Slurm tasks failed (reported above); run the same command again to resubmit them (they resume from their last checkpoint)"
}

# slurm_active ID: job ID still has tasks queued or running. A job the controller no longer
# knows has ended; a controller that does not answer stops the script.
slurm_active() {
    _o=$(squeue -h -j "$1" -o %i 2>&1) || case "$_o" in
        *"Invalid job id"*) return 1 ;;
        *) die "--slurm: squeue failed: $(echo "$_o" | head -n 1)" ;;
    esac
    [ -n "$_o" ]
}

# slurm_wait ID: until job ID has ended.
slurm_wait() {
    slurm_active "$1" && say "waiting for Slurm job $1"
    while slurm_active "$1"; do sleep 3; done
}

# slurm_report ID TASKS: every task of the ended job ID whose run did not finish, with the end
# of its Slurm log; forgets the job (its failed runs are planned again). Returns 1 if any failed.
slurm_report() {
    _rid=$1; _rtasks=$2; _failed=0; _i=1; _total=$(wc -l <"$_rtasks")
    while [ $_i -le "$_total" ]; do
        eval "set -- $(sed -n "${_i}p" "$_rtasks")"
        if ! run_finished "$1" "$2"; then
            _failed=$((_failed + 1))
            _log=$_sd/${_rid}_$_i.out
            echo "$0: Slurm task ${_rid}_$_i ($1) failed; its log $_log ends:" >&2
            tail -n 5 "$_log" 2>/dev/null | sed 's/^/    /' >&2
        fi
        _i=$((_i + 1))
    done
    rm -f "$_sd/job"
    [ $_failed -eq 0 ]
}

# provenance: the line every results.md carries, naming the commit, the build of the tools and
# the CPU that made its numbers. They are bit-identical for the same build on the same CPU
# (any thread count); -march=native makes another CPU a different build (docs/usage.md, testing).
provenance() {
    _rev=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
    git diff --quiet HEAD -- src Makefile 2>/dev/null || _rev="$_rev with uncommitted changes to src/ or Makefile"
    # gcc records the compiler and its options, -march=native resolved, in the debug info.
    # ./eval, not ./train: every tool is one build, and a wrapper around ./train (a Slurm test
    # stops it mid-run that way) still leaves ./eval the real binary.
    _cc=$(LC_ALL=C grep -a -o -m1 'GNU C[0-9]* [[:print:]]*' "$BIN_DIR/eval" 2>/dev/null | head -1)
    _build="unknown build"
    [ -n "$_cc" ] && _build="$(echo "$_cc" | grep -o '^GNU C[0-9]* [0-9.]*')$(echo "$_cc" |
        grep -o -- ' -march=[^ ]*\| -O[^ ]*\| -ffp-contract=[^ ]*\| -fsanitize=[^ ]*' | tr -d '\n')"
    _cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)
    echo "Produced by commit $_rev; tools: $_build; CPU: ${_cpu:-unknown}."
}
