#!/bin/sh
# The definitions scripts/lengthgen.sh and its parts share (POSIX sh, sourced after its options
# are read): tasks, variants, schemes, their overrides and run folders, the paper's MRR.
case ${0##*/} in
    lengthgen_defs.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/lengthgen_defs.sh   (sourced by scripts/lengthgen.sh: not a command)"
        echo
        echo "Definitions of scripts/lengthgen.sh: tasks, variants, schemes and their overrides, see scripts/lengthgen.sh --help."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
# only_tasks ALL: the tasks of ALL that --tasks names (all of them without it)
only_tasks() {
    [ -n "$tasks" ] || { echo "$1"; return; }
    _kept=""
    for _t in $1; do case " $tasks " in *" $_t "*) _kept="$_kept${_kept:+ }$_t" ;; esac; done
    echo "$_kept"
}
# --converge: the stop rule for every training, and the columns it adds to the results
until_over=""; converge_cols=""
if [ $converge = 1 ]; then until_over=$CONVERGE_UNTIL; converge_cols=",converged,cpu_seconds"; fi
# converge_cells RUN EVAL_CSV: ",CONVERGED,CPU_SECONDS" of RUN with --converge, else nothing
converge_cells() {
    [ $converge = 1 ] || return 0
    printf ',%s,%s' "$(awk -F, "$CSV_COLUMNS"'row { print cell("converged"); exit }' "$2")" "$(run_cpu_seconds "$1")"
}
# ---- variants: a run-folder suffix, the overrides that make the variant, and its schemes
variant_suffix() { [ "$1" = plain ] || echo "-$1"; }
variant_overrides() {
    case $1 in
        plain) ;;
        random) echo "model.pos_random=2048 model.max_len=2048" ;;   # the learned table covers every drawn position
        *) die "unknown variant '$1' (plain, random)" ;;
    esac
}
# Randomizing no positions (none, lstm) changes nothing: the plain run already is that one.
variant_schemes() {
    if [ "$1" = plain ]; then echo "$TR_SCHEMES"; else with_positions "$TR_SCHEMES"; fi
}
# with_positions LIST: the rows of LIST that have positions to randomize (not none, not lstm)
with_positions() { echo "$1" | tr ' ' '\n' | grep -vx 'none\|lstm' | tr '\n' ' '; }
# scheme_overrides SCHEME: the training overrides that make a row: a positional scheme of the
# Transformer, or lstm, the recurrent translator sized to the Transformer's parameter count.
LSTM_OVERRIDES="model.model=lstm model.pos=none model.bidirectional=true model.d_model=56"
scheme_overrides() {
    case $1 in
        lstm) echo "$LSTM_OVERRIDES" ;;
        *) case " $SCHEMES " in *" $1 "*) echo "model.pos=$1" ;; *) die "unknown scheme '$1' (lstm or one of: $SCHEMES)" ;; esac ;;
    esac
}
# steps_of CONFIG: the training steps of configs/algorithmic/CONFIG.ini (--quick: 30), times the
# ceiling factor with --converge
steps_of() {
    if [ $quick = 1 ]; then _s=30; else _s=$(config_value train steps "configs/algorithmic/$1.ini"); fi
    if [ $converge = 1 ]; then echo $((_s * CONVERGE_FACTOR)); else echo "$_s"; fi
}
# variant_csv: results.csv with a variant column taken from the rows' names ("rope + random
# (plain)": random (plain); "rope + random": random; else plain).
variant_csv() {
    awk -F, "$CSV_COLUMNS"'head { print $0 ",variant" }
        row { v = "plain"; if (cell("scheme") ~ / \+ random \(plain\)$/) v = "random (plain)"
              else if (cell("scheme") ~ / \+ random$/) v = "random"; print $0 "," v }' "$out/results.csv"
}

LM_TASKS=$(only_tasks "copy reverse duplicate")
# The variants, one a line: name|train overrides|eval overrides. A variant without train
# overrides evaluates the plain runs (DIR/runs/lm-<task>-<scheme>-s<seed>); one with them
# trains runs of its own (DIR/runs/lm-<task>-<scheme>-<name>-s<seed>).
LM_VARIANTS=""
case " $variants " in *" plain "*) LM_VARIANTS="plain||
logscale||attn_logit_scale=log" ;; esac
case " $variants " in *" random "*) LM_VARIANTS="${LM_VARIANTS:+$LM_VARIANTS
}random|$(variant_overrides random)|" ;; esac

# lm_field LINE N: field N of a variant line.
lm_field() { echo "$1" | cut -d'|' -f"$2"; }

# lm_schemes VARIANT_LINE: the schemes the variant has (none has no positions to randomize).
lm_schemes() {
    if [ "$(lm_field "$1" 1)" = random ]; then with_positions "$SCHEMES"; else echo "$SCHEMES"; fi
}

# lm_run TASK SCHEME SEED VARIANT_LINE: the run folder the variant evaluates.
lm_run() {
    if [ -z "$(lm_field "$4" 2)" ]; then echo "$out/runs/lm-$1-$2-s$3"
    else echo "$out/runs/lm-$1-$2-$(lm_field "$4" 1)-s$3"; fi
}

# Kazemnejad et al.'s mean reciprocal ranks (their Figure 1 / §4), by our scheme names: their
# absolute scheme is sinusoidal; they had no learned table. Empty: not in the paper.
lm_paper_mrr() {
    case "$1" in
        none) echo 0.69 ;;
        t5) echo 0.55 ;;
        alibi) echo 0.50 ;;
        rope) echo 0.33 ;;
        sinusoidal) echo 0.22 ;;
        *) echo "" ;;
    esac
}
