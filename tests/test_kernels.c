// Kernels against naive references: the packed gemm on odd shapes with every transpose,
// accumulate and bias, and with B packed once (gemm_packed); its results identical for 1 and 2
// threads; the inline dropout hash equal to rng.c's; and the fused ops' thread-count independence.
#include <omp.h>
#include <string.h>
#include "check.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "core/rng.h"
#include "core/tape.h"

static Arena arena;

static float *random_floats(long n, uint64_t seed) {
    float *p = arena_alloc(&arena, sizeof(float) * (size_t)n);
    Rng r = rng_stream(seed, 7);
    for (long i = 0; i < n; i++) p[i] = 2 * rng_uniform(&r) - 1;
    return p;
}

// A (M,K) stored as is or transposed: the view of the same numbers.
static MatView stored(const float *p, int rows, int cols, int transposed) {
    return transposed ? mat_cols(p, rows) : mat_rows(p, cols);
}

static double max_rel_diff(const float *a, const float *b, long n) {
    double worst = 0;
    for (long i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]) / (1.0 + fabs((double)b[i]));
        if (!(d <= worst)) worst = d;   // NaN propagates
    }
    return worst;
}

static void test_gemm_matches_naive(void) {
    // Shapes around the register tile (8 x 48 with AVX-512, 6 x 16 otherwise; 12 x 32 before),
    // the k block and the tile sizes (128 x 384 with AVX-512), plus degenerate ones.
    static const int shapes[][3] = {
        {1, 1, 1}, {1, 7, 3}, {5, 1, 9}, {3, 5, 7}, {12, 32, 16}, {13, 33, 17}, {11, 31, 1},
        {25, 70, 300}, {97, 65, 385}, {200, 513, 40}, {64, 64, 64}, {7, 200, 800}, {130, 9, 1000},
        {8, 48, 16}, {9, 49, 17}, {7, 47, 383}, {129, 385, 390}, {136, 400, 100},
    };
    int worst_case = -1;
    double worst = 0;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        for (int variant = 0; variant < 16; variant++) {
            int ta = variant & 1, tb = variant >> 1 & 1, acc = variant >> 2 & 1, with_bias = variant >> 3 & 1;
            ArenaMark mark = arena_mark(&arena);
            float *a = random_floats((long)M * K, 1 + s), *b = random_floats((long)K * N, 100 + s);
            float *bias = with_bias ? random_floats(N, 200 + s) : NULL;
            long ldc = N + 3;   // a leading dimension wider than the matrix
            float *c = random_floats((long)M * ldc, 300 + s), *ref = arena_alloc(&arena, sizeof(float) * (size_t)M * ldc);
            memcpy(ref, c, sizeof(float) * (size_t)M * ldc);
            MatView A = stored(a, M, K, ta), B = stored(b, K, N, tb);
            gemm(tensor_arena(), M, N, K, A, B, c, ldc, acc, bias);
            gemm_naive(M, N, K, A, B, ref, ldc, acc, bias);
            double d = max_rel_diff(c, ref, (long)M * ldc);
            if (!(d <= worst)) { worst = d; worst_case = s * 16 + variant; }
            arena_release(&arena, mark);
        }
    }
    // Only the k blocks of a long accumulating sum are rounded differently from the naive loop.
    CHECK(worst <= 1e-5, "gemm vs naive: relative difference %g (shape %d, variant %d)", worst,
          worst_case / 16, worst_case % 16);
}

// Every dimension in {1, 7, 33, 257, 1025}: below, at and past the register tile, the k block
// (384), the tiles (128 x 384 with AVX-512), with
// the edge panels of A and B; every transpose case, accumulate on and off. Shapes with two or
// three dimensions of 1025 are left out (the naive loop would take minutes under sanitizers).
static void test_gemm_odd_shapes(void) {
    static const int dims[] = {1, 7, 33, 257, 1025};
    int worst_case = -1, runs = 0;
    double worst = 0;
    for (int s = 0; s < 125; s++) {
        int M = dims[s / 25], N = dims[s / 5 % 5], K = dims[s % 5];
        if ((M == 1025) + (N == 1025) + (K == 1025) > 1) continue;
        for (int variant = 0; variant < 8; variant++) {
            int ta = variant & 1, tb = variant >> 1 & 1, acc = variant >> 2 & 1;
            ArenaMark mark = arena_mark(&arena);
            float *a = random_floats((long)M * K, 11 + s), *b = random_floats((long)K * N, 400 + s);
            float *c = random_floats((long)M * N, 700 + s), *ref = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
            memcpy(ref, c, sizeof(float) * (size_t)M * N);
            MatView A = stored(a, M, K, ta), B = stored(b, K, N, tb);
            gemm(tensor_arena(), M, N, K, A, B, c, N, acc, NULL);
            gemm_naive(M, N, K, A, B, ref, N, acc, NULL);
            double d = max_rel_diff(c, ref, (long)M * N);
            if (!(d <= worst)) { worst = d; worst_case = s * 8 + variant; }
            arena_release(&arena, mark);
            runs++;
        }
    }
    CHECK(runs == 8 * (125 - 13), "%d products", runs);
    // 1025-term sums that accumulate in k blocks round differently from the naive loop: 1.1e-5
    // measured; a wrong element is off by O(1).
    CHECK(worst <= 4e-5, "gemm vs naive: relative difference %g (M %d N %d K %d, variant %d)", worst,
          dims[worst_case / 8 / 25], dims[worst_case / 8 / 5 % 5], dims[worst_case / 8 % 5], worst_case % 8);
}

// A transposed A of more than 2^20 floats is packed in chunks of rows (kernels.c,
// GEMM_A_PACK_MAX): 2100 x 600 gives two, with accumulate and bias.
static void test_gemm_transposed_a_in_chunks(void) {
    int M = 2100, N = 45, K = 600;
    ArenaMark mark = arena_mark(&arena);
    float *a = random_floats((long)M * K, 21), *b = random_floats((long)K * N, 22), *bias = random_floats(N, 23);
    float *c = random_floats((long)M * N, 24), *ref = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
    memcpy(ref, c, sizeof(float) * (size_t)M * N);
    gemm(tensor_arena(), M, N, K, mat_cols(a, M), mat_rows(b, N), c, N, 1, bias);
    gemm_naive(M, N, K, mat_cols(a, M), mat_rows(b, N), ref, N, 1, bias);
    double d = max_rel_diff(c, ref, (long)M * N);
    CHECK(d <= 1e-5, "gemm vs naive: relative difference %g", d);
    arena_release(&arena, mark);
}

// The contract's "one fixed sequence of FMAs per element": the same product computed whole and
// in row and column slices (other edge panels, other tiles, packed instead of read in place)
// gives the same bits, for every transpose case, with accumulate and bias.
static void test_gemm_same_bits_in_slices(void) {
    int M = 203, N = 517, K = 801, bad = 0;
    for (int variant = 0; variant < 8; variant++) {
        int ta = variant & 1, tb = variant >> 1 & 1, acc = variant >> 2 & 1;
        ArenaMark mark = arena_mark(&arena);
        float *a = random_floats((long)M * K, 31), *b = random_floats((long)K * N, 32), *bias = random_floats(N, 33);
        float *whole = random_floats((long)M * N, 34), *sliced = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
        memcpy(sliced, whole, sizeof(float) * (size_t)M * N);
        MatView A = stored(a, M, K, ta), B = stored(b, K, N, tb);
        gemm(tensor_arena(), M, N, K, A, B, whole, N, acc, bias);
        for (int i0 = 0; i0 < M; i0 += 37)
            for (int j0 = 0; j0 < N; j0 += 101) {
                int m = M - i0 < 37 ? M - i0 : 37, n = N - j0 < 101 ? N - j0 : 101;
                MatView Ai = {A.p + i0 * A.rs, A.rs, A.cs}, Bj = {B.p + j0 * B.cs, B.rs, B.cs};
                gemm(tensor_arena(), m, n, K, Ai, Bj, sliced + (long)i0 * N + j0, N, acc, bias + j0);
            }
        if (memcmp(whole, sliced, sizeof(float) * (size_t)M * N) != 0) bad |= 1 << variant;
        arena_release(&arena, mark);
    }
    CHECK(bad == 0, "whole and sliced products differ (variants mask 0x%x)", bad);
}

// (rows, cols) numbers m, stored row-major (or transposed) with stored rows 257 floats longer
// than the matrix's (NaN past it; never under IN_PLACE_LD apart): the same matrix as
// stored(m, ...), in a layout gemm packs.
static MatView stored_wide(const float *m, int rows, int cols, int transposed) {
    int outer = transposed ? cols : rows, inner = transposed ? rows : cols;
    long ld = inner + 257;
    float *p = arena_alloc(&arena, sizeof(float) * (size_t)(outer * ld));
    for (int o = 0; o < outer; o++)
        for (int i = 0; i < ld; i++) p[o * ld + i] = i < inner ? m[(long)o * inner + i] : NAN;
    return transposed ? mat_cols(p, ld) : mat_rows(p, ld);
}

// The flat tile (N a multiple of 64) reads a row-major B and a transposed A in place when
// their stored rows are at most IN_PLACE_LD = 256 floats apart (kernels.c). Against
// gemm_naive: N 64, 128, 256 (B's rows one, two and four tiles wide), M 1 (an edge panel
// only), 7 (a panel and an edge row), 64; K 1, 7, 385 (two k blocks); every transpose,
// accumulate and bias. Then bit for bit against the same product with both operands in
// longer stored rows (packed); and so a transposed A of 200 x 6000, which gemm packs in two
// chunks of rows (GEMM_A_PACK_MAX) when it is not read in place.
static void test_gemm_flat_in_place(void) {
    static const int Ms[] = {1, 7, 64}, Ns[] = {64, 128, 256}, Ks[] = {1, 7, 385};
    double worst = 0;
    int worst_case = -1, differ = 0;
    for (int s = 0; s < 27 + 1; s++) {
        int M = s < 27 ? Ms[s / 9] : 200, N = s < 27 ? Ns[s / 3 % 3] : 64, K = s < 27 ? Ks[s % 3] : 6000;
        for (int variant = 0; variant < 16; variant++) {
            int ta = variant & 1, tb = variant >> 1 & 1, acc = variant >> 2 & 1, with_bias = variant >> 3 & 1;
            if (s == 27 && (!ta || tb || with_bias)) continue;   // the chunks: dW's layout
            ArenaMark mark = arena_mark(&arena);
            float *a = random_floats((long)M * K, 51 + s), *b = random_floats((long)K * N, 52 + s);
            float *bias = with_bias ? random_floats(N, 53 + s) : NULL;
            float *c = random_floats((long)M * N, 54 + s);
            float *ref = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
            float *packed = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
            memcpy(ref, c, sizeof(float) * (size_t)M * N);
            memcpy(packed, c, sizeof(float) * (size_t)M * N);
            MatView A = stored(a, M, K, ta), B = stored(b, K, N, tb);
            gemm(tensor_arena(), M, N, K, A, B, c, N, acc, bias);
            if (s < 27) gemm_naive(M, N, K, A, B, ref, N, acc, bias);
            else memcpy(ref, c, sizeof(float) * (size_t)M * N);   // the chunks: the layouts only
            gemm(tensor_arena(), M, N, K, stored_wide(a, M, K, ta), stored_wide(b, K, N, tb),
                 packed, N, acc, bias);
            double d = max_rel_diff(c, ref, (long)M * N);
            if (!(d <= worst)) { worst = d; worst_case = s * 16 + variant; }
            if (memcmp(c, packed, sizeof(float) * (size_t)M * N)) differ++;
            arena_release(&arena, mark);
        }
    }
    CHECK(worst <= 1e-5, "gemm vs naive: relative difference %g (shape %d, variant %d)", worst,
          worst_case / 16, worst_case % 16);
    CHECK(differ == 0, "%d products differ from the packed layout", differ);
}

// Which register tile a product takes (a speed choice only: all give the same bits, above).
// Multiples of 64 that 48 pads more (64, 128, 256) take 6 x 64; other toy widths 12 x 32,
// which pads them less than 8 x 48; GPT-2 widths (768, 3072), 384, 512 and 1024 take 8 x 48
// (measurements in docs/performance.md).
static void test_gemm_tile_choice(void) {
    if (GEMM_WIDE_NR == GEMM_NARROW_NR) SKIP("one register tile on this target");
    static const int narrow[] = {1, 7, 14, 100, 160}, flat[] = {64, 128, 256},
                     wide[] = {48, 76, 384, 512, 768, 1024, 3072};
    for (int i = 0; i < 5; i++)
        CHECK(gemm_tile_for(narrow[i]) == GEMM_TILE_NARROW, "N = %d: not the narrow tile", narrow[i]);
    for (int i = 0; i < 3; i++)
        CHECK(gemm_tile_for(flat[i]) == GEMM_TILE_FLAT, "N = %d: not the flat tile", flat[i]);
    for (int i = 0; i < 7; i++)
        CHECK(gemm_tile_for(wide[i]) == GEMM_TILE_WIDE, "N = %d: not the wide tile", wide[i]);
}

// B packed once (gemm_pack_b) for several products, as the LSTM's steps use W_hh: by hand on
// 2 x 2, then bit for bit gemm's on shapes with edge panels (N = 37: two narrow panels, the
// second partly padding; N = 100: four), B stored both ways, with and without accumulate.
static void test_gemm_packed_b(void) {
    ArenaMark mark = arena_mark(&arena);
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {1, 1, 1, 1}, bias[2] = {10, 20};
    PackedB pb = gemm_pack_b(&arena, 2, 2, mat_rows(b, 2));
    gemm_packed(&arena, 2, &pb, mat_rows(a, 2), c, 2, 1, bias);   // 1 + AB + bias
    float want[4] = {1 + 19 + 10, 1 + 22 + 20, 1 + 43 + 10, 1 + 50 + 20};
    for (int i = 0; i < 4; i++) CHECK(c[i] == want[i], "c[%d] = %g, expected %g", i, c[i], want[i]);
    static const int Ns[2] = {37, 100};
    for (int variant = 0; variant < 8; variant++) {
        int N = Ns[variant & 1], tb = variant >> 1 & 1, acc = variant >> 2 & 1, M = 29, K = 53;
        float *x = random_floats((long)M * K, 41), *w = random_floats((long)K * N, 42);
        float *b1 = random_floats(N, 43), *c1 = random_floats((long)M * N, 44);
        float *c2 = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
        memcpy(c2, c1, sizeof(float) * (size_t)M * N);
        MatView B = stored(w, K, N, tb);
        gemm(&arena, M, N, K, mat_rows(x, K), B, c1, N, acc, b1);
        PackedB p = gemm_pack_b(&arena, N, K, B);
        for (int i0 = 0; i0 < M; i0 += 10)   // three products on the same packed B
            gemm_packed(&arena, M - i0 < 10 ? M - i0 : 10, &p, mat_rows(x + (long)i0 * K, K),
                        c2 + (long)i0 * N, N, acc, b1);
        CHECK(memcmp(c1, c2, sizeof(float) * (size_t)M * N) == 0,
              "packed B differs from gemm (N %d, B %s, accumulate %d)", N,
              tb ? "transposed" : "row-major", acc);
    }
    arena_release(&arena, mark);
}

static void test_gemm_same_for_any_thread_count(void) {
    int M = 301, N = 517, K = 900;
    float *a = random_floats((long)M * K, 4), *b = random_floats((long)K * N, 5);
    float *c1 = random_floats((long)M * N, 6), *c2 = arena_alloc(&arena, sizeof(float) * (size_t)M * N);
    memcpy(c2, c1, sizeof(float) * (size_t)M * N);
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    gemm(tensor_arena(), M, N, K, mat_cols(a, M), mat_rows(b, N), c1, N, 1, NULL);
    omp_set_num_threads(3);
    gemm(tensor_arena(), M, N, K, mat_cols(a, M), mat_rows(b, N), c2, N, 1, NULL);
    omp_set_num_threads(threads);
    CHECK(memcmp(c1, c2, sizeof(float) * (size_t)M * N) == 0, "1 and 3 threads differ");
}

static void test_expf_accuracy(void) {
    double worst = 0;
    float at = 0;
    for (float x = -87.0f; x <= 88.0f; x += 0.00731f) {
        double ref = exp((double)x), got = kernel_expf(x), rel = fabs(got - ref) / ref;
        if (rel > worst) { worst = rel; at = x; }
    }
    CHECK(worst < 3e-7, "kernel_expf: relative error %g at x = %g", worst, at);
    CHECK(kernel_expf(-INFINITY) == 0 && kernel_expf(-100) == 0, "exp of very negative numbers must be 0");
    CHECK(kernel_expf(0) == 1, "exp(0) = %.9g", kernel_expf(0));
    float e88 = kernel_expf(88.0f);   // above 88 the argument is clamped: a finite exp(88)
    CHECK(isfinite(e88) && fabs(e88 / exp(88.0) - 1) < 3e-7, "exp(88) = %g", e88);
    CHECK(kernel_expf(1000.0f) == e88 && kernel_expf(INFINITY) == e88, "exp(1000) = %g, exp(inf) = %g, not exp(88) = %g",
          kernel_expf(1000.0f), kernel_expf(INFINITY), e88);
    CHECK(isnan(kernel_expf(NAN)), "exp(NaN) must be NaN");
    float row[5] = {1, -INFINITY, 3, 0.5f, -INFINITY}, out[5];
    kernel_softmax_row(row, out, 5);
    double sum = 0;
    for (int i = 0; i < 5; i++) sum += out[i];
    CHECK_NEAR(sum, 1.0, 1e-6);
    CHECK(out[1] == 0 && out[4] == 0, "masked entries %g %g", out[1], out[4]);
    CHECK_NEAR(out[2] / out[0], exp(2.0), 1e-5);
}

// kernel_erff (GELU's Phi) against double erf: absolute error within the 1.5e-7 of its
// formula plus float rounding (1 - t poly exp(-x^2) cancels near 0: ~4e-7 measured), odd,
// the right limits.
static void test_erff_accuracy(void) {
    double worst = 0;
    float at = 0;
    for (float x = -6.0f; x <= 6.0f; x += 0.000917f) {
        double err = fabs((double)kernel_erff(x) - erf((double)x));
        if (err > worst) { worst = err; at = x; }
    }
    CHECK(worst < 5e-7, "kernel_erff: absolute error %g at x = %g", worst, at);
    CHECK(kernel_erff(0.7f) == -kernel_erff(-0.7f), "erf must be odd");
    CHECK(kernel_erff(INFINITY) == 1 && kernel_erff(-INFINITY) == -1 && kernel_erff(20) == 1, "erf limits");
    CHECK(isnan(kernel_erff(NAN)), "erf(NaN) must be NaN");
}

// hash_uniform converts through int32 so dropout loops vectorise; that must equal the plain
// uint64 -> float conversion of the same 24 bits, and stay in [0, 1).
static void test_hash_uniform_exact(void) {
    int mismatches = 0, out_of_range = 0;
    for (uint64_t i = 0; i < 100000; i += 7) {
        uint64_t seed = i * SPLITMIX64_GAMMA;
        float u = hash_uniform(seed, i);
        uint64_t h = splitmix64_mix(seed ^ splitmix64_mix(i + 0x632be59bd9b4e019ULL));
        mismatches += u != (float)(h >> 40) * (1.0f / 16777216.0f);
        out_of_range += !(u >= 0.0f && u < 1.0f);
    }
    CHECK(mismatches == 0 && out_of_range == 0, "%d hashes differ from the uint64 form, %d outside [0, 1)", mismatches, out_of_range);
}

// A transformer-ish chain of fused ops, its loss and input gradient for a thread count. The
// sizes pass every parallel threshold (KERNEL_PARALLEL_WORK multiply-adds in the product and the
// attention, KERNEL_PARALLEL_ELEMS elements), so 2 threads split every op.
enum { CHAIN_B = 160, CHAIN_T = 64, CHAIN_C = 64 };
static void fused_chain(int threads, float *loss, float *grad, long n) {
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    ArenaMark mark = arena_mark(&arena);
    tape_reset();
    int B = CHAIN_B, T = CHAIN_T, C = CHAIN_C, H = 4, V = 50;
    Tensor *x = tensor_new3(B, T, C, 1);
    memcpy(x->data, random_floats(x->size, 11), sizeof(float) * x->size);
    Tensor *w = tensor_new(1, &C, 1), *bb = tensor_new(1, &C, 1);
    for (int i = 0; i < C; i++) { w->data[i] = 1 + 0.01f * i; bb->data[i] = 0.02f * i; }
    Tensor *h = op_layernorm(x, w, bb, 1e-5f);
    static int key_pad[CHAIN_B * CHAIN_T];
    for (int t = 50; t < T; t++) key_pad[2 * T + t] = 1;
    AttnArgs args = {.n_heads = H, .key_pad = key_pad, .causal = 1, .dropout = 0.1f, .seed = 42};
    Tensor *y = op_add(x, op_dropout(op_attention(h, h, h, &args), 0.1f, 43));
    int ws[2] = {V, C};
    Tensor *proj = tensor_new(2, ws, 1);
    memcpy(proj->data, random_floats(proj->size, 12), sizeof(float) * proj->size);
    int shape[2] = {B * T, C};
    Tensor *logits = op_linear(tensor_view(op_relu(y), 2, shape), proj, NULL);
    static int targets[CHAIN_B * CHAIN_T];
    for (int i = 0; i < B * T; i++) targets[i] = i % 9 == 0 ? 0 : i % V;
    Tensor *l = op_cross_entropy(logits, targets, 0, 0.1f);
    tape_backward(l);
    *loss = l->data[0];
    memcpy(grad, x->grad, sizeof(float) * (size_t)n);
    tape_reset();
    arena_release(&arena, mark);
    omp_set_num_threads(saved);
}

static void test_fused_ops_same_for_any_thread_count(void) {
    enum { N = CHAIN_B * CHAIN_T * CHAIN_C };
    static float g1[N], g2[N];
    float l1, l2;
    fused_chain(1, &l1, g1, N);
    fused_chain(2, &l2, g2, N);
    CHECK(l1 == l2, "loss %.9g (1 thread) vs %.9g (2 threads)", l1, l2);
    CHECK(memcmp(g1, g2, sizeof g1) == 0, "input gradients differ between 1 and 2 threads");
    CHECK(isfinite(l1) && l1 > 0, "loss %g", l1);
    CHECK((long)CHAIN_B * CHAIN_T * 50 * CHAIN_C > KERNEL_PARALLEL_WORK &&
          (long)CHAIN_B * 4 * CHAIN_T * CHAIN_T * (CHAIN_C / 4) > KERNEL_PARALLEL_WORK &&
          (long)CHAIN_B * CHAIN_T * CHAIN_C > KERNEL_PARALLEL_ELEMS, "the chain runs on one thread");
}

// KERNEL_PARALLEL_FOR forks only when the loop is big and the thread may use more than one;
// otherwise its loop runs outside any OpenMP region (no team, not even one of one thread),
// also on a thread of another region that was limited to one (a micro-batch's).
static void test_parallel_for_forks_only_with_threads(void) {
    int threads = omp_get_max_threads(), level[4], team[4];
    omp_set_num_threads(2);
    KERNEL_PARALLEL_FOR(1, schedule(static),
        for (int i = 0; i < 4; i++) level[i] = omp_get_level(), team[i] = omp_get_num_threads();
    );
    CHECK(level[0] == 1 && level[3] == 1 && team[0] == 2 && team[3] == 2,
          "2 threads, a big loop: level %d, team %d, want 1, 2", level[0], team[0]);
    KERNEL_PARALLEL_FOR(0, schedule(static),
        for (int i = 0; i < 4; i++) level[i] = omp_get_level(), team[i] = omp_get_num_threads();
    );
    CHECK(level[0] == 0 && level[3] == 0, "a small loop ran in a region of level %d", level[0]);
    omp_set_num_threads(1);
    KERNEL_PARALLEL_FOR(1, schedule(dynamic),
        for (int i = 0; i < 4; i++) level[i] = omp_get_level();
    );
    CHECK(level[0] == 0 && level[3] == 0, "1 thread: a big loop ran in a region of level %d", level[0]);
    int inner[2] = {-1, -1};
    #pragma omp parallel num_threads(2)
    {
        omp_set_num_threads(1);   // as micro_batches_backward does on each of its threads
        int me = omp_get_thread_num(), seen = -1;
        KERNEL_PARALLEL_FOR(1, schedule(static),
            for (int i = 0; i < 1; i++) seen = omp_get_level();
        );
        inner[me] = seen;
    }
    CHECK(inner[0] == 1 && inner[1] == 1,
          "inside a region limited to one thread: levels %d, %d, want 1 (no nested region)",
          inner[0], inner[1]);
    omp_set_num_threads(threads);
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_gemm_matches_naive);
    RUN(test_gemm_odd_shapes);
    RUN(test_gemm_transposed_a_in_chunks);
    RUN(test_gemm_same_bits_in_slices);
    RUN(test_gemm_tile_choice);
    RUN(test_gemm_flat_in_place);
    RUN(test_gemm_same_for_any_thread_count);
    RUN(test_gemm_packed_b);
    RUN(test_expf_accuracy);
    RUN(test_erff_accuracy);
    RUN(test_hash_uniform_exact);
    RUN(test_fused_ops_same_for_any_thread_count);
    RUN(test_parallel_for_forks_only_with_threads);
    arena_free(&arena);
    return check_summary();
}
