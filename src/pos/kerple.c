// KERPLE, logarithmic variant (Chi et al., 2022): no input signal; each head h adds
// -r1_h * log(1 + r2_h * |i - j|) to its self-attention scores, a conditionally positive
// definite kernel of the distance with two learned positive numbers per head. The paper keeps
// r1, r2 positive by clamping them; here r = softplus(raw), which is positive and passes a
// gradient everywhere (a clamped value that hits its floor stops learning). raw starts at 0,
// so every head starts at r1 = r2 = ln 2 and the heads separate through their queries and
// keys. One pair of vectors per stack, shared by its layers (as the T5 table); encoder and
// decoder alike use |i - j| (the decoder's mask hides the keys after the query).
// docs/design.md §2.3.9.
#include <stdio.h>
#include <stdlib.h>
#include "core/ops.h"
#include "pos/pos.h"

enum { KERPLE_RAW_R1, KERPLE_RAW_R2 };   // slots of Positional.weights, each (H)

static void kerple_declare(Positional *p, Params *ps, const char *input_name,
                           const char *stack_name) {
    static const char *const names[] = {"raw_r1", "raw_r2"};
    for (int w = KERPLE_RAW_R1; w <= KERPLE_RAW_R2; w++) {
        char name[128];
        snprintf(name, sizeof name, "%s.kerple.%s", stack_name, names[w]);
        p->weights[w] = param_new(ps, name, 1, &p->n_heads, 0, INIT_ZEROS);
    }
}

// Every entry (h, i, j) of the bias, flattened: its head (to pick r1_h, r2_h by an embedding
// lookup, which scatters the gradient back) and its distance |i - j|.
static Tensor *kerple_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    int H = p->n_heads, Tq = queries.len, Tk = keys.len;
    long N = (long)H * Tq * Tk;
    int *head = arena_alloc(tensor_arena(), sizeof(int) * (size_t)N);
    Tensor *dist = tensor_new2((int)N, 1, 0);                                  // a constant
    for (int h = 0; h < H; h++)
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < Tk; j++) {
                long e = ((long)h * Tq + i) * Tk + j;
                head[e] = h;
                dist->data[e] = (float)abs(pos_at(queries, i) - pos_at(keys, j));
            }
    int column[2] = {H, 1};   // (H) as an (H,1) table
    Tensor *r1 =
        op_embedding(tensor_view(op_softplus(p->weights[KERPLE_RAW_R1]), 2, column), head, (int)N);
    Tensor *r2 =
        op_embedding(tensor_view(op_softplus(p->weights[KERPLE_RAW_R2]), 2, column), head, (int)N);
    Tensor *penalty = op_mul(r1, op_log1p(op_mul(r2, dist)));                 // r1 log(1 + r2 d)
    return tensor_view(op_scale(penalty, -1.0f), 3, (int[]){H, Tq, Tk});
}

const PosScheme pos_kerple = { .name = "kerple", .declare = kerple_declare,
                               .self_bias = kerple_bias };
