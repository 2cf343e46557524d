// Elementwise ops: each forward is one loop, each backward the local derivative times the
// output gradient.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

// Elementwise loops are memory-bound: only split them across threads when large.
#define PARALLEL_ELEMS KERNEL_PARALLEL_ELEMS

static Tensor *like(Tensor *x, int grad) { return tensor_new(x->ndim, x->shape, grad); }

// --- add: out = a + b; b either a's shape or a's trailing shape (broadcast over rows) ----

// d += g over n elements, or d = 0 + g when d is written first (0 + g, not g: -0 becomes +0,
// as summing into a zeroed gradient gives).
static void grad_add(Tensor *t, const float *g, long n) {
    float *d = t->grad;
    int acc = grad_accumulates(t);
    KERNEL_PARALLEL_FOR(n > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < n; i++) d[i] = (acc ? d[i] : 0.0f) + g[i];
    );
}

// Both inputs' d += g (or d = 0 + g) in one pass over g; distinct gradient arrays of n floats.
static void grad_add_both(Tensor *a, Tensor *b, const float *g, long n) {
    float *da = a->grad, *db = b->grad;
    int acc_a = grad_accumulates(a), acc_b = grad_accumulates(b);
    KERNEL_PARALLEL_FOR(n > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < n; i++) {
            float gi = g[i];
            da[i] = (acc_a ? da[i] : 0.0f) + gi;
            db[i] = (acc_b ? db[i] : 0.0f) + gi;
        }
    );
}

static void add_backward(const Node *n) {
    Tensor *a = n->in[0], *b = n->in[1];
    const float *g = n->out->grad;
    long nb = b->size, rows = a->size / nb;
    // a residual: one pass (x + x, or views of one gradient, take the two below in turn)
    if (a->grad && b->grad && rows == 1 && a->grad != b->grad) {
        grad_add_both(a, b, g, nb);
        return;
    }
    if (a->grad) grad_add(a, g, a->size);
    if (b->grad && rows == 1) grad_add(b, g, nb);   // same shape (a residual): no zeroing first
    else if (b->grad) {   // broadcast rows summed in order
        float *db = grad_zeroed(b);
        for (long r = 0; r < rows; r++)
            for (long i = 0; i < nb; i++) db[i] += g[r * nb + i];
    }
}

Tensor *op_add(Tensor *a, Tensor *b) {
    if (b->size == 0 || a->size % b->size != 0) {
        fprintf(stderr, "op_add: shapes do not broadcast\n");
        abort();
    }
    int grad = tape_needs_grad(a, b, NULL);
    Tensor *out = like(a, grad);
    long nb = b->size, rows = a->size / nb;
    const float *x = a->data, *y = b->data;
    float *z = out->data;
    KERNEL_PARALLEL_FOR(a->size > PARALLEL_ELEMS, schedule(static),
        for (long r = 0; r < rows; r++)
            for (long i = 0; i < nb; i++) z[r * nb + i] = x[r * nb + i] + y[i];
    );
    if (grad) tape_record("add", add_backward, out, a, b, NULL);
    return out;
}

// --- mul: out = a * b ------------------------------------------------------------------

static void mul_backward(const Node *n) {
    Tensor *a = n->in[0], *b = n->in[1];
    const float *g = n->out->grad;
    if (a->grad) {
        int acc = grad_accumulates(a);
        for (long i = 0; i < a->size; i++)
            a->grad[i] = (acc ? a->grad[i] : 0.0f) + g[i] * b->data[i];
    }
    if (b->grad) {
        int acc = grad_accumulates(b);
        for (long i = 0; i < a->size; i++)
            b->grad[i] = (acc ? b->grad[i] : 0.0f) + g[i] * a->data[i];
    }
}

Tensor *op_mul(Tensor *a, Tensor *b) {
    if (a->size != b->size) { fprintf(stderr, "op_mul: sizes differ\n"); abort(); }
    int grad = tape_needs_grad(a, b, NULL);
    Tensor *out = like(a, grad);
    for (long i = 0; i < a->size; i++) out->data[i] = a->data[i] * b->data[i];
    if (grad) tape_record("mul", mul_backward, out, a, b, NULL);
    return out;
}

// --- scale: out = s * a ----------------------------------------------------------------

static void scale_backward(const Node *n) {
    float s = n->f[0], *dx = n->in[0]->grad;
    int acc = grad_accumulates(n->in[0]);
    for (long i = 0; i < n->out->size; i++) dx[i] = (acc ? dx[i] : 0.0f) + s * n->out->grad[i];
}

Tensor *op_scale(Tensor *a, float s) {
    int grad = tape_needs_grad(a, NULL, NULL);
    Tensor *out = like(a, grad);
    for (long i = 0; i < a->size; i++) out->data[i] = s * a->data[i];
    if (grad) tape_record("scale", scale_backward, out, a, NULL, NULL)->f[0] = s;
    return out;
}

// --- relu: out = max(x, 0); d/dx = [x > 0] ---------------------------------------------

static void relu_backward(const Node *n) {
    Tensor *x = n->in[0];
    const float *xs = x->data, *g = n->out->grad;
    float *dx = x->grad;
    int acc = grad_accumulates(x);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) dx[i] = (acc ? dx[i] : 0.0f) + (xs[i] > 0 ? g[i] : 0.0f);
    );
}

Tensor *op_relu(Tensor *x) {
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = like(x, grad);
    const float *xs = x->data;
    float *y = out->data;
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) y[i] = xs[i] > 0 ? xs[i] : 0.0f;
    );
    if (grad) tape_record("relu", relu_backward, out, x, NULL, NULL);
    return out;
}

// --- gelu (exact): out = x Phi(x); d/dx = Phi(x) + x phi(x) ---------------------------
// Phi through kernel_erff and phi through kernel_expf, so both loops vectorise.

static inline float gelu_cdf(float v) { return 0.5f * (1.0f + kernel_erff(v * 0.70710678f)); }
// Phi(x) + x phi(x). pdf is computed first: the sum of two products fuses one of them, and
// which one follows the order of the statements (this one fuses x * pdf).
static inline float gelu_slope(float v) {
    float pdf = 0.39894228f * kernel_expf(-0.5f * v * v);
    return gelu_cdf(v) + v * pdf;
}

// Two loops rather than (acc ? dx[i] : 0): without AVX-512's masked loads gcc cannot
// vectorise a loop that loads dx[i] on a condition. 0 + g * slope keeps +0 for a product
// of -0, as the single loop gave.
static void gelu_backward(const Node *n) {
    Tensor *x = n->in[0];
    const float *xs = x->data, *g = n->out->grad;
    float *dx = x->grad;
    long size = x->size;
    if (grad_accumulates(x)) {
        KERNEL_PARALLEL_FOR(size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < size; i++) dx[i] = dx[i] + g[i] * gelu_slope(xs[i]);
        );
    } else {
        KERNEL_PARALLEL_FOR(size > PARALLEL_ELEMS, schedule(static),
            for (long i = 0; i < size; i++) dx[i] = 0.0f + g[i] * gelu_slope(xs[i]);
        );
    }
}

Tensor *op_gelu(Tensor *x) {
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = like(x, grad);
    const float *xs = x->data;
    float *y = out->data;
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) y[i] = xs[i] * gelu_cdf(xs[i]);
    );
    if (grad) tape_record("gelu", gelu_backward, out, x, NULL, NULL);
    return out;
}

// --- log1p: out = log(1 + x), x > -1; d/dx = 1 / (1 + x) -----------------------------
// The logarithmic distances of KERPLE and FIRE (log(1 + r|i - j|)).

static void log1p_backward(const Node *n) {
    Tensor *x = n->in[0];
    int acc = grad_accumulates(x);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++)
            x->grad[i] = (acc ? x->grad[i] : 0.0f) + n->out->grad[i] / (1.0f + x->data[i]);
    );
}

Tensor *op_log1p(Tensor *x) {
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = like(x, grad);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) out->data[i] = log1pf(x->data[i]);
    );
    if (grad) tape_record("log1p", log1p_backward, out, x, NULL, NULL);
    return out;
}

// --- softplus: out = log(1 + e^x); d/dx = sigmoid(x) ----------------------------------
// Keeps a learned quantity positive with a gradient everywhere (KERPLE's r1, r2). Written
// as max(x, 0) + log1p(e^-|x|) so that a large |x| neither overflows nor loses the tail.

static void softplus_backward(const Node *n) {
    Tensor *x = n->in[0];
    int acc = grad_accumulates(x);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) {
            float v = x->data[i], e = expf(-fabsf(v));
            float sigmoid = v >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
            x->grad[i] = (acc ? x->grad[i] : 0.0f) + n->out->grad[i] * sigmoid;
        }
    );
}

Tensor *op_softplus(Tensor *x) {
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = like(x, grad);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) {
            float v = x->data[i];
            out->data[i] = (v > 0 ? v : 0.0f) + log1pf(expf(-fabsf(v)));
        }
    );
    if (grad) tape_record("softplus", softplus_backward, out, x, NULL, NULL);
    return out;
}

// --- tanh: out = tanh(x); d/dx = 1 - out^2 ----------------------------------------------

static void tanh_backward(const Node *n) {
    Tensor *x = n->in[0];
    int acc = grad_accumulates(x);
    const float *y = n->out->data, *g = n->out->grad;
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++)
            x->grad[i] = (acc ? x->grad[i] : 0.0f) + g[i] * (1.0f - y[i] * y[i]);
    );
}

Tensor *op_tanh(Tensor *x) {
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = like(x, grad);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS, schedule(static),
        for (long i = 0; i < x->size; i++) out->data[i] = tanhf(x->data[i]);
    );
    if (grad) tape_record("tanh", tanh_backward, out, x, NULL, NULL);
    return out;
}

// --- dropout: out = x * keep / (1-p), keep = [hash(seed, i) >= p] ----------------------
// The forward pass keeps the mask (one byte per element, as PyTorch does) so the backward
// pass does not hash again. aux = mask.

static void dropout_backward(const Node *n) {
    Tensor *x = n->in[0];
    const unsigned char *keep = n->aux;
    const float *g = n->out->grad;
    float *dx = x->grad, s = 1.0f / (1.0f - n->f[0]);
    int acc = grad_accumulates(x);
    KERNEL_PARALLEL_FOR(x->size > PARALLEL_ELEMS / 4, schedule(static),
        for (long i = 0; i < x->size; i++)
            dx[i] = (acc ? dx[i] : 0.0f) + (keep[i] ? g[i] * s : 0.0f);
    );
}

Tensor *op_dropout(Tensor *x, float p, uint64_t seed) { return op_dropout_rows(x, p, seed, NULL); }

Tensor *op_dropout_rows(Tensor *x, float p, uint64_t seed, const RowPacking *packed) {
    if (p <= 0) return x;
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = like(x, grad);
    float s = 1.0f / (1.0f - p);
    // The mask is stored even without a gradient (a byte an element), and the loop runs to a
    // local n: a store under `if`, or to x->size (which a byte store may change, as far as
    // gcc knows), kept it from vectorising.
    long n = x->size;
    unsigned char *keep = arena_alloc(tensor_arena(), (size_t)n);
    const float *xs = x->data;
    float *y = out->data;
    // Each element's mask is hashed from its index in the padded layout: packed, row r of x is
    // padded row rows[r]; else x is one row of n elements (its index).
    const int *rows = packed ? packed->rows : NULL;
    long C = packed ? tensor_cols(x) : n, R = packed ? tensor_rows(x) : 1;
    KERNEL_PARALLEL_FOR(n > PARALLEL_ELEMS / 4, schedule(static) collapse(2),
        for (long r = 0; r < R; r++)
            for (long c = 0; c < C; c++) {
                uint64_t padded = (uint64_t)(rows ? rows[r] : r) * (uint64_t)C + (uint64_t)c;
                int k = hash_uniform(seed, padded) >= p;
                y[r * C + c] = k ? xs[r * C + c] * s : 0.0f;
                keep[r * C + c] = (unsigned char)k;
            }
    );
    if (grad) {
        Node *n = tape_record("dropout", dropout_backward, out, x, NULL, NULL);
        n->f[0] = p;
        n->aux = keep;
    }
    return out;
}

// --- add_dropout: out = x + Drop(y), x and y of one shape (a residual) ----------------
// Drop(y) rounds as op_dropout's output did, and the sum as op_add's; one pass instead of
// two and no tensor for Drop(y). aux = mask.

// k ? v : +0 through the bits: with a ?: gcc fuses the product v into the add it feeds (a
// masked fma), and Drop(y) would no longer be rounded as op_dropout stores it.
static inline float kept(float v, int k) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u &= -(uint32_t)k;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void add_dropout_backward(const Node *n) {
    Tensor *x = n->in[0], *y = n->in[1];
    const unsigned char *keep = n->aux;
    const float *g = n->out->grad;
    // x's gradient in the pass over y's, unless they are one array (x + Drop(x): x's first)
    float *dx = x->grad && x->grad != y->grad ? x->grad : NULL;
    if (x->grad && (!dx || !y->grad)) grad_add(x, g, x->size);
    if (!y->grad) return;
    float *dy = y->grad, s = 1.0f / (1.0f - n->f[0]);
    int acc_x = dx && grad_accumulates(x), acc = grad_accumulates(y);
    // 0 + g: the gradient Drop(y) received from op_add (-0 became +0 there)
    KERNEL_PARALLEL_FOR(y->size > PARALLEL_ELEMS / 4, schedule(static),
        for (long i = 0; i < y->size; i++) {
            if (dx) dx[i] = (acc_x ? dx[i] : 0.0f) + g[i];
            dy[i] = (acc ? dy[i] : 0.0f) + (keep[i] ? (0.0f + g[i]) * s : 0.0f);
        }
    );
}

Tensor *op_add_dropout(Tensor *x, Tensor *y, float p, uint64_t seed, const RowPacking *packed) {
    if (p <= 0) return op_add(x, y);
    if (x->size != y->size) { fprintf(stderr, "op_add_dropout: sizes differ\n"); abort(); }
    int grad = tape_needs_grad(x, y, NULL);
    Tensor *out = like(x, grad);
    float s = 1.0f / (1.0f - p);
    unsigned char *keep = arena_alloc(tensor_arena(), (size_t)y->size);   // as op_dropout's
    const float *xs = x->data, *ys = y->data;
    float *z = out->data;
    long C = tensor_cols(y), R = tensor_rows(y);
    const int *rows = packed ? packed->rows : NULL;
    KERNEL_PARALLEL_FOR(y->size > PARALLEL_ELEMS / 4, schedule(static),
        for (long r = 0; r < R; r++) {
            // each element's mask is hashed from its index in the padded layout
            uint64_t base = (uint64_t)(rows ? rows[r] : r) * (uint64_t)C;
            for (long c = 0; c < C; c++) {
                long i = r * C + c;
                int k = hash_uniform(seed, base + (uint64_t)c) >= p;
                z[i] = xs[i] + kept(ys[i] * s, k);
                keep[i] = (unsigned char)k;
            }
        }
    );
    if (grad) {
        Node *n = tape_record("add_dropout", add_dropout_backward, out, x, y, NULL);
        n->f[0] = p;
        n->aux = keep;
    }
    return out;
}
