# The experiment scripts' options (POSIX sh; sourced by scripts/lib.sh, not run): --quick,
# --seeds, --out, --figures, --tables and where the trainings run (--jobs, --slurm), the
# evaluations each script caches and runs --jobs at once, and the training recipes the scripts
# share (RoPE's stretches, the fine-tuning, training until convergence).
case ${0##*/} in
    options.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/options.sh   (through scripts/lib.sh, from another script: not a command)"
        echo
        echo "The experiment scripts' options, cached evaluations and shared training recipes."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
BIN_DIR=${BIN_DIR:-.}
# The positional schemes in the registry's order, from the trainer (src/pos/registry.c is the
# only list); empty when the trainer is missing, which need_tools then reports.
SCHEMES=$(echo $("$BIN_DIR/train" --list-schemes 2>/dev/null))

die() { echo "$0: $*" >&2; exit 1; }
now() { date +%s; }
say() { echo "[$(date +%H:%M:%S)] $*"; }

# common_option "$@": takes the options the seeded scripts share from the front of their
# arguments: --quick (quick=1), --seeds N, --out DIR, --figures, --tables, -h/--help (the
# script's usage), run_option's; sets used to the words taken, 0 for none of these.
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


# cached_eval [--refused TEXT] OUT CMD...: run CMD (an ./eval call) into OUT unless OUT is newer
# than the checkpoint beside it (a run trained on is evaluated again); atomic. Any failure stops
# the script, but with --refused one whose message holds TEXT (a setting the model refuses): OUT
# then holds it as a `# refused: ...` comment and no rows, an empty cell in the tables.
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
# run_jobs > 1 the evaluations it needs run first, run_jobs at once (a run trained with --jobs
# keeps run.threads = 1, which ./eval takes too). FUNCTION runs twice: first with EVAL_PLAN set,
# where cached_eval lists each missing evaluation and returns 1, so FUNCTION must skip what reads
# one when cached_eval fails (`cached_eval ... || continue`) and start its outputs afresh. The
# list and claims go into the call's folder (run_lock), where a killed call leaves them.
EVAL_PLAN=""
eval_task() { _line=$(sed -n "$2p" "$1"); eval "cached_eval $_line"; }   # PLAN I: its line I
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

# rope_stretch KIND FACTOR ORIGINAL: the ./train or ./eval overrides that stretch RoPE by FACTOR
# from a window of ORIGINAL tokens (docs/design.md §2.3.5): linear (position interpolation), ntk,
# yarn (α = 0.5, β = 4 turns), dynamic (it follows the input length); none: no overrides.
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

