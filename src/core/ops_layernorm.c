// LayerNorm over the last dimension: y = (x - mean) * rstd * w + b, rstd = 1/sqrt(var + eps).
// This file is compiled without FMA contraction (see the Makefile): every fused product is
// an fmaf below and every other product is rounded, so the results do not depend on which
// products the compiler would fuse in whatever code surrounds them. The fmaf are where gcc
// used to fuse under -ffp-contract=fast, so the bits are those of the contracted code.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

#define PARALLEL_ELEMS (KERNEL_PARALLEL_ELEMS / 2)

// --- backward, with xhat = (x - mean) * rstd and dn = dy * w:
//     dx = rstd * (dn - mean(dn) - xhat * mean(dn * xhat)), dw = sum over rows of dy * xhat,
//     db = sum over rows of dy. saved: mean and rstd per row (R,2).

// kernel_sum's 16 lanes as NV vectors of the build's width: lane l is lane l % KERNEL_VL of
// vector l / KERNEL_VL. Native vectors, so that a lane-by-lane fmaf loop is one vector fma
// (on AVX2 gcc did each of a 16-float vector's lanes alone), and the sums stay in registers.
enum { NV = KERNEL_LANES / KERNEL_VL };
_Static_assert(NV * KERNEL_VL == KERNEL_LANES, "16 lanes in whole vectors");
typedef float vec8 __attribute__((vector_size(8 * sizeof(float))));
typedef float vec4 __attribute__((vector_size(4 * sizeof(float))));

// kernel_lanes_total's tree (8 + 8, 4 + 4, 2 + 2, 1 + 1) on the lanes of v, the same bits.
static inline float lanes_total(const kernel_vf v[NV]) {
#if KERNEL_VL == 16
    vec8 lo = __builtin_shufflevector(v[0], v[0], 0, 1, 2, 3, 4, 5, 6, 7) +
              __builtin_shufflevector(v[0], v[0], 8, 9, 10, 11, 12, 13, 14, 15);
#else
    vec8 lo = v[0] + v[1];
#endif
    vec4 q = __builtin_shufflevector(lo, lo, 0, 1, 2, 3) + __builtin_shufflevector(lo, lo, 4, 5, 6, 7);
    float l0 = q[0] + q[2], l1 = q[1] + q[3];
    return l0 + l1;
}

// fmaf lane by lane.
static inline kernel_vf vec_fma(kernel_vf a, kernel_vf b, kernel_vf c) {
    for (int l = 0; l < KERNEL_VL; l++) c[l] = fmaf(a[l], b[l], c[l]);
    return c;
}

// A row's last n < 16 floats (n > 0) in the first lanes of a buffer, +0 in the rest: the
// tail joins the sums as whole vectors. A lane past the row then adds +0 (or -0) to a sum
// that began at +0, which changes no bit: such a sum is never -0.
static inline void tail16(float out[KERNEL_LANES], const float *a, int n) {
    for (int l = 0; l < KERNEL_LANES; l++) out[l] = l < n ? a[l] : 0.0f;
}
// v with the lanes at or past n (counting from lane `first`) set to +0.
static inline kernel_vf lanes_below(kernel_vf v, int first, int n) {
    kernel_vi lane;
    for (int l = 0; l < KERNEL_VL; l++) lane[l] = first + l;
    return (kernel_vf)((kernel_vi)v & (lane < n));
}

// Row sums of dx_row over the 16 columns at g, w, xr; rounded: dn * xhat rounded before it
// is added, else fused. In a tail (tail16) dn is +0 past the row, so dn * xhat is +-0.
static inline void dx_sums16(const float *g, const float *w, const float *xr, float mean,
                             float rstd, int rounded, kernel_vf v1[NV], kernel_vf v2[NV]) {
    for (int h = 0; h < NV; h++) {
        kernel_vf gv, wv, xv;
        memcpy(&gv, g + h * KERNEL_VL, sizeof gv);
        memcpy(&wv, w + h * KERNEL_VL, sizeof wv);
        memcpy(&xv, xr + h * KERNEL_VL, sizeof xv);
        kernel_vf dn = gv * wv, xhat = (xv - mean) * rstd;
        v1[h] += dn;
        if (rounded) v2[h] += dn * xhat;
        else v2[h] = vec_fma(dn, xhat, v2[h]);
    }
}

// One row's dx (C): the two row sums in 16 lanes (kernel_sum's order), then dx. acc: add
// to dx instead of assigning.
//   The sums keep the roundings gcc gave the plain expression under -ffp-contract=fast: its
// vector loop (256 columns a pass) and vector epilogue (128) added the rounded products in
// order, its scalar epilogue fused them. So: rounded over runs of 256 columns, then over 128
// if that many remain, fused over the rest.
static void dx_row(const float *g, const float *w, const float *xr, float mean, float rstd, int C,
                   int acc, float *dx) {
    int rounded = C / 256 * 256;
    if (C - rounded >= 128) rounded += 128;
    kernel_vf v1[NV] = {0}, v2[NV] = {0};
    int c = 0;
    for (; c < rounded; c += KERNEL_LANES)
        dx_sums16(g + c, w + c, xr + c, mean, rstd, 1, v1, v2);
    for (; c + KERNEL_LANES <= C; c += KERNEL_LANES)
        dx_sums16(g + c, w + c, xr + c, mean, rstd, 0, v1, v2);
    if (c < C) {   // outside the loop: the copies would keep the sums in memory
        float gt[KERNEL_LANES], wt[KERNEL_LANES], xt[KERNEL_LANES];
        tail16(gt, g + c, C - c);
        tail16(wt, w + c, C - c);
        tail16(xt, xr + c, C - c);
        dx_sums16(gt, wt, xt, mean, rstd, 0, v1, v2);
    }
    float m1 = lanes_total(v1) / C, m2 = lanes_total(v2) / C;
    if (acc)
        for (c = 0; c < C; c++) {
            float xhat = (xr[c] - mean) * rstd;
            dx[c] = fmaf(rstd, fmaf(-xhat, m2, fmaf(g[c], w[c], -m1)), dx[c]);
        }
    else
        for (c = 0; c < C; c++) {
            float xhat = (xr[c] - mean) * rstd;
            dx[c] = fmaf(rstd, fmaf(-xhat, m2, fmaf(g[c], w[c], -m1)), 0.0f);
        }
}

// dw[c] = sum over rows of dy * xhat and db[c] of dy, each in row order, for a block of 64
// columns (x and dy at the block's first column, rows C apart): the sums in registers (in
// the arrays, each row had loaded and stored them again), the same operations.
enum { PARAM_BLOCK = 64, PARAM_NV = PARAM_BLOCK / KERNEL_VL };
static void param_sums_block(const float *x, const float *dy, const float *stats, int R, int C,
                             float *dw, float *db) {
    kernel_vf w[PARAM_NV] = {0}, b[PARAM_NV] = {0};
    for (int r = 0; r < R; r++) {
        float mean = stats[2 * r], rstd = stats[2 * r + 1];
        #pragma GCC unroll 8
        for (int h = 0; h < PARAM_NV; h++) {   // unrolled, or the sums go through memory
            kernel_vf xv, g;
            memcpy(&xv, x + (long)r * C + h * KERNEL_VL, sizeof xv);
            memcpy(&g, dy + (long)r * C + h * KERNEL_VL, sizeof g);
            w[h] = vec_fma(g, (xv - mean) * rstd, w[h]);
            b[h] += g;
        }
    }
    memcpy(dw, w, sizeof w);
    memcpy(db, b, sizeof b);
}

static void layernorm_backward(const Node *n) {
    Tensor *x = n->in[0], *w = n->in[1], *b = n->in[2];
    int R = (int)tensor_rows(x), C = tensor_cols(x);
    const float *dy = n->out->grad, *stats = n->saved;
    if (x->grad) {
        int acc = grad_accumulates(x);
        KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
            for (int r = 0; r < R; r++)
                dx_row(dy + (long)r * C, w->data, x->data + (long)r * C, stats[2 * r],
                       stats[2 * r + 1], C, acc, x->grad + (long)r * C);
        );
    }
    // Parameter gradients sum over rows: each column in row order, columns split among threads.
    enum { BLOCK = PARAM_BLOCK };
    int blocks = (C + BLOCK - 1) / BLOCK;
    int acc_w = w->grad && grad_accumulates(w), acc_b = b->grad && grad_accumulates(b);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS && blocks > 1, schedule(static),
        for (int cb = 0; cb < blocks; cb++) {
            int c0 = cb * BLOCK, nc = C - c0 < BLOCK ? C - c0 : BLOCK;
            float dw[BLOCK] = {0}, db[BLOCK] = {0};
            if (nc == BLOCK) param_sums_block(x->data + c0, dy + c0, stats, R, C, dw, db);
            else
                for (int r = 0; r < R; r++) {
                    const float *xr = x->data + (long)r * C + c0, *g = dy + (long)r * C + c0;
                    float mean = stats[2 * r], rstd = stats[2 * r + 1];
                    for (int c = 0; c < nc; c++) {
                        dw[c] = fmaf(g[c], (xr[c] - mean) * rstd, dw[c]);
                        db[c] += g[c];
                    }
                }
            for (int c = 0; c < nc; c++) {
                if (w->grad) w->grad[c0 + c] = (acc_w ? w->grad[c0 + c] : 0.0f) + dw[c];
                if (b->grad) b->grad[c0 + c] = (acc_b ? b->grad[c0 + c] : 0.0f) + db[c];
            }
        }
    );
}

// One row's mean and 1/sqrt(var + eps): kernel_sum(x) / C and kernel_sum_sq(x, C, mean) / C,
// their lanes and trees, in whole vectors (as arrays of lanes gcc gathered each vector of
// squares from single loads). The 16 floats at a added to the lanes of s; the squares of
// their first n minus m to those of q.
static inline void add16(const float *a, kernel_vf s[NV]) {
    for (int h = 0; h < NV; h++) {
        kernel_vf v;
        memcpy(&v, a + h * KERNEL_VL, sizeof v);
        s[h] += v;
    }
}
static inline void add_squares16(const float *a, float m, int n, kernel_vf q[NV]) {
    for (int h = 0; h < NV; h++) {
        kernel_vf v;
        memcpy(&v, a + h * KERNEL_VL, sizeof v);
        v -= m;
        if (n < KERNEL_LANES) v = lanes_below(v, h * KERNEL_VL, n);
        q[h] = vec_fma(v, v, q[h]);
    }
}
static void row_stats(const float *xr, int C, float eps, float *mean, float *rstd) {
    kernel_vf s[NV] = {0}, q[NV] = {0};
    float t[KERNEL_LANES];
    int c, tail = C % KERNEL_LANES, whole = C - tail;
    for (c = 0; c < whole; c += KERNEL_LANES) add16(xr + c, s);
    if (tail) {   // outside the loop: the copy would keep the sums in memory
        tail16(t, xr + whole, tail);
        add16(t, s);
    }
    float m = lanes_total(s) / C;
    for (c = 0; c < whole; c += KERNEL_LANES) add_squares16(xr + c, m, KERNEL_LANES, q);
    if (tail) add_squares16(t, m, tail, q);
    *mean = m;
    *rstd = 1.0f / sqrtf(lanes_total(q) / C + eps);
}

Tensor *op_layernorm(Tensor *x, Tensor *w, Tensor *b, float eps) {
    int R = (int)tensor_rows(x), C = tensor_cols(x);
    if (w->size != C || b->size != C) {
        fprintf(stderr, "op_layernorm: weight size != %d\n", C);
        abort();
    }
    int grad = tape_needs_grad(x, w, b);
    Tensor *y = tensor_new(x->ndim, x->shape, grad);
    float *stats = grad ? arena_alloc(tensor_arena(), sizeof(float) * 2 * (size_t)R) : NULL;
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (int r = 0; r < R; r++) {
            const float *xr = x->data + (long)r * C;
            float mean, rstd;
            row_stats(xr, C, eps, &mean, &rstd);
            float *yr = y->data + (long)r * C;
            for (int c = 0; c < C; c++) yr[c] = fmaf((xr[c] - mean) * rstd, w->data[c], b->data[c]);
            if (stats) { stats[2 * r] = mean; stats[2 * r + 1] = rstd; }
        }
    );
    if (grad) {
        Node *n = tape_record("layernorm", layernorm_backward, y, x, w, b);
        n->saved = stats;
    }
    return y;
}
