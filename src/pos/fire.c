// FIRE (Li et al., 2024, "Functional Interpolation for Relative Positions"): no input
// signal; the score bias of head h is a small learned function of the normalised distance,
//     bias_h(i, j) = f(z)_h,   z = psi(|i - j|) / psi(max(L, i, j)),   psi(x) = log(1 + c x),
// f an MLP 1 -> 32 -> H with a ReLU. Dividing by psi of the query's position maps every
// distance a query can see into [0, 1], however long the sequence: a longer input asks f
// for values between those it was trained on (interpolation) instead of beyond them.
// The paper learns c and L; here they are fixed, c = 1 and L = FIRE_THRESHOLD, so that z
// is a constant of the positions and the bias needs no division op. Encoder and decoder
// use the same formula (for a causal query, max(i, j) = i for every key it sees). One MLP
// per stack, shared by its layers. docs/design.md §2.3.10.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "core/ops.h"
#include "core/kernels.h"
#include "pos/pos.h"

#define FIRE_HIDDEN 32
// L: positions below it share one normaliser (the 32-token training windows)
#define FIRE_THRESHOLD 32

// slots of Positional.weights
enum { FIRE_FC1_WEIGHT, FIRE_FC1_BIAS, FIRE_FC2_WEIGHT, FIRE_FC2_BIAS };

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
}

static double psi(double x) { return log1p(x); }   // c = 1

// The MLP's input for a query at position i and a key at j.
static double fire_input(int i, int j) {
    int far = i > j ? i : j;
    return psi(abs(i - j)) / psi(far > FIRE_THRESHOLD ? far : FIRE_THRESHOLD);
}

static Tensor *fire_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    int H = p->n_heads, Tq = queries.len, Tk = keys.len, N = Tq * Tk;
    Tensor *z = tensor_new2(N, 1, 0);                                          // a constant
    for (int i = 0; i < Tq; i++)
        for (int j = 0; j < Tk; j++)
            z->data[(long)i * Tk + j] = (float)fire_input(pos_at(queries, i), pos_at(keys, j));
    Tensor *const *w = p->weights;
    Tensor *hidden = op_relu(op_linear(z, w[FIRE_FC1_WEIGHT], w[FIRE_FC1_BIAS]));   // (N,32)
    Tensor *out = op_linear(hidden, w[FIRE_FC2_WEIGHT], w[FIRE_FC2_BIAS]);          // (N,H)
    Tensor *heads = op_split_heads(tensor_view(out, 3, (int[]){1, N, H}), H);        // (1,H,N,1)
    return tensor_view(heads, 3, (int[]){H, Tq, Tk});
}

const PosScheme pos_fire = { .name = "fire", .declare = fire_declare, .self_bias = fire_bias };
