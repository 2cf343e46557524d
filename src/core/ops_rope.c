// Rotary position embedding as an op: in each head the pair (2i, 2i+1) at position pos[t] is
// rotated by the angle pos[t] * inv_freq[i] and multiplied by a factor.
//
// y = factor · R(θ) x, so dx = factor · R(-θ) dy: backward applies the same tables with the
// sine negated. saved: factor·cos, factor·sin tables (T, D/2); aux: the padding rows (or NULL).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

// One row's heads (C = H*D floats) of src rotated by row t of the tables into dst, or added to
// it. Inlined into every loop below, so a row's bits do not depend on the layout it is in.
static inline __attribute__((always_inline))
void rotate_row(const float *src, float *dst, const float *cs, const float *sn, int t, int H,
                int D, int inverse, int add) {
    int half = D / 2;
    for (int h = 0; h < H; h++) {
        const float *x = src + (long)h * D;
        float *y = dst + (long)h * D;
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

// Rows r = b*T + t of src (C = H*D floats each) rotated into dst, or added to it. A padding
// row (pad[r] != 0) is not rotated: dst's row is set to 0, or left as it is when adding.
static void rotate_pairs(const float *src, float *dst, const float *cs, const float *sn,
                         const int *pad, int B, int T, int H, int D, int inverse, int add) {
    long C = (long)H * D, rows = (long)B * T;
    if (pad && !add) kernel_zero_padding_rows(dst, pad, rows, C);
    for (long r = 0; r < rows; r++) {
        if (pad && pad[r]) continue;
        rotate_row(src + r * C, dst + r * C, cs, sn, (int)(r % T), H, D, inverse, add);
    }
}

static void rope_backward(const Node *n) {
    Tensor *x = n->in[0];
    int B = x->shape[0], T = x->shape[1], H = n->i[0], D = x->shape[2] / H;
    const float *cs = n->saved, *sn = n->saved + (long)T * (D / 2);
    rotate_pairs(n->out->grad, x->grad, cs, sn, n->aux, B, T, H, D, 1, grad_accumulates(x));
}

// The tables of positions pos[0..T) (T x half factor·cos, then T x half factor·sin).
static float *rope_tables(int T, int half, const float *pos, const double *inv_freq,
                          float factor) {
    float *tab = arena_alloc(tensor_arena(), sizeof(float) * 2 * (size_t)T * half);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < half; i++) {
            double angle = pos[t] * inv_freq[i];
            tab[(long)t * half + i] = (float)cos(angle) * factor;
            tab[(long)T * half + (long)t * half + i] = (float)sin(angle) * factor;
        }
    return tab;
}

Tensor *op_rope_freq(Tensor *x, int H, const float *pos, const double *inv_freq, float factor,
                     const int *pad) {
    int B = x->shape[0], T = x->shape[1], C = x->shape[2], D = C / H, half = D / 2;
    if (C % H || D % 2) { fprintf(stderr, "op_rope: head width %d must be even\n", D); abort(); }
    float *tab = rope_tables(T, half, pos, inv_freq, factor);
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

// --- packed rows: x (n,C) holds the token rows of a RowPacking, row k at padded row rows[k]
// i[0] H, i[1] T; aux = the packing's rows; saved = the tables.

static void rope_rows_backward(const Node *n) {
    Tensor *x = n->in[0];
    int H = n->i[0], T = n->i[1], count = (int)tensor_rows(x);
    int C = tensor_cols(x), D = C / H;
    const int *rows = n->aux;
    const float *cs = n->saved, *sn = n->saved + (long)T * (D / 2), *g = n->out->grad;
    float *dx = x->grad;
    int acc = grad_accumulates(x);
    // Adding, a row is rotated first and then added, as op_unpack_rows' backward adds the
    // rotation's stored rows (rotated and added in one expression, gcc fuses otherwise).
    float *row = acc ? arena_alloc(tensor_arena(), sizeof(float) * (size_t)C) : NULL;
    for (int k = 0; k < count; k++) {   // every row of dx written: no zeroing first
        const float *gk = g + (long)rows[k] * C;
        float *d = dx + (long)k * C;
        rotate_row(gk, acc ? row : d, cs, sn, rows[k] % T, H, D, 1, 0);
        if (acc) for (int c = 0; c < C; c++) d[c] += row[c];
    }
}

Tensor *op_rope_rows(Tensor *x, const RowPacking *p, int H, const float *pos,
                     const double *inv_freq, float factor) {
    int C = tensor_cols(x), D = C / H, half = D / 2, T = p->T;
    if (C % H || D % 2) { fprintf(stderr, "op_rope: head width %d must be even\n", D); abort(); }
    if (tensor_rows(x) != p->n) {
        fprintf(stderr, "op_rope_rows: %ld rows, the packing has %d\n", tensor_rows(x), p->n);
        abort();
    }
    float *tab = rope_tables(T, half, pos, inv_freq, factor), *sn = tab + (long)T * half;
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new3(p->B, T, C, grad);
    for (RowRun u = row_run_first(p); row_run_more(p, u); u = row_run_next(p, u)) {
        row_run_zero_gap(out->data, u, C);   // padding rows 0, as op_unpack_rows leaves them
        for (int k = 0; k < u.len; k++) {
            long row = u.row + k;
            rotate_row(x->data + (long)(u.r + k) * C, out->data + row * C, tab, sn, (int)(row % T),
                       H, D, 0, 0);
        }
    }
    if (grad) {
        Node *n = tape_record("rope_rows", rope_rows_backward, out, x, NULL, NULL);
        n->i[0] = H; n->i[1] = T;
        n->aux = p->rows;
        n->saved = tab;
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
