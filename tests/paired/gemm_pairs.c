// The products of one d = 768 GPT-2 layer through two builds of gemm, alternating call by call
// (scripts/paired.sh links gemm_a from one tree and gemm_b from another): on a shared host
// whose speed drifts by 20-50 % between minutes, only old and new side by side in one process
// resolve a few per cent. Prints, per product, the median over the pairs of time(a) / time(b)
// (above 1: b is faster) and each side's GFLOP/s, then the same for all products together.
//
//   gemm_pairs PAIRS [ROWS]   ROWS: tokens in the batch (default 1024 = B 4 x T 256)
//
// The shapes are those op_linear runs (ops_matmul.c): forward y = x W^T, dX = dY W (added
// to what the first of q, k, v wrote), dW += dY^T x, for q/k/v/o (768 -> 768), fc1 (768 ->
// 3072) and fc2 (3072 -> 768).
#include <stdio.h>
#include <stdlib.h>
#include "core/arena.h"
#include "core/runtime.h"   // wall_seconds
#include "core/kernels.h"
#include "core/tensor.h"

typedef void GemmFn(Arena *scratch, int M, int N, int K, MatView A, MatView B, float *C, long ldc, int accumulate, const float *bias);
GemmFn gemm_a, gemm_b;

// 64-byte aligned, as the arena's tensors are (arena_alloc): an unaligned start would make
// every vector load of a row straddle two cache lines, which the step never sees.
static float *filled(long n, int seed) {
    float *p = aligned_alloc(64, (sizeof(float) * (size_t)n + 63) / 64 * 64);
    if (!p) { fprintf(stderr, "gemm_pairs: out of memory\n"); exit(1); }
    for (long i = 0; i < n; i++) p[i] = (float)((i * 7919 + seed) % 1000) / 1000.0f - 0.5f;
    return p;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { LAYERS = 3, KINDS = 3, MAX_PAIRS = 1000 };
static const struct { const char *name; int in, out; } layer[LAYERS] = {{"q/k/v/o", 768, 768}, {"fc1", 768, 3072}, {"fc2", 3072, 768}};
static const char *kind_name[KINDS] = {"forward", "dX", "dW"};

static double run(GemmFn *g, int kind, int R, int in, int out, float *x, float *W, float *dy, float *dx, float *dW) {
    double t0 = wall_seconds();
    if (kind == 0) g(tensor_arena(), R, out, in, mat_rows(x, in), mat_cols(W, in), dy, out, 0, NULL);
    if (kind == 1) g(tensor_arena(), R, in, out, mat_rows(dy, out), mat_rows(W, in), dx, in, 1, NULL);
    if (kind == 2) g(tensor_arena(), out, in, R, mat_cols(dy, out), mat_rows(x, in), dW, in, 1, NULL);
    return wall_seconds() - t0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > MAX_PAIRS) {
        fprintf(stderr, "usage: gemm_pairs PAIRS [ROWS]   (PAIRS 1..%d; see scripts/paired.sh --help)\n", MAX_PAIRS);
        return 2;
    }
    int pairs = atoi(argv[1]), R = argc > 2 ? atoi(argv[2]) : 1024;
    static Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    static double ratio[LAYERS * KINDS][MAX_PAIRS], all[MAX_PAIRS];
    double time_a[LAYERS * KINDS] = {0}, time_b[LAYERS * KINDS] = {0};
    float *buf[LAYERS][5];
    for (int l = 0; l < LAYERS; l++) {
        long in = layer[l].in, out = layer[l].out;
        buf[l][0] = filled(R * in, 1), buf[l][1] = filled(out * in, 2), buf[l][2] = filled(R * out, 3);
        buf[l][3] = filled(R * in, 4), buf[l][4] = filled(out * in, 5);
    }
    for (int p = 0; p < pairs; p++) {
        double sum_a = 0, sum_b = 0;
        for (int l = 0; l < LAYERS; l++)
            for (int kind = 0; kind < KINDS; kind++) {
                float **m = buf[l];
                double ta, tb;
                if (p % 2) {   // which side runs first alternates
                    tb = run(gemm_b, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4]);
                    ta = run(gemm_a, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4]);
                } else {
                    ta = run(gemm_a, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4]);
                    tb = run(gemm_b, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4]);
                }
                int i = l * KINDS + kind;
                ratio[i][p] = ta / tb;
                time_a[i] += ta, time_b[i] += tb, sum_a += ta, sum_b += tb;
            }
        all[p] = sum_a / sum_b;
    }
    double flops_all = 0, ta_all = 0, tb_all = 0;
    printf("%-8s %-8s %12s %10s %10s\n", "layer", "product", "speed b/a", "a GFLOP/s", "b GFLOP/s");
    for (int i = 0; i < LAYERS * KINDS; i++) {
        double flops = 2.0 * R * layer[i / KINDS].in * layer[i / KINDS].out * pairs;
        qsort(ratio[i], (size_t)pairs, sizeof(double), by_value);
        printf("%-8s %-8s %12.3f %10.1f %10.1f\n", layer[i / KINDS].name, kind_name[i % KINDS], ratio[i][pairs / 2],
               flops / time_a[i] / 1e9, flops / time_b[i] / 1e9);
        flops_all += flops, ta_all += time_a[i], tb_all += time_b[i];
    }
    qsort(all, (size_t)pairs, sizeof(double), by_value);
    printf("%-17s %12.3f %10.1f %10.1f   (%d pairs, %d rows)\n", "all nine", all[pairs / 2], flops_all / ta_all / 1e9,
           flops_all / tb_all / 1e9, pairs, R);
    return 0;
}
