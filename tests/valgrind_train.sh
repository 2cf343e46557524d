# A short training run, its resume and ./eval under valgrind memcheck (not part of `make test`:
# valgrind cannot decode the AVX-512 that -march=native emits here, so it needs tools built
# for AVX2, as `make valgrind` does):
#   make BUILD=build/vg OPT="-O2 -march=x86-64-v3" build/vg/bin/train build/vg/bin/eval
#   BIN_DIR=build/vg/bin sh tests/valgrind_train.sh
# Prints `ok NAME` / `FAIL NAME: why` like the other shell tests; about 20 s.
. tests/lib.sh
export OMP_WAIT_POLICY=passive
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"

tiny_config "$TMP/vg.ini" seed=1 train_size=100 val_size=10 test_size=10 steps=10 log_every=5

# vg NAME EXPECTED-EXIT CMD...: CMD under memcheck exits EXPECTED-EXIT (99 = a memcheck error).
vg() {
    name=$1; want=$2; shift 2
    $VG "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq "$want" ] && ! grep -q '^==[0-9]*==' "$TMP/err"; then ok "$name"
    else fail "$name" "exit $rc (want $want): $(grep -m 5 '^==' "$TMP/err" | tr '\n' ' ')"; fi
}
vg valgrind_train 0 "$BIN_DIR/train" "$TMP/vg.ini"
vg valgrind_resume 0 "$BIN_DIR/train" "$TMP/vg.ini" train.steps=20 train.resume="$TMP/runs/vg"
vg valgrind_eval 0 "$BIN_DIR/eval" "$TMP/runs/vg"
printf '[model]\nd_model = 16\nd_model = 32\n' >"$TMP/dup.ini"
vg valgrind_config_error 2 "$BIN_DIR/train" "$TMP/dup.ini"
python3 tests/ckpt_edit.py "$TMP/runs/vg/model.safetensors" "$TMP/runs/vg/model.safetensors" reshape generator.weight
vg valgrind_checkpoint_error 1 "$BIN_DIR/eval" "$TMP/runs/vg"
