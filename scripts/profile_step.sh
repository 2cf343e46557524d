#!/bin/sh
# Where a small model's training step goes, by instruction counts: callgrind (which does not
# depend on the load of a shared host) counts the instructions inside train_step only, and
# each function's own count is put into a category. Writes OUT/profile_small.csv and .md.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOF'
usage: scripts/profile_step.sh [--out DIR] [--steps N] [--from FILE...]

Profiles the training step of the small models under valgrind's callgrind, counting only the
instructions inside train_step (--toggle-collect=train_step), on one OpenMP thread:
  toy    build/cg/bin/train configs/rope.ini train.steps=N (default 3): the bench's toy
         shape (d64 h4 2+2 ff256 B64) on the toy task's own batches of 1-3 clauses
  copy   build/cg/bin/train configs/algorithmic/lm_copy.ini train.steps=N
both with small evaluation sets (the evaluation is not counted, only slow under valgrind).
glibc's rep stosb/movsb are switched off (GLIBC_TUNABLES): callgrind counts a rep-string
instruction once per byte, which overstates memset/memcpy about ninefold.
valgrind cannot decode AVX-512, so the programs are an AVX2 build (-O3 -march=x86-64-v3,
BUILD=build/cg; `make` is run for it). Each function's own (exclusive) instructions go into a
category: matrix products, attention, elementwise and norms, loss, optimizer, tape and arena,
OpenMP runtime, memset/memcpy, other. Also counted: OpenMP parallel regions (GOMP_parallel
calls) per step. Writes into DIR (default results/bench):
  profile_small.csv  model,category,instructions_per_step,share
  profile_small.md   the commit, CPU and commands, each model's instructions and parallel
                     regions a step, and one table of the categories (largest first)
  --from FILE...     tabulate existing callgrind outputs (model=FILE pairs) instead of running
Takes 7-10 minutes on a 2-core host at load 2-4 (AMD EPYC Zen 5), the toy most of it.
EOF
}

out=results/bench; steps=3; from=""; models=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
        --steps) [ $# -ge 2 ] || die "--steps needs a number"; steps=$2; shift 2 ;;
        --from) shift; from="$*"; break ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
case "$steps" in ''|*[!0-9]*|0) die "--steps wants a positive number, not '$steps'" ;; esac
mkdir -p "$out"
make -s build/opt/bin/table
table=build/opt/bin/table
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=3000   # no re-exec under valgrind
# callgrind counts a rep stosb/movsb once per byte: have glibc's memset/memcpy use vector loops
tunables=glibc.cpu.x86_rep_stosb_threshold=0x7fffffffffffffff
export GLIBC_TUNABLES=$tunables:glibc.cpu.x86_rep_movsb_threshold=0x7fffffffffffffff
cg="valgrind --tool=callgrind --toggle-collect=train_step"
small="train.steps=$steps task.val_size=8 task.test_size=8"
toy_cmd="build/cg/bin/train configs/rope.ini $small train.eval_lengths=3"
copy_cmd="build/cg/bin/train configs/algorithmic/lm_copy.ini $small train.eval_lengths=16"
if [ -z "$from" ]; then
    command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
    make -s -j2 BUILD=build/cg OPT="-O3 -march=x86-64-v3 -ffp-contract=fast" build/cg/bin/train
    for model in toy copy; do
        eval "cmd=\$${model}_cmd"
        $cg --callgrind-out-file="$tmp/$model.out" $cmd "run.out_dir=$tmp/$model" \
            >"$tmp/$model.log" 2>&1 || { cat "$tmp/$model.log" >&2; die "$model: $cmd failed"; }
    done
    from="toy=$tmp/toy.out copy=$tmp/copy.out"
fi

# category FUNCTION OBJECT: the category of a function's own instructions
categorise() {
    awk "$(cat scripts/step_categories.awk)"'{ print step_category($2, $3) "\t" $1 }'
}

commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo "+changes")
cpu=$(awk -F': ' '/^model name/ && !n { n = $2 } /^cpu family/ && !f { f = $2 }
                 /^model\t/ && !m { m = $2 } END { print n ", family " f " model " m }' /proc/cpuinfo)
csv="$out/profile_small.csv"; md="$out/profile_small.md"
echo "model,category,instructions_per_step,share" >"$csv"
{
    echo "CPU: $cpu (the counts are of an AVX2 build: valgrind cannot decode AVX-512)"
    echo
    echo "Commit $commit. Instructions inside train_step counted by \`valgrind --tool=callgrind"
    echo "--toggle-collect=train_step\` on one thread (OMP_NUM_THREADS=1), written by"
    echo "\`scripts/profile_step.sh\`. Commands: toy \`$toy_cmd\`; copy \`$copy_cmd\`."
    echo "glibc's rep stosb/movsb are off, as callgrind counts a rep-string instruction once per"
    echo "byte: \`GLIBC_TUNABLES=$GLIBC_TUNABLES\`."
    echo "The toy runs the bench's toy shape on the toy task's own batches (1-3 clauses), not"
    echo "the bench's synthetic ones of 6-24 tokens."
    echo "Each function's own instructions, by category; a step's count is the total over"
    echo "the steps run (tape_backward runs once a step)."
} >"$md"
for pair in $from; do
    model=${pair%%=*}; file=${pair#*=}
    [ -s "$file" ] || die "$file: no callgrind output"
    # exclusive counts per function: "Ir  file:function [object]"
    callgrind_annotate --auto=no --inclusive=no --threshold=100 "$file" 2>/dev/null |
        sed -E -n 's/^ *([0-9,]+) +\( *[0-9.]+%\) +/\1 /p' |
        awk '$2 != "PROGRAM" { ir = $1; gsub(/,/, "", ir); fn = $2; sub(/^.*:/, "", fn)
                 obj = $NF ~ /^\[/ ? $NF : ""; print ir "\t" fn "\t" obj }' >"$tmp/fns"
    # the call records of tape_backward (steps) and GOMP_parallel (regions): "function,calls"
    { echo "function,calls"
      awk '/^c?fn=\(/ { id = $0; sub(/^c?fn=/, "", id); sub(/\).*/, ")", id)
               name = $0; sub(/^c?fn=\([0-9]+\) ?/, "", name); if (name != "") names[id] = name
               if ($0 ~ /^cfn=/) cur = names[id] }
           /^calls=/ && cur ~ /^(tape_backward|GOMP_parallel)$/ {
               split(substr($0, 7), c, " "); print cur "," c[1] }' "$file"; } >"$tmp/calls.csv"
    calls() { $table --plain --value calls:sum:%.0f --filter "function=$1" "$tmp/calls.csv"; }
    n_steps=$(calls tape_backward)
    [ -n "$n_steps" ] && [ "$n_steps" -gt 0 ] || die "$file: no tape_backward call recorded"
    regions=$(calls GOMP_parallel)
    # each category's instructions (whole numbers: the sums are exact), then a step's
    { echo "category,instructions"; categorise <"$tmp/fns" | tr '\t' ,; } >"$tmp/cats.csv"
    $table --csv --rows category --value instructions:sum:%.0f \
        --value share=instructions:share:%.4f "$tmp/cats.csv" >"$tmp/totals.csv"
    $table --plain --rows category --value "instructions/$n_steps:sum:%.0f" --value share:text \
        "$tmp/totals.csv" | sed "s|^|$model,|" | sort -t, -k3,3nr >>"$csv"
    echo "instructions,steps,regions" >"$tmp/step.csv"
    echo "$($table --plain --value instructions:sum:%.0f "$tmp/cats.csv"),$n_steps,${regions:-0}" \
        >>"$tmp/step.csv"
    echo "$model: $n_steps steps; $($table --plain --value 'instructions/steps/1000000:sum:%.1f' \
        "$tmp/step.csv") million instructions a step; $($table --plain \
        --value regions/steps:sum:%.0f "$tmp/step.csv") parallel regions a step." >>"$tmp/summary"
    models="$models $model"
done
{
    echo
    cat "$tmp/summary"
    echo
    echo "## Shares of a step"
    echo
    # one row a category, one column pair a model (in the order given), largest first: the
    # millions and the shares of each model from ./table, put side by side
    by_model() { $table --plain --rows category --cols model --value "$1" "$csv"; }
    by_model 'instructions_per_step/1000000:sum:%.1f' >"$tmp/millions"
    by_model 'share*100:sum:%.1f %%' >"$tmp/shares"
    printf '| category'; for m in $models; do printf ' | %s: M instructions a step | %s: share' "$m" "$m"; done
    printf ' |\n| ---'; for m in $models; do printf ' | ---: | ---:'; done; printf ' |\n'
    paste -d, "$tmp/millions" "$tmp/shares" | awk -F, '{ m = (NF - 2) / 2; row = "| " $1
        for (k = 2; k <= m + 1; k++) row = row " | " $k " | " $(k + m + 1); print row " |" }'
} >>"$md"
echo "wrote $csv and $md"
