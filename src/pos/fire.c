// FIRE (Li et al., 2024, "Functional Interpolation for Relative Positions"): no input
// signal; the score bias of head h is a small learned function of the normalised distance,
//     bias_h(i, j) = f(z)_h,   z = psi(|i - j|) / psi(max(L, i, j)),   psi(x) = log(1 + c x),
// f an MLP 1 -> 32 -> H with a ReLU. Dividing by psi of the query's position maps every
// distance a query can see into [0, 1], however long the sequence: a longer input asks f
// for values between those it was trained on (interpolation) instead of beyond them.
// By default c = 1 and L = FIRE_THRESHOLD are fixed, so that z is a constant of the positions.
// model.fire_learned = 1 learns them, as the paper does: c = e^log_c and L = FIRE_THRESHOLD
// e^log_l (both positive; log_c = log_l = 0 at the start, the fixed setting), through
// fire_learned_input, whose derivative sits beside it. Encoder and decoder use the same
// formula (for a causal query, max(i, j) = i for every key it sees). One MLP (and c, L) per
// stack, shared by its layers. docs/design.md §2.3.10.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "core/ops.h"
#include "core/kernels.h"
#include "core/tape.h"
#include "pos/pos.h"

#define FIRE_HIDDEN 32
// L: positions below it share one normaliser (the 32-token training windows)
#define FIRE_THRESHOLD 32

// slots of Positional.weights; the last two only with model.fire_learned, each (1)
enum { FIRE_FC1_WEIGHT, FIRE_FC1_BIAS, FIRE_FC2_WEIGHT, FIRE_FC2_BIAS, FIRE_LOG_C, FIRE_LOG_L };

static void fire_declare(Positional *p, Params *ps, const char *input_name,
                         const char *stack_name) {
    static const char *const names[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
    int shapes[4][2] = {{FIRE_HIDDEN, 1}, {FIRE_HIDDEN}, {p->n_heads, FIRE_HIDDEN}, {p->n_heads}};
    for (int w = FIRE_FC1_WEIGHT; w <= FIRE_FC2_BIAS; w++) {
        char name[128];
        snprintf(name, sizeof name, "%s.fire.%s", stack_name, names[w]);
        // As any Linear: xavier weights, decayed. The hidden biases start at 1, not 0: with 0
        // a unit whose weight is negative gets w z <= 0 for every input z in [0, 1] and is dead
        // from the start; with 1 every unit starts active (|w| < 0.43) and f starts linear.
        int is_weight = w == FIRE_FC1_WEIGHT || w == FIRE_FC2_WEIGHT;
        ParamInit init = is_weight ? INIT_XAVIER : w == FIRE_FC1_BIAS ? INIT_ONES : INIT_ZEROS;
        p->weights[w] = param_new(ps, name, is_weight ? 2 : 1, shapes[w], is_weight, init);
    }
    if (!p->cfg.fire_learned) return;
    // c and L: not decayed (decay would pull them to c = 1 and L = FIRE_THRESHOLD, not to 0)
    static const char *const learned[] = {"log_c", "log_l"};
    for (int w = FIRE_LOG_C; w <= FIRE_LOG_L; w++) {
        char name[128];
        snprintf(name, sizeof name, "%s.fire.%s", stack_name, learned[w - FIRE_LOG_C]);
        p->weights[w] = param_new(ps, name, 1, (int[]){1}, 0, INIT_ZEROS);
    }
}

static double psi(double x) { return log1p(x); }   // c = 1

// The MLP's input for a query at position i and a key at j.
static double fire_input(int i, int j) {
    int far = i > j ? i : j;
    return psi(abs(i - j)) / psi(far > FIRE_THRESHOLD ? far : FIRE_THRESHOLD);
}

// Learned c and L: entry e of z (N,1) has distance d = pairs[2e] and far = max(i, j) =
// pairs[2e + 1], and with M = max(L, far), a = log(1 + c d), b = log(1 + c M):
//     z = a / b,   dz/dc = (d / (1 + c d) - z M / (1 + c M)) / b,
//     dz/dL = -z c / ((1 + c L) b) where L sets M (far <= L), else 0,
// and the chain rule through c = e^log_c, L = FIRE_THRESHOLD e^log_l multiplies by c and L.
typedef struct { double c, L; } FireScale;
static FireScale fire_scale(const Tensor *log_c, const Tensor *log_l) {
    return (FireScale){exp(log_c->data[0]), FIRE_THRESHOLD * exp(log_l->data[0])};
}

static void fire_learned_input_backward(const Node *n) {
    const Tensor *z = n->out;
    Tensor *log_c = n->in[0], *log_l = n->in[1];
    const int *pairs = n->aux;
    FireScale s = fire_scale(log_c, log_l);
    double grad_c = 0, grad_l = 0;
    for (long e = 0; e < z->size; e++) {
        double d = pairs[2 * e], far = pairs[2 * e + 1], M = far > s.L ? far : s.L;
        double b = log1p(s.c * M), ze = log1p(s.c * d) / b, g = z->grad[e];
        grad_c += g * (d / (1 + s.c * d) - ze * M / (1 + s.c * M)) / b;
        if (!(far > s.L)) grad_l -= g * ze * s.c / ((1 + s.c * s.L) * b);
    }
    Tensor *targets[2] = {log_c, log_l};
    double grads[2] = {grad_c * s.c, grad_l * s.L};
    for (int k = 0; k < 2; k++) {
        if (!targets[k]->grad) continue;
        int acc = grad_accumulates(targets[k]);
        targets[k]->grad[0] = (float)((acc ? targets[k]->grad[0] : 0) + grads[k]);
    }
}

// z (Tq*Tk, 1) from the learned log_c and log_l, on the tape when they need a gradient.
static Tensor *fire_learned_input(Tensor *log_c, Tensor *log_l, PosSpan queries, PosSpan keys) {
    int Tq = queries.len, Tk = keys.len;
    long N = (long)Tq * Tk;
    int grad = tape_needs_grad(log_c, log_l, NULL);
    Tensor *z = tensor_new2((int)N, 1, grad);
    int *pairs = arena_alloc(tensor_arena(), sizeof(int) * 2 * (size_t)N);
    FireScale s = fire_scale(log_c, log_l);
    for (int i = 0; i < Tq; i++)
        for (int j = 0; j < Tk; j++) {
            long e = (long)i * Tk + j;
            int qi = pos_at(queries, i), kj = pos_at(keys, j), far = qi > kj ? qi : kj;
            pairs[2 * e] = abs(qi - kj);
            pairs[2 * e + 1] = far;
            double M = far > s.L ? far : s.L;
            z->data[e] = (float)(log1p(s.c * pairs[2 * e]) / log1p(s.c * M));
        }
    if (grad) tape_record("fire_learned_input", fire_learned_input_backward, z, log_c, log_l,
                          NULL)->aux = pairs;
    return z;
}

static Tensor *fire_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    int H = p->n_heads, Tq = queries.len, Tk = keys.len, N = Tq * Tk;
    Tensor *const *w = p->weights;
    Tensor *z;
    if (p->cfg.fire_learned) {
        z = fire_learned_input(w[FIRE_LOG_C], w[FIRE_LOG_L], queries, keys);
    } else {
        z = tensor_new2(N, 1, 0);                                              // a constant
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < Tk; j++)
                z->data[(long)i * Tk + j] = (float)fire_input(pos_at(queries, i), pos_at(keys, j));
    }
    Tensor *hidden = op_relu(op_linear(z, w[FIRE_FC1_WEIGHT], w[FIRE_FC1_BIAS]));   // (N,32)
    Tensor *out = op_linear(hidden, w[FIRE_FC2_WEIGHT], w[FIRE_FC2_BIAS]);          // (N,H)
    Tensor *heads = op_split_heads(tensor_view(out, 3, (int[]){1, N, H}), H);        // (1,H,N,1)
    return tensor_view(heads, 3, (int[]){H, Tq, Tk});
}

const PosScheme pos_fire = { .name = "fire", .declare = fire_declare, .self_bias = fire_bias };
