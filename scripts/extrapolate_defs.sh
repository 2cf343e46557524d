#!/bin/sh
# The definitions scripts/extrapolate.sh shares with its parts (POSIX sh, sourced after its
# options are read): the trained variants, the quick and full settings, the rope stretches.
case ${0##*/} in
    extrapolate_defs.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/extrapolate_defs.sh   (sourced by scripts/extrapolate.sh: not a command)"
        echo
        echo "Definitions of scripts/extrapolate.sh: variants, settings and stretches, see scripts/extrapolate.sh --help."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac
# Trained variants of the language model (view 3 only): name:scheme:override
lm_variants="xpos_g512:xpos:model.xpos_gamma=512 fire_learned:fire:model.fire_learned=1"
# variant_of NAME: "SCHEME OVERRIDE" of a trained variant; a plain scheme is "NAME " (no override)
variant_of() {
    for _v in $lm_variants; do
        [ "${_v%%:*}" != "$1" ] || { _rest=${_v#*:}; echo "${_rest%%:*} ${_rest#*:}"; return 0; }
    done
    echo "$1 "
}
suffix=$([ $converge = 0 ] || echo _converge)
# The full mode trains the configs as they are; quick mode shrinks the models and data.
if [ $quick = 1 ]; then
    seeds=${seeds:-1}; out=${out:-results/quick/extrapolate$suffix}
    tr_steps=20; lm_steps=20
    tr_over="model.d_model=32 model.d_ff=64 train.batch_size=16 task.train_size=400 task.val_size=40 task.test_size=40 train.eval_every=10 train.warmup=5 train.log_every=5"
    lm_over="model.d_model=32 model.d_ff=64 train.batch_size=8 task.train_size=400 train.eval_every=10 train.warmup=5 train.log_every=5 train.eval_lengths=64"
    lengths=1..4; offsets="0 8 32"; windows=32,64,128; diag_lengths="3 4"
else
    seeds=${seeds:-3}; out=${out:-results/extrapolate$suffix}
    tr_steps=$(config_value train steps configs/rope.ini); lm_steps=$(config_value train steps configs/lm/rope.ini)
    tr_over=""; lm_over=""
    lengths=1..12,16,24,32; offsets="0 8 16 32 64 128 512"; windows=32,64,128,256,512,1024
    diag_lengths="3 12"   # the clause tables of results.md
fi
# rope stretches at evaluation time: name and ./eval overrides (when rope is a row)
stretches="rope_pi4:rope_scale=4 rope_base40k:rope_base=40000"
case " $schemes " in *" rope "*) ;; *) stretches="" ;; esac
