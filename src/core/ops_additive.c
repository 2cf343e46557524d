// Additive attention scores (Bahdanau et al.), the LSTM translator's `model.attention =
// additive` (docs/design.md §2.8): s[b,i,j] = sum_a v[a] tanh(q[b,i,a] + k[b,j,a]), with q and
// k already projected. Nothing of size B*Tq*Tk*A is kept: backward recomputes the tanh.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/ops.h"
#include "core/tape.h"

// --- additive_scores: s = sum_a v_a tanh(q_ia + k_ja);
//     ds/dq_ia = ds/dk_ja = v_a (1 - t^2), ds/dv_a = t, t = tanh(q_ia + k_ja) -------------
// Each gradient is summed in one fixed order on one thread: the same bits for any thread count.

static void additive_scores_backward(const Node *n) {
    Tensor *q = n->in[0], *k = n->in[1], *v = n->in[2];
    int B = q->shape[0], Tq = q->shape[1], Tk = k->shape[1], A = q->shape[2];
    const float *g = n->out->grad;
    float *dq = q->grad ? grad_zeroed(q) : NULL, *dk = k->grad ? grad_zeroed(k) : NULL;
    float *dv = v->grad ? grad_zeroed(v) : NULL;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < Tq; i++) {
            const float *qi = q->data + ((long)b * Tq + i) * A;
            for (int j = 0; j < Tk; j++) {
                float gij = g[((long)b * Tq + i) * Tk + j];
                if (gij == 0.0f) continue;   // masked keys: no gradient either way
                const float *kj = k->data + ((long)b * Tk + j) * A;
                for (int a = 0; a < A; a++) {
                    float t = tanhf(qi[a] + kj[a]), d = gij * v->data[a] * (1.0f - t * t);
                    if (dq) dq[((long)b * Tq + i) * A + a] += d;
                    if (dk) dk[((long)b * Tk + j) * A + a] += d;
                    if (dv) dv[a] += gij * t;
                }
            }
        }
}

Tensor *op_additive_scores(Tensor *q, Tensor *k, Tensor *v) {
    int B = q->shape[0], Tq = q->shape[1], Tk = k->shape[1], A = q->shape[2];
    if (q->ndim != 3 || k->ndim != 3 || k->shape[0] != B || k->shape[2] != A || v->size != A) {
        fprintf(stderr, "op_additive_scores: q (B,Tq,A), k (B,Tk,A), v (A) do not match\n");
        abort();
    }
    int grad = tape_needs_grad(q, k, v);
    Tensor *out = tensor_new3(B, Tq, Tk, grad);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < Tq; i++) {
            const float *qi = q->data + ((long)b * Tq + i) * A;
            for (int j = 0; j < Tk; j++) {
                const float *kj = k->data + ((long)b * Tk + j) * A;
                float s = 0.0f;
                for (int a = 0; a < A; a++) s += v->data[a] * tanhf(qi[a] + kj[a]);
                out->data[((long)b * Tq + i) * Tk + j] = s;
            }
        }
    if (grad) tape_record("additive_scores", additive_scores_backward, out, q, k, v);
    return out;
}
