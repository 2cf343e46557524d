// RMSNorm over the last dimension (Llama's norm): y = x * rstd * w, rstd = 1/sqrt(mean(x^2) + eps).
// Unlike LayerNorm no mean is subtracted and there is no bias (docs/design.md §2.5).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

#define PARALLEL_ELEMS (KERNEL_PARALLEL_ELEMS / 2)

// --- rmsnorm: y = x * rstd * w; with xhat = x * rstd and dn = dy * w:
//     dx = rstd * (dn - xhat * mean(dn * xhat)),   dw = sum over rows of dy * xhat.
// saved: rstd per row (R).

static void rmsnorm_backward(const Node *n) {
    Tensor *x = n->in[0], *w = n->in[1];
    int R = (int)tensor_rows(x), C = tensor_cols(x);
    const float *dy = n->out->grad, *rstd = n->saved;
    if (x->grad) {
        int acc = grad_accumulates(x);
        KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
            for (int r = 0; r < R; r++) {
                const float *xr = x->data + (long)r * C, *g = dy + (long)r * C;
                float *dx = x->grad + (long)r * C, s = rstd[r];
                // mean(dn * xhat) = rstd * sum(dy * w * x) / C, summed in kernel_sum's lanes
                float lane[KERNEL_LANES] = {0};
                int c = 0;
                for (; c + KERNEL_LANES <= C; c += KERNEL_LANES)
                    for (int l = 0; l < KERNEL_LANES; l++)
                        lane[l] += g[c + l] * w->data[c + l] * xr[c + l];
                for (int l = 0; c + l < C; l++) lane[l] += g[c + l] * w->data[c + l] * xr[c + l];
                float m = kernel_lanes_total(lane) * s / C;
                for (c = 0; c < C; c++)
                    dx[c] = (acc ? dx[c] : 0.0f) + s * (g[c] * w->data[c] - xr[c] * s * m);
            }
        );
    }
    if (!w->grad) return;
    // dw sums over rows: each column in row order, columns split among threads (as layernorm).
    enum { BLOCK = 64 };
    int blocks = (C + BLOCK - 1) / BLOCK, acc_w = grad_accumulates(w);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS && blocks > 1, schedule(static),
        for (int cb = 0; cb < blocks; cb++) {
            int c0 = cb * BLOCK, nc = C - c0 < BLOCK ? C - c0 : BLOCK;
            float dw[BLOCK] = {0};
            for (int r = 0; r < R; r++) {
                const float *xr = x->data + (long)r * C + c0, *g = dy + (long)r * C + c0;
                for (int c = 0; c < nc; c++) dw[c] += g[c] * (xr[c] * rstd[r]);
            }
            for (int c = 0; c < nc; c++) w->grad[c0 + c] = (acc_w ? w->grad[c0 + c] : 0.0f) + dw[c];
        }
    );
}

Tensor *op_rmsnorm(Tensor *x, Tensor *w, float eps) {
    int R = (int)tensor_rows(x), C = tensor_cols(x);
    if (w->size != C) { fprintf(stderr, "op_rmsnorm: weight size != %d\n", C); abort(); }
    int grad = tape_needs_grad(x, w, NULL);
    Tensor *y = tensor_new(x->ndim, x->shape, grad);
    float *rstd = grad ? arena_alloc(tensor_arena(), sizeof(float) * (size_t)R) : NULL;
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (int r = 0; r < R; r++) {
            const float *xr = x->data + (long)r * C;
            float s = 1.0f / sqrtf(kernel_sum_sq(xr, C, 0.0f) / C + eps);
            float *yr = y->data + (long)r * C;
            for (int c = 0; c < C; c++) yr[c] = xr[c] * s * w->data[c];
            if (rstd) rstd[r] = s;
        }
    );
    if (grad) tape_record("rmsnorm", rmsnorm_backward, y, x, w, NULL)->saved = rstd;
    return y;
}
