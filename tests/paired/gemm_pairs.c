// The products of one Transformer layer through two builds of gemm, alternating call by call
// (scripts/paired.sh links gemm_a from one tree and gemm_b from another): on a shared host
// whose speed drifts by 20-50 % between minutes, only old and new side by side in one process
// resolve a few per cent. Prints, per product, the median over the pairs of time(a) / time(b)
// (above 1: b is faster) and each side's GFLOP/s, then the same for all products together,
// and whether both builds wrote the same bits for every product.
//
//   gemm_pairs PAIRS [ROWS [D FF [V]]]   ROWS: tokens in the batch (default 1024 = B 4 x T 256);
//                                        D, FF: the layer's widths (default 768, 3072 = GPT-2);
//                                        V: also an output layer D -> V
//
// The shapes are those op_linear runs (ops_matmul.c): forward y = x W^T (+ bias), dX = dY W
// (added to what the first of q, k, v wrote), dW += dY^T x, for q/k/v/o (D -> D), fc1
// (D -> FF), fc2 (FF -> D) and the output layer (D -> V).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "core/arena.h"
#include "core/runtime.h"   // wall_seconds, cpu_seconds
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

enum { MAX_LAYERS = 4, KINDS = 3, MAX_PAIRS = 1000 };
static struct { const char *name; int in, out; } layer[MAX_LAYERS] = {{"q/k/v/o", 768, 768}, {"fc1", 768, 3072}, {"fc2", 3072, 768}, {"output", 768, 0}};
static const char *kind_name[KINDS] = {"forward", "dX", "dW"};

// On one thread a call is timed by the process's CPU time, which leaves out the time other
// processes of a loaded host hold the core; with more, by the wall clock.
static double now(void) { return omp_get_max_threads() == 1 ? cpu_seconds() : wall_seconds(); }

// kind 0 writes y (into dy's buffer) with the bias, 1 adds to dx, 2 adds to dW
static double run(GemmFn *g, int kind, int R, int in, int out, float *x, float *W, float *dy, float *dx, float *dW,
                  const float *bias) {
    double t0 = now();
    if (kind == 0) g(tensor_arena(), R, out, in, mat_rows(x, in), mat_cols(W, in), dy, out, 0, bias);
    if (kind == 1) g(tensor_arena(), R, in, out, mat_rows(dy, out), mat_rows(W, in), dx, in, 1, NULL);
    if (kind == 2) g(tensor_arena(), out, in, R, mat_cols(dy, out), mat_rows(x, in), dW, in, 1, NULL);
    return now() - t0;
}

int main(int argc, char **argv) {
    int LAYERS = argc == 6 ? 4 : 3;
    if (argc < 2 || argc > 6 || argc == 4 || atoi(argv[1]) < 1 || atoi(argv[1]) > MAX_PAIRS ||
        (argc > 2 && atoi(argv[2]) < 1) || (argc > 4 && (atoi(argv[3]) < 1 || atoi(argv[4]) < 1)) ||
        (argc > 5 && atoi(argv[5]) < 1)) {
        fprintf(stderr, "usage: gemm_pairs PAIRS [ROWS [D FF [V]]]   (PAIRS 1..%d, sizes >= 1; see scripts/paired.sh --help)\n", MAX_PAIRS);
        return 2;
    }
    int pairs = atoi(argv[1]), R = argc > 2 ? atoi(argv[2]) : 1024;
    if (argc > 4) {
        int d = atoi(argv[3]), ff = atoi(argv[4]);
        layer[0].in = layer[0].out = layer[1].in = layer[2].out = layer[3].in = d;
        layer[1].out = layer[2].in = ff;
        if (argc > 5) layer[3].out = atoi(argv[5]);
    }
    static Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    static double ratio[MAX_LAYERS * KINDS][MAX_PAIRS], all[MAX_PAIRS];
    static double time_a[MAX_LAYERS * KINDS][MAX_PAIRS], time_b[MAX_LAYERS * KINDS][MAX_PAIRS];
    float *buf[MAX_LAYERS][6];
    for (int l = 0; l < LAYERS; l++) {
        long in = layer[l].in, out = layer[l].out;
        buf[l][0] = filled(R * in, 1), buf[l][1] = filled(out * in, 2), buf[l][2] = filled(R * out, 3);
        buf[l][3] = filled(R * in, 4), buf[l][4] = filled(out * in, 5), buf[l][5] = filled(out, 6);
    }
    // A small product (the lab's d = 64 models: tens of microseconds) is timed over enough
    // calls for 10^8 multiply-adds, so that a timer tick or one preemption weighs less.
    // Pair -1 warms both sides up (pages, caches) untimed.
    for (int p = -1; p < pairs; p++) {
        double sum_a = 0, sum_b = 0;
        for (int l = 0; l < LAYERS; l++)
            for (int kind = 0; kind < KINDS; kind++) {
                float **m = buf[l];
                long reps = 1 + 100000000L / ((long)R * layer[l].in * layer[l].out);
                double ta = 0, tb = 0;
                for (long r = 0; r < reps; r++)
                    if (p % 2) {   // which side runs first alternates
                        tb += run(gemm_b, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4], m[5]);
                        ta += run(gemm_a, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4], m[5]);
                    } else {
                        ta += run(gemm_a, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4], m[5]);
                        tb += run(gemm_b, kind, R, layer[l].in, layer[l].out, m[0], m[1], m[2], m[3], m[4], m[5]);
                    }
                if (p < 0) continue;
                int i = l * KINDS + kind;
                ratio[i][p] = ta / tb;
                time_a[i][p] = ta / reps, time_b[i][p] = tb / reps, sum_a += ta / reps, sum_b += tb / reps;
            }
        if (p >= 0) all[p] = sum_a / sum_b;
    }
    // GFLOP/s of each side by its median time per call
    double flops_all = 0, ta_all = 0, tb_all = 0;
    printf("%-8s %-8s %12s %10s %10s\n", "layer", "product", "speed b/a", "a GFLOP/s", "b GFLOP/s");
    for (int i = 0; i < LAYERS * KINDS; i++) {
        double flops = 2.0 * R * layer[i / KINDS].in * layer[i / KINDS].out;
        qsort(ratio[i], (size_t)pairs, sizeof(double), by_value);
        qsort(time_a[i], (size_t)pairs, sizeof(double), by_value);
        qsort(time_b[i], (size_t)pairs, sizeof(double), by_value);
        double ta = time_a[i][pairs / 2], tb = time_b[i][pairs / 2];
        printf("%-8s %-8s %12.3f %10.1f %10.1f\n", layer[i / KINDS].name, kind_name[i % KINDS], ratio[i][pairs / 2],
               flops / ta / 1e9, flops / tb / 1e9);
        flops_all += flops, ta_all += ta, tb_all += tb;
    }
    qsort(all, (size_t)pairs, sizeof(double), by_value);
    printf("%-17s %12.3f %10.1f %10.1f   (%d pairs, %d rows)\n", LAYERS == 3 ? "all nine" : "all twelve", all[pairs / 2],
           flops_all / ta_all / 1e9, flops_all / tb_all / 1e9, pairs, R);
    // every product once more from the same inputs on both sides: the outputs bit for bit
    int same = 1;
    for (int l = 0; l < LAYERS; l++)
        for (int kind = 0; kind < KINDS; kind++) {
            long in = layer[l].in, out = layer[l].out, n = kind == 0 ? R * out : kind == 1 ? R * in : out * in;
            float *x = filled(R * in, 1), *W = filled(out * in, 2), *dy = filled(R * out, 3), *bias = filled(out, 6);
            float *ca = filled(n, 4), *cb = filled(n, 4);
            run(gemm_a, kind, R, in, out, x, W, kind == 0 ? ca : dy, ca, ca, bias);
            run(gemm_b, kind, R, in, out, x, W, kind == 0 ? cb : dy, cb, cb, bias);
            if (memcmp(ca, cb, sizeof(float) * (size_t)n)) {
                printf("%s %s: the bits DIFFER\n", layer[l].name, kind_name[kind]);
                same = 0;
            }
            free(x), free(W), free(dy), free(bias), free(ca), free(cb);
        }
    if (same) printf("every product: the same bits\n");
    return 0;
}
