// Compute kernels shared by the ops: a packed, register-tiled matrix product and the small
// helpers the fused ops use. No tape, no tensors: plain arrays with strides.
//
// Determinism: every output element of gemm is one fixed sequence of fused multiply-adds
// over k = 0..K-1 in ascending order, computed by exactly one thread, so the result is the
// same bit for bit whatever the thread count or the scheduling.
#ifndef KERNELS_H
#define KERNELS_H
#include <omp.h>
#include <stdint.h>
#include "core/arena.h"   // gemm's scratch
#include "util/hash.h"   // hash_uniform: dropout masks

// The micro-kernel's register tiles (kernels.c): rows of A by columns of B. With AVX-512 a
// product takes 8 x 48 (wide) unless padding N to 48 columns costs more than N/16 columns over
// padding it to 32; then 6 x 64 (flat) if N is a multiple of 64 (the toy widths 64, 128, 256),
// else 12 x 32 (narrow). Other targets have one tile, 6 x 16. Packed panels are rounded up to
// the tile (the memory estimate counts them); GEMM_MR is the tallest tile's rows, and
// GEMM_ROWS_ALIGN a multiple of every tile's rows.
#if defined(__AVX512F__)
#define GEMM_WIDE_MR 8
#define GEMM_WIDE_NR 48
#define GEMM_NARROW_MR 12
#define GEMM_NARROW_NR 32
#define GEMM_FLAT_MR 6
#define GEMM_FLAT_NR 64
#else
#define GEMM_WIDE_MR 6
#define GEMM_WIDE_NR 16
#define GEMM_NARROW_MR 6
#define GEMM_NARROW_NR 16
#define GEMM_FLAT_MR 6
#define GEMM_FLAT_NR 16
#endif
#define GEMM_MR GEMM_NARROW_MR
#define GEMM_ROWS_ALIGN 24
#define GEMM_A_PACK_MAX (1L << 20)   // floats of packed A at most (4 MiB), see gemm

typedef enum { GEMM_TILE_WIDE, GEMM_TILE_NARROW, GEMM_TILE_FLAT } GemmTile;

// The tile a product with N columns takes (the one dispatch point, used by gemm and by the
// estimates below), and its rows and columns.
static inline GemmTile gemm_tile_for(long N) {
    long wide = (N + GEMM_WIDE_NR - 1) / GEMM_WIDE_NR * GEMM_WIDE_NR;
    long narrow = (N + GEMM_NARROW_NR - 1) / GEMM_NARROW_NR * GEMM_NARROW_NR;
    if (wide - narrow <= N / 16) return GEMM_TILE_WIDE;
    return N % GEMM_FLAT_NR == 0 ? GEMM_TILE_FLAT : GEMM_TILE_NARROW;
}
static inline int gemm_tile_mr(GemmTile t) {
    return t == GEMM_TILE_WIDE ? GEMM_WIDE_MR
         : t == GEMM_TILE_NARROW ? GEMM_NARROW_MR : GEMM_FLAT_MR;
}
static inline int gemm_tile_nr(GemmTile t) {
    return t == GEMM_TILE_WIDE ? GEMM_WIDE_NR
         : t == GEMM_TILE_NARROW ? GEMM_NARROW_NR : GEMM_FLAT_NR;
}

// Rows of a transposed A (M x K) that gemm packs at once: all M, or past GEMM_A_PACK_MAX
// floats the largest multiple of GEMM_ROWS_ALIGN rows under it (at least GEMM_ROWS_ALIGN).
static inline long gemm_a_chunk_rows(long M, long K) {
    if (M * K <= GEMM_A_PACK_MAX) return M;
    long rows = GEMM_A_PACK_MAX / K / GEMM_ROWS_ALIGN * GEMM_ROWS_ALIGN;
    return rows < GEMM_ROWS_ALIGN ? GEMM_ROWS_ALIGN : rows;
}
// Floats of gemm's packed A (M x K, transposed or read in place) for a product of N columns:
// gemm allocates this, and the memory estimate replays it at other shapes (arena_trace_pack).
static inline long gemm_a_pack_floats(long M, long N, long K, int transposed) {
    long MR = gemm_tile_mr(gemm_tile_for(N));
    long rows = transposed ? gemm_a_chunk_rows(M, K) : MR;
    return (rows + MR - 1) / MR * MR * K;
}
// The build's vector width in floats (16 with AVX-512, 8 otherwise) and vectors of it.
#if defined(__AVX512F__)
#define KERNEL_VL 16
#else
#define KERNEL_VL 8
#endif
typedef float kernel_vf __attribute__((vector_size(KERNEL_VL * sizeof(float))));
typedef int kernel_vi __attribute__((vector_size(KERNEL_VL * sizeof(int))));

// A KERNEL_VL x KERNEL_VL block transposed in registers: afterwards row[c] lane r is what row[r]
// lane c was. Stage s swaps, between rows r and r + s (r without bit s), the lanes with bit s
// set in row r and those without in row r + s; after the stages s = VL/2 .. 1 row c holds
// column c. The lane masks are constants once the stage loop unrolls: one two-source permute
// each. gemm's packing of a transposed B and attention's transposed keys and values use it.
static inline __attribute__((always_inline)) void kernel_transpose(kernel_vf row[KERNEL_VL]) {
    kernel_vi lane;
    for (int l = 0; l < KERNEL_VL; l++) lane[l] = l;
    #pragma GCC unroll 8
    for (int s = KERNEL_VL / 2; s; s /= 2) {
        kernel_vi has_s = (lane & s) != 0;   // -1 where lane l has bit s
        kernel_vi low = lane + (has_s & (KERNEL_VL - s)),
                  high = lane + (has_s & KERNEL_VL) + (~has_s & s);
        #pragma GCC unroll 16
        for (int r = 0; r < KERNEL_VL; r++)
            if (!(r & s)) {
                kernel_vf a = row[r], b = row[r + s];
#ifdef __clang__   // clang (the fuzz builds) has no variable-mask shuffle: lane by lane
                for (int l = 0; l < KERNEL_VL; l++) {
                    row[r][l] = low[l] < KERNEL_VL ? a[low[l]] : b[low[l] - KERNEL_VL];
                    row[r + s][l] = high[l] < KERNEL_VL ? a[high[l]] : b[high[l] - KERNEL_VL];
                }
#else
                row[r] = __builtin_shuffle(a, b, low);
                row[r + s] = __builtin_shuffle(a, b, high);
#endif
            }
    }
}

// Strided view of a matrix: element (i, j) is p[i * rs + j * cs]. Any transpose is a view.
typedef struct { const float *p; long rs, cs; } MatView;
// row-major
static inline MatView mat_rows(const float *p, long ld) { MatView v = {p, ld, 1}; return v; }
// transposed
static inline MatView mat_cols(const float *p, long ld) { MatView v = {p, 1, ld}; return v; }

// C (M,N) row-major with leading dimension ldc:
//   accumulate = 0:  C  = A B (+ bias)       accumulate = 1:  C += A B (+ bias)
// with A (M,K), B (K,N) any strided views and bias (N) added to every row, or NULL.
// Per element: s = 0; s += A[i,k] B[k,j] for k ascending; then C = s or C = C + s; then + bias.
// Packs A and B into panels allocated from `scratch` (released before returning): the ops pass
// the tensor arena, so gemm must be called where ops may allocate. Runs on OpenMP threads
// when the product is large enough.
void gemm(Arena *scratch, int M, int N, int K, MatView A, MatView B, float *C, long ldc,
          int accumulate, const float *bias);

// One B (K,N) for many products (the LSTM's W_hh at every step): packed once into panels in
// `arena` (the caller releases them), then gemm_packed(A) = gemm(A, B), bit for bit, without
// packing B again. view is B itself (the empty-sum case reads nothing of it).
typedef struct { MatView view; const float *panels; int N, K; } PackedB;
PackedB gemm_pack_b(Arena *arena, int N, int K, MatView B);
void gemm_packed(Arena *scratch, int M, const PackedB *B, MatView A, float *C, long ldc,
                 int accumulate, const float *bias);

// p[0..n) = 0, on the OpenMP threads when n is large (zeroing gradients is memory-bound
// work that one thread would do alone while the other waits).
void kernel_zero(float *p, long n);

// Rows r < rows of x (C floats each) with pad[r] != 0 set to 0, a run of consecutive rows at
// a time: a batch entry's padding is its last rows, so one memset per entry zeroes what a
// memset per row did (attention's padding rows, RoPE's).
void kernel_zero_padding_rows(float *x, const int *pad, long rows, long C);

// Reference version of the same contract (three loops), for tests and for tiny products.
void gemm_naive(int M, int N, int K, MatView A, MatView B, float *C, long ldc, int accumulate,
                const float *bias);

// exp(x) in float, within 2 ulp of expf, as a loop body the compiler can vectorise (libm's
// expf is a call per element). exp(-inf) and anything below -87.3 give exactly 0; NaN stays NaN.
// x = n ln2 + r with |r| <= ln2/2; exp(r) by the Cephes polynomial; 2^n from the exponent bits.
static inline float kernel_expf(float x) {
    // The clamp to [-88, 88] (NaN passes through) and the 0 below -87.3 select through the
    // bits: written with ?: gcc threads the constant arms into the arithmetic after them, and
    // without AVX-512's masks the loop of a caller is then not vectorised at all.
    uint32_t xb, hi = 0x42B00000u, lo = 0xC2B00000u;   // 88.0f, -88.0f
    __builtin_memcpy(&xb, &x, sizeof xb);
    uint32_t above = -(uint32_t)(x > 88.0f), below = -(uint32_t)(x < -88.0f);
    xb = (xb & ~(above | below)) | (hi & above) | (lo & below);
    float xc;
    __builtin_memcpy(&xc, &xb, sizeof xc);
    float t = xc * 1.44269504088896341f + 12582912.0f;                 // 1.5 * 2^23 + n: rounds
    float n = t - 12582912.0f;
    float r = xc - n * 0.693145751953125f - n * 1.428606765330187e-06f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    uint32_t tb, bits;   // n sits in the low mantissa bits of t; 2^n = (n + 127) << 23
    __builtin_memcpy(&tb, &t, sizeof tb);
    bits = (tb - 0x4B400000u + 127u) << 23;
    float scale;
    __builtin_memcpy(&scale, &bits, sizeof scale);
    float e = p * scale;
    uint32_t eb;
    __builtin_memcpy(&eb, &e, sizeof eb);
    eb &= -(uint32_t)!(x < -87.3f);
    __builtin_memcpy(&e, &eb, sizeof e);
    return e;
}

// erf(x) in float, as a loop body the compiler can vectorise (libm's erff is a call per
// element: GELU at d_ff = 3072 spent 8 % of a step in it). Abramowitz & Stegun 7.1.26:
// erf(|x|) = 1 - t (a1 + t (a2 + ... + t a5)) exp(-x^2), t = 1 / (1 + p |x|), absolute error
// <= 1.5e-7 (plus float rounding, ~1e-7), odd in x; +-inf give +-1, NaN stays NaN.
static inline float kernel_erff(float x) {
    float a = x < 0 ? -x : x;
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float poly =
        t * (0.254829592f +
             t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    float y = 1.0f - poly * kernel_expf(-a * a);
    return x < 0 ? -y : y;
}

// Sums in a fixed order that vectorises: 16 interleaved partial sums (element i goes to
// lane i % 16), then the lanes added pairwise as a fixed tree (8 + 8, 4 + 4, ...). The
// result depends only on the data, not on the vector width or the thread that computes it.
#define KERNEL_LANES 16
static inline float kernel_lanes_total(float *lane) {
    for (int w = KERNEL_LANES / 2; w; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    return lane[0];
}
static inline float kernel_sum(const float *a, int n) {
    float lane[KERNEL_LANES] = {0};
    int i = 0;
    for (; i + KERNEL_LANES <= n; i += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++) lane[l] += a[i + l];
    for (int l = 0; i + l < n; l++) lane[l] += a[i + l];
    return kernel_lanes_total(lane);
}
static inline float kernel_dot(const float *a, const float *b, int n) {
    float lane[KERNEL_LANES] = {0};
    int i = 0;
    for (; i + KERNEL_LANES <= n; i += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++) lane[l] += a[i + l] * b[i + l];
    for (int l = 0; i + l < n; l++) lane[l] += a[i + l] * b[i + l];
    return kernel_lanes_total(lane);
}

// sum of exp(a[i] - shift) and sum of (a[i] - shift)^2, in kernel_sum's order. Each square
// is fused into its lane (fmaf): the same bits in a file compiled without contraction
// (optim.c, ops_layernorm.c) as in one where gcc would fuse it anyway.
static inline float kernel_sum_exp(const float *a, int n, float shift) {
    float lane[KERNEL_LANES] = {0};
    int i = 0;
    for (; i + KERNEL_LANES <= n; i += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++) lane[l] += kernel_expf(a[i + l] - shift);
    for (int l = 0; i + l < n; l++) lane[l] += kernel_expf(a[i + l] - shift);
    return kernel_lanes_total(lane);
}
static inline float kernel_sum_sq(const float *a, int n, float shift) {
    float lane[KERNEL_LANES] = {0};
    int i = 0;
    for (; i + KERNEL_LANES <= n; i += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++) {
            float d = a[i + l] - shift;
            lane[l] = __builtin_fmaf(d, d, lane[l]);
        }
    for (int l = 0; i + l < n; l++) {
        float d = a[i + l] - shift;
        lane[l] = __builtin_fmaf(d, d, lane[l]);
    }
    return kernel_lanes_total(lane);
}


// One softmax row, out = softmax(z) (out may alias z): max, exp(z - max), divide by the sum
// (kernel_sum). A row that is all -inf gives zeros.
void kernel_softmax_row(const float *z, float *out, int n);

// Work below this many multiply-adds (gemm, attention) or elements (elementwise ops; ops
// that do more per element use half) stays on one thread: a fork/join costs ~1 us while the
// other thread still spins, but 50-90 us once it sleeps (core/runtime.h) or waits for a core
// another process holds, more than such work saves. On an idle host the d = 64 models'
// products and activations still gain from the second thread at 2^17; raising both (2^22,
// 2^19) helped them on a loaded host and made them 0.85-0.92x on an idle one
// (results/bench/ab_idle*.md), so the bound stays where the idle machine puts it.
#define KERNEL_PARALLEL_WORK (1L << 17)
#define KERNEL_PARALLEL_ELEMS (1L << 17)

// Whether a loop worth forking for (`big`: over the bounds above) forks: only when this
// thread may use more than one (omp_get_max_threads() is 1 on a one-thread run and inside a
// micro-batch, train/micro_batches.h).
static inline int kernel_fork(int big) { return big && omp_get_max_threads() > 1; }

// A loop on the OpenMP team when kernel_fork(big), else as a plain loop, outside any region:
//   KERNEL_PARALLEL_FOR(n > KERNEL_PARALLEL_ELEMS, schedule(static),
//       for (long i = 0; i < n; i++) y[i] = 2 * x[i];
//   );
// A region whose if clause is false still has libgomp build a team of one: about 1 us, and a
// newly allocated team each time inside another region (a micro-batch's ops: 2-3 us each,
// some 235 regions a toy step per thread), which is as long as a small op's whole loop
// (docs/performance.md). The same loop either way, so the same bits.
#define KERNEL_PRAGMA(x) _Pragma(#x)
#define KERNEL_PARALLEL_FOR(big, clauses, ...) \
    do { \
        if (kernel_fork(big)) { \
            KERNEL_PRAGMA(omp parallel for clauses) \
            __VA_ARGS__ \
        } else { \
            __VA_ARGS__ \
        } \
    } while (0)
// kernel_lanes_total and kernel_max on a vector of KERNEL_LANES lanes: the same trees (lane l
// with lane l + w, w = 8, 4, 2, 1), done as whole halves in registers instead of lane by lane
// through memory, so the same bits. For loops that keep their 16 lanes in one vector.
typedef float kernel_vec __attribute__((vector_size(KERNEL_LANES * sizeof(float))));
static inline float kernel_vec_total(kernel_vec v) {
    typedef float vec8 __attribute__((vector_size(8 * sizeof(float))));
    typedef float vec4 __attribute__((vector_size(4 * sizeof(float))));
    vec8 lo, hi;
    __builtin_memcpy(&lo, &v, sizeof lo);
    __builtin_memcpy(&hi, (char *)&v + sizeof lo, sizeof hi);
    lo += hi;
    vec4 lo4, hi4;
    __builtin_memcpy(&lo4, &lo, sizeof lo4);
    __builtin_memcpy(&hi4, (char *)&lo + sizeof lo4, sizeof hi4);
    lo4 += hi4;
    float l[4];
    __builtin_memcpy(l, &lo4, sizeof l);
    l[0] += l[2], l[1] += l[3];
    return l[0] + l[1];
}
static inline float kernel_vec_max(kernel_vec v) {   // lane l takes lane l + w only if larger
    typedef float vec8 __attribute__((vector_size(8 * sizeof(float))));
    typedef float vec4 __attribute__((vector_size(4 * sizeof(float))));
    typedef int vec8i __attribute__((vector_size(8 * sizeof(int))));
    typedef int vec4i __attribute__((vector_size(4 * sizeof(int))));
    vec8 lo, hi;
    __builtin_memcpy(&lo, &v, sizeof lo);
    __builtin_memcpy(&hi, (char *)&v + sizeof lo, sizeof hi);
    vec8i larger = hi > lo;
    lo = (vec8)(((vec8i)hi & larger) | ((vec8i)lo & ~larger));
    vec4 lo4, hi4;
    __builtin_memcpy(&lo4, &lo, sizeof lo4);
    __builtin_memcpy(&hi4, (char *)&lo + sizeof lo4, sizeof hi4);
    vec4i larger4 = hi4 > lo4;
    lo4 = (vec4)(((vec4i)hi4 & larger4) | ((vec4i)lo4 & ~larger4));
    float l[4];
    __builtin_memcpy(l, &lo4, sizeof l);
    l[0] = l[2] > l[0] ? l[2] : l[0];
    l[1] = l[3] > l[1] ? l[3] : l[1];
    return l[1] > l[0] ? l[1] : l[0];
}

// The largest element (-inf for n = 0; NaNs are passed over): element i goes to lane i % 16,
// which keeps it only if larger, then kernel_vec_max's tree. The lanes are one vector: as an
// array of 16 floats gcc 12 kept them in 16 registers, one vmaxss each.
static inline float kernel_max(const float *a, int n) {
    typedef int vec_i __attribute__((vector_size(KERNEL_LANES * sizeof(int))));
    kernel_vec mx, x;
    for (int l = 0; l < KERNEL_LANES; l++) mx[l] = -__builtin_inff();
    int i = 0;
    for (; i + KERNEL_LANES <= n; i += KERNEL_LANES) {
        __builtin_memcpy(&x, a + i, sizeof x);
        vec_i larger = x > mx;
        mx = (kernel_vec)(((vec_i)x & larger) | ((vec_i)mx & ~larger));
    }
    for (int l = 0; i + l < n; l++) mx[l] = a[i + l] > mx[l] ? a[i + l] : mx[l];
    return kernel_vec_max(mx);
}

// The first index of the row's largest entry, as a running `row[i] > row[best]` gives it:
// NaNs never win, and a NaN first entry gives 0. kernel_max, then the first vector holding
// an entry equal to it. The running comparison reloaded row[best] after every branch and
// was 2 % of a language model's training step at 1000 words (the step counts the correct
// tokens).
static inline int kernel_argmax(const float *row, int n) {
    if (row[0] != row[0]) return 0;
    float m = kernel_max(row, n);
    kernel_vf mx, x;
    for (int l = 0; l < KERNEL_VL; l++) mx[l] = m;
    int i = 0;
    for (; i + KERNEL_VL <= n; i += KERNEL_VL) {
        __builtin_memcpy(&x, row + i, sizeof x);
        kernel_vi equal = x == mx;
        int any = 0;
        for (int l = 0; l < KERNEL_VL; l++) any |= equal[l];
        if (any) break;
    }
    for (; i < n; i++)
        if (row[i] == m) return i;
    return 0;
}
#endif
