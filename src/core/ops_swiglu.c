// SwiGLU's gated product, the middle of Llama's FFN (docs/design.md §2.5):
// out = silu(gate) * up, silu(a) = a * sigmoid(a). The projections around it are op_linear.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

#define PARALLEL_ELEMS KERNEL_PARALLEL_ELEMS

static float sigmoid(float a) { return 1.0f / (1.0f + expf(-a)); }

// --- swiglu: out = a sigmoid(a) u;  d/da = u * s (1 + a (1 - s)),  d/du = a s,  s = sigmoid(a)

static void swiglu_backward(const Node *n) {
    Tensor *gate = n->in[0], *up = n->in[1];
    const float *g = n->out->grad, *a = gate->data, *u = up->data;
    if (gate->grad) {
        int acc = grad_accumulates(gate);
        float *da = gate->grad;
        KERNEL_PARALLEL_FOR(gate->size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < gate->size; i++) {
                float s = sigmoid(a[i]);
                da[i] = (acc ? da[i] : 0.0f) + g[i] * u[i] * s * (1.0f + a[i] * (1.0f - s));
            }
        );
    }
    if (up->grad) {
        int acc = grad_accumulates(up);
        float *du = up->grad;
        KERNEL_PARALLEL_FOR(up->size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < up->size; i++)
                du[i] = (acc ? du[i] : 0.0f) + g[i] * a[i] * sigmoid(a[i]);
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
    KERNEL_PARALLEL_FOR(gate->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < gate->size; i++) y[i] = a[i] * sigmoid(a[i]) * u[i];
    );
    if (grad) tape_record("swiglu", swiglu_backward, out, gate, up, NULL);
    return out;
}
