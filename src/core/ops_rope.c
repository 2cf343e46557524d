// Rotary position embedding as an op: in each head the pair (2i, 2i+1) at position pos[t] is
// rotated by the angle pos[t] * inv_freq[i] and multiplied by a factor.
//
// y = factor · R(θ) x, so dx = factor · R(-θ) dy: backward applies the same tables with the
// sine negated. saved: factor·cos, factor·sin tables (T, C/2), each head's D/2 values repeated
// for every head; aux: the padding rows (or NULL).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/ops.h"
#include "core/tape.h"

// Rows r = b*T + t of src (C floats each) rotated into dst, or added to it: pair i of a row
// by the angle of cs[t*C/2 + i], sn[t*C/2 + i]. The tables repeat a head's angles across the
// row, so a row is one loop over its C/2 pairs (at D = 16 a loop over heads ran 8 pairs a
// call, with the vector loop's checks each time). A padding row (pad[r] != 0) is not
// rotated: dst's row is set to 0, or left as it is when adding; a batch entry's padding is its
// last rows, so a run of them is one memset.
static void rotate_pairs(const float *restrict src, float *restrict dst,
                         const float *restrict cs, const float *restrict sn, const int *pad,
                         int B, int T, int C, int inverse, int add) {
    int half = C / 2;
    long rows = (long)B * T;
    for (long r = 0; r < rows;) {
        if (pad && pad[r]) {
            long r0 = r;
            while (r < rows && pad[r]) r++;
            if (!add) memset(dst + r0 * C, 0, sizeof(float) * (size_t)((r - r0) * C));
            continue;
        }
        int t = (int)(r % T);
        const float *x = src + r * C, *ct = cs + (long)t * half, *st = sn + (long)t * half;
        float *y = dst + r * C;
        for (int i = 0; i < half; i++) {
            float c = ct[i], s = inverse ? -st[i] : st[i];
            float y0 = x[2 * i] * c - x[2 * i + 1] * s;
            float y1 = x[2 * i] * s + x[2 * i + 1] * c;
            if (add) { y[2 * i] += y0; y[2 * i + 1] += y1; }
            else     { y[2 * i] = y0;  y[2 * i + 1] = y1; }
        }
        r++;
    }
}

static void rope_backward(const Node *n) {
    Tensor *x = n->in[0];
    int B = x->shape[0], T = x->shape[1], C = x->shape[2];
    const float *cs = n->saved, *sn = n->saved + (long)T * (C / 2);
    rotate_pairs(n->out->grad, x->grad, cs, sn, n->aux, B, T, C, 1, grad_accumulates(x));
}

Tensor *op_rope_freq(Tensor *x, int H, const float *pos, const double *inv_freq, float factor,
                     const int *pad) {
    int B = x->shape[0], T = x->shape[1], C = x->shape[2], D = C / H, half = D / 2;
    if (C % H || D % 2) { fprintf(stderr, "op_rope: head width %d must be even\n", D); abort(); }
    long pairs = (long)T * (C / 2);   // the tables' size
    float *tab = arena_alloc(tensor_arena(), sizeof(float) * 2 * (size_t)pairs);
    for (int t = 0; t < T; t++) {
        float *ct = tab + (long)t * (C / 2), *st = ct + pairs;
        for (int i = 0; i < half; i++) {
            double angle = pos[t] * inv_freq[i];
            ct[i] = (float)cos(angle) * factor;
            st[i] = (float)sin(angle) * factor;
        }
        for (int h = 1; h < H; h++) {
            memcpy(ct + h * half, ct, sizeof(float) * (size_t)half);
            memcpy(st + h * half, st, sizeof(float) * (size_t)half);
        }
    }
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new(3, x->shape, grad);
    rotate_pairs(x->data, out->data, tab, tab + pairs, pad, B, T, C, 0, 0);
    if (grad) {
        Node *n = tape_record("rope", rope_backward, out, x, NULL, NULL);
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
