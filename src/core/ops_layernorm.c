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
    // Whole vectors here: written as a loop over lanes, gcc would build the in-order adds
    // from single lanes again.
    kernel_vec v1 = {0}, v2 = {0};
    int c = 0;
    for (; c < rounded; c += KERNEL_LANES) {
        kernel_vec gv, wv, xv;
        memcpy(&gv, g + c, sizeof gv);
        memcpy(&wv, w + c, sizeof wv);
        memcpy(&xv, xr + c, sizeof xv);
        kernel_vec dn = gv * wv;
        v1 += dn;
        v2 += dn * ((xv - mean) * rstd);
    }
    float s1[KERNEL_LANES], s2[KERNEL_LANES];
    memcpy(s1, &v1, sizeof s1);
    memcpy(s2, &v2, sizeof s2);
    for (; c + KERNEL_LANES <= C; c += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++) {
            float dn = g[c + l] * w[c + l];
            s1[l] += dn;
            s2[l] = fmaf(dn, (xr[c + l] - mean) * rstd, s2[l]);
        }
    for (int l = 0; c + l < C; l++) {
        float dn = g[c + l] * w[c + l];
        s1[l] += dn;
        s2[l] = fmaf(dn, (xr[c + l] - mean) * rstd, s2[l]);
    }
    float m1 = kernel_lanes_total(s1) / C, m2 = kernel_lanes_total(s2) / C;
    for (c = 0; c < C; c++) {
        float xhat = (xr[c] - mean) * rstd;
        dx[c] = fmaf(rstd, fmaf(-xhat, m2, fmaf(g[c], w[c], -m1)), acc ? dx[c] : 0.0f);
    }
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
    enum { BLOCK = 64 };
    int blocks = (C + BLOCK - 1) / BLOCK;
    int acc_w = w->grad && grad_accumulates(w), acc_b = b->grad && grad_accumulates(b);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS && blocks > 1, schedule(static),
        for (int cb = 0; cb < blocks; cb++) {
            int c0 = cb * BLOCK, nc = C - c0 < BLOCK ? C - c0 : BLOCK;
            float dw[BLOCK] = {0}, db[BLOCK] = {0};
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
            float mean = kernel_sum(xr, C) / C, var = kernel_sum_sq(xr, C, mean) / C;
            float rstd = 1.0f / sqrtf(var + eps);
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
