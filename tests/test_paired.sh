# scripts/paired.sh: --help, bad arguments, and tiny runs of both drivers with the same
# revision on both sides (the attention run must report the same bits).
. tests/lib.sh

if out=$(scripts/paired.sh --help 2>&1) && echo "$out" | grep -q "usage: scripts/paired.sh"; then ok "paired --help"
else fail "paired --help" "$(echo "$out" | head -c 300)"; fi
expect_error "paired: unknown kernel" "is not gemm or attention" scripts/paired.sh softmax HEAD
expect_error "paired: unknown revision" "is not a git revision" scripts/paired.sh gemm no-such-revision-here
expect_error "paired: unknown option" "unknown option" scripts/paired.sh --fast gemm HEAD

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
    skip "paired: tiny runs" "not in a git clone (the script compares git revisions)"
else
    # padding (entries of 2..5 tokens of 5: 2, 5, 4) and the CPU clock reach the driver
    if out=$(scripts/paired.sh --pairs 2 --cpu attention HEAD HEAD 3 5 32 2 2 2>&1) &&
       echo "$out" | grep -q "2..5 tokens (11 of 15), forward + backward (CPU clock): speed b/a" &&
       echo "$out" | grep -q "the same bits"; then ok "paired: attention, HEAD against HEAD, padded, --cpu, the same bits"
    else fail "paired: attention, HEAD against HEAD" "$(echo "$out" | tail -3)"; fi
    # a d = 64 layer with an output layer of 14 (the lab's widths): twelve products, the same bits
    if out=$(scripts/paired.sh --pairs 1 gemm HEAD HEAD 16 64 128 14 2>&1) && echo "$out" | grep -q "^all twelve" &&
       echo "$out" | grep -q "^every product: the same bits"; then ok "paired: gemm, HEAD against HEAD, the same bits"
    else fail "paired: gemm, HEAD against HEAD" "$(echo "$out" | tail -3)"; fi
    # another blocking on side B: the flags reach its compiler (KC = 8 with K = 16 is two k blocks)
    if out=$(scripts/paired.sh --pairs 1 --cflags-b "-DKC=8" gemm HEAD HEAD 16 2>&1) &&
       echo "$out" | grep -q "^# A = HEAD, B = HEAD (-DKC=8);" && echo "$out" | grep -q "^all nine"; then ok "paired: gemm, --cflags-b"
    else fail "paired: gemm, --cflags-b" "$(echo "$out" | tail -3)"; fi
    expect_error "paired: bad flags fail" "error" scripts/paired.sh --pairs 1 --cflags-b "-DKC=" gemm HEAD HEAD 16
fi
