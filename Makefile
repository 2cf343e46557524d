# Targets (`make help` prints this list):
#   make            build ./train ./eval and the other tools at the top level (optimised)
#   make check      the fast tier: build and run the C unit tests (tests/test_*.c), under a minute
#   make test       the whole suite: every C unit test and every tests/test_*.sh on the tools
#   make sanitize   the whole suite again under ASan + UBSan (build/san)
#   make valgrind   test_train_core and a short training under valgrind memcheck (AVX2 build)
#   make mutate     mutation testing (tests/mutants.txt; MUTANT=text picks some)
#   make bench      training throughput, matmul and attention speed (./bench)
#   make fuzz       libFuzzer on every reader of untrusted bytes (clang; FUZZ_S seconds each)
#   make clean      remove build/ and the top-level tools
#   make stress     kill storms and a full disk on a real study (minutes; results/robustness/stress.md)

CC      ?= cc
BUILD   ?= build/opt
OPT     ?= -O3 -march=native -ffp-contract=fast
SAN     ?=
# No code reads errno after a libm call (only after strtol/strtod, which still set it), so
# sqrtf is one instruction and loops calling it vectorise (AdamW's update); no value changes.
CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(SAN) -fno-math-errno -g -fopenmp -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -Isrc
LDLIBS  = -lm

LIB_SRC  := $(sort $(filter-out src/tools/%,$(wildcard src/*/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_SRC := $(sort $(wildcard src/tools/*.c))
TOOLS    := $(filter-out bench,$(TOOL_SRC:src/tools/%.c=%))   # bench runs via `make bench`
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libtf.a

.PHONY: all tools check test sanitize valgrind bench fuzz clean mutate help
.SECONDARY:
all: $(TOOLS)

# Top-level tools are copies of the optimised build.
$(TOOLS): %: $(BUILD)/bin/%
	cp $< $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: %.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The optimizer and LayerNorm write the products they fuse as fmaf (src/core/optim.c,
# ops_layernorm.c): their rounding does not depend on what the compiler would contract.
$(BUILD)/src/core/optim.o: CFLAGS += -ffp-contract=off
$(BUILD)/src/core/ops_layernorm.o: CFLAGS += -ffp-contract=off

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/src/tools/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB) -o $@ $(LDLIBS)

tools: $(TOOLS:%=$(BUILD)/bin/%)

# Every test program and every tests/*.sh; the runner prints `N passed, N failed, N skipped`.
test: tools $(BUILD)/bin/bench $(TESTS)
	@BIN_DIR=$(BUILD)/bin sh tests/run.sh $(TESTS) $(sort $(wildcard tests/test_*.sh))

# The fast tier, run after each edit: the C unit tests only, without the tools or the shell
# tests (which train, evaluate and time real runs). Every C test is in it: the slowest take
# about 3 s each (test_kernels, test_runtime, test_models) and all of them together about 13 s
# on a 2-core machine. A C test that grows slow (a training run) goes into CHECK_SKIP, named
# with the reason, and stays in `make test`. It builds with one job per core unless -j is
# given: from a fresh clone the build is most of its time.
CHECK_SKIP  :=
CHECK_TESTS := $(filter-out $(CHECK_SKIP:%=$(BUILD)/tests/%),$(TESTS))
ifneq ($(filter check,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
check: $(CHECK_TESTS)
	@sh tests/run.sh $(CHECK_TESTS)

help:
	@sed -n 's/^#   make /make /p' $(firstword $(MAKEFILE_LIST))

# Mutation testing: each mutant of tests/mutants.txt is built in a scratch copy and must make
# one of its tests fail (tests/mutate.sh). MUTANT=text runs only the mutants named with it.
mutate: tools $(BUILD)/bin/bench $(TESTS)
	@sh tests/mutate.sh "$(MUTANT)"

sanitize:
	$(MAKE) BUILD=build/san OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

# valgrind cannot decode AVX-512, so it gets a build for AVX2 machines.
valgrind:
	$(MAKE) BUILD=build/vg OPT="-O2 -march=x86-64-v3" build/vg/tests/test_train_core build/vg/bin/train build/vg/bin/eval
	OMP_WAIT_POLICY=passive valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect build/vg/tests/test_train_core
	BIN_DIR=build/vg/bin sh tests/valgrind_train.sh

bench: $(BUILD)/bin/bench
	$(BUILD)/bin/bench

# libFuzzer targets (clang, ASan + UBSan): one per reader of untrusted bytes, tests/fuzz/fuzz_*.c,
# linked against the library built with the same flags. `make fuzz` runs each of FUZZ_TARGETS for
# FUZZ_S seconds, one after another, with a scratch corpus in FUZZ_DIR seeded from
# tests/fuzz/corpus_NAME (new inputs stay out of the repo), prints each one's executions and
# coverage, and writes the table of every log in FUZZ_DIR to results/robustness/fuzz.md.
FUZZ_S       ?= 600
FUZZ_DIR     ?= build/fuzz/runs
FUZZ_CC      ?= clang
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_FLAGS    = -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all -fopenmp -Isrc

build/fuzz/obj/%.o: %.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wno-psabi -c $< -o $@

build/fuzz/libtf.a: $(LIB_SRC:%.c=build/fuzz/obj/%.o)
	rm -f $@ && ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_file.h build/fuzz/libtf.a
	$(FUZZ_CC) $(FUZZ_FLAGS) $< build/fuzz/libtf.a -o $@ -lm

fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	@for t in $(FUZZ_TARGETS); do \
	    log=$(FUZZ_DIR)/$$t.log; rm -rf $(FUZZ_DIR)/$$t; mkdir -p $(FUZZ_DIR)/$$t; \
	    echo "# fuzz_$$t for $(FUZZ_S) s (log: $$log)"; \
	    echo "$$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- src tests/fuzz || echo +)" \
	        "make fuzz FUZZ_S=$(FUZZ_S) FUZZ_TARGETS=$$t" >$(FUZZ_DIR)/$$t.run; \
	    dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
	    if build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_S) -timeout=25 -print_final_stats=1 $$dict \
	        -artifact_prefix=$(FUZZ_DIR)/$$t- $(FUZZ_DIR)/$$t tests/fuzz/corpus_$$t >$$log 2>&1; \
	    then grep -E '^stat::number_of_executed_units|DONE' $$log; \
	    else tail -n 40 $$log; exit 1; fi; \
	done; sh scripts/fuzz_table.sh $(FUZZ_DIR)

clean:
	rm -rf build $(TOOLS)

# Outside `make test`: kill storms on scripts/dog_bites_man.sh --quick (--jobs 2, and Slurm
# where it is installed) and a full disk mid-sweep (root), each checked against an undisturbed
# run (tests/stress.sh, tests/storm.sh); the figures go to results/robustness/stress.md.
.PHONY: stress
stress: tools
	@BIN_DIR=$(BUILD)/bin nice -n 10 sh tests/stress.sh
