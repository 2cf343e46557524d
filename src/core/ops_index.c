// Ops that gather, scatter or move data: embedding lookup, pooling, row selection, head
// split/merge and the learned relative-position bias lookup.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/ops.h"
#include "core/tape.h"

// --- embedding: out[t] = table[ids[t]]; backward scatter-adds rows --------------------

static void embedding_backward(const Node *n) {
    Tensor *table = n->in[0];
    int C = table->shape[1], count = n->i[0];
    const int *ids = n->aux;
    float *dtable = grad_zeroed(table);
    for (int t = 0; t < count; t++) {   // in order: repeated ids add up deterministically
        float *dst = dtable + (long)ids[t] * C;
        const float *g = n->out->grad + (long)t * C;
        for (int c = 0; c < C; c++) dst[c] += g[c];
    }
}

Tensor *op_embedding(Tensor *table, const int *ids, int count) {
    int V = table->shape[0], C = table->shape[1];
    int grad = tape_needs_grad(table, NULL, NULL);
    Tensor *out = tensor_new2(count, C, grad);
    for (int t = 0; t < count; t++) {
        if (ids[t] < 0 || ids[t] >= V) {
            fprintf(stderr, "op_embedding: id %d outside [0,%d)\n", ids[t], V);
            abort();
        }
        memcpy(out->data + (long)t * C, table->data + (long)ids[t] * C, sizeof(float) * C);
    }
    if (grad) {
        Node *n = tape_record("embedding", embedding_backward, out, table, NULL, NULL);
        n->aux = tape_save_ints(ids, count);
        n->i[0] = count;
    }
    return out;
}

// --- mean pooling over kept positions: (B,T,C) -> (B,C) ---------------------------------

static int kept_count(const int *keep, int b, int T) {
    int k = 0;
    for (int t = 0; t < T; t++) k += keep[b * T + t] != 0;
    return k;
}

static void mean_pool_backward(const Node *n) {
    Tensor *x = n->in[0];
    int B = x->shape[0], T = x->shape[1], C = x->shape[2];
    const int *keep = n->aux;
    float *dxs = grad_zeroed(x);   // positions not kept get no gradient
    for (int b = 0; b < B; b++) {
        int k = kept_count(keep, b, T);
        for (int t = 0; t < T; t++) {
            if (!keep[b * T + t]) continue;
            float *dx = dxs + ((long)b * T + t) * C;
            for (int c = 0; c < C; c++) dx[c] += n->out->grad[(long)b * C + c] / k;
        }
    }
}

Tensor *op_mean_pool(Tensor *x, const int *keep) {
    int B = x->shape[0], T = x->shape[1], C = x->shape[2];
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new2(B, C, grad);
    memset(out->data, 0, sizeof(float) * out->size);
    for (int b = 0; b < B; b++) {
        int k = kept_count(keep, b, T);
        for (int t = 0; t < T; t++) {
            if (!keep[b * T + t]) continue;
            const float *xr = x->data + ((long)b * T + t) * C;
            for (int c = 0; c < C; c++) out->data[(long)b * C + c] += xr[c];
        }
        for (int c = 0; c < C && k; c++) out->data[(long)b * C + c] /= k;
    }
    if (grad)
        tape_record("mean_pool", mean_pool_backward, out, x, NULL, NULL)->aux =
            tape_save_ints(keep, (long)B * T);
    return out;
}

// --- select_row: (B,T,C) -> (B,C) at position t ------------------------------------------

static void select_row_backward(const Node *n) {
    Tensor *x = n->in[0];
    int B = x->shape[0], T = x->shape[1], C = x->shape[2], t = n->i[0];
    float *dx = grad_zeroed(x);   // only row t gets a gradient
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) dx[((long)b * T + t) * C + c] += n->out->grad[(long)b * C + c];
}

Tensor *op_select_row(Tensor *x, int t) {
    int B = x->shape[0], T = x->shape[1], C = x->shape[2];
    if (t < 0 || t >= T) { fprintf(stderr, "op_select_row: %d outside [0,%d)\n", t, T); abort(); }
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new2(B, C, grad);
    for (int b = 0; b < B; b++)
        memcpy(out->data + (long)b * C, x->data + ((long)b * T + t) * C, sizeof(float) * C);
    if (grad) tape_record("select_row", select_row_backward, out, x, NULL, NULL)->i[0] = t;
    return out;
}

// --- concat: (...,Ca) and (...,Cb) -> (...,Ca+Cb), a's columns first ---------------------

static void concat_backward(const Node *n) {
    Tensor *a = n->in[0], *b = n->in[1];
    long R = tensor_rows(a);
    int Ca = tensor_cols(a), Cb = tensor_cols(b), C = Ca + Cb;
    const float *g = n->out->grad;
    if (a->grad) {
        int acc = grad_accumulates(a);
        for (long r = 0; r < R; r++)
            for (int c = 0; c < Ca; c++)
                a->grad[r * Ca + c] = (acc ? a->grad[r * Ca + c] : 0.0f) + g[r * C + c];
    }
    if (b->grad) {
        int acc = grad_accumulates(b);
        for (long r = 0; r < R; r++)
            for (int c = 0; c < Cb; c++)
                b->grad[r * Cb + c] = (acc ? b->grad[r * Cb + c] : 0.0f) + g[r * C + Ca + c];
    }
}

Tensor *op_concat(Tensor *a, Tensor *b) {
    long R = tensor_rows(a);
    int Ca = tensor_cols(a), Cb = tensor_cols(b), C = Ca + Cb;
    if (a->ndim != b->ndim || tensor_rows(b) != R) {
        fprintf(stderr, "op_concat: the leading dimensions differ\n");
        abort();
    }
    int shape[TENSOR_MAX_DIMS];
    memcpy(shape, a->shape, sizeof shape);
    shape[a->ndim - 1] = C;
    int grad = tape_needs_grad(a, b, NULL);
    Tensor *out = tensor_new(a->ndim, shape, grad);
    for (long r = 0; r < R; r++) {
        memcpy(out->data + r * C, a->data + r * Ca, sizeof(float) * Ca);
        memcpy(out->data + r * C + Ca, b->data + r * Cb, sizeof(float) * Cb);
    }
    if (grad) tape_record("concat", concat_backward, out, a, b, NULL);
    return out;
}

// --- split/merge heads: (B,T,H*D) <-> (B,H,T,D) ----------------------------------------
// One copy routine serves both directions and both backward passes.

static void permute_heads(const float *src, float *dst, int B, int T, int H, int D, int to_split,
                          int add) {
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < H; h++) {
                long merged = (((long)b * T + t) * H + h) * D,
                     split = (((long)b * H + h) * T + t) * D;
                const float *s = src + (to_split ? merged : split);
                float *d = dst + (to_split ? split : merged);
                for (int e = 0; e < D; e++) d[e] = add ? d[e] + s[e] : s[e];
            }
}

static void split_heads_backward(const Node *n) {
    int acc = grad_accumulates(n->in[0]);
    permute_heads(n->out->grad, n->in[0]->grad, n->i[0], n->i[1], n->i[2], n->i[3], 0, acc);
}

static void merge_heads_backward(const Node *n) {
    int acc = grad_accumulates(n->in[0]);
    permute_heads(n->out->grad, n->in[0]->grad, n->i[0], n->i[1], n->i[2], n->i[3], 1, acc);
}

Tensor *op_split_heads(Tensor *x, int H) {
    int B = x->shape[0], T = x->shape[1], D = x->shape[2] / H;
    int grad = tape_needs_grad(x, NULL, NULL);
    int shape[4] = {B, H, T, D};
    Tensor *out = tensor_new(4, shape, grad);
    permute_heads(x->data, out->data, B, T, H, D, 1, 0);
    if (grad) {
        Node *n = tape_record("split_heads", split_heads_backward, out, x, NULL, NULL);
        n->i[0] = B; n->i[1] = T; n->i[2] = H; n->i[3] = D;
    }
    return out;
}

Tensor *op_merge_heads(Tensor *x) {
    int B = x->shape[0], H = x->shape[1], T = x->shape[2], D = x->shape[3];
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new3(B, T, H * D, grad);
    permute_heads(x->data, out->data, B, T, H, D, 0, 0);
    if (grad) {
        Node *n = tape_record("merge_heads", merge_heads_backward, out, x, NULL, NULL);
        n->i[0] = B; n->i[1] = T; n->i[2] = H; n->i[3] = D;
    }
    return out;
}

// --- rel_bias: out[h,i,j] = table[bucket[i,j], h] ----------------------------------------

static void rel_bias_backward(const Node *n) {
    Tensor *table = n->in[0];
    int H = table->shape[1], TT = n->i[0];
    const int *bucket = n->aux;
    float *dtable = grad_zeroed(table);
    for (int h = 0; h < H; h++)
        for (int ij = 0; ij < TT; ij++)
            dtable[bucket[ij] * H + h] += n->out->grad[(long)h * TT + ij];
}

Tensor *op_rel_bias(Tensor *table, const int *bucket, int Tq, int Tk) {
    int NB = table->shape[0], H = table->shape[1], TT = Tq * Tk;
    int grad = tape_needs_grad(table, NULL, NULL);
    Tensor *out = tensor_new3(H, Tq, Tk, grad);
    for (int ij = 0; ij < TT; ij++) {
        if (bucket[ij] < 0 || bucket[ij] >= NB) {
            fprintf(stderr, "op_rel_bias: bucket %d outside [0,%d)\n", bucket[ij], NB);
            abort();
        }
        for (int h = 0; h < H; h++) out->data[(long)h * TT + ij] = table->data[bucket[ij] * H + h];
    }
    if (grad) {
        Node *n = tape_record("rel_bias", rel_bias_backward, out, table, NULL, NULL);
        n->aux = tape_save_ints(bucket, TT);
        n->i[0] = TT;
    }
    return out;
}

// --- packed rows: the token rows of a padded batch, without the padding ------------------
// Packing is a gather of rows (op_embedding over x's rows), unpacking its adjoint: a scatter
// into zeros, whose backward gathers the gradient's rows again.

int row_packing_init(RowPacking *p, const int *pad, int B, int T) {
    int n = 0;
    for (int i = 0; i < B * T; i++) n += !pad[i];
    p->B = B;
    p->T = T;
    p->n = n;
    p->rows = NULL;
    if (n == B * T) return 0;
    int *rows = arena_alloc(tensor_arena(), sizeof(int) * (size_t)(n + 1));
    for (int i = 0, r = 0; i < B * T; i++)
        if (!pad[i]) rows[r++] = i;
    p->rows = rows;
    return 1;
}

// The adjoint of the gather: each token row's gradient into its padded row, and the padding
// rows 0 where this is their first writer. The rows are distinct, so a token row is written
// once, (acc ? dx : 0) + g as an embedding's backward added it to a zeroed row, and only the
// padding is zeroed: the embedding's backward (ids may repeat) zeroed the whole padded
// gradient first, a second store of every token row. i[0..2] = the packing's n, B, T.
static void pack_rows_backward(const Node *n) {
    Tensor *x = n->in[0];
    RowPacking p = {n->aux, n->i[0], n->i[1], n->i[2]};
    int C = tensor_cols(x), acc = grad_accumulates(x);
    for (RowRun u = row_run_first(&p); row_run_more(&p, u); u = row_run_next(&p, u)) {
        if (!acc) row_run_zero_gap(x->grad, u, C);
        float *d = x->grad + u.row * C;
        const float *g = n->out->grad + (long)u.r * C;
        for (long c = 0; c < (long)u.len * C; c++) d[c] = (acc ? d[c] : 0.0f) + g[c];
    }
}

Tensor *op_pack_rows(Tensor *x, const RowPacking *p) {
    if (tensor_rows(x) != (long)p->B * p->T) {
        fprintf(stderr, "op_pack_rows: %ld rows, the packing has %d x %d\n", tensor_rows(x),
                p->B, p->T);
        abort();
    }
    int C = tensor_cols(x), grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new2(p->n, C, grad);
    for (RowRun u = row_run_first(p); row_run_more(p, u); u = row_run_next(p, u))
        memcpy(out->data + (long)u.r * C, x->data + u.row * C, sizeof(float) * (size_t)u.len * C);
    if (grad) {
        Node *n = tape_record("pack_rows", pack_rows_backward, out, x, NULL, NULL);
        n->aux = p->rows;
        n->i[0] = p->n; n->i[1] = p->B; n->i[2] = p->T;
    }
    return out;
}

// i[0..2] = the packing's n, B, T.
static void unpack_rows_backward(const Node *n) {
    Tensor *x = n->in[0];
    RowPacking p = {n->aux, n->i[0], n->i[1], n->i[2]};
    int C = tensor_cols(x), acc = grad_accumulates(x);
    for (RowRun u = row_run_first(&p); row_run_more(&p, u); u = row_run_next(&p, u)) {
        float *d = x->grad + (long)u.r * C;   // dx row r = the gradient of its padded row
        const float *g = n->out->grad + u.row * C;
        if (acc) for (long c = 0; c < (long)u.len * C; c++) d[c] += g[c];
        else memcpy(d, g, sizeof(float) * (size_t)u.len * C);
    }
}

Tensor *op_unpack_rows(Tensor *x, const RowPacking *p) {
    int C = tensor_cols(x);
    if (tensor_rows(x) != p->n) {
        fprintf(stderr, "op_unpack_rows: %ld rows, the packing has %d\n", tensor_rows(x), p->n);
        abort();
    }
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new3(p->B, p->T, C, grad);
    for (RowRun u = row_run_first(p); row_run_more(p, u); u = row_run_next(p, u)) {
        row_run_zero_gap(out->data, u, C);
        memcpy(out->data + u.row * C, x->data + (long)u.r * C, sizeof(float) * (size_t)u.len * C);
    }
    if (grad) {
        Node *n = tape_record("unpack_rows", unpack_rows_backward, out, x, NULL, NULL);
        n->aux = p->rows;
        n->i[0] = p->n; n->i[1] = p->B; n->i[2] = p->T;
    }
    return out;
}
