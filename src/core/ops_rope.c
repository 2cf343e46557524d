// Rotary position embedding as an op: in each head the pair (2i, 2i+1) at position pos[t] is
// rotated by the angle pos[t] * inv_freq[i] and multiplied by a factor.
//
// y = factor · R(θ) x, so dx = factor · R(-θ) dy: backward applies the same tables with the
// sine negated. saved: factor·cos, factor·sin tables (T, D/2); aux: the padding rows (or NULL).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

// Rows r = b*T + t of src (C = H*D floats each) rotated into dst, or added to it. A padding
// row (pad[r] != 0) is not rotated: dst's row is set to 0, or left as it is when adding.
static void rotate_pairs(const float *src, float *dst, const float *cs, const float *sn,
                         const int *pad, int B, int T, int H, int D, int inverse, int add) {
    int half = D / 2;
    long C = (long)H * D, rows = (long)B * T;
    if (pad && !add) kernel_zero_padding_rows(dst, pad, rows, C);
    for (long r = 0; r < rows; r++) {
        if (pad && pad[r]) continue;
        int t = (int)(r % T);
        for (int h = 0; h < H; h++) {
            const float *x = src + r * C + (long)h * D;
            float *y = dst + r * C + (long)h * D;
            for (int i = 0; i < half; i++) {
                float c = cs[(long)t * half + i],
                      s = inverse ? -sn[(long)t * half + i] : sn[(long)t * half + i];
                float y0 = x[2 * i] * c - x[2 * i + 1] * s;
                float y1 = x[2 * i] * s + x[2 * i + 1] * c;
                if (add) { y[2 * i] += y0; y[2 * i + 1] += y1; }
                else     { y[2 * i] = y0;  y[2 * i + 1] = y1; }
            }
        }
    }
}

static void rope_backward(const Node *n) {
    Tensor *x = n->in[0];
    int B = x->shape[0], T = x->shape[1], H = n->i[0], D = x->shape[2] / H;
    const float *cs = n->saved, *sn = n->saved + (long)T * (D / 2);
    rotate_pairs(n->out->grad, x->grad, cs, sn, n->aux, B, T, H, D, 1, grad_accumulates(x));
}

Tensor *op_rope_freq(Tensor *x, int H, const float *pos, const double *inv_freq, float factor,
                     const int *pad) {
    int B = x->shape[0], T = x->shape[1], C = x->shape[2], D = C / H, half = D / 2;
    if (C % H || D % 2) { fprintf(stderr, "op_rope: head width %d must be even\n", D); abort(); }
    float *tab = arena_alloc(tensor_arena(), sizeof(float) * 2 * (size_t)T * half);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < half; i++) {
            double angle = pos[t] * inv_freq[i];
            tab[(long)t * half + i] = (float)cos(angle) * factor;
            tab[(long)T * half + (long)t * half + i] = (float)sin(angle) * factor;
        }
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new(3, x->shape, grad);
    rotate_pairs(x->data, out->data, tab, tab + (long)T * half, pad, B, T, H, D, 0, 0);
    if (grad) {
        Node *n = tape_record("rope", rope_backward, out, x, NULL, NULL);
        n->i[0] = H;
        n->saved = tab;
        if (pad) n->aux = tape_save_ints(pad, (long)B * T);
    }
    return out;
}

void rope_plain_inv_freq(double base, int D, double *out) {
    for (int i = 0; i < D / 2; i++) out[i] = pow((double)base, -2.0 * i / D);
}

Tensor *op_rope(Tensor *x, int H, const float *pos, float base) {
    int D = x->shape[2] / H;
    double *inv_freq = arena_alloc(tensor_arena(), sizeof(double) * (size_t)(D / 2 + 1));
    rope_plain_inv_freq(base, D, inv_freq);
    return op_rope_freq(x, H, pos, inv_freq, 1.0f, NULL);
}
