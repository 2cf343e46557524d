// Row-wise ops over the last dimension: softmax and the fused log-softmax + cross-entropy
// loss (LayerNorm: ops_layernorm.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

#define PARALLEL_ELEMS (KERNEL_PARALLEL_ELEMS / 2)

// --- softmax over the last dim of x + bias --------------------------------------------
// dz = y * (dy - sum(y * dy)), the same for x and for bias.

static void softmax_backward(const Node *n) {
    Tensor *x = n->in[0], *bias = n->in[1];
    int R = (int)tensor_rows(x), C = tensor_cols(x);
    const float *y = n->out->data, *dy = n->out->grad;
    int acc_x = x->grad && grad_accumulates(x),
        acc_bias = bias && bias->grad && grad_accumulates(bias);
    for (int r = 0; r < R; r++) {
        const float *yr = y + (long)r * C, *g = dy + (long)r * C;
        float dot = 0;
        for (int c = 0; c < C; c++) dot += yr[c] * g[c];
        for (int c = 0; c < C; c++) {
            float dz = yr[c] * (g[c] - dot);
            long i = (long)r * C + c;
            if (x->grad) x->grad[i] = (acc_x ? x->grad[i] : 0.0f) + dz;
            if (bias && bias->grad) bias->grad[i] = (acc_bias ? bias->grad[i] : 0.0f) + dz;
        }
    }
}

// One row: out = softmax(z); a row whose entries are all -inf gives zeros.
void softmax_row(const float *z, float *out, int C) { kernel_softmax_row(z, out, C); }

Tensor *op_softmax(Tensor *x, Tensor *bias) {
    if (bias && bias->size != x->size) {
        fprintf(stderr, "op_softmax: bias shape differs\n");
        abort();
    }
    int R = (int)tensor_rows(x), C = tensor_cols(x);
    int grad = tape_needs_grad(x, bias, NULL);
    Tensor *y = tensor_new(x->ndim, x->shape, grad);
    for (int r = 0; r < R; r++) {
        float *yr = y->data + (long)r * C;
        const float *xr = x->data + (long)r * C;
        if (bias) {
            for (int c = 0; c < C; c++) yr[c] = xr[c] + bias->data[(long)r * C + c];
            softmax_row(yr, yr, C);
        } else {
            softmax_row(xr, yr, C);
        }
    }
    if (grad) tape_record("softmax", softmax_backward, y, x, bias, NULL);
    return y;
}

// --- cross-entropy with ignore index and label smoothing ------------------------------
// Per row: lse = log sum exp(z); target distribution q = (1-eps) onehot(y) + eps/V;
// loss = sum_v q_v (lse - z_v); d loss / dz = softmax(z) - q. Mean over kept rows.
// saved: lse per row; i[0] = ignore_index, i[1] = kept rows, f[0] = eps.

static void cross_entropy_backward(const Node *n) {
    Tensor *z = n->in[0];
    int N = (int)tensor_rows(z), V = tensor_cols(z), ignore = n->i[0], kept = n->i[1];
    const int *targets = n->aux;
    float eps = n->f[0], scale = n->out->grad[0] / (kept ? kept : 1);
    int acc = grad_accumulates(z);
    KERNEL_PARALLEL_FOR(z->size > PARALLEL_ELEMS, schedule(static),
        for (int r = 0; r < N; r++) {
            float *dz = z->grad + (long)r * V;
            if (targets[r] == ignore) {   // an ignored row adds nothing
                if (!acc) memset(dz, 0, sizeof(float) * (size_t)V);
                continue;
            }
            const float *zr = z->data + (long)r * V;
            float lse = n->saved[r], off = eps / V;
            // Two loops rather than (acc ? dz[v] : 0): without AVX-512's masked loads gcc does
            // not vectorise a loop that loads dz[v] on a condition. 0 + ... keeps +0 for a
            // product of -0.
            if (acc)
                for (int v = 0; v < V; v++)
                    dz[v] = dz[v] + scale * (kernel_expf(zr[v] - lse) - off);
            else
                for (int v = 0; v < V; v++)
                    dz[v] = 0.0f + scale * (kernel_expf(zr[v] - lse) - off);
            dz[targets[r]] -= scale * (1.0f - eps);
        }
    );
}

Tensor *op_cross_entropy(Tensor *logits, const int *targets, int ignore_index, float eps) {
    int N = (int)tensor_rows(logits), V = tensor_cols(logits);
    int grad = tape_needs_grad(logits, NULL, NULL);
    int one = 1;
    Tensor *loss = tensor_new(1, &one, grad);
    float *lse = arena_alloc(tensor_arena(), sizeof(float) * (size_t)N);
    float *row_loss = arena_alloc(tensor_arena(), sizeof(float) * (size_t)N);
    KERNEL_PARALLEL_FOR(logits->size > PARALLEL_ELEMS, schedule(static),
        for (int r = 0; r < N; r++) {
            row_loss[r] = 0;
            if (targets[r] == ignore_index) continue;
            if (targets[r] < 0 || targets[r] >= V) {
                fprintf(stderr, "op_cross_entropy: target %d outside [0,%d)\n", targets[r], V);
                abort();
            }
            const float *zr = logits->data + (long)r * V;
            float mx = kernel_max(zr, V);
            lse[r] = mx + logf(kernel_sum_exp(zr, V, mx));
            float mean_z = kernel_sum(zr, V) / V;
            row_loss[r] = (1.0f - eps) * (lse[r] - zr[targets[r]]) + eps * (lse[r] - mean_z);
        }
    );
    double total = 0;   // rows summed in order: the loss does not depend on the thread count
    int kept = 0;
    for (int r = 0; r < N; r++)
        if (targets[r] != ignore_index) { total += row_loss[r]; kept++; }
    loss->data[0] = kept ? (float)(total / kept) : 0.0f;
    if (grad) {
        Node *n = tape_record("cross_entropy", cross_entropy_backward, loss, logits, NULL, NULL);
        n->aux = tape_save_ints(targets, N);
        n->saved = lse;
        n->i[0] = ignore_index; n->i[1] = kept; n->f[0] = eps;
    }
    return loss;
}
