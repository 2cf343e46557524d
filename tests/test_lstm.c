// op_lstm (src/core/ops_lstm.c): a 2-unit cell against numbers worked out by hand, every
// gradient against finite differences (odd sizes, both directions, unequal lengths), padding
// that changes nothing, and the same bits for any thread count. op_additive_scores
// (src/core/ops_additive.c), the additive attention of the LSTM translator: by hand and
// against finite differences.
#include <omp.h>
#include <string.h>
#include "check.h"
#include "core/kernels.h"
#include "grad_check.h"

static Arena arena;

// --- the test's own concatenation, so one grad_check covers all three outputs -----------
static void concat3_backward(const Node *n) {
    long off = 0;
    for (int k = 0; k < 3; k++) {
        Tensor *t = n->in[k];
        if (t->grad) {
            int acc = grad_accumulates(t);
            for (long e = 0; e < t->size; e++)
                t->grad[e] = (acc ? t->grad[e] : 0.0f) + n->out->grad[off + e];
        }
        off += t->size;
    }
}

static Tensor *concat3(Tensor *a, Tensor *b, Tensor *c) {
    int size = (int)(a->size + b->size + c->size);
    int grad = tape_needs_grad(a, b, c);
    Tensor *out = tensor_new(1, &size, grad);
    memcpy(out->data, a->data, sizeof(float) * a->size);
    memcpy(out->data + a->size, b->data, sizeof(float) * b->size);
    memcpy(out->data + a->size + b->size, c->data, sizeof(float) * c->size);
    if (grad) tape_record("concat3", concat3_backward, out, a, b, c);
    return out;
}

// in: x, W_ih, W_hh, b_ih, b_hh, h0, c0 (any of the last four may be NULL)
static const int *gc_lengths;
static int gc_reverse;
static Tensor *f_lstm(Tensor **in) {
    LstmWeights w = {in[1], in[2], in[3], in[4]};
    LstmState init = {in[5], in[6]}, fin;
    Tensor *y = op_lstm(in[0], &w, init, gc_lengths, gc_reverse, &fin);
    return concat3(y, fin.h, fin.c);
}

static void lstm_inputs(Tensor **in, int B, int T, int I, int H) {
    int xs[3] = {B, T, I}, wi[2] = {4 * H, I}, wh[2] = {4 * H, H}, bs = 4 * H, st[2] = {B, H};
    in[0] = gc_input(3, xs, 1);
    in[1] = gc_input(2, wi, 1);
    in[2] = gc_input(2, wh, 1);
    in[3] = gc_input(1, &bs, 1);
    in[4] = gc_input(1, &bs, 1);
    in[5] = gc_input(2, st, 1);
    in[6] = gc_input(2, st, 1);
}

// --- the step's rounding ------------------------------------------------------------------
// A step's pre-activations are those gemm's accumulating product leaves in a copy of gx's row,
// (gx + h W_hh^T) + b_hh (kernels.h: C + s, then + bias): the cell, written out here through
// the same kernel_expf, gives the op's outputs bit for bit (c0 = 0, so c = i g).
static float step_sigmoid(float a) { return 1.0f / (1.0f + kernel_expf(-a)); }
static float step_tanh(float a) { return 1.0f - 2.0f / (kernel_expf(2.0f * a) + 1.0f); }

static void test_lstm_step_rounds_as_accumulating_gemm(void) {
    enum { B = 16, I = 5, H = 37, G = 4 * H };
    Tensor *in[7];
    lstm_inputs(in, B, 1, I, H);
    in[6] = NULL;   // c0 = 0
    Tensor *y = f_lstm(in);
    float gx[B * G];
    gemm(&arena, B, G, I, mat_rows(in[0]->data, I), mat_cols(in[1]->data, I), gx, G, 0,
         in[3]->data);
    gemm(&arena, B, G, H, mat_rows(in[5]->data, H), mat_cols(in[2]->data, H), gx, G, 1,
         in[4]->data);
    long differ = 0;
    for (int b = 0; b < B; b++)
        for (int j = 0; j < H; j++) {
            const float *a = gx + b * G;
            float c = step_sigmoid(a[j]) * step_tanh(a[2 * H + j]);
            float h = step_sigmoid(a[3 * H + j]) * step_tanh(c);
            differ += memcmp(&h, y->data + b * H + j, sizeof h) != 0;
        }
    CHECK(differ == 0, "%ld of %d outputs differ from the accumulating product's", differ, B * H);
    tape_reset();
}

// --- values by hand ----------------------------------------------------------------------
// H = 2, I = 1, B = 1. Gate blocks (rows of W_ih, each (unit 0, unit 1)):
//   i (0.5, -0.5)  f (1, 0)  g (2, 1)  o (-1, 0.5);  W_hh = w_k * identity in block k with
//   w_i = 1, w_f = -1, w_g = 0.5, w_o = 2;  b_ih = 1 in block f, b_hh = -0.5 in block o.
// Step 1, x = 1, h0 = c0 = 0:
//   a_i = (0.5, -0.5)  a_f = (2, 1)  a_g = (2, 1)  a_o = (-1.5, 0)
//   i = (sigmoid .5, sigmoid -.5) = (0.6224593, 0.3775407)  f = (0.8807971, 0.7310586)
//   g = (tanh 2, tanh 1) = (0.9640276, 0.7615942)           o = (0.1824255, 0.5)
//   c1 = i g = (0.6000680, 0.2875328)   h1 = o tanh(c1) = (0.0979804, 0.1399312)
// Step 2, x = 0.5: a = W_ih x + b_ih + w_k h1 + b_hh:
//   a_i = (0.25 + 0.0979804, -0.25 + 0.1399312) = (0.3479804, -0.1100688)
//   a_f = (0.5 + 1 - 0.0979804, 1 - 0.1399312) = (1.4020196, 0.8600688)
//   a_g = (1 + 0.0489902, 0.5 + 0.0699656) = (1.0489902, 0.5699656)
//   a_o = (-0.5 + 0.1959607 - 0.5, 0.25 + 0.2798624 - 0.5) = (-0.8040393, 0.0298624)
//   i = (0.5861277, 0.4725105)  f = (0.8025042, 0.7026750)  g = (0.7814135, 0.5153340)
//   o = (0.3091621, 0.5074650)
//   c2 = f c1 + i g = (0.4815569 + 0.4580082, 0.2020418 + 0.2435010) = (0.9395651, 0.4455429)
//   h2 = o tanh(c2) = (0.3091621 * 0.7350290, 0.5074650 * 0.4182255) = (0.2272411, 0.2122363)
static void hand_cell(LstmWeights *w) {
    int wi[2] = {8, 1}, wh[2] = {8, 2}, bs = 8;
    w->w_ih = tensor_new(2, wi, 0);
    w->w_hh = tensor_zeros(2, wh, 0);
    w->b_ih = tensor_zeros(1, &bs, 0);
    w->b_hh = tensor_zeros(1, &bs, 0);
    float wih[8] = {0.5f, -0.5f, 1, 0, 2, 1, -1, 0.5f}, whh[4] = {1, -1, 0.5f, 2};
    memcpy(w->w_ih->data, wih, sizeof wih);
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 2; j++) w->w_hh->data[(2 * k + j) * 2 + j] = whh[k];
    w->b_ih->data[2] = w->b_ih->data[3] = 1;
    w->b_hh->data[6] = w->b_hh->data[7] = -0.5f;
}

static void test_lstm_two_steps_by_hand(void) {
    LstmWeights w;
    hand_cell(&w);
    int xs[3] = {1, 2, 1};
    Tensor *x = tensor_new(3, xs, 0);
    x->data[0] = 1;
    x->data[1] = 0.5f;
    LstmState zero = {NULL, NULL}, fin;
    Tensor *y = op_lstm(x, &w, zero, NULL, 0, &fin);
    double want[4] = {0.0979804, 0.1399312, 0.2272411, 0.2122363};
    for (int e = 0; e < 4; e++) CHECK_NEAR(y->data[e], want[e], 2e-7);
    CHECK_NEAR(fin.h->data[0], 0.2272411, 2e-7);
    CHECK_NEAR(fin.h->data[1], 0.2122363, 2e-7);
    CHECK_NEAR(fin.c->data[0], 0.9395651, 2e-7);
    CHECK_NEAR(fin.c->data[1], 0.4455429, 2e-7);
    // One step alone gives step 1; the state after it, fed back as (h0, c0), gives step 2.
    int x1s[3] = {1, 1, 1};
    Tensor *x1 = tensor_new(3, x1s, 0);
    x1->data[0] = 1;
    LstmState s1;
    y = op_lstm(x1, &w, zero, NULL, 0, &s1);
    CHECK_NEAR(y->data[0], 0.0979804, 2e-7);
    CHECK_NEAR(y->data[1], 0.1399312, 2e-7);
    CHECK_NEAR(s1.c->data[0], 0.6000680, 2e-7);
    CHECK_NEAR(s1.c->data[1], 0.2875328, 2e-7);
    x1->data[0] = 0.5f;
    y = op_lstm(x1, &w, s1, NULL, 0, &fin);
    CHECK_NEAR(y->data[0], 0.2272411, 2e-7);
    CHECK_NEAR(y->data[1], 0.2122363, 2e-7);
    CHECK_NEAR(fin.c->data[0], 0.9395651, 2e-7);
    // Reversed, the sequence (0.5, 1) gives at t = 1 step 1's state and at t = 0 step 2's.
    x->data[0] = 0.5f;
    x->data[1] = 1;
    y = op_lstm(x, &w, zero, NULL, 1, &fin);
    double rev[4] = {0.2272411, 0.2122363, 0.0979804, 0.1399312};
    for (int e = 0; e < 4; e++) CHECK_NEAR(y->data[e], rev[e], 2e-7);
    CHECK_NEAR(fin.h->data[0], 0.2272411, 2e-7);
    CHECK_NEAR(fin.c->data[1], 0.4455429, 2e-7);
}

// --- gradients ---------------------------------------------------------------------------
static void test_lstm_gradients(void) {
    int sizes[][4] = {{1, 1, 3, 5}, {2, 7, 3, 5}, {3, 4, 2, 1}};   // B, T, I, H
    int lengths[3] = {7, 4, 1}, len4[3] = {4, 2, 0};
    for (int s = 0; s < 3; s++)
        for (int reverse = 0; reverse < 2; reverse++) {
            int B = sizes[s][0], T = sizes[s][1];
            Tensor *in[7];
            lstm_inputs(in, B, T, sizes[s][2], sizes[s][3]);
            gc_reverse = reverse;
            gc_lengths = NULL;
            grad_check(reverse ? "lstm reverse" : "lstm", f_lstm, in, 7);
            if (B > 1) {
                gc_lengths = T == 7 ? lengths : len4;   // unequal lengths, one of them 0
                grad_check(reverse ? "lstm reverse, lengths" : "lstm, lengths", f_lstm, in, 7);
            }
            in[3] = in[4] = in[5] = in[6] = NULL;       // no biases, zero initial state
            gc_lengths = NULL;
            grad_check("lstm without biases or state", f_lstm, in, 7);
        }
    gc_lengths = NULL;
    gc_reverse = 0;
}

// --- padding ------------------------------------------------------------------------------
// A sequence of length 4 padded to 7 gives, at its 4 steps, the outputs and gradients of the
// sequence run alone; its padded steps output 0 and get no gradient; the final state is the
// one after step 4 (forward) or step 1 (reverse: it starts at the last real step).
static void test_lstm_padding_changes_nothing(void) {
    int I = 3, H = 5, L = 4, T = 7;
    for (int reverse = 0; reverse < 2; reverse++) {
        Tensor *in[7];
        lstm_inputs(in, 1, T, I, H);
        int xs[3] = {1, L, I};
        Tensor *alone[7];
        memcpy(alone, in, sizeof in);
        alone[0] = tensor_new(3, xs, 1);
        memcpy(alone[0]->data, in[0]->data, sizeof(float) * L * I);
        float *grads[2][7];
        float outs[2][(7 + 2) * 5];
        for (int run = 0; run < 2; run++) {
            Tensor **v = run ? alone : in;
            for (int k = 0; k < 7; k++) memset(v[k]->grad, 0, sizeof(float) * v[k]->size);
            tape_reset();
            gc_lengths = run ? NULL : &L;
            gc_reverse = reverse;
            Tensor *y = f_lstm(v);                       // (T*H + 2H) values
            int TT = run ? L : T;
            // the first L steps, then h_n and c_n
            memcpy(outs[run], y->data, sizeof(float) * L * H);
            memcpy(outs[run] + L * H, y->data + TT * H, sizeof(float) * 2 * H);
            for (int e = L * H; !run && e < T * H; e++)
                CHECK(y->data[e] == 0, "padded output %d is %g", e, y->data[e]);
            float *seed = grad_zeroed(y);
            for (int e = 0; e < L * H; e++) seed[e] = 0.1f * (e % 7) - 0.3f;
            for (int e = 0; e < 2 * H; e++) seed[TT * H + e] = 0.05f * e - 0.2f;
            for (int e = L * H; e < TT * H; e++) seed[e] = 1;   // ignored: the outputs are 0
            tape_replay();
            for (int k = 0; k < 7; k++) {   // the weights are shared: keep a copy
                grads[run][k] = arena_alloc(&arena, sizeof(float) * v[k]->size);
                memcpy(grads[run][k], v[k]->grad, sizeof(float) * v[k]->size);
            }
        }
        for (int e = 0; e < (L + 2) * H; e++) CHECK_NEAR(outs[0][e], outs[1][e], 1e-6);
        for (int e = 0; e < L * I; e++) CHECK_NEAR(grads[0][0][e], grads[1][0][e], 1e-6);
        for (int e = L * I; e < T * I; e++)
            CHECK(grads[0][0][e] == 0, "padded input %d has gradient %g", e, grads[0][0][e]);
        for (int k = 1; k < 7; k++)
            for (long e = 0; e < in[k]->size; e++) CHECK_NEAR(grads[0][k][e], grads[1][k][e], 1e-6);
    }
    gc_lengths = NULL;
    gc_reverse = 0;
}

// Sequences of unequal lengths in one padded batch (its token rows packed, the recurrence's
// products over the sequences still running) against each sequence run alone (B = 1, T its
// length: nothing packed, every step running): the same bits in each sequence's outputs, final
// state and the gradients of its input and initial state, in both directions; the padding's
// outputs and input gradients exactly 0. The batch's memory starts as NaN: a padding step stores
// no state, and nothing may read one.
static void test_lstm_batch_equals_sequences_alone(void) {
    enum { B = 3, T = 7, I = 3, H = 5, STALE = 1 << 16 };
    int lengths[B] = {4, 7, 2};
    for (int reverse = 0; reverse < 2; reverse++) {
        Tensor *in[7];
        lstm_inputs(in, B, T, I, H);
        gc_reverse = reverse;
        gc_lengths = lengths;
        tape_reset();
        ArenaMark mark = arena_mark(&arena);
        float *stale = arena_alloc(&arena, sizeof(float) * STALE);
        for (int e = 0; e < STALE; e++) stale[e] = NAN;
        arena_release(&arena, mark);
        Tensor *y = f_lstm(in);   // y (B,T,H), h_n (B,H), c_n (B,H)
        float *seed = grad_zeroed(y);
        for (long e = 0; e < y->size; e++) seed[e] = (float)((e * 29) % 13) / 13.0f - 0.4f;
        float *y_batch = arena_alloc(&arena, sizeof(float) * y->size);
        memcpy(y_batch, y->data, sizeof(float) * y->size);
        tape_replay();
        float *dx = arena_alloc(&arena, sizeof(float) * in[0]->size);
        float *dh0 = arena_alloc(&arena, sizeof(float) * B * H);
        float *dc0 = arena_alloc(&arena, sizeof(float) * B * H);
        memcpy(dx, in[0]->grad, sizeof(float) * in[0]->size);
        memcpy(dh0, in[5]->grad, sizeof(float) * B * H);
        memcpy(dc0, in[6]->grad, sizeof(float) * B * H);
        for (int b = 0; b < B; b++) {
            int L = lengths[b], xs[3] = {1, L, I}, st[2] = {1, H};
            Tensor *alone[7];
            memcpy(alone, in, sizeof in);
            alone[0] = tensor_new(3, xs, 1);
            alone[5] = tensor_new(2, st, 1);
            alone[6] = tensor_new(2, st, 1);
            memcpy(alone[0]->data, in[0]->data + (long)b * T * I, sizeof(float) * L * I);
            memcpy(alone[5]->data, in[5]->data + b * H, sizeof(float) * H);
            memcpy(alone[6]->data, in[6]->data + b * H, sizeof(float) * H);
            gc_lengths = NULL;
            tape_reset();
            Tensor *ya = f_lstm(alone);   // y (1,L,H), h_n (1,H), c_n (1,H)
            float *sa = grad_zeroed(ya);   // the batch's seeds of this sequence's values
            memcpy(sa, seed + (long)b * T * H, sizeof(float) * L * H);
            memcpy(sa + L * H, seed + B * T * H + b * H, sizeof(float) * H);
            memcpy(sa + (L + 1) * H, seed + (B * T + B) * H + b * H, sizeof(float) * H);
            tape_replay();
            CHECK(!memcmp(ya->data, y_batch + (long)b * T * H, sizeof(float) * L * H),
                  "sequence %d (reverse %d): outputs differ from the batch's", b, reverse);
            for (int e = L * H; e < T * H; e++)
                CHECK(y_batch[(long)b * T * H + e] == 0, "padded output %d of sequence %d", e, b);
            CHECK(!memcmp(ya->data + L * H, y_batch + B * T * H + b * H, sizeof(float) * H)
                  && !memcmp(ya->data + (L + 1) * H, y_batch + (B * T + B) * H + b * H,
                             sizeof(float) * H),
                  "sequence %d (reverse %d): final state differs", b, reverse);
            CHECK(!memcmp(alone[0]->grad, dx + (long)b * T * I, sizeof(float) * L * I),
                  "sequence %d (reverse %d): input gradient differs", b, reverse);
            for (int e = L * I; e < T * I; e++)
                CHECK(dx[(long)b * T * I + e] == 0, "padded input %d of sequence %d has "
                      "gradient %g", e, b, dx[(long)b * T * I + e]);
            CHECK(!memcmp(alone[5]->grad, dh0 + b * H, sizeof(float) * H)
                  && !memcmp(alone[6]->grad, dc0 + b * H, sizeof(float) * H),
                  "sequence %d (reverse %d): initial state's gradient differs", b, reverse);
            gc_lengths = lengths;
        }
    }
    gc_lengths = NULL;
    gc_reverse = 0;
    tape_reset();
}

// --- additive attention scores -------------------------------------------------------------
static Tensor *f_additive(Tensor **in) { return op_additive_scores(in[0], in[1], in[2]); }

static void test_additive_scores(void) {
    // q = (0.5, -1), keys (0.5, 0) and (0, 1), v = (1, 2):
    //   s0 = tanh(1) + 2 tanh(-1) = 0.7615942 - 1.5231884 = -0.7615942
    //   s1 = tanh(0.5) + 2 tanh(0) = 0.4621172
    int qs[3] = {1, 1, 2}, ks[3] = {1, 2, 2}, vs = 2;
    Tensor *q = tensor_new(3, qs, 0), *k = tensor_new(3, ks, 0), *v = tensor_new(1, &vs, 0);
    float qv[2] = {0.5f, -1}, kv[4] = {0.5f, 0, 0, 1}, vv[2] = {1, 2};
    memcpy(q->data, qv, sizeof qv);
    memcpy(k->data, kv, sizeof kv);
    memcpy(v->data, vv, sizeof vv);
    Tensor *s = op_additive_scores(q, k, v);
    CHECK_NEAR(s->data[0], -0.7615942, 2e-7);
    CHECK_NEAR(s->data[1], 0.4621172, 2e-7);
    int sizes[][4] = {{1, 1, 1, 1}, {2, 3, 5, 7}};   // B, Tq, Tk, A
    for (int c = 0; c < 2; c++) {
        int a[3] = {sizes[c][0], sizes[c][1], sizes[c][3]}, b[3] = {sizes[c][0], sizes[c][2], sizes[c][3]};
        Tensor *in[3] = {gc_input(3, a, 1), gc_input(3, b, 1), gc_input(1, &sizes[c][3], 1)};
        grad_check("additive scores", f_additive, in, 3);
    }
}

// --- threads ------------------------------------------------------------------------------
// Big enough for gemm to split the products over threads: the same bits with 1 and 2.
static void test_lstm_same_bits_any_thread_count(void) {
    int B = 16, T = 9, I = 64, H = 96;
    Tensor *in[7];
    lstm_inputs(in, B, T, I, H);
    int lengths[16];
    for (int b = 0; b < B; b++) lengths[b] = T - b % 5;
    gc_lengths = lengths;
    int saved = omp_get_max_threads();
    float *first[7] = {0};
    float *y1 = NULL;
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        for (int k = 0; k < 7; k++) memset(in[k]->grad, 0, sizeof(float) * in[k]->size);
        tape_reset();
        Tensor *y = f_lstm(in);
        float *seed = grad_zeroed(y);
        for (long e = 0; e < y->size; e++) seed[e] = (float)((e * 37) % 11) / 11.0f - 0.5f;
        tape_replay();
        if (threads == 1) {
            y1 = malloc(sizeof(float) * y->size);
            memcpy(y1, y->data, sizeof(float) * y->size);
            for (int k = 0; k < 7; k++) {
                first[k] = malloc(sizeof(float) * in[k]->size);
                memcpy(first[k], in[k]->grad, sizeof(float) * in[k]->size);
            }
        } else {
            CHECK(!memcmp(y1, y->data, sizeof(float) * y->size), "outputs differ");
            for (int k = 0; k < 7; k++)
                CHECK(!memcmp(first[k], in[k]->grad, sizeof(float) * in[k]->size),
                      "gradient of input %d differs between 1 and 2 threads", k);
        }
    }
    omp_set_num_threads(saved);
    free(y1);
    for (int k = 0; k < 7; k++) free(first[k]);
    gc_lengths = NULL;
    tape_reset();
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    gc_rng = rng_stream(47, 0);
#define T(fn) do { arena_reset(&arena); tape_reset(); RUN(fn); } while (0)
    T(test_lstm_step_rounds_as_accumulating_gemm);
    T(test_lstm_two_steps_by_hand);
    T(test_lstm_gradients);
    T(test_lstm_padding_changes_nothing);
    T(test_lstm_batch_equals_sequences_alone);
    T(test_lstm_same_bits_any_thread_count);
    T(test_additive_scores);
    arena_free(&arena);
    return check_summary();
}
