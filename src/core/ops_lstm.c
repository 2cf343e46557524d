// The LSTM layer (docs/design.md §2.8): one direction of one layer over a batch of sequences,
// with PyTorch's weight layout and gate order (i, f, g, o), forward and backward through time.
//
//   a_t = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh         (B,4H), split in four blocks of H
//   i = sigmoid(a_i)  f = sigmoid(a_f)  g = tanh(a_g)  o = sigmoid(a_o)
//   c_t = f c_{t-1} + i g        h_t = o tanh(c_t)
//
// The input part x W_ih^T + b_ih is op_linear over the steps that run at once: one product,
// and its backward (dx, dW_ih, db_ih) is linear's; with padding (lengths below T) only the
// token rows, packed (op_pack_rows). The recurrence is one node: per step a product of the
// running sequences' rows, (m,H) x (H,4H), then the gates elementwise. The padding's rows go
// through neither product: their gates are never read and their gradients are 0, and a sum
// without terms that are exactly 0 has the same bits (it starts at +0, which no sum of
// them turns into -0), so the results are those of the padded batch, bit for bit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

// sigmoid and tanh through kernel_expf, so that the gate loops vectorise (with libm's tanhf
// and expf they took 30% of a training step). tanh(a) = 1 - 2 / (e^(2a) + 1): its limits are
// exactly -1 and 1, and near 0 it is within about 1e-7 of tanhf.
static inline float lstm_sigmoid(float a) { return 1.0f / (1.0f + kernel_expf(-a)); }
static inline float lstm_tanh(float a) { return 1.0f - 2.0f / (kernel_expf(2.0f * a) + 1.0f); }

// What the recurrence's backward needs beyond the node's inputs (in[0] the input gates gx,
// in[1] W_hh, in[2] b_hh or NULL, in[3] h0 or NULL).
typedef struct {
    Tensor *c0;          // or NULL (zeros)
    Tensor *h_n, *c_n;   // the final state, outputs whose gradients flow back into the steps
    const int *lengths;  // (B) or NULL
    const long *first;   // (B) the row of gx (in[0]) of sequence b's step 0; step t is row first + t
    float *gates;        // (B,T,4H) activated gates i, f, g, o of the steps that ran
    float *hs, *cs;      // (B,T,H) the state after each step that ran
    float *tcs;          // (B,T,H) tanh(c) of the steps that ran
    const float *zeros;  // (H) the missing initial state
} LstmSaved;

// Does step t of sequence b run? Steps past the sequence's length keep the state.
static int step_runs(const int *lengths, int b, int t) { return !lengths || t < lengths[b]; }

// Is the state before step t of sequence b the initial one? Its first step: t = 0, or when
// reverse its last real step (the padding after it never runs, and its state is never stored).
static int starts_at(const int *lengths, int b, int t, int T, int reverse) {
    return reverse ? t == (lengths ? lengths[b] : T) - 1 : t == 0;
}

// The state (states: hs or cs, (B,T,H)) before step t of sequence b: the initial one (init, or
// zeros if NULL) before its first step, else the one after the step before.
static const float *state_before(const float *states, const Tensor *init, const float *zeros,
                                 const int *lengths, int b, int t, int T, int H, int reverse) {
    if (starts_at(lengths, b, t, T, reverse)) return init ? init->data + (long)b * H : zeros;
    return states + ((long)b * T + (reverse ? t + 1 : t - 1)) * H;
}

// The sequences whose step t runs, in order: run[0..m), m returned.
static int running(const int *lengths, int B, int t, int *run) {
    int m = 0;
    for (int b = 0; b < B; b++)
        if (step_runs(lengths, b, t)) run[m++] = b;
    return m;
}

// The gates' pre-activation k of one step: (gx + h_{prev} W_hh^T) + b_hh, rounded as gemm's
// accumulating product would have left it in gx's row (kernels.h: C + s, then + bias); xt the
// row of gx, pt that of the product s (read if has_p; else h_{prev} = 0), bh b_hh (if has_b).
#define AT(k) (has_b ? (has_p ? xt[k] + pt[k] : xt[k]) + bh[k] : (has_p ? xt[k] + pt[k] : xt[k]))

// One step of one sequence: at the gates' pre-activations (AT, above); gt receives the
// activated gates, cp is the previous cell state; out c, tanh(c), h and the output row (a copy
// of h). restrict: the rows never overlap, and the loop vectorises. Inlined into lstm_step
// with has_p and has_b constants: gcc left the loop scalar where it tested pointers for NULL.
static inline __attribute__((always_inline)) void
lstm_cell(int H, const float *restrict xt, const float *restrict pt, const float *restrict bh,
          int has_p, int has_b, float *restrict gt, const float *restrict cp,
          float *restrict ct, float *restrict tct, float *restrict ht, float *restrict yt) {
    for (int j = 0; j < H; j++) {
        float ig = lstm_sigmoid(AT(j)), fg = lstm_sigmoid(AT(H + j));
        float gg = lstm_tanh(AT(2 * H + j)), og = lstm_sigmoid(AT(3 * H + j));
        gt[j] = ig; gt[H + j] = fg; gt[2 * H + j] = gg; gt[3 * H + j] = og;
        ct[j] = fg * cp[j] + ig * gg;
        tct[j] = lstm_tanh(ct[j]);
        yt[j] = ht[j] = og * tct[j];
    }
}
#undef AT

static void lstm_step(int H, const float *restrict xt, const float *restrict pt,
                      const float *restrict bh, float *restrict gt, const float *restrict cp,
                      float *restrict ct, float *restrict tct, float *restrict ht,
                      float *restrict yt) {
    if (pt && bh) lstm_cell(H, xt, pt, bh, 1, 1, gt, cp, ct, tct, ht, yt);
    else if (pt)  lstm_cell(H, xt, pt, xt, 1, 0, gt, cp, ct, tct, ht, yt);
    else if (bh)  lstm_cell(H, xt, xt, bh, 0, 1, gt, cp, ct, tct, ht, yt);
    else          lstm_cell(H, xt, xt, xt, 0, 0, gt, cp, ct, tct, ht, yt);
}

// Its backward (the formulas below): dh, dc carried in and out, da written.
static void lstm_cell_backward(int H, const float *restrict gt, const float *restrict tct,
                               const float *restrict cp, const float *restrict dyt,
                               const float *restrict dh, float *restrict dc, float *restrict da) {
    for (int j = 0; j < H; j++) {
        float ig = gt[j], fg = gt[H + j], gg = gt[2 * H + j], og = gt[3 * H + j];
        float dhj = dh[j] + dyt[j];
        float tc = tct[j];
        float dcj = dc[j] + dhj * og * (1.0f - tc * tc);
        da[j] = dcj * gg * ig * (1.0f - ig);
        da[H + j] = dcj * cp[j] * fg * (1.0f - fg);
        da[2 * H + j] = dcj * ig * (1.0f - gg * gg);
        da[3 * H + j] = dhj * tc * og * (1.0f - og);
        dc[j] = dcj * fg;
    }
}

// --- the recurrence: gates and state per step; backward through time ---------------------
// i[0] B, i[1] T, i[2] H, i[3] reverse. Step t's predecessor is t-1 (t+1 when reverse); the
// state before the first step is (h0, c0).
//
// Backward, per step with dh = dout_t + dh_{t} carried, dc carried:
//   tc = tanh(c_t)      do = dh tc       dc += dh o (1 - tc^2)
//   di = dc g   dg = dc i   df = dc c_{t-1}      dc_{t-1} = dc f
//   da = (di i(1-i), df f(1-f), dg (1-g^2), do o(1-o))      dh_{t-1} = da W_hh
// A padded step passes dh and dc through unchanged and has da = 0.

static void lstm_backward(const Node *n) {
    const LstmSaved *s = n->aux;
    Tensor *gx = n->in[0], *W_hh = n->in[1], *b_hh = n->in[2], *h0 = n->in[3];
    int B = n->i[0], T = n->i[1], H = n->i[2], reverse = n->i[3], G = 4 * H;
    long rows = tensor_rows(gx);   // the steps that ran; B*T unless the rows are packed
    int packed = rows != (long)B * T;
    Arena *arena = tensor_arena();
    const float *dout = n->out->grad;                                     // (B,T,H)
    // da, a row per row of gx, each written by the step that ran it: gx's gradient itself
    // when this op writes it first
    int acc_gx = gx->grad && grad_accumulates(gx);
    float *da = gx->grad && !acc_gx ? gx->grad
                                    : arena_alloc(arena, sizeof(float) * (size_t)(rows ? rows : 1) * G);
    float *dh = arena_alloc(arena, sizeof(float) * (size_t)B * H);        // carried (B,H)
    float *dc = arena_alloc(arena, sizeof(float) * (size_t)B * H);
    memcpy(dh, grad_zeroed(s->h_n), sizeof(float) * (size_t)B * H);
    memcpy(dc, grad_zeroed(s->c_n), sizeof(float) * (size_t)B * H);
    ArenaMark mark = arena_mark(arena);   // W_hh packed once for the T steps' products
    int *run = arena_alloc(arena, sizeof(int) * (size_t)(B ? B : 1));
    float *da_step = arena_alloc(arena, sizeof(float) * (size_t)B * G);  // (m,4H) packed rows
    float *dh_step = arena_alloc(arena, sizeof(float) * (size_t)B * H);  // (m,H)
    PackedB w_hh = gemm_pack_b(arena, H, G, mat_rows(W_hh->data, H));
    for (int k = T - 1; k >= 0; k--) {
        int t = reverse ? T - 1 - k : k;
        int m = running(s->lengths, B, t, run);
        for (int i = 0; i < m; i++) {
            int b = run[i];
            long row = (long)b * T + t;
            const float *gt = s->gates + row * G, *tct = s->tcs + row * H;
            const float *cp = state_before(s->cs, s->c0, s->zeros, s->lengths, b, t, T, H, reverse);
            const float *dyt = dout + row * H;
            float *dat = da + (s->first[b] + t) * G, *dhb = dh + (long)b * H;
            lstm_cell_backward(H, gt, tct, cp, dyt, dhb, dc + (long)b * H, dat);
            if (packed) memcpy(da_step + (long)i * G, dat, sizeof(float) * (size_t)G);
        }
        // dh_{prev} = da_t W_hh for the steps that ran; a padded step passes dh through.
        // Unpacked, every step runs, its rows of da are T*4H apart and dh takes the product.
        if (!packed) {
            gemm_packed(arena, m, &w_hh, mat_rows(da + (long)t * G, (long)T * G), dh, H, 0, NULL);
            continue;
        }
        gemm_packed(arena, m, &w_hh, mat_rows(da_step, G), dh_step, H, 0, NULL);
        for (int i = 0; i < m; i++)
            memcpy(dh + (long)run[i] * H, dh_step + (long)i * H, sizeof(float) * (size_t)H);
    }
    arena_release(arena, mark);
    if (acc_gx)
        for (long e = 0; e < rows * G; e++) gx->grad[e] += da[e];
    if (W_hh->grad) {
        // dW_hh (4H,H) += sum over the steps (b,t) that ran of da^T h_{prev}: one product over
        // the rows of da, with h_{prev} gathered as the state before each step.
        float *hp = arena_alloc(arena, sizeof(float) * (size_t)(rows ? rows : 1) * H);
        for (int b = 0; b < B; b++)
            for (int t = 0; t < T && step_runs(s->lengths, b, t); t++)
                memcpy(hp + (s->first[b] + t) * H,
                       state_before(s->hs, h0, s->zeros, s->lengths, b, t, T, H, reverse),
                       sizeof(float) * (size_t)H);
        gemm(arena, G, H, (int)rows, mat_cols(da, G), mat_rows(hp, H), W_hh->grad, H,
             grad_accumulates(W_hh), NULL);
    }
    if (b_hh && b_hh->grad) {
        float *db = grad_zeroed(b_hh);   // rows summed in ascending order, one thread
        for (long r = 0; r < rows; r++)
            for (int j = 0; j < G; j++) db[j] += da[r * G + j];
    }
    if (h0 && h0->grad) {
        int acc = grad_accumulates(h0);
        for (long e = 0; e < (long)B * H; e++) h0->grad[e] = (acc ? h0->grad[e] : 0.0f) + dh[e];
    }
    if (s->c0 && s->c0->grad) {
        int acc = grad_accumulates(s->c0);
        for (long e = 0; e < (long)B * H; e++)
            s->c0->grad[e] = (acc ? s->c0->grad[e] : 0.0f) + dc[e];
    }
}

static int has_grad(const Tensor *t) { return t && t->grad; }

// Shapes and lengths a call must have; anything else is a programming error: abort.
static void lstm_check(const Tensor *x, const LstmWeights *w, LstmState init, const int *lengths) {
    int B = x->shape[0], T = x->shape[1], H = w->w_hh->shape[1], G = 4 * H;
    if (x->ndim != 3 || w->w_ih->ndim != 2 || w->w_ih->shape[0] != G
        || w->w_ih->shape[1] != x->shape[2] || w->w_hh->shape[0] != G
        || (w->b_ih && w->b_ih->size != G) || (w->b_hh && w->b_hh->size != G)
        || (init.h && init.h->size != (long)B * H) || (init.c && init.c->size != (long)B * H)) {
        fprintf(stderr, "op_lstm: x must be (B,T,I), W_ih (4H,I), W_hh (4H,H), biases (4H), "
                "h0 and c0 (B,H)\n");
        abort();
    }
    for (int b = 0; lengths && b < B; b++)
        if (lengths[b] < 0 || lengths[b] > T) {
            fprintf(stderr, "op_lstm: length %d of sequence %d is outside [0,%d]\n", lengths[b],
                    b, T);
            abort();
        }
}

// The final state: after the last step that ran (t = length-1, or t = 0 when reverse); (h0, c0)
// if none ran. Padding rows of out are 0.
static void lstm_final(LstmState *final, LstmState init, const float *hs, const float *cs,
                       const int *lengths, int B, int T, int H, int reverse, Tensor *out) {
    for (int b = 0; b < B; b++) {
        int len = lengths ? lengths[b] : T;
        long row = (long)b * T + (reverse ? 0 : len - 1);
        for (int j = 0; j < H; j++) {
            final->h->data[(long)b * H + j] =
                len ? hs[row * H + j] : init.h ? init.h->data[(long)b * H + j] : 0.0f;
            final->c->data[(long)b * H + j] =
                len ? cs[row * H + j] : init.c ? init.c->data[(long)b * H + j] : 0.0f;
        }
        memset(out->data + ((long)b * T + len) * H, 0, sizeof(float) * (size_t)(T - len) * H);
    }
}

// x W_ih^T + b_ih for the steps that run, first[b] receiving the row of sequence b's step 0:
// all B*T rows (first[b] = b*T), or with padding the token rows packed in order.
static Tensor *input_gates(Tensor *x, const LstmWeights *w, const int *lengths, long *first) {
    int B = x->shape[0], T = x->shape[1];
    long rows = 0;
    for (int b = 0; b < B; b++) {
        first[b] = rows;
        rows += lengths ? lengths[b] : T;
    }
    if (rows == (long)B * T) return op_linear(x, w->w_ih, w->b_ih);
    int *pad = arena_alloc(tensor_arena(), sizeof(int) * (size_t)B * T);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) pad[(long)b * T + t] = !step_runs(lengths, b, t);
    RowPacking p;
    row_packing_init(&p, pad, B, T);
    return op_linear(op_pack_rows(x, &p), w->w_ih, w->b_ih);
}

Tensor *op_lstm(Tensor *x, const LstmWeights *w, LstmState init, const int *lengths, int reverse,
                LstmState *final) {
    int B = x->shape[0], T = x->shape[1], H = w->w_hh->shape[1], G = 4 * H;
    lstm_check(x, w, init, lengths);
    Arena *arena = tensor_arena();
    long *first_row = arena_alloc(arena, sizeof(long) * (size_t)(B ? B : 1));
    Tensor *gx = input_gates(x, w, lengths, first_row);             // (rows,4H)
    int packed = tensor_rows(gx) != (long)B * T;
    int grad = tape_enabled() && (has_grad(gx) || has_grad(w->w_hh) || has_grad(w->b_hh)
                                  || has_grad(init.h) || has_grad(init.c));
    int shape[3] = {B, T, H};
    Tensor *out = tensor_new(3, shape, grad);
    final->h = tensor_new2(B, H, grad);
    final->c = tensor_new2(B, H, grad);
    float *gates = arena_alloc(arena, sizeof(float) * (size_t)B * T * G);
    float *hs = arena_alloc(arena, sizeof(float) * (size_t)B * T * H);
    float *cs = arena_alloc(arena, sizeof(float) * (size_t)B * T * H);
    float *tcs = arena_alloc(arena, sizeof(float) * (size_t)B * T * H);
    float *zeros = arena_calloc(arena, sizeof(float) * (size_t)H);
    ArenaMark mark = arena_mark(arena);   // W_hh^T packed once for the T steps' products
    int *run = arena_alloc(arena, sizeof(int) * (size_t)(B ? B : 1));
    float *a_step = arena_alloc(arena, sizeof(float) * (size_t)B * G);   // (m,4H) h_{prev} W_hh^T
    float *h_step = arena_alloc(arena, sizeof(float) * (size_t)B * H);   // (m,H) h_{prev}
    PackedB w_hh_t = gemm_pack_b(arena, G, H, mat_cols(w->w_hh->data, H));
    const float *b_hh = w->b_hh ? w->b_hh->data : NULL;
    for (int k = 0; k < T; k++) {
        int t = reverse ? T - 1 - k : k;
        int prev = reverse ? t + 1 : t - 1, first = k == 0;
        int m = running(lengths, B, t, run);   // padding steps: no state stored, no output
        // h_{prev} W_hh^T for the m running sequences, in rows of a_step (h_{prev} read in
        // place, rows T*H apart, unless rows are packed); the cell adds gx_t and b_hh
        int product = !first || init.h;
        if (product) {
            MatView A = first ? mat_rows(init.h->data, H) : mat_rows(hs + (long)prev * H, (long)T * H);
            if (packed) {
                for (int i = 0; i < m; i++)
                    memcpy(h_step + (long)i * H,
                           state_before(hs, init.h, zeros, lengths, run[i], t, T, H, reverse),
                           sizeof(float) * (size_t)H);
                A = mat_rows(h_step, H);
            }
            gemm_packed(arena, m, &w_hh_t, A, a_step, G, 0, NULL);
        }
        for (int i = 0; i < m; i++) {
            int b = run[i];
            long row = (long)b * T + t;
            const float *cp = state_before(cs, init.c, zeros, lengths, b, t, T, H, reverse);
            lstm_step(H, gx->data + (first_row[b] + t) * G, product ? a_step + (long)i * G : NULL,
                      b_hh, gates + row * G, cp, cs + row * H, tcs + row * H, hs + row * H,
                      out->data + row * H);
        }
    }
    arena_release(arena, mark);
    lstm_final(final, init, hs, cs, lengths, B, T, H, reverse, out);
    if (grad) {
        Node *n = tape_record("lstm", lstm_backward, out, gx, w->w_hh, w->b_hh);
        n->in[3] = init.h;
        LstmSaved *s = arena_alloc(arena, sizeof *s);
        *s = (LstmSaved){ .c0 = init.c, .h_n = final->h, .c_n = final->c, .gates = gates,
                          .lengths = lengths ? tape_save_ints(lengths, B) : NULL,
                          .first = first_row, .hs = hs, .cs = cs, .tcs = tcs, .zeros = zeros };
        n->aux = s;
        n->i[0] = B; n->i[1] = T; n->i[2] = H; n->i[3] = reverse;
    }
    return out;
}
