// One layer's causal attention, forward and backward, through two builds of op_attention,
// alternating (scripts/paired.sh links op_attention_a from one tree and op_attention_b from
// another). Prints the median over the pairs of time(a) / time(b) (above 1: b is faster),
// the quartiles and each side's mean, forward and backward apart; with DUMP_A / DUMP_B set,
// the last pair's y, dq, dk and dv of each side are written to those files, so that `cmp`
// shows whether the two give the same bits. With MIN_T, batch entry b has MIN_T + 7b mod
// (T - MIN_T + 1) tokens, the rest padding (key and query masks), as the bench's batches.
// PAIRED_CLOCK=cpu times by the process's CPU seconds instead of the wall clock (on a loaded
// host a preempted call's wall time is mostly other processes').
//
//   attention_pairs PAIRS B T C H [MIN_T]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/arena.h"
#include "core/runtime.h"   // wall_seconds
#include "core/ops.h"
#include "core/tape.h"
#include "core/tensor.h"

typedef Tensor *AttentionFn(Tensor *q, Tensor *k, Tensor *v, const AttnArgs *args);
AttentionFn op_attention_a, op_attention_b;

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double (*clock_seconds)(void) = wall_seconds;
static double forward_sum[2], backward_sum[2];   // per side

// Forward and backward on fixed inputs; the time excludes filling them. pad (B*T, 1 =
// padding) or NULL.
static double run(AttentionFn *attention, int side, int B, int T, int C, int H, const int *pad,
                  Arena *arena, const char *dump) {
    arena_reset(arena);
    tape_reset();
    int shape[3] = {B, T, C};
    Tensor *q = tensor_new(3, shape, 1), *k = tensor_new(3, shape, 1), *v = tensor_new(3, shape, 1);
    for (long i = 0; i < q->size; i++) {
        q->data[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
        k->data[i] = (float)((i * 53) % 103) / 103.0f - 0.5f;
        v->data[i] = (float)((i * 71) % 107) / 107.0f - 0.5f;
    }
    AttnArgs args = {.n_heads = H, .causal = 1, .key_pad = pad, .query_pad = pad};
    double t0 = clock_seconds();
    Tensor *y = attention(q, k, v, &args);
    double forward = clock_seconds() - t0;
    float *dy = grad_zeroed(y);
    for (long i = 0; i < y->size; i++) dy[i] = (float)((i * 13) % 97) / 97.0f - 0.5f;
    t0 = clock_seconds();
    tape_replay();
    double backward = clock_seconds() - t0;
    forward_sum[side] += forward, backward_sum[side] += backward;
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (!f) { fprintf(stderr, "attention_pairs: cannot write %s\n", dump); exit(1); }
        const float *parts[4] = {y->data, q->grad, k->grad, v->grad};
        for (int p = 0; p < 4; p++) fwrite(parts[p], sizeof(float), (size_t)y->size, f);
        fclose(f);
    }
    return forward + backward;
}

int main(int argc, char **argv) {
    enum { MAX_PAIRS = 1000 };
    if ((argc != 6 && argc != 7) || atoi(argv[1]) < 1 || atoi(argv[1]) > MAX_PAIRS ||
        atoi(argv[5]) < 1 || atoi(argv[4]) % atoi(argv[5]) ||
        (argc == 7 && (atoi(argv[6]) < 1 || atoi(argv[6]) > atoi(argv[3])))) {
        fprintf(stderr, "usage: attention_pairs PAIRS B T C H [MIN_T]   (PAIRS 1..%d, H divides C, "
                "1 <= MIN_T <= T; see scripts/paired.sh --help)\n", MAX_PAIRS);
        return 2;
    }
    int pairs = atoi(argv[1]), B = atoi(argv[2]), T = atoi(argv[3]), C = atoi(argv[4]), H = atoi(argv[5]);
    int min_t = argc == 7 ? atoi(argv[6]) : T;
    const char *clock = getenv("PAIRED_CLOCK");
    if (clock && !strcmp(clock, "cpu")) clock_seconds = cpu_seconds;
    int *pad = NULL;
    double tokens = (double)B * T;
    if (min_t < T) {
        pad = calloc((size_t)B * T, sizeof *pad);
        if (!pad) { fprintf(stderr, "attention_pairs: out of memory\n"); return 1; }
        tokens = 0;
        for (int b = 0; b < B; b++) {
            int len = min_t + 7 * b % (T - min_t + 1);
            for (int t = len; t < T; t++) pad[(long)b * T + t] = 1;
            tokens += len;
        }
    }
    static Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    static double ratio[MAX_PAIRS];
    double sum_a = 0, sum_b = 0;
    for (int p = 0; p < pairs; p++) {
        int last = p == pairs - 1;
        const char *dump_a = last ? getenv("DUMP_A") : NULL, *dump_b = last ? getenv("DUMP_B") : NULL;
        double ta, tb;
        if (p % 2) {
            tb = run(op_attention_b, 1, B, T, C, H, pad, &arena, dump_b);
            ta = run(op_attention_a, 0, B, T, C, H, pad, &arena, dump_a);
        } else {
            ta = run(op_attention_a, 0, B, T, C, H, pad, &arena, dump_a);
            tb = run(op_attention_b, 1, B, T, C, H, pad, &arena, dump_b);
        }
        ratio[p] = ta / tb, sum_a += ta, sum_b += tb;
    }
    qsort(ratio, (size_t)pairs, sizeof(double), by_value);
    // 6 products over the causal (query, key) pairs of each (batch, head); with padding,
    // over each entry's tokens
    double pairs_qk = 0;
    for (int b = 0; b < B; b++) {
        int len = pad ? min_t + 7 * b % (T - min_t + 1) : T;
        pairs_qk += len * (len + 1.0) / 2.0;
    }
    double flops = 6.0 * 2.0 * pairs_qk * (C / H) * H;
    printf("attention B%d T%d C%d H%d causal", B, T, C, H);
    if (pad) printf(", %d..%d tokens (%.0f of %d)", min_t, T, tokens, B * T);
    printf(", forward + backward (%s clock): speed b/a %.3f (quartiles %.3f..%.3f); "
           "a %.3f ms, b %.3f ms (means; %.1f / %.1f GFLOP/s; forward %.3f / %.3f, backward "
           "%.3f / %.3f ms); %d pairs\n", clock_seconds == cpu_seconds ? "CPU" : "wall",
           ratio[pairs / 2], ratio[pairs / 4], ratio[3 * pairs / 4], sum_a / pairs * 1e3,
           sum_b / pairs * 1e3, flops / (sum_a / pairs) / 1e9, flops / (sum_b / pairs) / 1e9,
           forward_sum[0] / pairs * 1e3, forward_sum[1] / pairs * 1e3,
           backward_sum[0] / pairs * 1e3, backward_sum[1] / pairs * 1e3, pairs);
    free(pad);
    return 0;
}
