// Packed, register-tiled matrix product (the GotoBLAS/BLIS scheme, one level of it):
//   1. pack B into column panels of NR columns, each (K, NR) contiguous (zero-padded at the
//      edge), and a transposed A into row panels of MR rows, each (K, MR) contiguous, once
//      per call and in parallel (row-major A is read in place, see gemm_tile; with the
//      flat tile short rows of either operand too, see IN_PLACE_LD);
//   2. split C into tiles of NC columns by MC rows (on one thread all M rows when K x NC is
//      large, see gemm_rows; fewer rows with several threads if needed for 4 tiles a
//      thread), and hand them to the threads (dynamic schedule: a thread slowed by another
//      process takes fewer tiles); in a tile, for each block of KC values of k, the tile's
//      KC x NC block of B stays in L2 while every row of the tile passes it, each A panel
//      (MR x KC) in L1 while the B panels stream from L2 (the BLIS order for a kernel that
//      broadcasts A);
//   3. the micro-kernel keeps an MR x NR block of C in vector registers and does MR*NR/VL
//      fused multiply-adds per k.
// Any transpose is just a stride, handled while packing, so no op transposes a matrix.
// KC, MC_PANELS and NC_PANELS can be set with -D to try other blockings; KC changes the
// rounding of accumulating products (C + s is formed after the first k block).
#include "core/kernels.h"
#include <math.h>
#include <omp.h>
#include <string.h>
#include "core/arena.h"

// Vector width and register tiles: 8 x 48 uses 24 of the 32 AVX-512 registers for C, 3 for
// a row of B and 1 for the broadcast A value: 11 loads per 24 fused multiply-adds, where
// 12 x 32 needs 14, so the wide products run faster; 12 x 32 stays for products whose N it
// pads less (the toy widths, such as N = 14, where 48-column tiles are mostly padding), and
// 6 x 64 (flat: 24 registers for C, 4 for B; 10 loads per 24) takes the multiples of 64 that
// 48 pads (64, 128, 256: no padding, and 6 rows pad M = 64 to 66 where 12 padded it to 72).
// 6 x 16 uses 12 of the 16 AVX2 registers. Other targets get the AVX2 shape.
// Columns per tile, NC_PANELS register tiles: 8 x 48 = 384 with AVX-512. With AVX2, 4 x 16 =
// 64: every row tile reads the tile's column of B panels (K x NC) again, after its own rows of
// A (96 x K) have passed through L2, and in a 512 KiB L2 (Zen 3) 64 columns at K = 768
// (192 KiB) fit beside them where 128 (384 KiB) do not. The measurements of both choices are
// in docs/performance.md.
//
// Stored rows of a transposed A packed at once, PACK_A_K (pack_a): the panels a group writes
// lie MR x K floats apart, a multiple of 4 KiB for K = 1024 (the dW products), so one k's
// MR floats of every panel fall in the same L1 set and evict each other; PACK_A_K = 16 writes
// 16 k's of a panel (6 lines with AVX2, 8 with AVX-512) before the next, which speeds up the
// dW products with either vector width (docs/performance.md). Any order writes the same
// values.
#define PACK_A_K 16
#define VL KERNEL_VL
#if defined(__AVX512F__)
#define NC_PANELS_DEFAULT 8
#else
#define NC_PANELS_DEFAULT 4
#endif
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MR_MAX GEMM_NARROW_MR
#define NR_MAX MAX(GEMM_WIDE_NR, GEMM_FLAT_NR)
#define NV_MAX (NR_MAX / VL)    // vectors per row of the widest tile
// floats of the largest tile (an edge tile is worked on in a copy of this size)
#define TILE_FLOATS_MAX MAX(MAX(GEMM_WIDE_MR * GEMM_WIDE_NR, GEMM_NARROW_MR * GEMM_NARROW_NR), \
                            GEMM_FLAT_MR * GEMM_FLAT_NR)
#ifndef KC
#define KC 384
#endif
#ifndef MC_PANELS
#define MC_PANELS 16    // rows per tile with several threads = 16 * the register tile's rows
#endif
#ifndef TALL_B_FLOATS
#define TALL_B_FLOATS (256L * 1024)   // a column of B panels past this (1 MiB): full-height tiles
#endif
#ifndef NC_PANELS
#define NC_PANELS NC_PANELS_DEFAULT
#endif

typedef kernel_vf vfloat;

// Unaligned vector load and store (macros: a function returning a vector would change the
// ABI on targets without the vector width).
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(vfloat))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(vfloat))

enum { SET, ADD, CONTINUE };   // C = s; C = C + s; s starts from C (a later k block)

// c (mr, nv*VL) with leading dimension ldc from kc steps of A, element (r, k) at
// a[r*ars + k*acs] (a packed panel: ars = 1, acs = mr; rows of a row-major matrix: ars = lda,
// acs = 1; columns of one, a transposed A read in place: ars = 1, acs = lda), and kc rows of
// nv*VL columns of B, ldb apart (a packed panel: ldb = nv*VL). mr and nv are constants in
// every caller (inlined), so the loops unroll and acc lives in registers.
static inline __attribute__((always_inline)) void
micro_body(int mr, int nv, int kc, const float *restrict a, long ars, long acs,
           const float *restrict b, long ldb, float *restrict c, long ldc, int mode,
           const float *bias) {
    vfloat acc[MR_MAX][NV_MAX];
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < nv; v++) {
            if (mode == CONTINUE) VLOAD(acc[r][v], c + r * ldc + v * VL);
            else acc[r][v] = (vfloat){0};
        }
    // Unrolled by 4: fewer loop-counter and pointer updates among the loads and FMAs
    // (faster on the d = 768 products, docs/performance.md; the order of each sum is
    // unchanged).
    #pragma GCC unroll 4
    for (int k = 0; k < kc; k++) {
        vfloat bk[NV_MAX];
        for (int v = 0; v < nv; v++) VLOAD(bk[v], b + k * ldb + v * VL);
        const float *ak = a + k * acs;
        for (int r = 0; r < mr; r++) {
            float ar = ak[r * ars];
            for (int v = 0; v < nv; v++) acc[r][v] += ar * bk[v];
        }
    }
    vfloat bias_v[NV_MAX];
    for (int v = 0; v < nv; v++) {
        bias_v[v] = (vfloat){0};
        if (bias) VLOAD(bias_v[v], bias + v * VL);
    }
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < nv; v++) {
            if (mode == ADD) {
                vfloat cv;
                VLOAD(cv, c + r * ldc + v * VL);
                acc[r][v] = cv + acc[r][v];
            }
            if (bias) acc[r][v] += bias_v[v];
            VSTORE(c + r * ldc + v * VL, acc[r][v]);
        }
}

// The three tiles, each from a packed A panel or from rows of a row-major A (lda apart).
#define WIDE_NV (GEMM_WIDE_NR / VL)
#define NARROW_NV (GEMM_NARROW_NR / VL)
#define FLAT_NV (GEMM_FLAT_NR / VL)
static void micro_packed_wide(int kc, const float *a, const float *b, float *c, long ldc, int mode,
                              const float *bias) {
    micro_body(GEMM_WIDE_MR, WIDE_NV, kc, a, 1, GEMM_WIDE_MR, b, GEMM_WIDE_NR, c, ldc, mode, bias);
}
static void micro_rows_wide(int kc, const float *a, long lda, const float *b, float *c, long ldc,
                            int mode, const float *bias) {
    micro_body(GEMM_WIDE_MR, WIDE_NV, kc, a, lda, 1, b, GEMM_WIDE_NR, c, ldc, mode, bias);
}
static void micro_packed_narrow(int kc, const float *a, const float *b, float *c, long ldc,
                                int mode, const float *bias) {
    micro_body(GEMM_NARROW_MR, NARROW_NV, kc, a, 1, GEMM_NARROW_MR, b, GEMM_NARROW_NR, c, ldc, mode,
               bias);
}
static void micro_rows_narrow(int kc, const float *a, long lda, const float *b, float *c, long ldc,
                              int mode, const float *bias) {
    micro_body(GEMM_NARROW_MR, NARROW_NV, kc, a, lda, 1, b, GEMM_NARROW_NR, c, ldc, mode, bias);
}
// The flat tile also reads B in place (ldb: its row stride; see gemm_rows) and a transposed
// A in place (micro_cols_flat).
static void micro_packed_flat(int kc, const float *a, const float *b, long ldb, float *c, long ldc,
                              int mode, const float *bias) {
    micro_body(GEMM_FLAT_MR, FLAT_NV, kc, a, 1, GEMM_FLAT_MR, b, ldb, c, ldc, mode, bias);
}
static void micro_rows_flat(int kc, const float *a, long lda, const float *b, long ldb, float *c,
                            long ldc, int mode, const float *bias) {
    micro_body(GEMM_FLAT_MR, FLAT_NV, kc, a, lda, 1, b, ldb, c, ldc, mode, bias);
}
static void micro_cols_flat(int kc, const float *a, long lda, const float *b, long ldb, float *c,
                            long ldc, int mode, const float *bias) {
    micro_body(GEMM_FLAT_MR, FLAT_NV, kc, a, 1, lda, b, ldb, c, ldc, mode, bias);
}

// dst[k * ldd + c] = src[c * lds + k] for k, c < VL: a VL x VL block transposed in registers.
static inline __attribute__((always_inline)) void transpose_block(const float *src, long lds,
                                                                  float *dst, long ldd) {
    vfloat row[VL];
    for (int c = 0; c < VL; c++) VLOAD(row[c], src + c * lds);
    kernel_transpose(row);
    for (int k = 0; k < VL; k++) VSTORE(dst + k * ldd, row[k]);
}

// Column panels jp0..jp1-1 of B, NR columns each: panel p at Bp + p*NR*K holds
// dst[k*NR + c] = B(k, p*NR + c), zero past column N.
static inline __attribute__((always_inline)) void pack_b(MatView B, int N, int K, int jp0, int jp1,
                                                         int NR, float *Bp) {
    for (int p = jp0; p < jp1; p++)
        if (N - p * NR < NR) memset(Bp + (long)p * NR * K, 0, sizeof(float) * (size_t)K * NR);
    if (B.cs == 1) {   // k outer across the panels: each row of B is read once, contiguously
        for (int k = 0; k < K; k++)
            for (int p = jp0; p < jp1; p++) {
                int j0 = p * NR, nc = N - j0 < NR ? N - j0 : NR;
                float *dst = Bp + (long)p * NR * K + (long)k * NR;
                const float *src = B.p + k * B.rs + j0;
                // A whole panel row is a copy of constant size, which the compiler makes a
                // few vector moves: through memcpy's call and size dispatch, the dW products
                // of the small models (K = the batch's tokens, N = 64) spent a tenth of their
                // time in these calls (docs/performance.md).
                if (nc == NR) memcpy(dst, src, sizeof(float) * NR);
                else          memcpy(dst, src, sizeof(float) * nc);
            }
    } else {
        // per panel, k outer: contiguous writes, and NR read streams that each advance by B.rs
        for (int p = jp0; p < jp1; p++) {
            int j0 = p * NR, nc = N - j0 < NR ? N - j0 : NR, k = 0;
            const float *src = B.p + j0 * B.cs;
            float *dst = Bp + (long)p * NR * K;
            // A transposed row-major B (W^T in op_linear's forward: rs = 1) in VL x VL blocks:
            // one element at a time made this packing a visible part of the forward products.
            if (B.rs == 1 && nc == NR)
                for (; k + VL <= K; k += VL)
                    for (int c0 = 0; c0 < NR; c0 += VL)
                        transpose_block(src + c0 * B.cs + k, B.cs, dst + (long)k * NR + c0, NR);
            for (; k < K; k++)
                for (int c = 0; c < nc; c++) dst[(long)k * NR + c] = src[k * B.rs + c * B.cs];
        }
    }
}

typedef struct {
    int M, N, K, accumulate, direct;   // direct: A read in place (by rows, or by columns)
    GemmTile tile;
    MatView A, B;   // B read in place when Bp is NULL (the flat tile only)
    const float *Ap, *Bp, *bias;
    float *C;
    long ldc;
} Product;

// Row panels ip0..ip1-1 of A, MR rows each, all K: panel ip at Ap + (ip - ip0)*MR*K holds
// dst[k*MR + r] = A(ip*MR + r, k), zero past row M.
static inline __attribute__((always_inline)) void pack_a(MatView A, int M, int K, int ip0, int ip1,
                                                         int MR, float *Ap) {
    for (int ip = ip0; ip < ip1; ip++)
        if (M - ip * MR < MR)
            memset(Ap + (long)(ip - ip0) * MR * K, 0, sizeof(float) * (size_t)K * MR);
    if (A.cs == 1) {   // rows of a row-major A (an edge panel), each read sequentially
        for (int ip = ip0; ip < ip1; ip++) {
            int i0 = ip * MR, nr = M - i0 < MR ? M - i0 : MR;
            float *dst = Ap + (long)(ip - ip0) * MR * K;
            for (int r = 0; r < nr; r++) {
                const float *src = A.p + (i0 + r) * A.rs;
                for (int k = 0; k < K; k++) dst[(long)k * MR + r] = src[k];
            }
        }
    } else {
        // k outer across the panels: a transposed A (rs = 1) is read PACK_A_K stored rows at a time
        for (int k0 = 0; k0 < K; k0 += PACK_A_K)
            for (int ip = ip0; ip < ip1; ip++) {
                int i0 = ip * MR, nr = M - i0 < MR ? M - i0 : MR,
                    k1 = K - k0 < PACK_A_K ? K : k0 + PACK_A_K;
                for (int k = k0; k < k1; k++) {
                    float *dst = Ap + (long)(ip - ip0) * MR * K + (long)k * MR;
                    // A whole panel of a transposed row-major A (dW's dYᵀ) is MR stored
                    // floats in a row: a copy of constant size, a vector move or two, where
                    // the loop to nr ran element by element (5 % of the instructions of a
                    // small model's step, docs/performance.md).
                    if (A.rs == 1 && nr == MR) memcpy(dst, A.p + i0 + k * A.cs, sizeof(float) * MR);
                    else for (int r = 0; r < nr; r++) dst[r] = A.p[(i0 + r) * A.rs + k * A.cs];
                }
            }
    }
}

// One tile of C (rows ip0.. by columns jp0.. in panels) from the packed panels of B and the
// rows of A, with the wide or the narrow register tile (a constant once inlined into
// gemm_tile). For each k block, each A panel (MR rows x KC, 12 KiB for 8 x 48) stays in L1
// while the tile's B panels (KC x NR each, 576 KiB in all for 8 x 48) stream from L2, which
// the hardware prefetcher keeps up with;
// the other order (a B panel against all the tile's A panels) held neither in L1 once
// KC x NR outgrew it. Row-major A (g->direct) is read in place: the micro-kernel broadcasts
// A(r, k) from MR rows, each read sequentially; packing it cost more than it saved, and
// copying the panel to contiguous scratch did not gain either (docs/performance.md); only an
// edge panel of fewer than MR rows is packed, zero-padded. A transposed A is packed once per
// call.
static inline __attribute__((always_inline)) void
tile_body(const Product *g, int ip0, int ip1, int jp0, int jp1, GemmTile shape) {
    const int MR = gemm_tile_mr(shape), NR = gemm_tile_nr(shape);
    for (int k0 = 0; k0 < g->K; k0 += KC) {
        int kc = g->K - k0 < KC ? g->K - k0 : KC, last = k0 + kc == g->K;
        int mode = k0 > 0 ? CONTINUE : g->accumulate ? ADD : SET;
        for (int ip = ip0; ip < ip1; ip++) {
            int i0 = ip * MR, nr = g->M - i0 < MR ? g->M - i0 : MR;
            int direct = g->direct && nr == MR;
            const float *a = direct
                ? g->A.p + i0 * g->A.rs + k0 * g->A.cs
                : g->Ap + (g->direct ? 0 : (long)ip * MR * g->K) + (long)k0 * MR;
            for (int jp = jp0; jp < jp1; jp++) {
                int j0 = jp * NR, nc = g->N - j0 < NR ? g->N - j0 : NR;
                const float *b = g->Bp ? g->Bp + (long)jp * NR * g->K + (long)k0 * NR
                                       : g->B.p + k0 * g->B.rs + j0;
                long ldb = g->Bp ? NR : g->B.rs;
                const float *bias = last && g->bias ? g->bias + j0 : NULL;
                float bias_pad[NR_MAX];
                if (bias && nc < NR) {
                    memset(bias_pad, 0, sizeof bias_pad);
                    memcpy(bias_pad, bias, sizeof(float) * nc);
                    bias = bias_pad;
                }
                float *c = g->C + i0 * g->ldc + j0;
                float *out = c, tile[TILE_FLOATS_MAX];
                long ldo = g->ldc;
                // edge: work on a full tile copy, write back the valid part. SET writes the
                // whole tile without reading it; the other modes read it, zeros outside C.
                if (nr < MR || nc < NR) {
                    if (mode != SET) {
                        memset(tile, 0, sizeof(float) * MR * NR);
                        for (int r = 0; r < nr; r++)
                            memcpy(tile + r * NR, c + r * g->ldc, sizeof(float) * nc);
                    }
                    out = tile;
                    ldo = NR;
                }
                if (shape == GEMM_TILE_WIDE) {
                    if (direct) micro_rows_wide(kc, a, g->A.rs, b, out, ldo, mode, bias);
                    else        micro_packed_wide(kc, a, b, out, ldo, mode, bias);
                } else if (shape == GEMM_TILE_NARROW) {
                    if (direct) micro_rows_narrow(kc, a, g->A.rs, b, out, ldo, mode, bias);
                    else        micro_packed_narrow(kc, a, b, out, ldo, mode, bias);
                } else if (!direct) {
                    micro_packed_flat(kc, a, b, ldb, out, ldo, mode, bias);
                } else if (g->A.cs == 1) {
                    micro_rows_flat(kc, a, g->A.rs, b, ldb, out, ldo, mode, bias);
                } else {
                    micro_cols_flat(kc, a, g->A.cs, b, ldb, out, ldo, mode, bias);
                }
                if (out == tile)
                    for (int r = 0; r < nr; r++)
                        memcpy(c + r * g->ldc, tile + r * NR, sizeof(float) * nc);
            }
        }
    }
}
static void gemm_tile(const Product *g, int ip0, int ip1, int jp0, int jp1) {
    switch (g->tile) {
    case GEMM_TILE_WIDE:   tile_body(g, ip0, ip1, jp0, jp1, GEMM_TILE_WIDE); break;
    case GEMM_TILE_NARROW: tile_body(g, ip0, ip1, jp0, jp1, GEMM_TILE_NARROW); break;
    case GEMM_TILE_FLAT:   tile_body(g, ip0, ip1, jp0, jp1, GEMM_TILE_FLAT); break;
    }
}

// What the packing units of one gemm_rows call share: unit t < bunits packs B's column
// panels [t * bgroup, ...), the others rows of A from apack0 in groups of agroup panels.
typedef struct {
    int M, N, K;
    MatView A, B;
    GemmTile tile;
    int direct;
    float *Ap, *Bp;
    int np, bunits, bgroup, apack0, apack1, agroup;
} PackPlan;

static void pack_unit(const PackPlan *u, int t) {
    // MR and NR as constants in each branch (the packing loops unroll by them)
    const int MR = gemm_tile_mr(u->tile);
    int p0 = t < u->bunits ? t * u->bgroup : u->apack0 + (t - u->bunits) * u->agroup;
    int p1 = t < u->bunits ? (p0 + u->bgroup < u->np ? p0 + u->bgroup : u->np)
                           : (p0 + u->agroup < u->apack1 ? p0 + u->agroup : u->apack1);
    float *Adst = u->Ap + (u->direct ? 0 : (long)p0 * MR * u->K);
    switch (u->tile) {
    case GEMM_TILE_WIDE:
        if (t < u->bunits) pack_b(u->B, u->N, u->K, p0, p1, GEMM_WIDE_NR, u->Bp);
        else               pack_a(u->A, u->M, u->K, p0, p1, GEMM_WIDE_MR, Adst);
        break;
    case GEMM_TILE_NARROW:
        if (t < u->bunits) pack_b(u->B, u->N, u->K, p0, p1, GEMM_NARROW_NR, u->Bp);
        else               pack_a(u->A, u->M, u->K, p0, p1, GEMM_NARROW_MR, Adst);
        break;
    case GEMM_TILE_FLAT:
        if (t < u->bunits) pack_b(u->B, u->N, u->K, p0, p1, GEMM_FLAT_NR, u->Bp);
        else               pack_a(u->A, u->M, u->K, p0, p1, GEMM_FLAT_MR, Adst);
        break;
    }
}

// Tile t of mt x nt (mc row panels by nc column panels each), row tiles fastest.
static void tile_unit(const Product *g, int mp, int np, int mc, int nc, int mt, int t) {
    int it = t % mt, jt = t / mt;
    int ip1 = (it + 1) * mc, jp1 = (jt + 1) * nc;
    gemm_tile(g, it * mc, ip1 < mp ? ip1 : mp, jt * nc, jp1 < np ? jp1 : np);
}

// Packing is handed out in groups of panels that cover about PACK_FLOATS columns of B or
// rows of a transposed A, so a group reads each stored row of the operand in one run of
// 1 KiB or more (one panel alone read 32 or 192 bytes of each row, 3 KiB apart at d = 768,
// a stride the hardware prefetchers do not follow).
#define PACK_FLOATS 256

// The flat tile (N a multiple of 64: the lab's d = 64..256 models) reads a row-major B and a
// transposed A (the dW products' dYᵀ) in place when their stored rows are at most
// IN_PLACE_LD floats apart: a k block of either then spans 384 rows of 1 KiB or less, which
// the stride prefetcher follows and L2 holds, and skipping the copy of both operands of a dW
// product (2 x 64 x K floats at d = 64) made it faster (docs/performance.md). Wider rows
// (d = 768: 3 KiB and more) are packed: read in place there they were slower.
#define IN_PLACE_LD 256

// M rows of the product (all of it, or one chunk of a transposed A); B is packed
// by the first chunk (pack_b_too set) and read by every chunk, or read in place (Bp NULL).
static void gemm_rows(int M, int N, int K, MatView A, MatView B, float *C, long ldc, int accumulate,
                      const float *bias, GemmTile tile, float *Ap, float *Bp, int pack_b_too) {
    const int MR = gemm_tile_mr(tile), NR = gemm_tile_nr(tile);
    int mp = (M + MR - 1) / MR, np = (N + NR - 1) / NR;
    int parallel = (long)M * N * K > KERNEL_PARALLEL_WORK && mp * np > 1;
    int threads = parallel ? omp_get_max_threads() : 1;
    // Tiles of 16 A panels read their column of B panels (K x NC) from L2 after the first
    // tile while it fits there beside A and C. Past TALL_B_FLOATS (K = 3072 at d = 768 with
    // AVX-512: 4.6 MiB; no d = 768 product with AVX2's 64 columns) every such tile reads it
    // from L3, so one thread takes all the rows in one tile: each KC x NC block of B is read
    // from L3 once per k block (docs/performance.md). Below it a tall tile only pushes C out
    // of L2, which slowed the products of the small (d = 128) models. Several threads keep
    // tiles of 16 A panels: full-height tiles gained nothing there, and a tile is what a
    // thread stopped by another process holds the others up for.
    int nc = NC_PANELS, cols = nc * NR < N ? nc * NR : N;
    int mc = threads == 1 && (long)K * cols > TALL_B_FLOATS ? mp : MC_PANELS;
    // With several threads, fewer rows per tile until there are at least 4 tiles per thread:
    // three tiles on two threads would leave one thread idle a third of the time.
    while (threads > 1 && (mc > 1 || nc > 1) &&
           ((mp + mc - 1) / mc) * ((np + nc - 1) / nc) < 4 * threads) {
        if (mc >= nc && mc > 1) mc /= 2;
        else nc /= 2;
    }
    int mt = (mp + mc - 1) / mc, nt = (np + nc - 1) / nc, tiles = mt * nt;
    // Row-major A is read in place (direct): only an edge panel (the last, if M is not a
    // multiple of MR) is packed. A transposed view of A is packed, every panel, except with
    // the flat tile when its stored rows are short (IN_PLACE_LD); then it too is read in
    // place, and so is a row-major B: see IN_PLACE_LD.
    int direct = A.cs == 1 || (tile == GEMM_TILE_FLAT && A.rs == 1 && A.cs <= IN_PLACE_LD);
    int apack0 = direct ? mp - 1 : 0, apack1 = direct && M % MR == 0 ? apack0 : mp;
    int bgroup = (PACK_FLOATS + NR - 1) / NR, agroup = (PACK_FLOATS + MR - 1) / MR;
    // with several threads, at least 2 groups of each operand per thread, for balance
    while (bgroup > 1 && np < 2 * threads * bgroup) bgroup--;
    while (agroup > 1 && apack1 - apack0 < 2 * threads * agroup) agroup--;
    int bunits = pack_b_too ? (np + bgroup - 1) / bgroup : 0,
        aunits = (apack1 - apack0 + agroup - 1) / agroup;
    Product g = {M, N, K, accumulate, direct, tile, A, B, Ap, Bp, bias, C, ldc};
    PackPlan pk = {M, N, K, A, B, tile, direct, Ap, Bp, np, bunits, bgroup, apack0, apack1, agroup};
    // On one thread the same units in the same order, outside any OpenMP region (kernels.h:
    // KERNEL_PARALLEL_FOR).
    if (threads > 1) {
        #pragma omp parallel num_threads(threads)
        {
            #pragma omp for schedule(dynamic)
            for (int t = 0; t < bunits + aunits; t++) pack_unit(&pk, t);
            // Row tiles vary fastest: consecutive tiles (on one thread, or the threads at once)
            // read the same column of B panels, from L2 while K x NC fits there, and a new tile
            // reads only its rows of A from L3; the other order read every tile's B panels from
            // L3 and was slower (docs/performance.md).
            #pragma omp for schedule(dynamic)
            for (int t = 0; t < tiles; t++) tile_unit(&g, mp, np, mc, nc, mt, t);
        }
    } else {
        for (int t = 0; t < bunits + aunits; t++) pack_unit(&pk, t);
        for (int t = 0; t < tiles; t++) tile_unit(&g, mp, np, mc, nc, mt, t);
    }
}

// gemm with B packed by the caller (Bp, from gemm_pack_b) or, Bp NULL, here.
static void gemm_with(Arena *scratch, int M, int N, int K, MatView A, MatView B, const float *Bp,
                      float *C, long ldc, int accumulate, const float *bias) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {   // empty sum
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float s = accumulate ? C[i * ldc + j] : 0.0f;
                C[i * ldc + j] = bias ? s + bias[j] : s;
            }
        return;
    }
    GemmTile tile = gemm_tile_for(N);
    const int NR = gemm_tile_nr(tile);
    // A transposed A is packed whole, or past GEMM_A_PACK_MAX floats in chunks of rows (a
    // multiple of every tile's rows); B is packed once. Row-major A needs one edge panel.
    int rows = A.cs == 1 ? M : (int)gemm_a_chunk_rows(M, K);
    ArenaMark mark = arena_mark(scratch);
    float *own_Bp = Bp ? NULL
                       : arena_alloc(scratch, sizeof(float) * (size_t)((N + NR - 1) / NR) * NR * K);
    // (allocated even when unused: the memory estimate replays gemm's allocations by shape)
    if (!Bp && tile == GEMM_TILE_FLAT && B.cs == 1 && B.rs <= IN_PLACE_LD) own_Bp = NULL;
    float *Ap = arena_alloc(scratch,
                            sizeof(float) * (size_t)gemm_a_pack_floats(M, N, K, A.cs != 1));
    if (A.cs != 1) arena_trace_pack(scratch, M, N, K);
    for (int i0 = 0; i0 < M; i0 += rows) {
        MatView Ai = {A.p + i0 * A.rs, A.rs, A.cs};
        gemm_rows(M - i0 < rows ? M - i0 : rows, N, K, Ai, B, C + i0 * ldc, ldc, accumulate, bias,
                  tile, Ap, own_Bp ? own_Bp : (float *)Bp, own_Bp && i0 == 0);
    }
    arena_release(scratch, mark);
}

void gemm(Arena *scratch, int M, int N, int K, MatView A, MatView B, float *C, long ldc,
          int accumulate, const float *bias) {
    gemm_with(scratch, M, N, K, A, B, NULL, C, ldc, accumulate, bias);
}

PackedB gemm_pack_b(Arena *arena, int N, int K, MatView B) {
    GemmTile tile = gemm_tile_for(N);
    int NR = gemm_tile_nr(tile), np = (N + NR - 1) / NR;
    float *Bp = arena_alloc(arena, sizeof(float) * (size_t)np * NR * (K > 0 ? K : 1));
    if (N > 0 && K > 0) switch (tile) {
        case GEMM_TILE_WIDE:   pack_b(B, N, K, 0, np, GEMM_WIDE_NR, Bp); break;
        case GEMM_TILE_NARROW: pack_b(B, N, K, 0, np, GEMM_NARROW_NR, Bp); break;
        case GEMM_TILE_FLAT:   pack_b(B, N, K, 0, np, GEMM_FLAT_NR, Bp); break;
    }
    return (PackedB){B, Bp, N, K};
}

void gemm_packed(Arena *scratch, int M, const PackedB *B, MatView A, float *C, long ldc,
                 int accumulate, const float *bias) {
    gemm_with(scratch, M, B->N, B->K, A, B->view, B->panels, C, ldc, accumulate, bias);
}

void kernel_zero(float *p, long n) {
    enum { CHUNK = 1 << 16 };
    long chunks = (n + CHUNK - 1) / CHUNK;
    KERNEL_PARALLEL_FOR(chunks >= 8, schedule(static),
        for (long c = 0; c < chunks; c++) {
            long start = c * CHUNK, len = n - start < CHUNK ? n - start : CHUNK;
            memset(p + start, 0, sizeof(float) * (size_t)len);
        }
    );
}

void kernel_zero_padding_rows(float *x, const int *pad, long rows, long C) {
    for (long r = 0; r < rows;) {
        if (!pad[r]) { r++; continue; }
        long r0 = r;
        while (r < rows && pad[r]) r++;
        memset(x + r0 * C, 0, sizeof(float) * (size_t)((r - r0) * C));
    }
}

void gemm_naive(int M, int N, int K, MatView A, MatView B, float *C, long ldc, int accumulate,
                const float *bias) {
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++) s += A.p[i * A.rs + k * A.cs] * B.p[k * B.rs + j * B.cs];
            if (accumulate) s = C[i * ldc + j] + s;
            if (bias) s += bias[j];
            C[i * ldc + j] = s;
        }
}

void kernel_softmax_row(const float *z, float *out, int n) {
    float mx = kernel_max(z, n);
    if (mx == -INFINITY) { memset(out, 0, sizeof(float) * (size_t)n); return; }
    for (int i = 0; i < n; i++) out[i] = kernel_expf(z[i] - mx);
    float inv = 1.0f / kernel_sum(out, n);
    for (int i = 0; i < n; i++) out[i] *= inv;
}
