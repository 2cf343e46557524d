# Build: `make` -> ./train ./eval (and the other tools) at the top level.
# Tests: `make test` (optimised), `make sanitize` (ASan + UBSan), `make bench`.
CC      ?= cc
BUILD   ?= build/opt
OPT     ?= -O3 -march=native -ffp-contract=fast
SAN     ?=
CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(SAN) -g -fopenmp -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -Isrc
LDLIBS  = -lm

LIB_SRC  := $(sort $(filter-out src/tools/%,$(wildcard src/*/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_SRC := $(sort $(wildcard src/tools/*.c))
TOOLS    := $(TOOL_SRC:src/tools/%.c=%)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libtf.a

.PHONY: all tools test sanitize bench clean
.SECONDARY:
all: $(TOOLS)

# Top-level tools are copies of the optimised build.
$(TOOLS): %: $(BUILD)/bin/%
	cp $< $@

$(BUILD)/%.o: %.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/src/tools/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/check.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB) -o $@ $(LDLIBS)

tools: $(TOOLS:%=$(BUILD)/bin/%)

# Every test program and every tests/*.sh; the runner prints `N passed, N failed`.
test: tools $(TESTS)
	@BIN_DIR=$(BUILD)/bin sh tests/run.sh $(TESTS) $(sort $(wildcard tests/test_*.sh))

sanitize:
	$(MAKE) BUILD=build/san OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

bench: $(BUILD)/bin/bench
	OMP_WAIT_POLICY=passive $(BUILD)/bin/bench

clean:
	rm -rf build $(TOOLS)
