// Fused multi-head attention.
//
// Attention is one op rather than a chain of matmul/softmax ops: the masks and the
// positional bias go in where the scores are made, and without a gradient no T*T matrix is
// stored at all (each row of scores lives in a per-thread scratch buffer), so evaluation on
// long windows needs memory linear in T.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

// i[0] H; saved = P (B,H,Tq,Tk), the softmax probabilities before dropout, with the sign bit
// set where dropout removed the entry (P >= 0, so the mask costs no memory); a padding query's
// row is 0 when the bias takes a gradient, else never written nor read; aux = AttnArgs.
//
// Per (batch, head) the keys (and in backward the values) are first copied transposed,
// (D, Tk), so that a row of scores is D vector multiply-adds over contiguous keys: score
// j sums over e in ascending order whatever the vector width. Each (batch, head) belongs
// to one thread, so every gradient sum has a fixed order and no two threads write the
// same element; the threads take (batch, head) pairs dynamically.

// keys j < end are not causally masked
static int causal_end(const AttnArgs *a, int i, int Tq, int Tk) {
    if (!a->causal) return Tk;
    int end = i + (Tk - Tq) + 1;
    return end < 0 ? 0 : end > Tk ? Tk : end;
}

float attn_logit_factor(int n, int n_train) {
    if (n_train < 2 || n <= n_train) return 1.0f;
    return (float)(log((double)n) / log((double)n_train));
}

// The temperature of row i (1 when off): n counts the keys the row may attend to, so a
// decoding step with a cache gets the factor of the same row in the full pass.
static float row_factor(const AttnArgs *a, const int *pad, int end) {
    if (a->logit_train_length <= 0) return 1.0f;
    int n = end;
    if (pad) for (int j = 0; j < end; j++) n -= pad[j] != 0;
    return attn_logit_factor(n, a->logit_train_length);
}

// Rows of scores are computed 16 keys at a time (whole vectors, no scalar tail): the
// transposed keys and values are zero-padded to a multiple of 16 columns. The vector is
// kernels.h's, whose lanes are kernel_sum's and kernel_max's.
typedef kernel_vec vec16;
_Static_assert(KERNEL_LANES == 16, "attention works in vectors of 16 floats");
static int round16(int n) { return (n + 15) / 16 * 16; }

// The vector the kernels below work in, and how many rows of a block the *_block kernels keep
// in registers at once: the one place that chooses by the build's vector width. Every lane
// is one element with a sum of its own, or (the max and sum of a row) one of the 16 lanes of
// kernel_sum and kernel_max, kept as ATTN_V16 vectors; so neither choice changes a bit.
// AVX-512 has 32 registers of 16 floats: a whole block, 6 rows x 4 vectors of sums (or of
// add_outer's x), takes 24 of them, and 4 vectors are a whole head of 64, so each row of
// weights or gradients is read once per block where 8 rows x 2 vectors read it twice, which
// speeds up attention most at D = 64 (docs/performance.md). AVX2 has 16 registers of 8
// floats, where 8 rows x 2 vectors of 16 needed 32 and its sums went through memory (then the
// larger part of a step's time), and where gcc keeps vectors of 16 floats in memory too:
// there the kernels take 4 rows at a time, 2 vectors of 8, so 4 x 2 = 8 registers hold the
// tile and the rest its loads.
#if defined(__AVX512F__)
enum { ATTN_GROUP = ATTN_ROW_BLOCK, ATTN_MAX_V = 4 };
#else
enum { ATTN_GROUP = 4, ATTN_MAX_V = 2 };
#endif
enum { ATTN_LANES = KERNEL_VL };
typedef kernel_vf attn_vec;
typedef kernel_vi attn_veci;
enum { ATTN_V16 = 16 / ATTN_LANES };   // vectors per 16 columns

// Row i's scores s[0..n16) (whole vectors from row_times_rows) -> its probabilities, in place:
// score_j = (s_j * scale + bias_j) * f for j < end, -INFINITY where key j is padding or j >=
// end, then the softmax. One pass in vectors makes the scores and their max, a second the
// exponentials and their sum, a third divides: separate loops (scale, mask, the masked tail,
// a general softmax) stored with scalar tails what the next loop loaded as vectors, which
// stalled every row. The max and the sum keep kernel_softmax_row's lanes (lane l takes the
// entries j = l mod 16; kernel_max keeps an entry only if larger) and trees, and the bias
// goes in with the fused multiply-add the scalar loop compiled to, so the probabilities are
// the same bits; a row with every key masked gives zeros. bias and pad (NULL: none) are
// read a vector at a time while bias_avail / pad_avail entries remain (lanes past `end` read
// the next row's and are masked), the last piece entry by entry.
static inline __attribute__((always_inline))
void scores_to_probs_n(float *s, int end, int n16, long bias_avail, float scale, const float *bias,
                       float f, const int *pad, long pad_avail) {
    attn_vec mx[ATTN_V16], neg_inf;   // mx[h] lane l: kernel_max's lane h * ATTN_LANES + l
    attn_veci lane;
    for (int l = 0; l < ATTN_LANES; l++) neg_inf[l] = -INFINITY, lane[l] = l;
    for (int h = 0; h < ATTN_V16; h++) mx[h] = neg_inf;
    for (int j16 = 0; j16 < n16; j16 += 16)
        for (int h = 0; h < ATTN_V16; h++) {
            int j0 = j16 + h * ATTN_LANES;
            attn_vec x;
            memcpy(&x, s + j0, sizeof x);
            if (bias) {
                attn_vec bv = {0};
                if (j0 + ATTN_LANES <= bias_avail) memcpy(&bv, bias + j0, sizeof bv);
                else for (int l = 0; j0 + l < bias_avail; l++) bv[l] = bias[j0 + l];
                for (int l = 0; l < ATTN_LANES; l++) x[l] = fmaf(x[l], scale, bv[l]);
            } else x *= scale;
            if (f != 1.0f) x *= f;
            attn_veci dead = lane + j0 >= end;
            if (pad) {
                attn_veci pv = {0};
                if (j0 + ATTN_LANES <= pad_avail) memcpy(&pv, pad + j0, sizeof pv);
                else for (int l = 0; j0 + l < pad_avail; l++) pv[l] = pad[j0 + l];
                dead |= pv != 0;
            }
            x = (attn_vec)(((attn_veci)neg_inf & dead) | ((attn_veci)x & ~dead));
            memcpy(s + j0, &x, sizeof x);
            attn_veci larger = x > mx[h];
            mx[h] = (attn_vec)(((attn_veci)x & larger) | ((attn_veci)mx[h] & ~larger));
        }
    vec16 lanes;
    memcpy(&lanes, mx, sizeof lanes);
    float m = kernel_vec_max(lanes);
    if (m == -INFINITY) { memset(s, 0, sizeof(float) * (size_t)n16); return; }
    attn_vec sum[ATTN_V16];
    for (int h = 0; h < ATTN_V16; h++) sum[h] = (attn_vec){0};
    for (int j16 = 0; j16 < n16; j16 += 16)
        for (int h = 0; h < ATTN_V16; h++) {
            int j0 = j16 + h * ATTN_LANES;
            for (int l = 0; l < ATTN_LANES; l++) s[j0 + l] = kernel_expf(s[j0 + l] - m);
            attn_vec x;
            memcpy(&x, s + j0, sizeof x);
            sum[h] += x;
        }
    memcpy(&lanes, sum, sizeof lanes);
    float inv = 1.0f / kernel_vec_total(lanes);
    for (int j = 0; j < n16; j++) s[j] *= inv;
}

// Rows of 16, 32 or 48 keys (the lab's lengths) with n16 a constant: each pass unrolls over
// its one to three vectors, where a loop to n16 cost more than the row's arithmetic.
static void scores_to_probs(float *s, int end, int n16, long bias_avail, float scale,
                            const float *bias, float f, const int *pad, long pad_avail) {
    if (n16 == 16) scores_to_probs_n(s, end, 16, bias_avail, scale, bias, f, pad, pad_avail);
    else if (n16 == 32) scores_to_probs_n(s, end, 32, bias_avail, scale, bias, f, pad, pad_avail);
    else if (n16 == 48) scores_to_probs_n(s, end, 48, bias_avail, scale, bias, f, pad, pad_avail);
    else scores_to_probs_n(s, end, n16, bias_avail, scale, bias, f, pad, pad_avail);
}

// Head h of batch entry b of x (B,T,C), transposed: xt (D,ld), columns T..ld-1 zero (ld a
// multiple of 16). In tiles of 16 x 16, so that xt is written a whole vector at a time; a
// full tile is loaded a row per vector and transposed in registers (kernel_transpose, in
// blocks of the build's vector width; moving its 256 elements one by one through a buffer
// was slower), a partial one (D not a multiple of 16) goes through the buffer. The rows of
// the next tile are prefetched: rows of x are C floats apart and this is the first read of
// them, which waited on memory (a profile of the scalar transpose put most of its samples on
// the first load of a row; docs/performance.md).
static void transpose_head(const float *x, int b, int h, int T, int C, int D, int ld, float *xt) {
    for (int j0 = 0; j0 < ld; j0 += 16)
        for (int e0 = 0; e0 < D; e0 += 16) {
            int ne = D - e0 < 16 ? D - e0 : 16;
            if (ne == 16) {   // in blocks of the build's vectors (kernels.h), 1 or 2 x 2 of them
                // AVX-512: rows past T read the last row and are zeroed by a mask, so that
                // every load is unconditional and the block stays in registers (with a branch a
                // row, gcc kept it on the stack and each load waited on the previous store); on
                // AVX2 the branch a row measured faster (docs/performance.md)
                int last = T - 1 - j0;
                for (int l0 = 0; l0 < 16; l0 += KERNEL_VL)
                    for (int c0 = 0; c0 < 16; c0 += KERNEL_VL) {
                        // t[l] = row j0 + l0 + l, then t[e] = column e0 + c0 + e
                        kernel_vf t[KERNEL_VL];
                        const float *top = x + ((long)b * T + j0) * C + h * D + e0 + c0;
                        for (int l = 0; l < KERNEL_VL; l++) {
                            int r = l0 + l;
#if KERNEL_VL == 16
                            const float *row = top + (long)(r < last ? r : last) * C;
                            if (c0 == 0 && j0 + r + 16 < T) __builtin_prefetch(row + 16L * C);
                            memcpy(&t[l], row, sizeof t[l]);
                            t[l] = (kernel_vf)((kernel_vi)t[l] & -(r <= last));
#else
                            const float *row = top + (long)r * C;
                            if (c0 == 0 && j0 + r + 16 < T) __builtin_prefetch(row + 16L * C);
                            if (r <= last) memcpy(&t[l], row, sizeof t[l]);
                            else t[l] = (kernel_vf){0};
#endif
                        }
                        kernel_transpose(t);
                        for (int e = 0; e < KERNEL_VL; e++)
                            memcpy(xt + (long)(e0 + c0 + e) * ld + j0 + l0, &t[e], sizeof t[e]);
                    }
                continue;
            }
            float tile[16][16];   // tile[e][l] = x[j0 + l][e0 + e]
            for (int l = 0; l < 16; l++) {
                const float *row = x + ((long)b * T + j0 + l) * C + h * D + e0;
                if (j0 + 16 + l < T) __builtin_prefetch(row + 16L * C);
                if (j0 + l < T) for (int e = 0; e < ne; e++) tile[e][l] = row[e];
                else            for (int e = 0; e < ne; e++) tile[e][l] = 0;
            }
            for (int e = 0; e < ne; e++)
                memcpy(xt + (long)(e0 + e) * ld + j0, tile[e], sizeof tile[e]);
        }
}

// The first cache line of head h in rows 0..T-1 of batch entry b of x (B,T,C) prefetched (all
// of the head at D = 16); the rows a head writes for writing, so that its stores find their
// lines owned (without, the stores waited on each line's fetch).
static void prefetch_head(const float *x, int b, int h, int T, int C, int D) {
    const float *row = x + (long)b * T * C + h * D;
    for (int j = 0; j < T; j++, row += C) __builtin_prefetch(row);
}
static void prefetch_head_write(float *x, int b, int h, int T, int C, int D) {
    float *row = x + (long)b * T * C + h * D;
    for (int j = 0; j < T; j++, row += C) __builtin_prefetch(row, 1);
}

// Row (bh, i)'s weights after dropout, w_j = s_j * (0 or 1/(1-p)), into ds for j < n16
// (a multiple of 16; s is 0 past the row's keys): 16 entries at a time, a loop of constant
// length the compiler turns into whole vectors of hashes, where a loop to the row's length
// (15 at the toy's) ran one entry at a time in its scalar tail.
static void drop_weights(const AttnArgs *a, long row_index, int n16, const float *restrict s,
                         float *restrict ds) {
    float p = a->dropout, keep = 1.0f / (1.0f - p);
    uint64_t seed = a->seed;
    for (int j0 = 0; j0 < n16; j0 += 16)
        for (int l = 0; l < 16; l++) {
            int j = j0 + l;
            ds[j] = (hash_uniform(seed, (uint64_t)(row_index + j)) >= p ? keep : 0.0f) * s[j];
        }
}

// src[0..n) into p (n <= 16) in copies of 8, 4 and 1: a row of P ends where the next row, or
// another head's, starts, so a whole vector would overwrite it.
static inline __attribute__((always_inline))
void store_prefix(float *restrict p, const float *src, int n) {
    int l = 0;
    for (; l + 8 <= n; l += 8) memcpy(p + l, src + l, sizeof(float) * 8);
    for (; l + 4 <= n; l += 4) memcpy(p + l, src + l, sizeof(float) * 4);
    for (; l < n; l++) p[l] = src[l];
}

// The probabilities of a row for the backward, p[0..Tk): p_j = s_j where the weight w_j
// is kept, -s_j where dropout zeroed it (the sign is the mask), 0 from `end` on. Made in
// whole vectors without branches and copied in pieces of a length that depends on Tk only:
// a loop to `end` ran its last entries one at a time, with a branch per entry that
// mispredicted on each dropped one (half the forward's time at T = 15 with dropout).
static void probs_save(float *restrict p, const float *s, const float *w, int end, int n16,
                       int Tk) {
    attn_veci lane;
    for (int l = 0; l < ATTN_LANES; l++) lane[l] = l;
    for (int j0 = 0; j0 < n16; j0 += 16) {
        attn_vec t[ATTN_V16];
        for (int h = 0; h < ATTN_V16; h++) {
            int o = j0 + h * ATTN_LANES;
            attn_vec sv, wv;
            memcpy(&sv, s + o, sizeof sv);
            memcpy(&wv, w + o, sizeof wv);
            attn_veci sign = (attn_veci)(wv == 0) & (int)0x80000000u, live = lane + o < end;
            t[h] = (attn_vec)(((attn_veci)sv ^ sign) & live);
        }
        store_prefix(p + j0, (const float *)t, Tk - j0 < 16 ? Tk - j0 : 16);
    }
    for (int j = n16; j < Tk; j++) p[j] = 0;
}

// Query rows handled together: in backward dK and dV (Tk x D each, in L2 at T = 256) are read
// and written once per block of rows instead of once per row; in both directions each vector
// of the transposed keys or values, and each row of K or V, is loaded once per block. Per
// element the sums are those of one row at a time, in the same order (bit-identical).
// ATTN_ROW_BLOCK (core/ops.h) rows a block.
//
// The *_block kernels are always inlined and called twice, with R = ATTN_ROW_BLOCK (a full
// block: the loops over rows unroll and their vectors stay in registers) and with R the
// rows of a short one. Rows without keys (n = 0: padding) are left out before, which changes
// no sum (their terms were skipped anyway).
typedef struct RowBlock {        // the rows of a block that have keys, in row order
    int R, nmin, nmax;           // how many; the smallest and largest n
    int n[ATTN_ROW_BLOCK];       // their key counts
    const float *x[ATTN_ROW_BLOCK];   // the row each kernel reads (a query, dy, weights)
    float *y[ATTN_ROW_BLOCK];    // the row it writes (scores, an output), or add_outer_block's g
} RowBlock;

// The rows r < rows with n[r] > 0 of x and y, into *b. Filled in place: a block returned by
// value was built with scalar stores and copied with vector loads of them, which the store
// buffer cannot forward (a stall on every block, a sixth of attention's time at T = 24).
static void row_block(RowBlock *b, const int *n, int rows, const float *const *x,
                      float *const *y) {
    int R = 0, nmin = 0, nmax = 0;
    for (int r = 0; r < rows; r++) {
        if (n[r] <= 0) continue;
        if (R == 0 || n[r] < nmin) nmin = n[r];
        if (n[r] > nmax) nmax = n[r];
        b->n[R] = n[r], b->x[R] = x[r], b->y[R] = y[r];
        R++;
    }
    b->R = R, b->nmin = nmin, b->nmax = nmax;
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// The *_cols kernels take the rows r0 .. r0 + R - 1 of a block and V vectors of columns at
// once: ATTN_MAX_V while that many remain, then (when ATTN_MAX_V vectors are more than 32
// columns) one 32-column piece (ATTN_V32), then one 16-column piece (ATTN_V16 vectors);
// columns past the last multiple of 16 go through the scalar loops (weighted's is not the
// same bits as its vector loop: the compiler vectorizes that sum as an in-order reduction of
// rounded products, without fused multiply-adds). Each number broadcast from a row (g[r][j],
// x[r][e], w[r][j]) feeds V multiply-adds, and the R x V sums stay in registers (R and V are
// constants where each *_cols is inlined, so its loops unroll). The *_block kernels call them
// for every group of ATTN_GROUP rows of a column range, in row order; per element nothing
// changes.
enum { ATTN_COLS = ATTN_MAX_V * ATTN_LANES, ATTN_V32 = 32 / ATTN_LANES };

// The rows of b in groups of ATTN_GROUP, in order: with R = ATTN_ROW_BLOCK every call has a
// constant R; a short block ends with a shorter group (the % tells the compiler so). When a
// group is a whole block (AVX-512) that is one call, and nothing of the grouping is compiled.
#define FOR_ROW_GROUPS(R, cols, b, ...) \
    do { \
        if (ATTN_GROUP == ATTN_ROW_BLOCK) { cols(b, 0, R, __VA_ARGS__); break; } \
        int r0_ = 0; \
        for (; r0_ + ATTN_GROUP <= (R); r0_ += ATTN_GROUP) cols(b, r0_, ATTN_GROUP, __VA_ARGS__); \
        if (r0_ < (R)) cols(b, r0_, ((R) - r0_) % ATTN_GROUP, __VA_ARGS__); \
    } while (0)

// rows[j*D + e] += g[r][j] * x[r][e] for r = r0..r0+R-1 in order (g = b->y), for the j < n[r]
// of each r and the V * ATTN_LANES columns from e0: per element the same fused multiply-adds
// in the same order as one row after the other. The R x V vectors of x stay in registers
// while j runs; below nmin (every j of a non-causal block) no row is tested.
ALWAYS_INLINE void add_outer_cols(const RowBlock *b, int r0, int R, float *restrict rows, int D,
                                  int e0, int V) {
    float *const *g = b->y + r0;
    const int *n = b->n + r0;
    attn_vec xv[ATTN_GROUP][ATTN_MAX_V];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++)
            memcpy(&xv[r][v], b->x[r0 + r] + e0 + ATTN_LANES * v, sizeof xv[r][v]);
    float *row = rows + e0;
    int j = 0;
    for (; j < b->nmin; j++, row += D) {
        attn_vec acc[ATTN_MAX_V];
        for (int v = 0; v < V; v++) memcpy(&acc[v], row + ATTN_LANES * v, sizeof acc[v]);
        for (int r = 0; r < R; r++)
            for (int v = 0; v < V; v++) acc[v] += g[r][j] * xv[r][v];
        for (int v = 0; v < V; v++) memcpy(row + ATTN_LANES * v, &acc[v], sizeof acc[v]);
    }
    for (; j < b->nmax; j++, row += D) {
        attn_vec acc[ATTN_MAX_V];
        for (int v = 0; v < V; v++) memcpy(&acc[v], row + ATTN_LANES * v, sizeof acc[v]);
        for (int r = 0; r < R; r++)
            if (j < n[r]) for (int v = 0; v < V; v++) acc[v] += g[r][j] * xv[r][v];
        for (int v = 0; v < V; v++) memcpy(row + ATTN_LANES * v, &acc[v], sizeof acc[v]);
    }
}
ALWAYS_INLINE void add_outer_block(const RowBlock *b, int R, float *restrict rows, int D) {
    int e0 = 0;
    for (; e0 + ATTN_COLS <= D; e0 += ATTN_COLS)
        FOR_ROW_GROUPS(R, add_outer_cols, b, rows, D, e0, ATTN_MAX_V);
    if (ATTN_COLS > 32 && e0 + 32 <= D) {
        FOR_ROW_GROUPS(R, add_outer_cols, b, rows, D, e0, ATTN_V32);
        e0 += 32;
    }
    for (; e0 + 16 <= D; e0 += 16) FOR_ROW_GROUPS(R, add_outer_cols, b, rows, D, e0, ATTN_V16);
    if (e0 < D)
        for (int j = 0; j < b->nmax; j++)
            for (int r = 0; r < R; r++)
                if (j < b->n[r])
                    for (int e = e0; e < D; e++) rows[(long)j * D + e] += b->y[r][j] * b->x[r][e];
}

// out[r][j] = sum_e x[r][e] * mt[e, j] for r = r0..r0+R-1 and the V * ATTN_LANES columns from
// j0 (out = b->y; stored where j < n[r], a multiple of 16), e ascending, one row after the
// other in effect, for R rows at once in registers, so each vector of mt is loaded once per
// group of rows (the next group finds it in L1) and no partial sum goes through memory.
ALWAYS_INLINE void row_times_cols(const RowBlock *b, int r0, int R, const float *mt, int D, long ld,
                                  int j0, int V) {
    attn_vec acc[ATTN_GROUP][ATTN_MAX_V];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) acc[r][v] = (attn_vec){0};
    for (int e = 0; e < D; e++) {
        attn_vec m[ATTN_MAX_V];
        for (int v = 0; v < V; v++) memcpy(&m[v], mt + e * ld + j0 + ATTN_LANES * v, sizeof m[v]);
        for (int r = 0; r < R; r++)
            for (int v = 0; v < V; v++) acc[r][v] += b->x[r0 + r][e] * m[v];
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++)
            if (j0 + ATTN_LANES * v < b->n[r0 + r])
                memcpy(b->y[r0 + r] + j0 + ATTN_LANES * v, &acc[r][v], sizeof acc[r][v]);
}
ALWAYS_INLINE void row_times_block(const RowBlock *b, int R, const float *mt, int D, long ld) {
    int j0 = 0;   // nmax is a multiple of 16
    for (; j0 + ATTN_COLS <= b->nmax; j0 += ATTN_COLS)
        FOR_ROW_GROUPS(R, row_times_cols, b, mt, D, ld, j0, ATTN_MAX_V);
    if (ATTN_COLS > 32 && j0 + 32 <= b->nmax) {
        FOR_ROW_GROUPS(R, row_times_cols, b, mt, D, ld, j0, ATTN_V32);
        j0 += 32;
    }
    for (; j0 < b->nmax; j0 += 16) FOR_ROW_GROUPS(R, row_times_cols, b, mt, D, ld, j0, ATTN_V16);
}

// y[r][e] = sum_{j < n[r]} w[r][j] * x[j*ld + e] for r = r0..r0+R-1 and the V * ATTN_LANES
// columns from e0 (w = b->x, y = b->y), j ascending, for R rows at once, so each row of x is
// read once per group of rows; below nmin no row is tested.
ALWAYS_INLINE void weighted_cols(const RowBlock *b, int r0, int R, const float *x, long ld, int e0,
                                 int V) {
    const float *const *w = b->x + r0;
    const int *n = b->n + r0;
    attn_vec acc[ATTN_GROUP][ATTN_MAX_V];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) acc[r][v] = (attn_vec){0};
    const float *xr = x + e0;
    int j = 0;
    for (; j < b->nmin; j++, xr += ld) {
        attn_vec xv[ATTN_MAX_V];
        for (int v = 0; v < V; v++) memcpy(&xv[v], xr + ATTN_LANES * v, sizeof xv[v]);
        for (int r = 0; r < R; r++)
            for (int v = 0; v < V; v++) acc[r][v] += w[r][j] * xv[v];
    }
    for (; j < b->nmax; j++, xr += ld) {
        attn_vec xv[ATTN_MAX_V];
        for (int v = 0; v < V; v++) memcpy(&xv[v], xr + ATTN_LANES * v, sizeof xv[v]);
        for (int r = 0; r < R; r++)
            if (j < n[r]) for (int v = 0; v < V; v++) acc[r][v] += w[r][j] * xv[v];
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++)
            memcpy(b->y[r0 + r] + e0 + ATTN_LANES * v, &acc[r][v], sizeof acc[r][v]);
}
ALWAYS_INLINE void weighted_block(const RowBlock *b, int R, const float *x, long ld, int D) {
    int e0 = 0;
    for (; e0 + ATTN_COLS <= D; e0 += ATTN_COLS)
        FOR_ROW_GROUPS(R, weighted_cols, b, x, ld, e0, ATTN_MAX_V);
    if (ATTN_COLS > 32 && e0 + 32 <= D) {
        FOR_ROW_GROUPS(R, weighted_cols, b, x, ld, e0, ATTN_V32);
        e0 += 32;
    }
    for (; e0 + 16 <= D; e0 += 16) FOR_ROW_GROUPS(R, weighted_cols, b, x, ld, e0, ATTN_V16);
    for (int r = 0; r < R; r++)
        for (int e = e0; e < D; e++) {
            float sum = 0;
            for (int j = 0; j < b->n[r]; j++) sum += b->x[r][j] * x[j * ld + e];
            b->y[r][e] = sum;
        }
}

// The one dispatch of the *_block kernels: a full block with R constant, or a short one.
#define ROW_BLOCK_CALL(kernel, b, ...) \
    do { \
        if ((b).R == ATTN_ROW_BLOCK) kernel(&(b), ATTN_ROW_BLOCK, __VA_ARGS__); \
        else if ((b).R) kernel(&(b), (b).R, __VA_ARGS__); \
    } while (0)

static void add_outer_rows(float *restrict rows, float *const *g, const float *const *x,
                           const int *n, int rows_n, int D) {
    RowBlock b;
    row_block(&b, n, rows_n, x, g);
    ROW_BLOCK_CALL(add_outer_block, b, rows, D);
}

static void row_times_rows(const float *const *x, const float *mt, int D, long ld, const int *n,
                           int rows_n, float *const *out) {
    RowBlock b;
    row_block(&b, n, rows_n, x, out);
    ROW_BLOCK_CALL(row_times_block, b, mt, D, ld);
}

// A row without keys (n = 0) gets y = 0.
static void weighted_rows_rows(float *const *w, const int *n, int rows_n, const float *x, long ld,
                               int D, float *const *y) {
    for (int r = 0; r < rows_n; r++)
        if (n[r] <= 0) memset(y[r], 0, sizeof(float) * (size_t)D);
    RowBlock b;
    row_block(&b, n, rows_n, (const float *const *)w, y);
    ROW_BLOCK_CALL(weighted_block, b, x, ld, D);
}

// Row i's backward through dropout and softmax, in whole vectors over n16 (dp = dy . v_j from
// row_times_rows): pa = |p| (0 past end), ds = 0 where p's sign bit marks a dropped entry, else
// keep; w = pa * ds; dp *= ds; then dscore = pa * (dp - sum pa dp) (* f) into dp. Per entry
// the operations of the loops over end entries before, and the dot's lanes those of
// kernel_dot (past end it adds 0 * a finite dp), so the same bits; one pass makes pa, w, dp
// and the dot, where the scalar tails of separate loops stalled the next loop's vector loads.
// p is read a vector at a time while p_avail entries of this (batch, head) remain (lanes past
// end read the next row's and are masked), the last piece entry by entry.
static inline __attribute__((always_inline))
void probs_backward_n(const float *p, long p_avail, int end, int n16, float keep, float f,
                      float *pa, float *w, float *dp) {
    attn_vec acc[ATTN_V16], keep_v;   // acc[h] lane l: kernel_dot's lane h * ATTN_LANES + l
    attn_veci lane;
    for (int l = 0; l < ATTN_LANES; l++) keep_v[l] = keep, lane[l] = l;
    for (int h = 0; h < ATTN_V16; h++) acc[h] = (attn_vec){0};
    for (int j16 = 0; j16 < n16; j16 += 16)
        for (int h = 0; h < ATTN_V16; h++) {
            int j0 = j16 + h * ATTN_LANES;
            attn_vec pv = {0}, dpv;
            if (j0 + ATTN_LANES <= p_avail) memcpy(&pv, p + j0, sizeof pv);
            else for (int l = 0; j0 + l < p_avail; l++) pv[l] = p[j0 + l];
            attn_veci live = lane + j0 < end, dropped = (attn_veci)pv < 0;
            attn_vec pav = (attn_vec)((attn_veci)pv & 0x7fffffff & live),
                     ds = (attn_vec)((attn_veci)keep_v & ~dropped);
            attn_vec wv = pav * ds;
            memcpy(&dpv, dp + j0, sizeof dpv);
            dpv *= ds;
            acc[h] += pav * dpv;
            memcpy(pa + j0, &pav, sizeof pav);
            memcpy(w + j0, &wv, sizeof wv);
            memcpy(dp + j0, &dpv, sizeof dpv);
        }
    vec16 lanes;
    memcpy(&lanes, acc, sizeof lanes);
    float dot = kernel_vec_total(lanes);   // softmax: dscore_j = p_j (dp_j - sum p dp)
    for (int j0 = 0; j0 < n16; j0 += ATTN_LANES) {
        attn_vec pav, dpv;
        memcpy(&pav, pa + j0, sizeof pav);
        memcpy(&dpv, dp + j0, sizeof dpv);
        dpv = pav * (dpv - dot);
        if (f != 1.0f) dpv *= f;   // scores = (q.k * scale + bias) * f
        memcpy(dp + j0, &dpv, sizeof dpv);
    }
}

// As scores_to_probs: rows of 16, 32 or 48 keys with n16 a constant.
static void probs_backward(const float *p, long p_avail, int end, int n16, float keep, float f,
                           float *pa, float *w, float *dp) {
    if (n16 == 16) probs_backward_n(p, p_avail, end, 16, keep, f, pa, w, dp);
    else if (n16 == 32) probs_backward_n(p, p_avail, end, 32, keep, f, pa, w, dp);
    else if (n16 == 48) probs_backward_n(p, p_avail, end, 48, keep, f, pa, w, dp);
    else probs_backward_n(p, p_avail, end, n16, keep, f, pa, w, dp);
}

// g[j*ld + e] = (acc ? g[j*ld + e] : 0) + s * src[j*D + e] for j < T, e < D: a head's
// gradient (T,D) into the head-interleaved tensor's (rows ld apart), in whole vectors through
// restrict pointers, so that no tensor field is reloaded and no overlap tested per row (at
// small head widths such as D = 16 the write-back was a large part of the backward's own
// time). The same fused multiply-add per element as a scalar loop, so the same bits.
static void head_grad_store(float *restrict g, long ld, const float *restrict src, int T, int D,
                            float s, int acc) {
    for (int j = 0; j < T; j++, g += ld, src += D) {
        int e = 0;
        for (; e + 16 <= D; e += 16) {
            vec16 x, y = {0};
            memcpy(&x, src + e, sizeof x);
            if (acc) memcpy(&y, g + e, sizeof y);
            y += s * x;
            memcpy(g + e, &y, sizeof y);
        }
        for (; e < D; e++) g[e] = (acc ? g[e] : 0.0f) + s * src[e];
    }
}

// The backward of (batch, head) bh into its rows of dq, dk and dv, with the thread's
// scratch (attention_backward).
typedef struct {
    const Node *n;
    int acc_q, acc_k, acc_v;   // grad_accumulates of q, k, v, asked once before the heads
} BackwardHeads;

// Heads of D = 16 with at most 48 keys (Tp 16, 32 or 48: the lab's short lengths) on AVX-512:
// one (batch, head) in two passes, not blocks of rows whose dK and dV go through scratch. The
// first pass takes the query rows SHORT_G at a time (their sums side by side: one row at a
// time, its chain of multiply-adds waited on itself): dp = dy . v_j (row_times_cols' sums),
// each row's dropout and softmax backward (probs_backward), dq = sum_j dscore_j k_j
// (weighted_cols' sums) stored at once, and the rows' weights and dscores kept in scratch (Tq
// rows of Tp). The second makes dV and dK transposed, 16 keys at a time: dV^T[e][j] = sum_i
// dy_i[e] w_ij over the rows in order, the 16 sums of e in registers (no memset, no
// read-modify-write of a scratch dV per block of rows), transposed in registers and stored a
// key's row at a time, as head_grad_store. Per element the same fused multiply-adds in the same
// order as the blocks (w_ij dy_i[e] is the same product in either order of its factors). A row
// spans its group's keys (16 nv) where the blocks stopped at its own last key: past it a row's
// weights are +0 and its dscores +-0 (probs_backward masks them), and a sum that starts at +0
// never becomes -0, so the extra terms change no bit (for finite dy, q and k). Rows without
// keys (padding, causal rows of a shorter query side) are rows of zeros that store nothing.
// The next head's rows are prefetched a head ahead, as backward_head does: prefetched a batch
// entry ahead in runs, the op alone ran as fast and the training steps slower.
#if KERNEL_VL == 16
enum { SHORT_D = 16, SHORT_TP = 48, SHORT_TQ = 64, SHORT_G = 8 };
static int backward_short_fits(int D, int Tp, int Tq) {
    return D == SHORT_D && Tp <= SHORT_TP && Tq <= SHORT_TQ;
}

// Keys 16 jv .. 16 jv + 15 of a head's gradient g (rows ld apart, Tk of them):
// g_j = (acc ? g_j : 0) + s * sum_i G[i][j] x_i over the rows i with n[i] > 16 jv, in order.
static inline __attribute__((always_inline))
void short_outer_store(const float *G, int Tp, const float *x, long ldx, const int *n, int Tq,
                       int jv, float *g, long ld, int Tk, float s, int acc) {
    kernel_vf t[16];
    for (int e = 0; e < 16; e++) t[e] = (kernel_vf){0};
    for (int i = 0; i < Tq; i++, x += ldx) {
        if (n[i] <= 16 * jv) continue;
        kernel_vf gv;
        memcpy(&gv, G + (long)i * Tp + 16 * jv, sizeof gv);
        for (int e = 0; e < 16; e++) t[e] += x[e] * gv;
    }
    kernel_transpose(t);   // t[l] = key 16 jv + l over e
    g += (long)16 * jv * ld;
    for (int l = 0; l < 16 && 16 * jv + l < Tk; l++, g += ld) {
        kernel_vf y = {0};
        if (acc) memcpy(&y, g, sizeof y);
        y += s * t[l];
        memcpy(g, &y, sizeof y);
    }
}

// dp[r][j] = dy[r] . v_j for the SHORT_G rows of a group (vt: the values transposed, (16,Tp))
// and the first 16 NV keys, the rows' sums side by side (row_times_cols' order: e ascending);
// rows r < rows stored, Tp apart from dp.
static inline __attribute__((always_inline))
void short_dp_rows(const float *const *dy, const float *vt, int Tp, float *dp, int rows, int NV) {
    kernel_vf d[SHORT_G][3];
    for (int r = 0; r < SHORT_G; r++)
        for (int u = 0; u < NV; u++) d[r][u] = (kernel_vf){0};
    for (int e = 0; e < SHORT_D; e++) {
        kernel_vf m[3];
        for (int u = 0; u < NV; u++) memcpy(&m[u], vt + e * Tp + 16 * u, sizeof m[u]);
        for (int r = 0; r < SHORT_G; r++)
            for (int u = 0; u < NV; u++) d[r][u] += dy[r][e] * m[u];
    }
    for (int r = 0; r < rows; r++)
        for (int u = 0; u < NV; u++) memcpy(dp + (long)r * Tp + 16 * u, &d[r][u], sizeof d[r][u]);
}

// The rows the backward of head bh reads, prefetched in the order it reads them: values, dy,
// its probabilities (one run of Tq x Tk floats), keys, queries; then the gradients' rows it
// writes. Inlined: called out of line, the backward's samples per product sample rose by a
// third (perf of bench --only toy,copy).
static inline __attribute__((always_inline)) void short_prefetch_next(const Node *n, int bh) {
    Tensor *q = n->in[0], *k = n->in[1], *v = n->in[2];
    const AttnArgs *a = n->aux;
    int Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1], H = a->n_heads;
    int b = bh / H, h = bh % H;
    prefetch_head(v->data, b, h, Tk, C, SHORT_D);
    prefetch_head(n->out->grad, b, h, Tq, C, SHORT_D);
    const char *p = (const char *)(n->saved + (long)bh * Tq * Tk);
    for (long o = 0; o < (long)sizeof(float) * Tq * Tk; o += 64) __builtin_prefetch(p + o);
    prefetch_head(k->data, b, h, Tk, C, SHORT_D);
    prefetch_head(q->data, b, h, Tq, C, SHORT_D);
    if (q->grad) prefetch_head_write(q->grad, b, h, Tq, C, SHORT_D);
    if (k->grad) prefetch_head_write(k->grad, b, h, Tk, C, SHORT_D);
    if (v->grad) prefetch_head_write(v->grad, b, h, Tk, C, SHORT_D);
}

// dq of a group's rows (rows r < rows, ld apart in dq): (acc ? dq : 0) + scale * sum_j
// dscore_rj k_j over the group's nmax keys in order (ds: the rows' dscores, Tp apart; a
// short group's missing rows repeat its last, unstored; a row without keys, n[r] = 0, is
// left as it is).
static inline __attribute__((always_inline))
void short_dq_group(const float *ds0, int Tp, int rows, int nmax, const int *n, const float *kh,
                    long C, float *dq, float scale, int acc) {
    const float *ds[SHORT_G];
    for (int r = 0; r < SHORT_G; r++) ds[r] = ds0 + (long)(r < rows ? r : rows - 1) * Tp;
    kernel_vf sum[SHORT_G];
    for (int r = 0; r < SHORT_G; r++) sum[r] = (kernel_vf){0};
    for (int j = 0; j < nmax; j++) {   // k_j in key order, every row of the group
        kernel_vf kv;
        memcpy(&kv, kh + (long)j * C, sizeof kv);
        for (int r = 0; r < SHORT_G; r++) sum[r] += ds[r][j] * kv;
    }
    for (int r = 0; r < rows; r++) {
        if (!n[r]) continue;
        float *g = dq + (long)r * C;
        kernel_vf y = {0};
        if (acc) memcpy(&y, g, sizeof y);
        y += scale * sum[r];
        memcpy(g, &y, sizeof y);
    }
}

// backward_head_short with Tp = 16 NV, a constant where it is inlined.
static inline __attribute__((always_inline))
void backward_head_short_n(const BackwardHeads *hb, int bh, float *vt, int NV) {
    const Node *n = hb->n;
    Tensor *q = n->in[0], *k = n->in[1], *v = n->in[2];
    const AttnArgs *a = n->aux;
    int Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = a->n_heads, D = SHORT_D, Tp = 16 * NV;
    float scale = 1.0f / sqrtf((float)D);
    float *P = n->saved;
    const float *dY = n->out->grad;
    int bias_grad = a->bias && a->bias->grad;
    float keep = a->dropout > 0 ? 1.0f / (1.0f - a->dropout) : 1.0f;
    int b = bh / H, h = bh % H;
    // vt in the thread's scratch (backward_head's first part); the rows' weights and dscores
    // on the stack (24 KB at most), so the arena holds what it holds for backward_head, which
    // the memory estimate counts
    float W[SHORT_TQ * SHORT_TP] __attribute__((aligned(64))), S[SHORT_TQ * SHORT_TP]
        __attribute__((aligned(64))), pa[SHORT_TP] __attribute__((aligned(64)));
    long row0 = (long)b * Tq * C + h * D;   // this head's first query row in q, dy, dq
    const float *kh = k->data + (long)b * Tk * C + h * D;
    const int *key_pad = a->key_pad ? a->key_pad + (long)b * Tk : NULL;
    int n_of[SHORT_TQ];
    transpose_head(v->data, b, h, Tk, C, D, Tp, vt);
    if (bh + 1 < q->shape[0] * H) short_prefetch_next(n, bh + 1);
    for (int i0 = 0; i0 < Tq; i0 += SHORT_G) {
        int rows = Tq - i0 < SHORT_G ? Tq - i0 : SHORT_G, nmax = 0;
        const float *dy[SHORT_G];   // a short group's missing rows repeat its last, unstored
        for (int r = 0; r < SHORT_G; r++)
            dy[r] = dY + row0 + (long)(i0 + (r < rows ? r : rows - 1)) * C;
        for (int r = 0; r < rows; r++) {
            int i = i0 + r, end = causal_end(a, i, Tq, Tk);
            int padding = a->query_pad && a->query_pad[(long)b * Tq + i];
            n_of[i] = padding || end == 0 ? 0 : end;
            if (n_of[i] > nmax) nmax = n_of[i];
        }
        // dp for the group's keys (16 nv of them; a row's own past its last key are unused)
        int nv = round16(nmax) / 16;
        if (nv == 1) short_dp_rows(dy, vt, Tp, S + (long)i0 * Tp, rows, 1);
        else if (nv == 2) short_dp_rows(dy, vt, Tp, S + (long)i0 * Tp, rows, 2);
        else if (nv == 3) short_dp_rows(dy, vt, Tp, S + (long)i0 * Tp, rows, 3);
        for (int r = 0; r < rows; r++) {
            int i = i0 + r, end = n_of[i];
            float *w = W + (long)i * Tp, *dp = S + (long)i * Tp;
            if (!end) {
                memset(w, 0, sizeof(float) * (size_t)Tp);
                memset(dp, 0, sizeof(float) * (size_t)Tp);
                // a padding row's dq was zeroed whole before the heads (kernel_zero_padding_rows)
                if (!(a->query_pad && a->query_pad[(long)b * Tq + i]) && q->grad && !hb->acc_q)
                    memset(q->grad + row0 + (long)i * C, 0, sizeof(float) * D);
                continue;
            }
            float *p = P + ((long)bh * Tq + i) * Tk;
            float f = row_factor(a, key_pad, end);
            probs_backward(p, (long)(Tq - i) * Tk, end, 16 * nv, keep, f, pa, w, dp);
            if (bias_grad) {   // P is not needed again: it carries dscore to the bias reduction
                memcpy(p, dp, sizeof(float) * (size_t)end);
                for (int j = end; j < Tk; j++) p[j] = 0;
            }
        }
        if (q->grad && nmax)
            short_dq_group(S + (long)i0 * Tp, Tp, rows, nmax, n_of + i0, kh, C,
                           q->grad + row0 + (long)i0 * C, scale, hb->acc_q);
    }
    // dv_j = sum_i w_ij dy_i and dk_j = scale * sum_i dscore_ij q_i, the rows in order.
    for (int jv = 0; jv < NV; jv++) {
        if (v->grad)
            short_outer_store(W, Tp, dY + row0, C, n_of, Tq, jv,
                              v->grad + (long)b * Tk * C + h * D, C, Tk, 1.0f, hb->acc_v);
        if (k->grad)
            short_outer_store(S, Tp, q->data + row0, C, n_of, Tq, jv,
                              k->grad + (long)b * Tk * C + h * D, C, Tk, scale, hb->acc_k);
    }
}
static void backward_head_short(const BackwardHeads *hb, int bh, float *vt) {
    int Tp = round16(hb->n->in[1]->shape[1]);
    if (Tp == 16) backward_head_short_n(hb, bh, vt, 1);
    else if (Tp == 32) backward_head_short_n(hb, bh, vt, 2);
    else backward_head_short_n(hb, bh, vt, 3);
}
#else
static int backward_short_fits(int D, int Tp, int Tq) { return 0; }
static void backward_head_short(const BackwardHeads *hb, int bh, float *vt) {}
#endif

static void backward_head(const BackwardHeads *hb, int bh, float *vt) {
    const Node *n = hb->n;
    Tensor *q = n->in[0], *k = n->in[1], *v = n->in[2];
    const AttnArgs *a = n->aux;
    int Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = a->n_heads, D = C / H, Tp = round16(Tk);
    float scale = 1.0f / sqrtf((float)D);
    float *P = n->saved;
    const float *dY = n->out->grad;
    int bias_grad = a->bias && a->bias->grad;
    float keep = a->dropout > 0 ? 1.0f / (1.0f - a->dropout) : 1.0f;
    int acc_q = hb->acc_q, acc_k = hb->acc_k, acc_v = hb->acc_v;
    enum { R = ATTN_ROW_BLOCK };
    int b = bh / H, h = bh % H;
    float *dk = vt + (long)D * Tp, *dv = dk + (long)D * Tk, *blk = dv + (long)D * Tk;
    float *dq = blk + 3L * R * Tp;
    const float *kh = k->data + (long)b * Tk * C + h * D;
    transpose_head(v->data, b, h, Tk, C, D, Tp, vt);
    if (bh + 1 < n->in[0]->shape[0] * H) {   // the next head's rows
        int b1 = (bh + 1) / H, h1 = (bh + 1) % H;
        prefetch_head(v->data, b1, h1, Tk, C, D);
        prefetch_head(k->data, b1, h1, Tk, C, D);
        prefetch_head(q->data, b1, h1, Tq, C, D);
        prefetch_head(dY, b1, h1, Tq, C, D);
        if (q->grad) prefetch_head_write(q->grad, b1, h1, Tq, C, D);
        if (k->grad) prefetch_head_write(k->grad, b1, h1, Tk, C, D);
        if (v->grad) prefetch_head_write(v->grad, b1, h1, Tk, C, D);
    }
    memset(dk, 0, sizeof(float) * 2 * (size_t)D * Tk);
    for (int i0 = 0; i0 < Tq; i0 += R) {
        // The block's rows; a row without keys (padding, none visible) gets n = 0.
        float *w_of[R], *dp_of[R], *dq_of[R];
        const float *dy_of[R], *q_of[R];
        int n_of[R], n16_of[R], rows = Tq - i0 < R ? Tq - i0 : R;
        for (int r = 0; r < rows; r++) {
            int i = i0 + r, end = causal_end(a, i, Tq, Tk);
            dp_of[r] = blk + (long)r * 3 * Tp + Tp;
            w_of[r] = dp_of[r] + Tp;
            dq_of[r] = dq + (long)r * D;
            dy_of[r] = dY + ((long)b * Tq + i) * C + h * D;
            q_of[r] = q->data + ((long)b * Tq + i) * C + h * D;
            int padding = a->query_pad && a->query_pad[(long)b * Tq + i];
            n_of[r] = padding || end == 0 ? 0 : end;
            n16_of[r] = round16(n_of[r]);
            // a padding row's dq was zeroed whole before the heads (kernel_zero_padding_rows)
            if (!padding && end == 0 && q->grad && !acc_q)
                memset(q->grad + ((long)b * Tq + i) * C + h * D, 0, sizeof(float) * (size_t)D);
        }
        // y = sum_j w_j v_j, w_j = p_j * (0 if dropped, else 1/(1-dropout)):
        // dw_j = dy . v_j, dv_j += w_j dy, dp_j = dw_j * (w_j / p_j)
        row_times_rows(dy_of, vt, D, Tp, n16_of, rows, dp_of);
        for (int r = 0; r < rows; r++) {
            int end = n_of[r];
            if (end == 0) continue;   // a constant row, P row 0
            float *p = P + ((long)bh * Tq + i0 + r) * Tk, *pa = dp_of[r] - Tp, *dp = dp_of[r],
                  *w = w_of[r];
            float f = row_factor(a, a->key_pad ? a->key_pad + (long)b * Tk : NULL, end);
            probs_backward(p, (long)(Tq - i0 - r) * Tk, end, n16_of[r], keep, f, pa, w, dp);
            if (bias_grad) {   // P is not needed again: it carries dscore to the bias reduction
                memcpy(p, dp, sizeof(float) * (size_t)end);
                for (int j = end; j < Tk; j++) p[j] = 0;
            }
        }
        if (q->grad) {   // dq = scale * sum_j dscore_j k_j
            weighted_rows_rows(dp_of, n_of, rows, kh, C, D, dq_of);
            for (int r = 0; r < rows; r++)
                if (n_of[r])
                    head_grad_store(q->grad + ((long)b * Tq + i0 + r) * C + h * D, C, dq_of[r],
                                    1, D, scale, acc_q);
        }
        // dv_j += w_j dy and dk_j += dscore_j q over the block's rows, in row order.
        if (v->grad) add_outer_rows(dv, w_of, dy_of, n_of, rows, D);
        if (k->grad) add_outer_rows(dk, dp_of, q_of, n_of, rows, D);
    }
    if (k->grad)
        head_grad_store(k->grad + (long)b * Tk * C + h * D, C, dk, Tk, D, scale, acc_k);
    if (v->grad) head_grad_store(v->grad + (long)b * Tk * C + h * D, C, dv, Tk, D, 1.0f, acc_v);
}

static void attention_backward(const Node *n) {
    Tensor *q = n->in[0], *k = n->in[1], *v = n->in[2];
    const AttnArgs *a = n->aux;
    int B = q->shape[0], Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = a->n_heads, D = C / H, Tp = round16(Tk);
    float *P = n->saved;
    int bias_grad = a->bias && a->bias->grad;
    int fork = kernel_fork((long)B * H * Tq * Tk * D > KERNEL_PARALLEL_WORK);
    int threads = omp_get_max_threads();
    // Per thread: values transposed (D,Tp); dK and dV of the head (Tk,D); for each row of a
    // block, rows of probabilities, dP and weights (Tp) and dq (D).
    enum { R = ATTN_ROW_BLOCK };
    long per_thread = (long)D * Tp + 2L * D * Tk + 3L * R * Tp + (long)R * D;
    int short_heads = backward_short_fits(D, Tp, Tq);
    float *scratch = arena_alloc(tensor_arena(), sizeof(float) * (size_t)threads * per_thread);
    // Each (batch, head) writes its own block of dq, dk and dv whole: the first writer of a
    // gradient assigns. Rows of dq that get nothing (padding, no visible key) are zeroed.
    BackwardHeads hb = {n, q->grad && grad_accumulates(q), k->grad && grad_accumulates(k),
                        v->grad && grad_accumulates(v)};
    if (q->grad && !hb.acc_q && a->query_pad)
        kernel_zero_padding_rows(q->grad, a->query_pad, (long)B * Tq, C);
    KERNEL_PARALLEL_FOR(fork, schedule(dynamic),
        for (int bh = 0; bh < B * H; bh++)
            if (short_heads) backward_head_short(&hb, bh, scratch + (fork ? omp_get_thread_num() : 0) * per_thread);
            else backward_head(&hb, bh, scratch + (fork ? omp_get_thread_num() : 0) * per_thread);
    );
    if (bias_grad) {  // the bias is shared by the batch: sum over b in a fixed order
        long per_b = (long)H * Tq * Tk;
        int acc = grad_accumulates(a->bias);
        float *dbias = a->bias->grad;
        KERNEL_PARALLEL_FOR(per_b * B > KERNEL_PARALLEL_WORK, schedule(static),
            for (long e = 0; e < per_b; e++) {
                float s = 0;
                for (int b = 0; b < B; b++) s += P[(long)b * per_b + e];
                dbias[e] = (acc ? dbias[e] : 0.0f) + s;
            }
        );
    }
}

// ---- heads of 16 without a bias or temperature: 16 query rows a vector -------------------
//
// At D = 16 and a few dozen keys a row's softmax is a chain of dependent steps (scale and
// mask, a max over lanes, the exponentials, a sum over lanes, a divide) longer than the row's
// arithmetic, and a head's rows ran one chain after the other. Here the lanes of a vector are
// 16 query rows and every step is vertical: the vector of key j holds the 16 rows' scores of
// key j, and a row's reductions over keys are element-wise operations between key vectors.
// kernel_max's and kernel_sum's lanes (key j goes to lane j mod 16) become 16 vectors of
// partial maxima and sums, and their trees (lane l with lane l + 8, 4, 2, 1) vector
// operations between those, so every row gets the general path's operations in the same
// order: the same bits (test_ops pins the two; attn_short_heads = 0 takes the general path).
// Per group of 16 rows: the queries transposed in registers; the scores of each key (q.k over
// e ascending from 0, scaled, masked) into the scratch; the max; the exponentials and their
// sum; the probabilities, dropout weights and saved P (16 keys at a time transposed back into
// rows); the weighted sum of v's rows (a row adds key j only below its end, as
// weighted_cols), transposed back into rows. Keys past the group's last visible one are
// masked in every row, so they are left out (-inf and 0 change no max or sum).
int attn_short_heads = 1;
#if KERNEL_VL == 16
typedef uint64_t lanes_u64 __attribute__((vector_size(8 * sizeof(uint64_t))));

static inline __attribute__((always_inline)) lanes_u64 lanes_mix(lanes_u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;   // util/hash.h's splitmix64_mix
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// -1 in lane l where hash_uniform(seed, index[l]) >= p (index in two halves of 8), else 0, for
// threshold = ceil(p 2^24): hash_uniform is (h >> 40) / 2^24 exactly, which is >= p where the
// integer h >> 40 is >= p 2^24.
static inline __attribute__((always_inline))
attn_veci lanes_kept(uint64_t seed, lanes_u64 lo, lanes_u64 hi, uint64_t threshold) {
    lo = lanes_mix(seed ^ lanes_mix(lo + 0x632BE59BD9B4E019ull));
    hi = lanes_mix(seed ^ lanes_mix(hi + 0x632BE59BD9B4E019ull));
    // the two halves' 64-bit masks, their low words side by side by one permute (copied as two
    // halves through memory, a vector load waited on two smaller stores it could not forward)
    static const attn_veci low_words = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
    return __builtin_shuffle((attn_veci)((lo >> 40) >= threshold),
                             (attn_veci)((hi >> 40) >= threshold), low_words);
}

// a where m is -1, b where it is 0
static inline __attribute__((always_inline)) attn_vec lanes_select(attn_veci m, attn_vec a,
                                                                   attn_vec b) {
    return (attn_vec)(((attn_veci)a & m) | ((attn_veci)b & ~m));
}

// Lanes 0..n-1 of t into p: the whole vector, or store_prefix's pieces.
static inline __attribute__((always_inline))
void lanes_store(float *restrict p, attn_vec t, int n) {
    if (n >= 16) memcpy(p, &t, sizeof t);
    else store_prefix(p, (const float *)&t, n);
}

// One head of forward_head_lanes: its rows in q, k, v, out (C apart), of P and probs (Tk
// apart; NULL: not written), its key and query padding (NULL: none).
typedef struct {
    const float *qh, *kh, *vh;
    float *yh, *Ph, *probs;
    const int *pad, *qpad;
    const AttnArgs *args;
    int Tq, Tk, C, bh;
} LanesHead;

// Scores of the group of rows i0.. (endv: each row's keys; nmax: the most) into sj[j] (key j's
// 16 rows), then their exponentials; *inv the rows' 1 / sum, *alive the rows with a key that
// is not masked. t: scratch for the transposed queries.
static inline __attribute__((always_inline))
void lanes_exponentials(const LanesHead *L, int i0, int rows, attn_veci endv, int nmax,
                        attn_vec *sj, attn_vec t[16], attn_vec *inv, attn_veci *alive) {
    enum { D = 16 };
    attn_vec neg_inf, zero = {0}, part[16];
    for (int l = 0; l < 16; l++) neg_inf[l] = -INFINITY;
    float scale = 1.0f / sqrtf((float)D);
    for (int l = 0; l < 16; l++)   // the queries (rows past Tq read the last one), then q^T
        memcpy(&t[l], L->qh + (long)(i0 + (l < rows ? l : rows - 1)) * L->C, sizeof t[l]);
    kernel_transpose(t);
    for (int j = 0; j < nmax; j++) {   // scores: row_times_cols, then scores_to_probs_n
        const float *kj = L->kh + (long)j * L->C;
        attn_vec s = zero;
        for (int e = 0; e < D; e++) s += kj[e] * t[e];
        s *= scale;
        attn_veci dead = j >= endv;
        if (L->pad && L->pad[j]) dead = (attn_veci){0} - 1;
        sj[j] = lanes_select(dead, neg_inf, s);
    }
    for (int l = 0; l < 16; l++) part[l] = neg_inf;   // kernel_max's lanes, then its tree
    for (int j = 0; j < nmax; j++)
        part[j % 16] = lanes_select(sj[j] > part[j % 16], sj[j], part[j % 16]);
    for (int w = 8; w; w /= 2)
        for (int l = 0; l < w; l++)
            part[l] = lanes_select(part[l + w] > part[l], part[l + w], part[l]);
    attn_vec m = part[0];
    for (int l = 0; l < 16; l++) part[l] = zero;
    for (int j = 0; j < nmax; j++) {   // exponentials in kernel_sum's lanes, then its tree
        for (int l = 0; l < 16; l++) sj[j][l] = kernel_expf(sj[j][l] - m[l]);
        part[j % 16] += sj[j];
    }
    for (int w = 8; w; w /= 2)
        for (int l = 0; l < w; l++) part[l] += part[l + w];
    *inv = 1.0f / part[0];
    *alive = m != neg_inf;   // a row with every key masked: probabilities 0
}

// The group's probabilities (sj * inv), dropout weights (into sj) and saved P, probs: 16 keys
// at a time transposed back into rows; P and probs 0 past the keys and in rows without keys.
static inline __attribute__((always_inline))
void lanes_weights(const LanesHead *L, int i0, int rows, attn_veci endv, int nmax, attn_vec *sj,
                   attn_vec inv, attn_veci alive) {
    const AttnArgs *args = L->args;
    int Tq = L->Tq, Tk = L->Tk;
    attn_vec zero = {0}, sign_bit = (attn_vec)((attn_veci){0} + (int)0x80000000u);
    float keep = 1.0f / (1.0f - args->dropout);
    uint64_t threshold = (uint64_t)ceilf(args->dropout * 16777216.0f);
    lanes_u64 index_lo, index_hi;     // row i0 + l's first hash index: drop_weights'
    for (int l = 0; l < 8; l++) {
        index_lo[l] = (uint64_t)(((long)L->bh * Tq + i0 + l) * Tk);
        index_hi[l] = (uint64_t)(((long)L->bh * Tq + i0 + 8 + l) * Tk);
    }
    for (int j0 = 0; j0 < nmax; j0 += 16) {   // 16 keys: probabilities, weights, P
        attn_vec t[16], pr[16];
        for (int jj = 0; jj < 16; jj++) {
            int j = j0 + jj;
            if (j >= nmax) { t[jj] = pr[jj] = zero; continue; }
            attn_vec p = (attn_vec)((attn_veci)(sj[j] * inv) & alive), w = p;
            if (args->dropout > 0) {   // drop_weights: (kept ? 1/(1-p) : 0) * s
                attn_veci kept = lanes_kept(args->seed, index_lo + (uint64_t)j,
                                            index_hi + (uint64_t)j, threshold);
                w = (attn_vec)((attn_veci)(zero + keep) & kept) * p;
            }
            sj[j] = w;
            attn_veci live = j < endv;   // probs_save: the sign marks a dropped weight
            attn_vec flagged = (attn_vec)((attn_veci)p ^ (attn_veci)sign_bit);
            t[jj] = (attn_vec)((attn_veci)lanes_select(w == 0, flagged, p) & live);
            pr[jj] = (attn_vec)((attn_veci)p & live);
        }
        int n = Tk - j0;
        if (L->Ph) {
            kernel_transpose(t);
            for (int l = 0; l < rows; l++)
                if (endv[l] > 0) lanes_store(L->Ph + (long)(i0 + l) * Tk + j0, t[l], n);
        }
        if (L->probs) {
            kernel_transpose(pr);
            for (int l = 0; l < rows; l++)
                if (endv[l] > 0) lanes_store(L->probs + (long)(i0 + l) * Tk + j0, pr[l], n);
        }
    }
    int done = (nmax + 15) / 16 * 16;   // P past the keys above, and rows without keys: 0
    for (int l = 0; l < rows; l++) {
        if (L->qpad && L->qpad[i0 + l]) continue;
        int from = endv[l] > 0 ? done : 0;
        if (from >= Tk) continue;
        size_t bytes = sizeof(float) * (size_t)(Tk - from);
        if (L->Ph) memset(L->Ph + (long)(i0 + l) * Tk + from, 0, bytes);
        if (L->probs) memset(L->probs + (long)(i0 + l) * Tk + from, 0, bytes);
    }
}

// The group's outputs: weighted_cols, j ascending below each row's end; below the shortest
// row with keys no row is tested (a row without keys, whose weights are 0, is stored as 0).
static inline __attribute__((always_inline))
void lanes_outputs(const LanesHead *L, int i0, int rows, attn_veci endv, int nmax,
                   const attn_vec *sj) {
    enum { D = 16 };
    attn_vec t[16], zero = {0};
    int nmin = nmax;
    for (int l = 0; l < rows; l++)
        if (endv[l] > 0 && endv[l] < nmin) nmin = endv[l];
    for (int e = 0; e < D; e++) t[e] = zero;
    int j = 0;
    for (; j < nmin; j++) {
        const float *vj = L->vh + (long)j * L->C;
        attn_vec w = sj[j];
        for (int e = 0; e < D; e++) t[e] += w * vj[e];
    }
    for (; j < nmax; j++) {
        const float *vj = L->vh + (long)j * L->C;
        attn_veci use = j < endv;
        attn_vec w = sj[j];
        for (int e = 0; e < D; e++) t[e] = lanes_select(use, t[e] + w * vj[e], t[e]);
    }
    kernel_transpose(t);
    for (int l = 0; l < rows; l++)
        memcpy(L->yh + (long)(i0 + l) * L->C, endv[l] > 0 ? &t[l] : &zero, sizeof t[l]);
}

// The forward of (batch, head) bh at D = 16 without bias or temperature (forward_head's
// contract); scratch: Tp vectors of 16 floats (the arena's 64-byte alignment: whole vectors).
static void forward_head_lanes(const Tensor *q, const Tensor *k, const Tensor *v, Tensor *out,
                               float *P, const AttnArgs *args, int bh, float *scratch) {
    enum { D = 16 };
    int B = q->shape[0], Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = args->n_heads, b = bh / H, h = bh % H;
    LanesHead L = {
        q->data + (long)b * Tq * C + h * D, k->data + (long)b * Tk * C + h * D,
        v->data + (long)b * Tk * C + h * D, out->data + (long)b * Tq * C + h * D,
        P ? P + (long)bh * Tq * Tk : NULL,
        args->probs ? args->probs + (long)bh * Tq * Tk : NULL,
        args->key_pad ? args->key_pad + (long)b * Tk : NULL,
        args->query_pad ? args->query_pad + (long)b * Tq : NULL, args, Tq, Tk, C, bh};
    attn_vec *sj = (attn_vec *)scratch;   // key j's 16 rows: scores, exponentials, weights
    if (bh + 1 < B * H) {   // the next head's rows
        prefetch_head(k->data, (bh + 1) / H, (bh + 1) % H, Tk, C, D);
        prefetch_head(q->data, (bh + 1) / H, (bh + 1) % H, Tq, C, D);
        prefetch_head(v->data, (bh + 1) / H, (bh + 1) % H, Tk, C, D);
        prefetch_head_write(out->data, (bh + 1) / H, (bh + 1) % H, Tq, C, D);
    }
    if (L.qpad && L.probs) kernel_zero_padding_rows(L.probs, L.qpad, Tq, Tk);   // as forward_head
    for (int i0 = 0; i0 < Tq; i0 += 16) {
        int rows = Tq - i0 < 16 ? Tq - i0 : 16, nmax = 0;
        attn_veci endv;   // lane l: row i0 + l's keys (0: padding, or past Tq)
        for (int l = 0; l < 16; l++) {
            int i = i0 + l;
            endv[l] = l < rows && !(L.qpad && L.qpad[i]) ? causal_end(args, i, Tq, Tk) : 0;
            if (endv[l] > nmax) nmax = endv[l];
        }
        if (nmax == 0) {   // no row with a key (a sequence's padding): outputs 0, P and probs 0
            for (int l = 0; l < rows; l++) {
                memset(L.yh + (long)(i0 + l) * C, 0, sizeof(float) * D);
                if (L.qpad && L.qpad[i0 + l]) continue;
                if (L.Ph) memset(L.Ph + (long)(i0 + l) * Tk, 0, sizeof(float) * (size_t)Tk);
                if (L.probs) memset(L.probs + (long)(i0 + l) * Tk, 0, sizeof(float) * (size_t)Tk);
            }
            continue;
        }
        attn_vec t[16], inv;
        attn_veci alive;
        lanes_exponentials(&L, i0, rows, endv, nmax, sj, t, &inv, &alive);
        lanes_weights(&L, i0, rows, endv, nmax, sj, inv, alive);
        lanes_outputs(&L, i0, rows, endv, nmax, sj);
    }
}
#endif

// The forward of (batch, head) bh: its rows of out (and of P, args->probs), with the
// thread's scratch kt (op_attention).
static void forward_head(const Tensor *q, const Tensor *k, const Tensor *v, Tensor *out, float *P,
                         const AttnArgs *args, int bh, float *kt) {
    int B = q->shape[0], Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = args->n_heads, D = C / H, Tp = round16(Tk);
    float scale = 1.0f / sqrtf((float)D);
    const float *bias = args->bias ? args->bias->data : NULL;
    enum { R = ATTN_ROW_BLOCK };
    int b = bh / H, h = bh % H;
    float *blk = kt + (long)D * Tp;
    const int *pad = args->key_pad ? args->key_pad + (long)b * Tk : NULL;
    transpose_head(k->data, b, h, Tk, C, D, Tp, kt);
    if (bh + 1 < B * H) {   // the next head's rows
        prefetch_head(k->data, (bh + 1) / H, (bh + 1) % H, Tk, C, D);
        prefetch_head(q->data, (bh + 1) / H, (bh + 1) % H, Tq, C, D);
        prefetch_head(v->data, (bh + 1) / H, (bh + 1) % H, Tk, C, D);
        prefetch_head_write(out->data, (bh + 1) / H, (bh + 1) % H, Tq, C, D);
    }
    if (args->query_pad) {   // a padding query's row of probs is 0, and of P where it is read
        const int *qpad = args->query_pad + (long)b * Tq;
        // the backward skips a padding row of P; only the bias's gradient sums every row
        if (P && args->bias && args->bias->grad)
            kernel_zero_padding_rows(P + (long)bh * Tq * Tk, qpad, Tq, Tk);
        if (args->probs) kernel_zero_padding_rows(args->probs + (long)bh * Tq * Tk, qpad, Tq, Tk);
    }
    for (int i0 = 0; i0 < Tq; i0 += R) {
        // The block's rows; a padding query gets n = 0 and an output row of zeros.
        float *s_of[R], *w_of[R], *y_of[R];
        const float *q_of[R];
        int rows = Tq - i0 < R ? Tq - i0 : R, n_of[R], n16_of[R];
        for (int r = 0; r < rows; r++) {
            int i = i0 + r;
            s_of[r] = blk + (long)r * 2 * Tp;
            q_of[r] = q->data + ((long)b * Tq + i) * C + h * D;
            y_of[r] = out->data + ((long)b * Tq + i) * C + h * D;
            n_of[r] = causal_end(args, i, Tq, Tk);
            // padding: nothing to attend (its rows of probs, and of P if read, zeroed above)
            if (args->query_pad && args->query_pad[(long)b * Tq + i]) n_of[r] = 0;
            n16_of[r] = round16(n_of[r]);
        }
        row_times_rows(q_of, kt, D, Tp, n16_of, rows, s_of);
        for (int r = 0; r < rows; r++) {
            int i = i0 + r, end = n_of[r], end16 = n16_of[r];
            float *s = s_of[r], *ds = s + Tp;
            w_of[r] = s;
            if (args->query_pad && args->query_pad[(long)b * Tq + i]) continue;
            const float *bi = bias ? bias + ((long)h * Tq + i) * Tk : NULL;
            scores_to_probs(s, end, end16,
                            bias ? (long)H * Tq * Tk - ((long)h * Tq + i) * Tk : 0, scale, bi,
                            row_factor(args, pad, end), pad, (long)(B - b) * Tk);
            if (args->probs) {
                float *p = args->probs + ((long)bh * Tq + i) * Tk;
                memcpy(p, s, sizeof(float) * (size_t)end);
                for (int j = end; j < Tk; j++) p[j] = 0;
            }
            if (args->dropout > 0) {
                drop_weights(args, ((long)bh * Tq + i) * Tk, end16, s, ds);
                w_of[r] = ds;
            }
            if (P) probs_save(P + ((long)bh * Tq + i) * Tk, s, w_of[r], end, end16, Tk);
        }
        // y = sum_j w_j v_j; a padding row (n = 0) is written as zeros again.
        weighted_rows_rows(w_of, n_of, rows, v->data + (long)b * Tk * C + h * D, C, D, y_of);
    }
}

Tensor *op_attention(Tensor *q, Tensor *k, Tensor *v, const AttnArgs *args) {
    int B = q->shape[0], Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = args->n_heads, D = C / H, Tp = round16(Tk);
    if (q->ndim != 3 || k->ndim != 3 || v->ndim != 3 || C % H || k->shape[2] != C ||
        v->shape[2] != C || k->shape[0] != B || v->shape[0] != B || v->shape[1] != Tk ||
        (args->bias && (args->bias->size != (long)H * Tq * Tk))) {
        fprintf(stderr, "op_attention: shapes do not match\n");
        abort();
    }
    int grad = tape_needs_grad(q, k, v) || (tape_enabled() && args->bias && args->bias->grad);
    Tensor *out = tensor_new(3, q->shape, grad);
    float *P = grad ? arena_alloc(tensor_arena(), sizeof(float) * (size_t)B * H * Tq * Tk) : NULL;
    int fork = kernel_fork((long)B * H * Tq * Tk * D > KERNEL_PARALLEL_WORK);
    int threads = omp_get_max_threads();
    // Per thread: keys transposed (D,Tp); for each row of a block, a row of scores and one of
    // weights (Tp).
    enum { R = ATTN_ROW_BLOCK };
    long per_thread = (long)D * Tp + 2L * R * Tp;
    float *scratch = arena_alloc(tensor_arena(), sizeof(float) * (size_t)threads * per_thread);
    void (*head)(const Tensor *, const Tensor *, const Tensor *, Tensor *, float *,
                 const AttnArgs *, int, float *) = forward_head;
#if KERNEL_VL == 16
    if (attn_short_heads && D == 16 && Tp <= 64 && !args->bias && args->logit_train_length <= 0)
        head = forward_head_lanes;
#endif
    KERNEL_PARALLEL_FOR(fork, schedule(dynamic),
        for (int bh = 0; bh < B * H; bh++)
            head(q, k, v, out, P, args, bh,
                 scratch + (fork ? omp_get_thread_num() : 0) * per_thread);
    );
    if (grad) {
        AttnArgs *saved = arena_alloc(tensor_arena(), sizeof *saved);
        *saved = *args;
        saved->probs = NULL;
        if (args->key_pad) saved->key_pad = tape_save_ints(args->key_pad, (long)B * Tk);
        if (args->query_pad) saved->query_pad = tape_save_ints(args->query_pad, (long)B * Tq);
        Node *n = tape_record("attention", attention_backward, out, q, k, v);
        n->in[3] = args->bias;
        n->aux = saved;
        n->saved = P;
    }
    return out;
}
