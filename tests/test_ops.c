// Every op's gradient against central finite differences, on several shapes including
// sizes that are not multiples of the SIMD width and T = 1.
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "grad_check.h"
#include "core/arena.h"
#include "core/kernels.h"
#include "util/hash.h"   // the dropout mask of the attention reference

static Arena arena;

// Each forward reads its configuration from these, so one function serves many shapes.
static int g_ta, g_tb, g_heads, g_ids[64], g_n_ids, g_keep[64], g_targets[64], g_buckets[4096];
static int g_key_pad[256], g_causal, g_use_pad, g_row;
static float g_eps, g_p, g_pos[64];

static Tensor *f_matmul(Tensor **in) { return op_matmul(in[0], in[1], g_ta, g_tb); }
static Tensor *f_linear(Tensor **in) { return op_linear(in[0], in[1], in[2]); }
static Tensor *f_add(Tensor **in) { return op_add(in[0], in[1]); }
// b used twice: its gradient is written by one add's backward, then added to by the other's.
static Tensor *f_add_twice(Tensor **in) { return op_add(op_add(in[0], in[1]), in[1]); }
static Tensor *f_mul(Tensor **in) { return op_mul(in[0], in[1]); }
static Tensor *f_scale(Tensor **in) { return op_scale(in[0], -1.7f); }
static Tensor *f_relu(Tensor **in) { return op_relu(in[0]); }
static Tensor *f_gelu(Tensor **in) { return op_gelu(in[0]); }
static Tensor *f_log1p(Tensor **in) { return op_log1p(in[0]); }
static Tensor *f_softplus(Tensor **in) { return op_softplus(in[0]); }
static Tensor *f_tanh(Tensor **in) { return op_tanh(in[0]); }
static Tensor *f_concat(Tensor **in) { return op_concat(in[0], in[1]); }
static Tensor *f_dropout(Tensor **in) { return op_dropout(in[0], g_p, 1234); }
static Tensor *f_add_dropout(Tensor **in) { return op_add_dropout(in[0], in[1], g_p, 1234, NULL); }
static Tensor *f_layernorm(Tensor **in) { return op_layernorm(in[0], in[1], in[2], 1e-5f); }
static Tensor *f_softmax(Tensor **in) { return op_softmax(in[0], in[1]); }
static Tensor *f_xent(Tensor **in) { return op_cross_entropy(in[0], g_targets, 0, g_eps); }
// the same logits in two losses: the second backward adds to the first's gradient
static Tensor *f_xent_twice(Tensor **in) { return op_add(f_xent(in), f_xent(in)); }
static Tensor *f_embedding(Tensor **in) { return op_embedding(in[0], g_ids, g_n_ids); }
static Tensor *f_mean_pool(Tensor **in) { return op_mean_pool(in[0], g_keep); }
static Tensor *f_select_row(Tensor **in) { return op_select_row(in[0], g_row); }
static Tensor *f_split(Tensor **in) { return op_split_heads(in[0], g_heads); }
static Tensor *f_merge(Tensor **in) { return op_merge_heads(in[0]); }
static RowPacking g_pack;
static Tensor *f_pack_rows(Tensor **in) { return op_pack_rows(in[0], &g_pack); }
static Tensor *f_unpack_rows(Tensor **in) { return op_unpack_rows(in[0], &g_pack); }
// pack then unpack: the padding rows' gradient must be 0, written by the pack's backward
static Tensor *f_pack_unpack(Tensor **in) { return op_unpack_rows(op_pack_rows(in[0], &g_pack), &g_pack); }
static Tensor *f_rel_bias(Tensor **in) { return op_rel_bias(in[0], g_buckets, g_row, g_n_ids); }
static Tensor *f_rope(Tensor **in) { return op_rope(in[0], g_heads, g_pos, 10000.0f); }
// Stretched frequencies (YaRN-like: pair 0 kept, the others slowed unevenly) and q, k scaled.
static const double g_inv_freq[8] = {1, 0.1543102, 0.0252, 0.0079057, 0.0025, 7.9e-4, 2.5e-4, 7.9e-5};
static Tensor *f_rope_freq(Tensor **in) { return op_rope_freq(in[0], g_heads, g_pos, g_inv_freq, 1.138629f, NULL); }
// With padding rows g_rope_pad (B,T): not rotated, 0, no gradient back. Twice: x is also added
// to the result, so its gradient is first assigned by the add and then added to by the rope.
static int g_rope_pad[64];
static Tensor *f_rope_pad(Tensor **in) { return op_rope_freq(in[0], g_heads, g_pos, g_inv_freq, 1.138629f, g_rope_pad); }
static Tensor *f_rope_pad_twice(Tensor **in) { return op_add(f_rope_pad(in), in[0]); }
// RoPE of packed rows (g_pack), unpacked; also with x used twice (its packed rows added back).
static Tensor *f_rope_rows(Tensor **in) { return op_rope_rows(in[0], &g_pack, g_heads, g_pos, g_inv_freq, 1.138629f); }
static Tensor *f_rope_rows_twice(Tensor **in) { return op_add(op_pack_rows(f_rope_rows(in), &g_pack), in[0]); }
static Tensor *f_attention(Tensor **in) {
    AttnArgs a = { .n_heads = g_heads, .bias = in[3], .key_pad = g_use_pad ? g_key_pad : NULL,
                   .causal = g_causal, .dropout = g_p, .seed = 99 };
    return op_attention(in[0], in[1], in[2], &a);
}

static void test_matmul(void) {
    int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {4, 17, 9}, {2, 65, 3}};   // M, K, N
    for (int s = 0; s < 4; s++)
        for (g_ta = 0; g_ta < 2; g_ta++)
            for (g_tb = 0; g_tb < 2; g_tb++) {
                int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
                int as[3] = {2, g_ta ? K : M, g_ta ? M : K}, bs[3] = {2, g_tb ? N : K, g_tb ? K : N};
                Tensor *in[2] = {gc_input(3, as, 1), gc_input(3, bs, 1)};
                grad_check("matmul batched", f_matmul, in, 2);
                Tensor *in2[2] = {gc_input(3, as, 1), gc_input(2, bs + 1, 1)};   // shared 2-D b
                grad_check("matmul shared b", f_matmul, in2, 2);
            }
}

static void test_matmul_values(void) {
    // A hand-computed product: [[1,2],[3,4]] [[5,6],[7,8]] = [[19,22],[43,50]].
    int s[2] = {2, 2};
    Tensor *a = tensor_new(2, s, 0), *b = tensor_new(2, s, 0);
    float av[] = {1, 2, 3, 4}, bv[] = {5, 6, 7, 8}, want[] = {19, 22, 43, 50};
    memcpy(a->data, av, sizeof av);
    memcpy(b->data, bv, sizeof bv);
    Tensor *c = op_matmul(a, b, 0, 0);
    for (int i = 0; i < 4; i++) CHECK_NEAR(c->data[i], want[i], 0);
    // Large enough for the tiled, parallel path: compare with a naive double loop.
    int M = 67, K = 130, N = 75, as[2] = {M, K}, bs[2] = {K, N};
    Tensor *x = gc_input(2, as, 0), *y = gc_input(2, bs, 0), *z = op_matmul(x, y, 0, 0);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < K; k++) ref += (double)x->data[i * K + k] * y->data[k * N + j];
            worst = fmax(worst, fabs(ref - z->data[i * N + j]));
        }
    CHECK(worst < 1e-4, "tiled matmul differs from naive by %g", worst);
}

static void test_linear(void) {
    int shapes[][4] = {{1, 1, 1, 1}, {2, 5, 7, 6}, {3, 4, 33, 19}, {1, 17, 8, 65}};  // B, T, in, out
    for (int s = 0; s < 4; s++) {
        int xs[3] = {shapes[s][0], shapes[s][1], shapes[s][2]}, ws[2] = {shapes[s][3], shapes[s][2]};
        Tensor *in[3] = {gc_input(3, xs, 1), gc_input(2, ws, 1), gc_input(1, ws, 1)};
        grad_check("linear", f_linear, in, 3);
        in[2] = NULL;
        grad_check("linear without bias", f_linear, in, 3);
    }
}

// The bias gradient of a wide linear layer (several column blocks, the last one partial; rows
// above the parallel threshold): each column summed over the rows in order, bit for bit, for
// 1 and 2 threads, accumulating onto what the gradient held.
static void test_linear_bias_column_sums(void) {
    int R = 300, in = 3, out = 1100, xs[2] = {R, in}, ws[2] = {out, in};
    Tensor *x = gc_input(2, xs, 0), *W = gc_input(2, ws, 0);
    Tensor *b = tensor_new(1, &out, 1);
    grad_zeroed(b);   // counts as written, like a parameter's: the sums are added to it
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        tape_reset();
        Tensor *y = op_linear(x, W, b);
        float *g = grad_zeroed(y);
        for (long i = 0; i < y->size; i++) g[i] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
        for (int c = 0; c < out; c++) b->grad[c] = 0.25f * (float)(c % 5);
        tape_replay();
        int bad = 0;
        for (int c = 0; c < out; c++) {
            float s = 0;
            for (int r = 0; r < R; r++) s += g[(long)r * out + c];
            bad += b->grad[c] != 0.25f * (float)(c % 5) + s;
        }
        CHECK(bad == 0, "%d threads: %d bias gradients differ from the in-order column sums", threads, bad);
    }
    omp_set_num_threads(omp_get_num_procs());
    tape_reset();
}

static void test_elementwise(void) {
    int shapes[][3] = {{1, 1, 1}, {2, 3, 17}, {3, 1, 33}};
    for (int s = 0; s < 3; s++) {
        Tensor *in[2] = {gc_input(3, shapes[s], 1), gc_input(3, shapes[s], 1)};
        grad_check("add", f_add, in, 2);
        Tensor *fresh[2] = {gc_input(3, shapes[s], 1), gc_input(3, shapes[s], 1)};
        grad_check("add, b used twice", f_add_twice, fresh, 2);
        grad_check("mul", f_mul, in, 2);
        grad_check("scale", f_scale, in, 1);
        grad_check("gelu", f_gelu, in, 1);
        grad_check("softplus", f_softplus, in, 1);
        Tensor *positive[1] = {gc_input(3, shapes[s], 1)};   // log1p where distances live: x in [0, 2]
        for (long i = 0; i < positive[0]->size; i++) positive[0]->data[i] += 1.0f;
        grad_check("log1p", f_log1p, positive, 1);
        in[1] = gc_input(1, shapes[s] + 2, 1);   // broadcast over rows
        grad_check("add broadcast", f_add, in, 2);
        for (long i = 0; i < in[0]->size; i++)   // keep relu inputs away from its kink
            if (fabsf(in[0]->data[i]) < 0.05f) in[0]->data[i] = 0.3f;
        grad_check("relu", f_relu, in, 1);
        g_p = 0.3f;
        grad_check("dropout", f_dropout, in, 1);
        in[1] = gc_input(3, shapes[s], 1);
        grad_check("add_dropout", f_add_dropout, in, 2);
    }
}

// op_add_dropout against op_add(x, op_dropout(y)), bit for bit: the sum, and the gradients
// of x and y both written first and added to (each also feeds a second add); sizes around
// the vector width and past the parallel threshold, p 0.1 and 0.5, 1 and 2 threads.
static void test_add_dropout_matches_composition(void) {
    const long sizes[] = {1, 17, 1000, 40003};
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        for (int k = 0; k < 4; k++)
            for (int acc = 0; acc < 2; acc++) {
                float p = acc ? 0.5f : 0.1f;
                int n = (int)sizes[k];
                Tensor *out[2], *x[2], *y[2];
                float *g = malloc(sizeof(float) * (size_t)n);
                for (int i = 0; i < n; i++) g[i] = i % 7 == 3 ? -0.0f : 2.0f * rng_uniform(&gc_rng) - 1.0f;
                for (int fused = 0; fused < 2; fused++) {
                    arena_reset(&arena);
                    tape_reset();
                    Rng r = rng_stream(7, (uint64_t)k);
                    x[fused] = tensor_new(1, &n, 1), y[fused] = tensor_new(1, &n, 1);
                    for (int i = 0; i < n; i++) x[fused]->data[i] = 2.0f * rng_uniform(&r) - 1.0f;
                    for (int i = 0; i < n; i++) y[fused]->data[i] = 2.0f * rng_uniform(&r) - 1.0f;
                    Tensor *z = fused ? op_add_dropout(x[fused], y[fused], p, 99, NULL)
                                      : op_add(x[fused], op_dropout(y[fused], p, 99));
                    // acc: x and y also feed a later add, whose backward writes their gradients first
                    out[fused] = acc ? op_add(op_add(z, x[fused]), y[fused]) : z;
                    memcpy(grad_zeroed(out[fused]), g, sizeof(float) * (size_t)n);
                    tape_replay();
                    if (!fused) {   // keep the composition's results past the next arena_reset
                        Tensor *keep = malloc(sizeof(Tensor) * 3);
                        float *copy = malloc(sizeof(float) * 5 * (size_t)n);
                        memcpy(copy, z->data, sizeof(float) * (size_t)n);
                        memcpy(copy + n, x[0]->grad, sizeof(float) * (size_t)n);
                        memcpy(copy + 2 * n, y[0]->grad, sizeof(float) * (size_t)n);
                        keep[0].data = copy, keep[1].data = copy + n, keep[2].data = copy + 2 * n;
                        out[0] = &keep[0], x[0] = &keep[1], y[0] = &keep[2];
                    } else {
                        size_t b = sizeof(float) * (size_t)n;
                        CHECK(!memcmp(out[0]->data, z->data, b), "n %d p %g, %d threads: sum differs", n, p, threads);
                        CHECK(!memcmp(x[0]->data, x[1]->grad, b), "n %d p %g, %d threads: dx differs", n, p, threads);
                        CHECK(!memcmp(y[0]->data, y[1]->grad, b), "n %d p %g, %d threads: dy differs", n, p, threads);
                        free(out[0]->data);
                        free(out[0]);
                    }
                }
                free(g);
            }
    }
}

static void test_gelu_values(void) {
    // Exact GELU: x * Phi(x); Phi(1) = 0.8413447, Phi(-0.5) = 0.3085375.
    int n = 3;
    Tensor *x = tensor_new(1, &n, 0);
    x->data[0] = 1; x->data[1] = -0.5f; x->data[2] = 0;
    Tensor *y = op_gelu(x);
    CHECK_NEAR(y->data[0], 0.8413447, 1e-6);
    CHECK_NEAR(y->data[1], -0.5 * 0.3085375, 1e-6);
    CHECK_NEAR(y->data[2], 0, 0);
}

// log1p(x) = log(1 + x): log1p(1) = ln 2 = 0.6931472, log1p(e - 1) = 1, log1p(0) = 0.
// softplus(x) = log(1 + e^x): softplus(0) = ln 2, softplus(2) = 2.1269280, softplus(-2) =
// 0.1269280 (softplus(x) - softplus(-x) = x), and far out x itself / e^x (no overflow).
static void test_log1p_softplus_values(void) {
    int n = 5;
    Tensor *x = tensor_new(1, &n, 0);
    float xs[5] = {1, 1.7182818f, 0, 2, -2};
    memcpy(x->data, xs, sizeof xs);
    Tensor *l = op_log1p(x);
    CHECK_NEAR(l->data[0], 0.6931472, 1e-6);
    CHECK_NEAR(l->data[1], 1.0, 1e-6);
    CHECK_NEAR(l->data[2], 0, 0);
    Tensor *sp = op_softplus(x);
    CHECK_NEAR(sp->data[2], 0.6931472, 1e-6);
    CHECK_NEAR(sp->data[3], 2.1269280, 1e-6);
    CHECK_NEAR(sp->data[4], 0.1269280, 1e-6);
    x->data[0] = 200; x->data[1] = -200;
    sp = op_softplus(x);
    CHECK_NEAR(sp->data[0], 200, 0);
    CHECK(sp->data[1] >= 0 && sp->data[1] < 1e-30f, "softplus(-200) = %g, expected e^-200 (0 in float)", sp->data[1]);
}

// op_dropout and op_dropout_rows element by element against the hash: element i (padded
// index rows[r] * C + c when packed) kept, as x * 1/(1-p), iff hash_uniform(seed, i) >= p;
// sizes past the parallel bound (2^15 elements) and below, 1 and 2 threads.
static void test_dropout_by_hash(void) {
    int threads0 = omp_get_max_threads();
    const int widths[2] = {5, 64};
    for (int threads = 1; threads <= 2; threads++)
        for (int w = 0; w < 2; w++) {
            omp_set_num_threads(threads);
            arena_reset(&arena);
            int C = widths[w], T = 3, B = 40000 / C / T + 1, pad[40000];
            for (int i = 0; i < B * T; i++) pad[i] = i % 5 == 2;
            RowPacking pk;
            row_packing_init(&pk, pad, B, T);
            int xs[3] = {B, T, C}, ps[2] = {pk.n, C};
            Tensor *x = gc_input(3, xs, 0), *xp = gc_input(2, ps, 0);
            float p = 0.3f, s = 1.0f / (1.0f - p);
            Tensor *y = op_dropout(x, p, 5), *yp = op_dropout_rows(xp, p, 5, &pk);
            long bad = 0, badp = 0;
            for (long i = 0; i < x->size; i++)
                bad += y->data[i] != (hash_uniform(5, (uint64_t)i) >= p ? x->data[i] * s : 0.0f);
            for (long i = 0; i < xp->size; i++) {
                uint64_t padded = (uint64_t)pk.rows[i / C] * (uint64_t)C + (uint64_t)(i % C);
                badp += yp->data[i] != (hash_uniform(5, padded) >= p ? xp->data[i] * s : 0.0f);
            }
            CHECK(bad == 0 && badp == 0, "C %d, %d threads: %ld elements, %ld packed ones differ "
                  "from the hash's mask", C, threads, bad, badp);
        }
    omp_set_num_threads(threads0);
}

static void test_dropout_statistics(void) {
    int n = 100000;
    Tensor *x = tensor_new(1, &n, 0);
    for (int i = 0; i < n; i++) x->data[i] = 1;
    Tensor *y = op_dropout(x, 0.25f, 7), *y2 = op_dropout(x, 0.25f, 7), *y3 = op_dropout(x, 0.25f, 8);
    long zeros = 0, same = 0, same3 = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        zeros += y->data[i] == 0;
        sum += y->data[i];
        same += y->data[i] == y2->data[i];
        same3 += y->data[i] == y3->data[i];
    }
    CHECK(fabs(zeros / (double)n - 0.25) < 0.01, "dropped fraction %.4f, expected 0.25", zeros / (double)n);
    CHECK(fabs(sum / n - 1.0) < 0.01, "mean %.4f, expected 1 (inverted dropout)", sum / n);
    CHECK(same == n, "same seed gave a different mask");
    CHECK(same3 < n * 0.7, "another seed gave nearly the same mask (%ld of %d equal)", same3, n);
    CHECK(op_dropout(x, 0, 7) == x, "p = 0 must be the identity");
}

static void test_layernorm(void) {
    int shapes[][2] = {{1, 1}, {3, 7}, {5, 33}, {2, 150}};   // 150: a rounded run of the row sums, then fused
    for (int s = 0; s < 4; s++) {
        int xs[3] = {2, shapes[s][0], shapes[s][1]};
        Tensor *in[3] = {gc_input(3, xs, 1), gc_input(1, xs + 2, 1), gc_input(1, xs + 2, 1)};
        if (shapes[s][1] == 1) in[0]->grad = NULL;   // one feature: output = b, x has no gradient
        grad_check("layernorm", f_layernorm, in, 3);
    }
}

static void test_layernorm_values(void) {
    // Row (0, 0.002): mean 0.001, variance 1e-6; with eps 1e-5, rstd = 1 / sqrt(1.1e-5) =
    // 301.5113, so y = -+0.001 * 301.5113 * w + b with w = (1, 2), b = (0, 0.5).
    int xs[2] = {1, 2}, ws = 2;
    Tensor *x = tensor_new(2, xs, 0), *w = tensor_new(1, &ws, 0), *b = tensor_new(1, &ws, 0);
    x->data[0] = 0; x->data[1] = 0.002f;
    w->data[0] = 1; w->data[1] = 2; b->data[0] = 0; b->data[1] = 0.5f;
    Tensor *y = op_layernorm(x, w, b, 1e-5f);
    CHECK_NEAR(y->data[0], -0.3015113, 1e-5);
    CHECK_NEAR(y->data[1], 0.5 + 2 * 0.3015113, 1e-5);
}

// LayerNorm forward and backward bit for bit against one row at a time with every rounding
// written out (ops_layernorm.c): products rounded over the first runs of 256 and 128
// columns of the backward's row sums, fused over the rest. Widths below, at and past those
// runs and the vector width; x used by two LayerNorms (its gradient written, then added
// to); 1 and 2 threads, the last two shapes past the parallel threshold.
// The products are stored in arrays first so that gcc cannot fuse them into the adds.
static void layernorm_reference(const float *x, const float *w, const float *b, const float *dy, int R,
                                int C, int acc, float *y, float *dx, float *dw, float *db) {
    float *dn = malloc(sizeof(float) * (size_t)C), *xhat = malloc(sizeof(float) * (size_t)C);
    float *prod = malloc(sizeof(float) * (size_t)C);
    for (int c = 0; c < C; c++) dw[c] = db[c] = 0;
    for (int r = 0; r < R; r++) {
        const float *xr = x + (long)r * C, *g = dy + (long)r * C;
        float mean = kernel_sum(xr, C) / C, lane[KERNEL_LANES] = {0};
        for (int c = 0; c < C; c++) lane[c % KERNEL_LANES] = fmaf(xr[c] - mean, xr[c] - mean, lane[c % KERNEL_LANES]);
        float rstd = 1.0f / sqrtf(kernel_lanes_total(lane) / C + 1e-5f);
        for (int c = 0; c < C; c++) xhat[c] = (xr[c] - mean) * rstd, dn[c] = g[c] * w[c];
        for (int c = 0; c < C; c++) prod[c] = dn[c] * xhat[c];
        int rounded = C / 256 * 256 + (C % 256 >= 128 ? 128 : 0);
        float s1[KERNEL_LANES] = {0}, s2[KERNEL_LANES] = {0};
        for (int c = 0; c < C; c++) {
            y[(long)r * C + c] = fmaf(xhat[c], w[c], b[c]);
            s1[c % KERNEL_LANES] += dn[c];
            s2[c % KERNEL_LANES] = c < rounded ? s2[c % KERNEL_LANES] + prod[c] : fmaf(dn[c], xhat[c], s2[c % KERNEL_LANES]);
            dw[c] = fmaf(g[c], xhat[c], dw[c]);
            db[c] += g[c];
        }
        float m1 = kernel_lanes_total(s1) / C, m2 = kernel_lanes_total(s2) / C;
        for (int c = 0; c < C; c++) {
            float *d = dx + (long)r * C + c;
            *d = fmaf(rstd, fmaf(-xhat[c], m2, fmaf(g[c], w[c], -m1)), acc ? *d : 0.0f);
        }
    }
    free(dn); free(xhat); free(prod);
}

static void test_layernorm_matches_reference(void) {
    int shapes[][2] = {{3, 1}, {3, 16}, {3, 37}, {5, 48}, {7, 64}, {2, 128}, {2, 150}, {2, 256}, {2, 300}, {2, 400}, {3, 773}, {200, 400}, {90, 773}};
    int n_shapes = (int)(sizeof shapes / sizeof shapes[0]);
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        for (int s = 0; s < n_shapes; s++) {
            int R = shapes[s][0], C = shapes[s][1], xs[2] = {R, C};
            arena_reset(&arena);
            tape_reset();
            Tensor *x = gc_input(2, xs, 1), *w1 = gc_input(1, &C, 1), *b1 = gc_input(1, &C, 1);
            Tensor *w2 = gc_input(1, &C, 1), *b2 = gc_input(1, &C, 1);
            for (long i = 0; i < x->size; i++) x->data[i] = 3 * x->data[i] + 0.5f;   // mean away from 0
            Tensor *y1 = op_layernorm(x, w1, b1, 1e-5f), *y2 = op_layernorm(x, w2, b2, 1e-5f);
            Tensor *y = op_add(y1, y2);
            float *g = grad_zeroed(y);
            for (long i = 0; i < y->size; i++) g[i] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
            tape_replay();
            long n = (long)R * C;
            float *ry = malloc(sizeof(float) * 2 * n), *rdx = malloc(sizeof(float) * n);
            float *rp = malloc(sizeof(float) * 4 * C);
            // y2's backward runs first and writes dx; y1's adds to it.
            layernorm_reference(x->data, w2->data, b2->data, g, R, C, 0, ry + n, rdx, rp + 2 * C, rp + 3 * C);
            layernorm_reference(x->data, w1->data, b1->data, g, R, C, 1, ry, rdx, rp, rp + C);
            size_t fb = sizeof(float);
            CHECK(!memcmp(y1->data, ry, fb * n) && !memcmp(y2->data, ry + n, fb * n), "%d x %d, %d threads: forward differs", R, C, threads);
            CHECK(!memcmp(x->grad, rdx, fb * n), "%d x %d, %d threads: dx differs", R, C, threads);
            CHECK(!memcmp(w1->grad, rp, fb * C) && !memcmp(b1->grad, rp + C, fb * C) && !memcmp(w2->grad, rp + 2 * C, fb * C) &&
                  !memcmp(b2->grad, rp + 3 * C, fb * C), "%d x %d, %d threads: dw or db differs", R, C, threads);
            free(ry); free(rdx); free(rp);
        }
    }
}

static void test_softmax(void) {
    int xs[2] = {4, 9};
    Tensor *in[2] = {gc_input(2, xs, 1), gc_input(2, xs, 1)};
    grad_check("softmax with bias", f_softmax, in, 2);
    in[1] = NULL;
    grad_check("softmax", f_softmax, in, 1);
    // -inf in the bias masks; a fully masked row is zero.
    Tensor *m = tensor_zeros(2, xs, 0);
    for (int j = 0; j < 9; j++) m->data[j] = -INFINITY;
    m->data[9 + 2] = -INFINITY;
    Tensor *y = op_softmax(in[0], m);
    double row1 = 0;
    for (int j = 0; j < 9; j++) { CHECK(y->data[j] == 0, "masked row not zero"); row1 += y->data[9 + j]; }
    CHECK(y->data[9 + 2] == 0, "masked entry not zero");
    CHECK_NEAR(row1, 1.0, 1e-6);
}

static void test_cross_entropy(void) {
    int xs[2] = {6, 11};
    int tg[6] = {3, 0, 10, 7, 0, 1};    // 0 = ignored (padding)
    memcpy(g_targets, tg, sizeof tg);
    float smoothing[3] = {0, 0.1f, 0.5f};
    for (int s = 0; s < 3; s++) {
        g_eps = smoothing[s];
        Tensor *in[1] = {gc_input(2, xs, 1)};
        grad_check("cross_entropy", f_xent, in, 1);
        grad_check("cross_entropy, logits in two losses", f_xent_twice, in, 1);
    }
    // Uniform logits: loss = log V whatever the smoothing.
    Tensor *z = tensor_zeros(2, xs, 0);
    g_eps = 0.1f;
    CHECK_NEAR(op_cross_entropy(z, g_targets, 0, 0.1f)->data[0], log(11.0), 1e-6);
    // A hand value: logits (0, ln 3) target 1 -> -log(3/4) = 0.2876821.
    int two[2] = {1, 2}, t1 = 1;
    Tensor *z2 = tensor_new(2, two, 0);
    z2->data[0] = 0; z2->data[1] = logf(3);
    CHECK_NEAR(op_cross_entropy(z2, &t1, -1, 0)->data[0], 0.2876821, 1e-6);
}

static void test_smoothed_loss_by_hand(void) {
    // Logits (0, ln 3), target 1, eps = 0.1, V = 2: q = (0.05, 0.95), softmax = (1/4, 3/4).
    // loss = 0.9 (ln 4 - ln 3) + 0.1 (ln 4 - ln 3 / 2) = 0.9 * 0.2876821 + 0.1 * 0.8369882
    //      = 0.3426127; d loss / dz = softmax - q = (0.2, -0.2).
    int two[2] = {1, 2}, t1 = 1;
    Tensor *z = tensor_new(2, two, 1);
    z->data[0] = 0; z->data[1] = logf(3);
    tape_reset();
    Tensor *loss = op_cross_entropy(z, &t1, -1, 0.1f);
    CHECK_NEAR(loss->data[0], 0.3426127, 1e-6);
    grad_zeroed(loss)[0] = 1;
    tape_replay();
    CHECK_NEAR(z->grad[0], 0.2, 1e-6);
    CHECK_NEAR(z->grad[1], -0.2, 1e-6);
}

static void test_embedding(void) {
    int ts[2] = {10, 6};
    int ids[7] = {3, 0, 9, 3, 3, 5, 1};     // repeated ids must add up
    memcpy(g_ids, ids, sizeof ids);
    g_n_ids = 7;
    Tensor *in[1] = {gc_input(2, ts, 1)};
    grad_check("embedding", f_embedding, in, 1);
}

static void test_pooling_and_heads(void) {
    int xs[3] = {3, 5, 6};
    int keep[15] = {1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
    memcpy(g_keep, keep, sizeof keep);
    Tensor *in[1] = {gc_input(3, xs, 1)};
    grad_check("mean_pool", f_mean_pool, in, 1);
    g_row = 0;
    grad_check("select_row 0", f_select_row, in, 1);
    g_row = 4;
    grad_check("select_row 4", f_select_row, in, 1);
    g_heads = 3;
    grad_check("split_heads", f_split, in, 1);
    int ms[4] = {3, 3, 5, 2};
    Tensor *in2[1] = {gc_input(4, ms, 1)};
    grad_check("merge_heads", f_merge, in2, 1);
    // Hand values: row 0 keeps positions 0-2, so its mean is over 3 rows, not 5.
    int one[3] = {1, 5, 1};
    Tensor *col = tensor_new(3, one, 0);
    for (int t = 0; t < 5; t++) col->data[t] = (float)(t + 1);   // 1 2 3 4 5
    Tensor *pooled = op_mean_pool(col, keep);
    CHECK_NEAR(pooled->data[0], 2.0, 1e-6);
    // split then merge is the identity
    Tensor *back = op_merge_heads(op_split_heads(in[0], 3));
    CHECK(memcmp(back->data, in[0]->data, sizeof(float) * in[0]->size) == 0, "merge(split(x)) != x");
}

static void test_rel_bias(void) {
    int ts[2] = {7, 3};
    g_row = 4; g_n_ids = 5;   // Tq, Tk
    for (int i = 0; i < 20; i++) g_buckets[i] = (i * 5) % 7;
    Tensor *in[1] = {gc_input(2, ts, 1)};
    grad_check("rel_bias", f_rel_bias, in, 1);
}

static void test_rope(void) {
    int shapes[][3] = {{1, 1, 2}, {2, 5, 12}, {1, 7, 16}};
    int heads[3] = {1, 3, 2};
    for (int s = 0; s < 3; s++) {
        g_heads = heads[s];
        for (int t = 0; t < 64; t++) g_pos[t] = t * 1.5f + 3;
        Tensor *in[1] = {gc_input(3, shapes[s], 1)};
        grad_check("rope", f_rope, in, 1);
        grad_check("rope_freq", f_rope_freq, in, 1);
    }
}

static void test_rope_angles_by_hand(void) {
    // One head of width 4, base 100: pair 0 turns by p, pair 1 by p * 100^(-2/4) = p / 10.
    // (1, 0) pairs at p = 2 become (cos 2, sin 2) and (cos 0.2, sin 0.2).
    int shape[3] = {1, 2, 4};
    Tensor *x = tensor_zeros(3, shape, 0);
    for (int t = 0; t < 2; t++) x->data[t * 4] = x->data[t * 4 + 2] = 1;
    float pos[2] = {0, 2};
    Tensor *y = op_rope(x, 1, pos, 100.0f);
    const float want[8] = {1, 0, 1, 0, -0.4161468f, 0.9092974f, 0.9800666f, 0.1986693f};
    for (int c = 0; c < 8; c++) CHECK_NEAR(y->data[c], want[c], 1e-6);
}

// Padding rows (entry 0: its last 2 of 5; entry 1: rows 1 and 4, runs that do not end an
// entry): each token row is the rotation without padding, bit for bit, and each element is the
// rotation computed here in double; a padding row is 0 and passes no gradient back, which
// finite differences confirm (its output does not depend on its input), also when the input's
// gradient accumulates (x used twice: a padding row keeps the add's gradient).
static void test_rope_padding(void) {
    enum { B = 2, T = 5, H = 3, D = 4, C = H * D };
    int xs[3] = {B, T, C};
    int pad[B * T] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 1};
    memcpy(g_rope_pad, pad, sizeof pad);
    g_heads = H;
    for (int t = 0; t < T; t++) g_pos[t] = t * 1.5f + 3;
    Tensor *in[1] = {gc_input(3, xs, 1)};
    Tensor *x = in[0];
    Tensor *full = op_rope_freq(x, H, g_pos, g_inv_freq, 1.138629f, NULL);
    Tensor *y = f_rope_pad(in);
    for (int r = 0; r < B * T; r++)
        for (int c = 0; c < C; c++) {
            long e = (long)r * C + c;
            if (pad[r]) { CHECK(y->data[e] == 0.0f, "padding row %d: y[%d] = %g", r, c, y->data[e]); continue; }
            CHECK(memcmp(&y->data[e], &full->data[e], sizeof(float)) == 0, "row %d col %d: %g, without padding %g", r, c, y->data[e], full->data[e]);
            const float *pair = x->data + e - c % 2;   // (x0, x1) of c's pair
            double angle = (double)g_pos[r % T] * g_inv_freq[(c % D) / 2], co = cos(angle), si = sin(angle);
            double want = 1.138629 * (c % 2 ? pair[0] * si + pair[1] * co : pair[0] * co - pair[1] * si);
            CHECK_NEAR(y->data[e], want, 1e-5);
        }
    grad_check("rope padding", f_rope_pad, in, 1);
    grad_check("rope padding, gradient accumulating", f_rope_pad_twice, in, 1);
    // dy = 1 into a fresh input, whose first gradient writer assigns over the 7s: each padding
    // row gets 0 from the rope alone, the add's 1 when x is used twice
    for (int twice = 0; twice < 2; twice++) {
        Tensor *fresh[1] = {gc_input(3, xs, 1)};
        for (long e = 0; e < fresh[0]->size; e++) fresh[0]->grad[e] = 7.0f;
        tape_reset();
        Tensor *out = twice ? f_rope_pad_twice(fresh) : f_rope_pad(fresh);
        float *g = grad_zeroed(out);
        for (long e = 0; e < out->size; e++) g[e] = 1.0f;
        tape_replay();
        for (int r = 0; r < B * T; r++)
            for (int c = 0; c < C; c++) {
                float dx = fresh[0]->grad[r * C + c];
                CHECK(pad[r] ? dx == (twice ? 1.0f : 0.0f) : dx != 7.0f, "row %d: dx[%d] = %g", r, c, dx);
            }
        tape_reset();
    }
}

// A batch of two entries, one head of width 4, base 100, positions (0, 2), every row (1,0,1,0);
// entry 1's row 1 is padding. Token rows at p = 2 turn pair 0 by 2 and pair 1 by 0.2:
// (cos 2, sin 2, cos 0.2, sin 0.2). With dy = 1 the gradient is R(-θ)(1, 1) a pair,
// (cos θ + sin θ, cos θ - sin θ): (1, 1) at p = 0; 0 for the padding row.
static void test_rope_padding_by_hand(void) {
    int shape[3] = {2, 2, 4}, pad[4] = {0, 0, 0, 1};
    Tensor *x = tensor_zeros(3, shape, 1);
    for (int r = 0; r < 4; r++) x->data[r * 4] = x->data[r * 4 + 2] = 1;
    float pos[2] = {0, 2};
    double inv_freq[2] = {1, 0.1};
    tape_reset();
    Tensor *y = op_rope_freq(x, 1, pos, inv_freq, 1.0f, pad);
    const float want[16] = {1, 0, 1, 0, -0.4161468f, 0.9092974f, 0.9800666f, 0.1986693f,
                            1, 0, 1, 0, 0, 0, 0, 0};
    for (int c = 0; c < 16; c++) CHECK_NEAR(y->data[c], want[c], 1e-6);
    float *g = grad_zeroed(y);
    for (int c = 0; c < 16; c++) g[c] = 1.0f;
    tape_replay();
    const float dx[16] = {1, 1, 1, 1, 0.4931506f, -1.3254442f, 1.1787359f, 0.7813973f,
                          1, 1, 1, 1, 0, 0, 0, 0};
    for (int c = 0; c < 16; c++) CHECK_NEAR(x->grad[c], dx[c], 1e-6);
    tape_reset();
}

// Attention by hand with padded keys and queries: one head of width 4 (scale 1/2), query 0
// = (2,0,0,0), keys (1,0,0,0), 0 and (3,0,0,0) padded, values 10 e_0, 10 e_1, 10 e_2.
// Scores (1, 0, masked): weights (e, 1) / (e + 1) = (0.7310586, 0.2689414). Query 1 is
// padding: its row is 0.
static void test_attention_padding_by_hand(void) {
    int qs[3] = {1, 2, 4}, ks[3] = {1, 3, 4};
    Tensor *q = tensor_zeros(3, qs, 0), *k = tensor_zeros(3, ks, 0), *v = tensor_zeros(3, ks, 0);
    q->data[0] = 2; q->data[4] = 5;
    k->data[0] = 1; k->data[8] = 3;
    for (int j = 0; j < 3; j++) v->data[j * 4 + j] = 10;
    int key_pad[3] = {0, 0, 1}, query_pad[2] = {0, 1};
    AttnArgs a = { .n_heads = 1, .key_pad = key_pad, .query_pad = query_pad };
    Tensor *y = op_attention(q, k, v, &a);
    const float want[8] = {7.310586f, 2.689414f, 0, 0, 0, 0, 0, 0};
    for (int c = 0; c < 8; c++) CHECK_NEAR(y->data[c], want[c], 1e-5);
    // Without query padding, query 1 = (5,0,0,0): scores (2.5, 0): weights 0.9241418, 0.0758582.
    a.query_pad = NULL;
    y = op_attention(q, k, v, &a);
    CHECK_NEAR(y->data[4], 9.241418, 1e-5);
    CHECK_NEAR(y->data[5], 0.758582, 1e-5);
    CHECK_NEAR(y->data[6], 0, 0);
}

static void attention_case(const char *what, int B, int Tq, int Tk, int H, int D, int bias, int pad, int causal, float p) {
    int qs[3] = {B, Tq, H * D}, ks[3] = {B, Tk, H * D}, bs[3] = {H, Tq, Tk};
    g_heads = H; g_causal = causal; g_use_pad = pad; g_p = p;
    for (int b = 0; b < B; b++)
        for (int j = 0; j < Tk; j++) g_key_pad[b * Tk + j] = pad && j >= Tk - b;   // row b: last b keys padded
    Tensor *in[4] = {gc_input(3, qs, 1), gc_input(3, ks, 1), gc_input(3, ks, 1), bias ? gc_input(3, bs, 1) : NULL};
    grad_check(what, f_attention, in, 4);
}

static void test_attention(void) {
    attention_case("attention T=1", 1, 1, 1, 1, 2, 0, 0, 0, 0);
    attention_case("attention plain", 2, 5, 5, 2, 3, 0, 0, 0, 0);
    attention_case("attention bias", 2, 4, 4, 3, 2, 1, 0, 0, 0);
    attention_case("attention padding", 3, 6, 6, 2, 4, 0, 1, 0, 0);
    attention_case("attention causal", 2, 7, 7, 2, 5, 1, 0, 1, 0);
    attention_case("attention cross", 2, 3, 6, 2, 3, 0, 1, 0, 0);
    attention_case("attention dropout", 2, 5, 5, 2, 3, 1, 1, 1, 0.2f);
    // Head widths of 16 and more take the vector path of backward's blocks of query rows (4
    // rows: 9 and 6 rows end in a partial block), 20 also its scalar tail.
    attention_case("attention causal D20", 1, 9, 9, 2, 20, 0, 0, 1, 0);
    attention_case("attention cross D16", 2, 6, 9, 1, 16, 1, 1, 0, 0.2f);
}

// The op and its gradients against a plain reference (double, one key at a time, straight
// from the definition in core/ops.h) on shapes that exercise every path of the blocked code:
// full blocks of ATTN_ROW_BLOCK query rows and partial ones, rows with no key (padding
// queries; causal rows of a shorter query side), the causal triangle of a block, head widths
// below, at and above 16 (whole vectors and scalar tails), two vectors at once (32 columns:
// D 33, 53 = 32 + 16 + 5, 64; 48 and 80 keys = 32 + 16), key counts around multiples of 16,
// q scaled up (sharp rows). Upstream gradient random.
static void attention_reference_case(int B, int Tq, int Tk, int H, int D, int causal, int kpad, int qpad,
                                     int bias, float p, int lts, float q_gain) {
    int C = H * D, qs[3] = {B, Tq, C}, ks[3] = {B, Tk, C}, bs[3] = {H, Tq, Tk};
    Tensor *q = gc_input(3, qs, 1), *k = gc_input(3, ks, 1), *v = gc_input(3, ks, 1);
    Tensor *bt = bias ? gc_input(3, bs, 1) : NULL;
    for (long e = 0; e < q->size; e++) q->data[e] *= q_gain;
    int *key_pad = arena_alloc(&arena, sizeof(int) * (size_t)(B * Tk));
    int *query_pad = arena_alloc(&arena, sizeof(int) * (size_t)(B * Tq));
    for (int b = 0; b < B; b++) {
        for (int j = 0; j < Tk; j++) key_pad[b * Tk + j] = kpad && (j >= Tk - b || j == 1);
        for (int i = 0; i < Tq; i++) query_pad[b * Tq + i] = qpad && (i >= Tq - b || i == 2);
    }
    tape_reset();
    AttnArgs a = { .n_heads = H, .bias = bt, .key_pad = kpad ? key_pad : NULL, .query_pad = qpad ? query_pad : NULL,
                   .causal = causal, .dropout = p, .seed = 11, .logit_train_length = lts };
    Tensor *y = op_attention(q, k, v, &a);
    float *seed = grad_zeroed(y);
    for (long e = 0; e < y->size; e++) seed[e] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
    tape_replay();
    long nq = q->size, nk = k->size, nb = bt ? bt->size : 0;
    double *ry = calloc((size_t)nq, sizeof(double)), *rq = calloc((size_t)nq, sizeof(double));
    double *rk = calloc((size_t)nk, sizeof(double)), *rv = calloc((size_t)nk, sizeof(double));
    double *rb = calloc((size_t)(nb + 1), sizeof(double));
    double *pr = malloc(sizeof(double) * (size_t)Tk), *dr = malloc(sizeof(double) * (size_t)Tk);
    double scale = 1.0 / sqrt((double)D);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < Tq; i++) {
                if (qpad && query_pad[b * Tq + i]) continue;
                int end = causal ? i + (Tk - Tq) + 1 : Tk, n = 0;
                end = end < 0 ? 0 : end > Tk ? Tk : end;
                for (int j = 0; j < end; j++) n += !(kpad && key_pad[b * Tk + j]);
                double f = lts > 0 ? attn_logit_factor(n, lts) : 1.0, mx = -INFINITY, sum = 0;
                const float *qi = q->data + ((long)b * Tq + i) * C + h * D, *g = seed + ((long)b * Tq + i) * C + h * D;
                for (int j = 0; j < end; j++) {
                    pr[j] = -INFINITY;
                    if (kpad && key_pad[b * Tk + j]) continue;
                    double dot = 0;
                    for (int e = 0; e < D; e++) dot += (double)qi[e] * k->data[((long)b * Tk + j) * C + h * D + e];
                    pr[j] = (dot * scale + (bt ? bt->data[((long)h * Tq + i) * Tk + j] : 0)) * f;
                    mx = fmax(mx, pr[j]);
                }
                if (mx == -INFINITY) continue;   // no visible key: output 0, nothing flows back
                for (int j = 0; j < end; j++) sum += pr[j] = exp(pr[j] - mx);
                double pdp = 0;
                long row = (((long)b * H + h) * Tq + i) * Tk;
                for (int j = 0; j < end; j++) {
                    pr[j] /= sum;
                    double ds = p > 0 ? (hash_uniform(11, (uint64_t)(row + j)) >= p ? 1.0 / (1.0 - p) : 0.0) : 1.0, dw = 0;
                    const float *vj = v->data + ((long)b * Tk + j) * C + h * D;
                    for (int e = 0; e < D; e++) {
                        ry[((long)b * Tq + i) * C + h * D + e] += pr[j] * ds * vj[e];
                        rv[((long)b * Tk + j) * C + h * D + e] += pr[j] * ds * g[e];
                        dw += (double)g[e] * vj[e];
                    }
                    dr[j] = dw * ds;
                    pdp += pr[j] * dr[j];
                }
                for (int j = 0; j < end; j++) {
                    double dscore = pr[j] * (dr[j] - pdp) * f;
                    if (bt) rb[((long)h * Tq + i) * Tk + j] += dscore;
                    for (int e = 0; e < D; e++) {
                        rq[((long)b * Tq + i) * C + h * D + e] += scale * dscore * k->data[((long)b * Tk + j) * C + h * D + e];
                        rk[((long)b * Tk + j) * C + h * D + e] += scale * dscore * qi[e];
                    }
                }
            }
    double worst = 0;
    struct { const float *got; const double *want; long n; } cmp[5] = {
        {y->data, ry, nq}, {q->grad, rq, nq}, {k->grad, rk, nk}, {v->grad, rv, nk}, {bt ? bt->grad : NULL, rb, nb}};
    for (int c = 0; c < 5; c++)
        for (long e = 0; e < cmp[c].n; e++)
            worst = fmax(worst, fabs(cmp[c].got[e] - cmp[c].want[e]) / (1e-4 * (1 + fabs(cmp[c].want[e]))));
    CHECK(worst <= 1, "attention vs reference B%d Tq%d Tk%d H%d D%d causal %d pad %d/%d bias %d p %g lts %d gain %g: "
          "worst error %g of the tolerance", B, Tq, Tk, H, D, causal, kpad, qpad, bias, p, lts, q_gain, worst);
    free(ry), free(rq), free(rk), free(rv), free(rb), free(pr), free(dr);
}

static void test_attention_matches_reference(void) {
    static const int shapes[][3] = {{1, 1, 1}, {9, 9, 5}, {8, 8, 16}, {17, 17, 20}, {26, 26, 16}, {24, 26, 16},
                                    {33, 31, 33}, {40, 40, 64}, {16, 48, 8}, {7, 3, 16}, {70, 70, 53},
                                    {40, 40, 16}};   // Tq, Tk, D
    for (int s = 0; s < 12; s++)
        for (int c = 0; c < 16; c++) {
            int Tq = shapes[s][0], Tk = shapes[s][1], D = shapes[s][2];
            arena_reset(&arena);
            attention_reference_case(3, Tq, Tk, 2, D, c & 1, (c >> 1) & 1, (c >> 2) & 1, (c >> 3) & 1,
                                     c % 5 == 1 ? 0.2f : 0.0f, c % 7 == 3 ? 4 : 0, c % 6 == 5 ? 12.0f : 1.0f);
        }
}

// The row max matters only for scores more than 88 apart (kernel_expf clamps there): one head
// of width 16, 16 keys, scores 250 (key 3) and 200 (key 7), the rest 0. The max of 250 gives
// the weights (1, e^-50) = one-hot on key 3; a max taken without key 3 and 7's lane (say 0)
// would clamp both exponentials to e^88 and weight them 1/2 each.
static void test_attention_far_scores(void) {
    int qs[3] = {1, 1, 16}, ks[3] = {1, 16, 16};
    Tensor *q = tensor_zeros(3, qs, 0), *k = tensor_zeros(3, ks, 0), *v = tensor_zeros(3, ks, 0);
    q->data[0] = 100;
    k->data[3 * 16] = 10, k->data[7 * 16] = 8;
    for (int j = 0; j < 16; j++) v->data[j * 16 + j] = 1;
    AttnArgs a = { .n_heads = 1 };
    Tensor *y = op_attention(q, k, v, &a);
    for (int e = 0; e < 16; e++) CHECK_NEAR(y->data[e], e == 3 ? 1.0 : 0.0, 1e-6);
}

static void test_attention_matches_composition(void) {
    // The fused op equals softmax(q k^T / sqrt(D) + bias) v built from the small ops.
    int B = 2, T = 5, H = 2, D = 3, qs[3] = {B, T, H * D}, bs[3] = {H, T, T};
    Tensor *q = gc_input(3, qs, 0), *k = gc_input(3, qs, 0), *v = gc_input(3, qs, 0), *bias = gc_input(3, bs, 0);
    AttnArgs a = { .n_heads = H, .bias = bias, .causal = 1 };
    Tensor *fused = op_attention(q, k, v, &a);
    Tensor *qh = op_split_heads(q, H), *kh = op_split_heads(k, H), *vh = op_split_heads(v, H);
    Tensor *s = op_scale(op_matmul(qh, kh, 0, 1), 1.0f / sqrtf(D));     // (B,H,T,T)
    int full[4] = {B, H, T, T};
    Tensor *mask = tensor_new(4, full, 0);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++)
                    mask->data[((b * H + h) * T + i) * T + j] = j > i ? -INFINITY : bias->data[(h * T + i) * T + j];
    Tensor *ref = op_merge_heads(op_matmul(op_softmax(s, mask), vh, 0, 0));
    double worst = 0;
    for (long i = 0; i < ref->size; i++) worst = fmax(worst, fabs(ref->data[i] - fused->data[i]));
    CHECK(worst < 1e-6, "fused attention differs from the composition by %g", worst);
}

// Padding queries (query_pad) are skipped: their output rows are 0, every other output row
// is unchanged, and when nothing flows back from the padding rows (as in the models, where
// they are masked keys and ignored by the loss) every gradient equals the full op's.
static void test_attention_query_pad(void) {
    enum { B = 3, T = 6, H = 2, D = 4, C = H * D };
    int xs[3] = {B, T, C}, bs[3] = {H, T, T}, pad[B * T];
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) pad[b * T + t] = t >= T - b;   // row b: its last b positions
    Tensor *in[4] = {gc_input(3, xs, 1), gc_input(3, xs, 1), gc_input(3, xs, 1), gc_input(3, bs, 1)};
    Tensor *out[2];
    float *grads[2][4];
    for (int skip = 0; skip < 2; skip++) {
        for (int i = 0; i < 4; i++) memset(in[i]->grad, 0, sizeof(float) * (size_t)in[i]->size);
        tape_reset();
        AttnArgs a = { .n_heads = H, .bias = in[3], .key_pad = pad, .query_pad = skip ? pad : NULL,
                       .dropout = 0.2f, .seed = 5 };
        out[skip] = op_attention(in[0], in[1], in[2], &a);
        Rng r = rng_stream(7, 1);
        float *seed = grad_zeroed(out[skip]);
        for (long e = 0; e < out[skip]->size; e++) seed[e] = pad[e / C] ? 0.0f : 2.0f * rng_uniform(&r) - 1.0f;
        tape_replay();
        for (int i = 0; i < 4; i++) {
            grads[skip][i] = arena_alloc(&arena, sizeof(float) * (size_t)in[i]->size);
            memcpy(grads[skip][i], in[i]->grad, sizeof(float) * (size_t)in[i]->size);
        }
    }
    int zero_rows = 1, same_rows = 1, same_grads = 1;
    for (long e = 0; e < (long)B * T * C; e++) {
        if (pad[e / C]) zero_rows &= out[1]->data[e] == 0.0f;
        else same_rows &= out[1]->data[e] == out[0]->data[e];
    }
    for (int i = 0; i < 4; i++)
        for (long e = 0; e < in[i]->size; e++) same_grads &= grads[1][i][e] == grads[0][i][e];
    CHECK(zero_rows, "padding query rows are not 0");
    CHECK(same_rows, "real rows changed when the padding queries were skipped");
    CHECK(same_grads, "gradients changed when the padding queries were skipped");
}

// Runs of padding queries, as at the end of each sequence of a batch: attention, their first
// writer, writes their rows of dq and of the probabilities 0 (both start as 7 here), every
// row of a run and not only its first. B 2, T 5: row b pads its last 3 - b positions.
static void test_attention_padding_runs(void) {
    enum { B = 2, T = 5, H = 2, D = 4, C = H * D };
    int xs[3] = {B, T, C}, pad[B * T];
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) pad[b * T + t] = t >= 2 + b;
    Tensor *q = gc_input(3, xs, 1), *k = gc_input(3, xs, 1), *v = gc_input(3, xs, 1);
    for (long e = 0; e < q->size; e++) q->grad[e] = 7.0f;
    float probs[B * H * T * T];
    for (int e = 0; e < B * H * T * T; e++) probs[e] = 7.0f;
    tape_reset();
    AttnArgs a = { .n_heads = H, .key_pad = pad, .query_pad = pad, .probs = probs };
    Tensor *y = op_attention(q, k, v, &a);
    float *g = grad_zeroed(y);
    for (long e = 0; e < y->size; e++) g[e] = 1.0f;
    tape_replay();
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            int padding = pad[b * T + t];
            for (int c = 0; c < C; c++) {
                float dq = q->grad[(b * T + t) * C + c];
                CHECK(padding ? dq == 0.0f : dq != 7.0f, "dq[%d][%d][%d] = %g", b, t, c, dq);
            }
            for (int h = 0; h < H; h++) {
                const float *p = probs + ((b * H + h) * T + t) * T;
                float sum = 0;
                for (int j = 0; j < T; j++) {
                    CHECK(!padding || p[j] == 0.0f, "padding row %d %d: p[%d] = %g", b, t, j, p[j]);
                    sum += p[j];
                }
                CHECK_NEAR(sum, padding ? 0.0 : 1.0, 1e-6);
            }
        }
}

// a * b + c as this build computes `acc += a * b` in the kernels: one fused multiply-add
// when the compiler contracts (-ffp-contract=fast, the optimised build), a rounded product
// and a sum when it does not (ISO C's default, the sanitizer build). The probe: (1 + 2^-23)
// (1 - 2^-23) - 1 is -2^-46 fused and 0 rounded.
static float madd(float a, float b, float c) {
    volatile float probe_a = 1.0f + 0x1p-23f, probe_b = 1.0f - 0x1p-23f;
    float pa = probe_a, pb = probe_b;
    return pa * pb - 1.0f != 0.0f ? fmaf(a, b, c) : a * b + c;
}

// The block kernels' contract, bit for bit: per output element the multiply-adds of one row
// at a time, in order. The probabilities (args.probs) are kernel_softmax_row's of the scores
// q.k (a chain of madd over e ascending) times 1/sqrt(D), masked entries -INFINITY; dq is the
// chain over keys of the softmax backward's dscore times k (the dot p.dp in kernel_dot's
// lanes). Given the probabilities (no dropout, so they are the weights), y[i][e] = sum over
// keys j ascending of p[i][j] v[j][e] and dv[j][e] = sum over query rows i ascending of
// p[i][j] dy[i][e] are chains of madd from 0 (a masked entry adds 0 * x, which changes no
// bit). Row counts make full blocks, groups within them and a short block; padded keys and
// queries give rows of different lengths; head widths are whole 16-column pieces (the scalar
// tail past them sums otherwise, see ops_attention.c). dk[j][e] likewise: the chain over query
// rows i ascending of dscore_ij q_i[e]. Heads of 16 with 16, 32 or 48 keys (13, 21, 30, 40)
// take the backward's short path (transposed sums in registers): the same bits.
static void test_attention_sums_in_row_order(void) {
    static const int shapes[][3] = {{21, 21, 16}, {21, 21, 64}, {8, 40, 32}, {37, 37, 48},
                                    {13, 13, 16}, {40, 40, 16}, {12, 30, 16}};   // Tq, Tk, D
    for (int s = 0; s < 7; s++)
        for (int c = 0; c < 4; c++) {
            int B = 2, H = 2, Tq = shapes[s][0], Tk = shapes[s][1], D = shapes[s][2], C = H * D;
            int qs[3] = {B, Tq, C}, ks[3] = {B, Tk, C}, key_pad[2 * 40], query_pad[2 * 40];
            for (int b = 0; b < B; b++) {
                for (int j = 0; j < Tk; j++) key_pad[b * Tk + j] = (c & 2) && (j == 3 || j >= Tk - 5 * b);
                for (int i = 0; i < Tq; i++) query_pad[b * Tq + i] = (c & 2) && (i == 1 || i >= Tq - 3 * b);
            }
            Tensor *q = gc_input(3, qs, 1), *k = gc_input(3, ks, 1), *v = gc_input(3, ks, 1);
            float *p = arena_alloc(&arena, sizeof(float) * (size_t)B * H * Tq * Tk);
            AttnArgs a = { .n_heads = H, .causal = c & 1, .probs = p, .key_pad = (c & 2) ? key_pad : NULL,
                           .query_pad = (c & 2) ? query_pad : NULL };
            tape_reset();
            Tensor *y = op_attention(q, k, v, &a);
            float *dy = grad_zeroed(y);
            for (long e = 0; e < y->size; e++) dy[e] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
            tape_replay();
            long p_wrong = 0, dq_wrong = 0, y_wrong = 0, dv_wrong = 0, dk_wrong = 0;
            float z[40], want[40], scale = 1.0f / sqrtf((float)D), dks[40 * 64];
            for (int b = 0; b < B; b++)
                for (int h = 0; h < H; h++) {
                    const float *ph = p + ((long)b * H + h) * Tq * Tk;
                    memset(dks, 0, sizeof dks);
                    for (int i = 0; i < Tq; i++) {
                        if (a.query_pad && query_pad[b * Tq + i]) continue;
                        for (int j = 0; j < Tk; j++) {
                            float dot = 0;
                            for (int e = 0; e < D; e++)
                                dot = madd(q->data[((long)b * Tq + i) * C + h * D + e], k->data[((long)b * Tk + j) * C + h * D + e], dot);
                            int masked = (a.causal && j > i + Tk - Tq) || (a.key_pad && key_pad[b * Tk + j]);
                            z[j] = masked ? -INFINITY : dot * scale;
                        }
                        kernel_softmax_row(z, want, Tk);
                        p_wrong += memcmp(want, ph + (long)i * Tk, sizeof(float) * (size_t)Tk) != 0;
                        // dq = scale * sum_j p_j (dp_j - p.dp) k_j, dp_j = dy.v_j, p.dp in kernel_dot's lanes
                        const float *pi = ph + (long)i * Tk, *dyi = dy + ((long)b * Tq + i) * C + h * D;
                        for (int j = 0; j < Tk; j++) {
                            z[j] = 0;
                            for (int e = 0; e < D; e++) z[j] = madd(dyi[e], v->data[((long)b * Tk + j) * C + h * D + e], z[j]);
                        }
                        float pdp = kernel_dot(pi, z, Tk);
                        for (int e = 0; e < D; e++) {
                            float sum = 0;
                            for (int j = 0; j < Tk; j++) sum = madd(pi[j] * (z[j] - pdp), k->data[((long)b * Tk + j) * C + h * D + e], sum);
                            float got = q->grad[((long)b * Tq + i) * C + h * D + e], wanted = 0.0f + scale * sum;
                            dq_wrong += memcmp(&wanted, &got, sizeof got) != 0;
                        }
                        for (int j = 0; j < Tk; j++)
                            for (int e = 0; e < D; e++)
                                dks[j * D + e] = madd(pi[j] * (z[j] - pdp), q->data[((long)b * Tq + i) * C + h * D + e], dks[j * D + e]);
                    }
                    for (int j = 0; j < Tk; j++)
                        for (int e = 0; e < D; e++) {
                            float wanted = 0.0f + scale * dks[j * D + e];
                            dk_wrong += memcmp(&wanted, &k->grad[((long)b * Tk + j) * C + h * D + e], sizeof wanted) != 0;
                        }
                    for (int i = 0; i < Tq; i++)
                        for (int e = 0; e < D; e++) {
                            float sum = 0;
                            for (int j = 0; j < Tk; j++) sum = madd(ph[i * Tk + j], v->data[((long)b * Tk + j) * C + h * D + e], sum);
                            y_wrong += memcmp(&sum, &y->data[((long)b * Tq + i) * C + h * D + e], sizeof sum) != 0;
                        }
                    for (int j = 0; j < Tk; j++)
                        for (int e = 0; e < D; e++) {
                            float sum = 0;
                            for (int i = 0; i < Tq; i++) sum = madd(ph[i * Tk + j], dy[((long)b * Tq + i) * C + h * D + e], sum);
                            dv_wrong += memcmp(&sum, &v->grad[((long)b * Tk + j) * C + h * D + e], sizeof sum) != 0;
                        }
                }
            CHECK(p_wrong == 0 && dq_wrong == 0 && y_wrong == 0 && dv_wrong == 0 && dk_wrong == 0, "Tq%d Tk%d D%d causal %d "
                  "pad %d: %ld rows of probabilities, %ld query gradients, %ld outputs, %ld value and %ld key gradients "
                  "differ from the row-order sums", Tq, Tk, D, c & 1, c >> 1, p_wrong, dq_wrong, y_wrong, dv_wrong, dk_wrong);
        }
}

// The forward of short heads (D = 16, at most 64 keys, no bias nor temperature: on AVX-512
// builds ops_attention.c's forward with 16 query rows a vector) against the general path
// (attn_short_heads = 0), bit for bit: the outputs, the probabilities (AttnArgs.probs) and
// every gradient, which read the saved P and its dropout mask. Shapes it takes: 1 to 61 keys
// (one to four vectors of 16), fewer queries than keys and more, 1 to 48 queries (groups of
// 16 rows cut by the query side's end); causal, key and query padding (rows with every key
// masked), dropout 0.1 and 0.5 (the mask's hash in 64-bit lanes), scores scaled up; with a
// bias (and its gradient) or the temperature the op takes the general path either way.
static void attention_short_run(int B, int Tq, int Tk, int H, int c, int short_heads, float *out) {
    enum { D = 16 };
    int C = H * D, qs[3] = {B, Tq, C}, ks[3] = {B, Tk, C}, bs[3] = {H, Tq, Tk};
    int *key_pad = arena_alloc(&arena, sizeof(int) * (size_t)(B * Tk));
    int *query_pad = arena_alloc(&arena, sizeof(int) * (size_t)(B * Tq));
    for (int b = 0; b < B; b++) {
        for (int j = 0; j < Tk; j++) key_pad[b * Tk + j] = (j >= Tk - 3 * b || j == 1) || (b == 2 && j < 4);
        for (int i = 0; i < Tq; i++) query_pad[b * Tq + i] = i >= Tq - 2 * b || i == 2;
    }
    Tensor *q = tensor_new(3, qs, 1), *k = tensor_new(3, ks, 1), *v = tensor_new(3, ks, 1);
    Tensor *bias = (c & 8) ? tensor_new(3, bs, 1) : NULL;
    float gain = c % 6 == 5 ? 12.0f : 1.0f;
    for (long e = 0; e < q->size; e++) q->data[e] = gain * (hash_uniform(1, (uint64_t)e) - 0.5f);
    for (long e = 0; e < k->size; e++) k->data[e] = hash_uniform(2, (uint64_t)e) - 0.5f;
    for (long e = 0; e < v->size; e++) v->data[e] = hash_uniform(3, (uint64_t)e) - 0.5f;
    if (bias) for (long e = 0; e < bias->size; e++) bias->data[e] = hash_uniform(4, (uint64_t)e) - 0.5f;
    long np = (long)B * H * Tq * Tk;
    float *probs = arena_alloc(&arena, sizeof(float) * (size_t)np);
    AttnArgs a = {.n_heads = H, .bias = bias, .key_pad = (c & 2) ? key_pad : NULL,
                  .query_pad = (c & 4) ? query_pad : NULL, .causal = c & 1,
                  .dropout = c % 3 == 1 ? 0.1f : c % 3 == 2 ? 0.5f : 0.0f, .seed = 99 + c,
                  .probs = probs, .logit_train_length = c % 7 == 3 ? 4 : 0};
    attn_short_heads = short_heads;
    tape_reset();
    Tensor *y = op_attention(q, k, v, &a);
    float *dy = grad_zeroed(y);
    for (long e = 0; e < y->size; e++) dy[e] = hash_uniform(5, (uint64_t)e) - 0.5f;
    tape_replay();
    attn_short_heads = 1;
    const float *parts[6] = {y->data, probs, q->grad, k->grad, v->grad, bias ? bias->grad : NULL};
    long sizes[6] = {y->size, np, q->size, k->size, v->size, bias ? bias->size : 0};
    for (int p = 0; p < 6; p++) {
        if (sizes[p]) memcpy(out, parts[p], sizeof(float) * (size_t)sizes[p]);
        out += sizes[p];
    }
}

static void test_attention_short_heads_match_general(void) {
    static const int shapes[][2] = {{1, 1}, {16, 16}, {25, 25}, {32, 32}, {7, 3}, {3, 20}, {20, 33},
                                    {35, 35}, {13, 48}, {6, 6}, {48, 61}, {17, 17}};   // Tq, Tk
    for (int s = 0; s < 12; s++)
        for (int c = 0; c < 16; c++) {
            int B = 4, H = 2, Tq = shapes[s][0], Tk = shapes[s][1];
            long n = 2L * B * Tq * H * 16 + (long)B * H * Tq * Tk + 2L * B * Tk * H * 16 + (long)H * Tq * Tk;
            float *fused = calloc((size_t)n, sizeof(float)), *general = calloc((size_t)n, sizeof(float));
            arena_reset(&arena);
            attention_short_run(B, Tq, Tk, H, c, 1, fused);
            arena_reset(&arena);
            attention_short_run(B, Tq, Tk, H, c, 0, general);
            long wrong = 0;
            for (long e = 0; e < n; e++) wrong += memcmp(fused + e, general + e, sizeof(float)) != 0;
            CHECK(wrong == 0, "short heads Tq%d Tk%d causal %d key pad %d query pad %d bias %d: %ld of %ld "
                  "floats differ from the general path", Tq, Tk, c & 1, (c >> 1) & 1, (c >> 2) & 1, c >> 3, wrong, n);
            free(fused), free(general);
        }
}

// q = k = v = x: the op's three gradients land in one tensor, dq assigned and dk, dv added
// to it (grad_accumulates), against the gradients of three copies summed. Head widths 16
// (whole vectors) and 20 (a scalar tail), causal, padded keys, a partial block of rows.
static void test_attention_shared_input(void) {
    for (int D = 16; D <= 20; D += 4) {
        int B = 2, T = 9, H = 2, shape[3] = {B, T, H * D};
        Tensor *x = gc_input(3, shape, 1), *in[3];
        int key_pad[18];
        for (int j = 0; j < B * T; j++) key_pad[j] = j == T + 4;
        AttnArgs a = { .n_heads = H, .key_pad = key_pad, .causal = 1 };
        tape_reset();
        float *dy = arena_alloc(&arena, sizeof(float) * (size_t)x->size);
        for (long e = 0; e < x->size; e++) dy[e] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
        for (int c = 0; c < 3; c++) {
            in[c] = tensor_new(3, shape, 1);
            memcpy(in[c]->data, x->data, sizeof(float) * (size_t)x->size);
        }
        Tensor *outs[2] = {op_attention(x, x, x, &a), op_attention(in[0], in[1], in[2], &a)};
        for (int o = 0; o < 2; o++) memcpy(grad_zeroed(outs[o]), dy, sizeof(float) * (size_t)x->size);
        tape_replay();
        double worst = 0;
        for (long e = 0; e < x->size; e++) {
            double want = (double)in[0]->grad[e] + in[1]->grad[e] + in[2]->grad[e];
            worst = fmax(worst, fabs(x->grad[e] - want) / (1 + fabs(want)));
        }
        CHECK(worst < 1e-5, "D%d: the shared input's gradient differs from the copies' sum by %g", D, worst);
    }
}

// tanh(0.5) = 0.4621172, tanh(-2) = -0.9640276; concat puts a's columns first in each row.
static void test_tanh_concat(void) {
    int shapes[][3] = {{1, 1, 1}, {2, 3, 17}};
    for (int s = 0; s < 2; s++) {
        Tensor *in[2] = {gc_input(3, shapes[s], 1), NULL};
        grad_check("tanh", f_tanh, in, 1);
        int other[3] = {shapes[s][0], shapes[s][1], 5};
        in[1] = gc_input(3, other, 1);
        grad_check("concat", f_concat, in, 2);
    }
    int two[2] = {2, 1}, one[2] = {2, 2};
    Tensor *a = tensor_new(2, two, 0), *b = tensor_new(2, one, 0);
    a->data[0] = 0.5f; a->data[1] = -2;
    for (int i = 0; i < 4; i++) b->data[i] = (float)(10 + i);
    Tensor *t = op_tanh(a), *c = op_concat(a, b);
    CHECK_NEAR(t->data[0], 0.4621172, 1e-6);
    CHECK_NEAR(t->data[1], -0.9640276, 1e-6);
    float want[6] = {0.5f, 10, 11, -2, 12, 13};
    for (int i = 0; i < 6; i++) CHECK(c->data[i] == want[i], "concat[%d] = %g", i, c->data[i]);
}

// Packed rows: which rows, their values and zeros by hand, both gradients against finite
// differences, and the residual dropout of packed rows drawing the padded layout's mask.
static void test_pack_rows(void) {
    int pad[8] = {0, 0, 1, 1, 0, 1, 0, 1};   // B 2, T 4: rows 0 1 | 4 6 (padding inside too)
    CHECK(row_packing_init(&g_pack, pad, 2, 4) == 1, "padding not found");
    CHECK(g_pack.n == 4 && g_pack.rows[0] == 0 && g_pack.rows[1] == 1 && g_pack.rows[2] == 4 &&
          g_pack.rows[3] == 6, "rows %d: %d %d %d %d", g_pack.n, g_pack.rows[0], g_pack.rows[1],
          g_pack.rows[2], g_pack.rows[3]);
    int none[4] = {0};
    RowPacking full;
    CHECK(row_packing_init(&full, none, 2, 2) == 0 && full.n == 4 && !full.rows, "no padding");
    int xs[3] = {2, 4, 3};
    Tensor *x = gc_input(3, xs, 1);
    for (int i = 0; i < 24; i++) x->data[i] = (float)i;
    Tensor *p = op_pack_rows(x, &g_pack), *u = op_unpack_rows(p, &g_pack);
    float want_p[12] = {0, 1, 2, 3, 4, 5, 12, 13, 14, 18, 19, 20};
    for (int i = 0; i < 12; i++) CHECK(p->data[i] == want_p[i], "packed[%d] = %g", i, p->data[i]);
    for (int i = 0; i < 24; i++) {
        int r = i / 3, token = !pad[r];
        CHECK(u->data[i] == (token ? (float)i : 0.0f), "unpacked[%d] = %g", i, u->data[i]);
    }
    // The padding rows' gradient is written as 0 by the first writer (not left unwritten).
    for (int i = 0; i < 24; i++) x->grad[i] = 7.0f;
    tape_reset();
    Tensor *q = op_pack_rows(x, &g_pack);
    float *g = grad_zeroed(q);
    for (int i = 0; i < 12; i++) g[i] = 1.0f;
    tape_replay();
    for (int i = 0; i < 24; i++)
        CHECK(x->grad[i] == (pad[i / 3] ? 0.0f : 1.0f), "dx[%d] = %g", i, x->grad[i]);
    // x used twice, unpack(pack(x)) + x: the add's backward writes dx = 1 first, then the
    // packing adds 1 to the token rows and leaves the padding rows' 1 in place.
    Tensor *x2 = gc_input(3, xs, 1);
    for (int i = 0; i < 24; i++) x2->grad[i] = 7.0f;
    tape_reset();
    Tensor *twice = op_add(op_unpack_rows(op_pack_rows(x2, &g_pack), &g_pack), x2);
    float *g2 = grad_zeroed(twice);
    for (int i = 0; i < 24; i++) g2[i] = 1.0f;
    tape_replay();
    for (int i = 0; i < 24; i++)
        CHECK(x2->grad[i] == (pad[i / 3] ? 1.0f : 2.0f), "dx of x used twice [%d] = %g", i,
              x2->grad[i]);
    Tensor *in[1] = {x};
    grad_check("pack_rows", f_pack_rows, in, 1);
    grad_check("pack_unpack_rows", f_pack_unpack, in, 1);
    int ps[2] = {4, 3};
    Tensor *in2[1] = {gc_input(2, ps, 1)};
    grad_check("unpack_rows", f_unpack_rows, in2, 1);
    // A longer row (C = 37) so the mask has kept and dropped elements in every row.
    int ys[3] = {2, 4, 37};
    Tensor *a = gc_input(3, ys, 0), *b = gc_input(3, ys, 0);
    Tensor *padded = op_pack_rows(op_add_dropout(a, b, 0.3f, 77, NULL), &g_pack);
    Tensor *packed = op_add_dropout(op_pack_rows(a, &g_pack), op_pack_rows(b, &g_pack), 0.3f, 77,
                                    &g_pack);
    CHECK(memcmp(padded->data, packed->data, sizeof(float) * packed->size) == 0,
          "packed add_dropout differs from the padded one's rows");
    Tensor *unmapped = op_add_dropout(op_pack_rows(a, &g_pack), op_pack_rows(b, &g_pack), 0.3f,
                                      77, NULL);
    CHECK(memcmp(unmapped->data, packed->data, sizeof(float) * packed->size) != 0,
          "the packed rows' mask did not depend on their padded rows");
    // op_dropout_rows likewise against op_dropout's token rows
    Tensor *dropped = op_pack_rows(op_dropout(a, 0.3f, 77), &g_pack);
    Tensor *rows = op_dropout_rows(op_pack_rows(a, &g_pack), 0.3f, 77, &g_pack);
    CHECK(memcmp(dropped->data, rows->data, sizeof(float) * rows->size) == 0,
          "packed dropout differs from the padded one's rows");
}

// op_rope_rows against op_rope_freq of the unpacked rows, bit for bit, forward and backward
// (assigned, then added to), at several head widths (each vectorises otherwise) and with
// padding inside a row and at its end; then its gradient against finite differences.
static void test_rope_rows(void) {
    static const int heads[][2] = {{1, 2}, {2, 4}, {3, 8}, {4, 16}, {2, 32}, {1, 64}};   // H, D
    enum { B = 3, T = 7 };
    int pad[B * T];
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) pad[b * T + t] = t >= T - 2 * b || (b == 1 && t == 2);
    CHECK(row_packing_init(&g_pack, pad, B, T) == 1, "no padding");
    for (int t = 0; t < T; t++) g_pos[t] = (float)(3 * t + 1);
    double inv_freq[32];   // pairs of the widest head, slowed unevenly as g_inv_freq's
    for (int i = 0; i < 32; i++) inv_freq[i] = 1.0 / (1.0 + 0.37 * i * i);
    for (int s = 0; s < 6; s++) {
        int H = heads[s][0], D = heads[s][1], C = H * D;
        int xs[2] = {g_pack.n, C};
        Tensor *x = gc_input(2, xs, 1), *x2 = gc_input(2, xs, 1);
        memcpy(x2->data, x->data, sizeof(float) * (size_t)x->size);
        for (int added = 0; added < 2; added++) {   // the second pass adds to x's gradient
            tape_reset();
            Tensor *y = op_rope_rows(x, &g_pack, H, g_pos, inv_freq, 1.138629f);
            Tensor *r = op_rope_freq(op_unpack_rows(x2, &g_pack), H, g_pos, inv_freq, 1.138629f, pad);
            CHECK(y->size == r->size && memcmp(y->data, r->data, sizeof(float) * (size_t)y->size) == 0,
                  "H %d D %d: rows differ from op_rope_freq's", H, D);
            float *gy = grad_zeroed(y), *gr = grad_zeroed(r);
            for (long e = 0; e < y->size; e++) gy[e] = gr[e] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
            tape_replay();
            CHECK(memcmp(x->grad, x2->grad, sizeof(float) * (size_t)x->size) == 0,
                  "H %d D %d, added %d: the gradient differs from op_rope_freq's", H, D, added);
        }
    }
    g_heads = 2;
    int xs[2] = {g_pack.n, 8};
    Tensor *in[1] = {gc_input(2, xs, 1)};
    grad_check("rope_rows", f_rope_rows, in, 1);
    grad_check("rope_rows, gradient accumulating", f_rope_rows_twice, in, 1);
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    gc_rng = rng_stream(42, 0);
#define T(fn) do { arena_reset(&arena); RUN(fn); } while (0)
    T(test_matmul); T(test_matmul_values); T(test_linear); T(test_linear_bias_column_sums); T(test_elementwise); T(test_gelu_values);
    T(test_log1p_softplus_values);
    T(test_dropout_by_hash); T(test_dropout_statistics); T(test_add_dropout_matches_composition); T(test_layernorm); T(test_layernorm_values); T(test_layernorm_matches_reference); T(test_softmax); T(test_cross_entropy);
    T(test_smoothed_loss_by_hand); T(test_embedding); T(test_pooling_and_heads); T(test_rel_bias); T(test_pack_rows); T(test_rope_rows);
    T(test_rope); T(test_rope_angles_by_hand); T(test_rope_padding); T(test_rope_padding_by_hand); T(test_attention_padding_by_hand);
    T(test_attention); T(test_attention_matches_reference); T(test_attention_far_scores); T(test_attention_matches_composition); T(test_attention_sums_in_row_order); T(test_attention_query_pad); T(test_attention_padding_runs); T(test_attention_short_heads_match_general);
    T(test_attention_shared_input); T(test_tanh_concat);
    arena_free(&arena);
    return check_summary();
}
