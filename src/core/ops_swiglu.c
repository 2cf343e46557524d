// SwiGLU's gated product, the middle of Llama's FFN (docs/design.md §2.5):
// out = silu(gate) * up, silu(a) = a * sigmoid(a). The projections around it are op_linear.
#include <stdio.h>
#include <stdlib.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

#define PARALLEL_ELEMS KERNEL_PARALLEL_ELEMS

// Through kernel_expf, so that the loops below vectorise: with libm's expf, a call per
// element, SwiGLU was 15 % of a Llama-block language model's step (docs/performance.md).
// Below a = -88 the result is about 6e-39 rather than 0 (kernel_expf clamps at 88).
static inline float sigmoid(float a) { return 1.0f / (1.0f + kernel_expf(-a)); }

// --- swiglu: out = a sigmoid(a) u;  d/da = u * s (1 + a (1 - s)),  d/du = a s,  s = sigmoid(a)

static inline float gate_slope(float a, float u, float s) {
    return u * s * (1.0f + a * (1.0f - s));
}

static void swiglu_backward(const Node *n) {
    Tensor *gate = n->in[0], *up = n->in[1];
    const float *g = n->out->grad, *a = gate->data, *u = up->data;
    float *da = gate->grad, *du = up->grad;
    long size = gate->size;
    int acc_a = da ? grad_accumulates(gate) : 1, acc_u = du ? grad_accumulates(up) : 1;
    if (da && du) {
        // The FFN's case: one loop, one sigmoid an element. The same expressions as the
        // loops below, so the same bits; if gate and up are one tensor, its element gets
        // the gate's term first and then the up's, as there. (One loop for every case, with
        // `if (da)` and `if (du)` inside, is not vectorised by gcc 12.)
        KERNEL_PARALLEL_FOR(size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < size; i++) {
                float s = sigmoid(a[i]);
                da[i] = (acc_a ? da[i] : 0.0f) + g[i] * gate_slope(a[i], u[i], s);
                du[i] = (acc_u ? du[i] : 0.0f) + g[i] * a[i] * s;
            }
        );
        return;
    }
    if (da) {
        KERNEL_PARALLEL_FOR(size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < size; i++)
                da[i] = (acc_a ? da[i] : 0.0f) + g[i] * gate_slope(a[i], u[i], sigmoid(a[i]));
        );
    }
    if (du) {
        KERNEL_PARALLEL_FOR(size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < size; i++)
                du[i] = (acc_u ? du[i] : 0.0f) + g[i] * a[i] * sigmoid(a[i]);
        );
    }
}

Tensor *op_swiglu(Tensor *gate, Tensor *up) {
    if (gate->size != up->size) {
        fprintf(stderr, "op_swiglu: gate and up sizes differ\n");
        abort();
    }
    int grad = tape_needs_grad(gate, up, NULL);
    Tensor *out = tensor_new(gate->ndim, gate->shape, grad);
    const float *a = gate->data, *u = up->data;
    float *y = out->data;
    long size = gate->size;
    KERNEL_PARALLEL_FOR(size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < size; i++) y[i] = a[i] * sigmoid(a[i]) * u[i];
    );
    if (grad) tape_record("swiglu", swiglu_backward, out, gate, up, NULL);
    return out;
}
