// T5 relative bias (Raffel et al.): a learned scalar per (bucket, head) added to the scores
// after the 1/sqrt(d_k) scaling. Offsets rel = j - i fall into 32 buckets: small distances
// get their own bucket, larger ones share log-spaced buckets up to 128. The encoder splits
// the buckets by sign (16 a side); the decoder only looks back. One table per stack.
#include <math.h>
#include <stdio.h>
#include "core/ops.h"
#include "pos/pos.h"

int t5_bucket(int rel, int bidirectional) {
    int buckets = T5_BUCKETS, bucket = 0, n = -rel;   // n > 0: the key is before the query
    if (bidirectional) {
        buckets /= 2;
        if (n < 0) bucket += buckets;                  // keys after the query: upper half
        n = n < 0 ? -n : n;
    } else if (n < 0) {
        n = 0;
    }
    int exact = buckets / 2;
    if (n < exact) return bucket + n;
    int large = exact + (int)(log((double)n / exact) / log((double)T5_MAX_DISTANCE / exact) *
                              (buckets - exact));
    return bucket + (large < buckets - 1 ? large : buckets - 1);
}

static void t5_declare(Positional *p, Params *ps, const char *input_name, const char *stack_name) {
    char name[128];
    snprintf(name, sizeof name, "%s.rel_bias.weight", stack_name);
    int shape[2] = {T5_BUCKETS, p->n_heads};
    p->table = param_new(ps, name, 2, shape, 0, INIT_XAVIER);
}

static Tensor *t5_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    int Tq = queries.len, Tk = keys.len;
    int *bucket = arena_alloc(tensor_arena(), sizeof(int) * (size_t)Tq * Tk);
    for (int i = 0; i < Tq; i++)
        for (int j = 0; j < Tk; j++)
            bucket[(long)i * Tk + j] =
                t5_bucket(pos_at(keys, j) - pos_at(queries, i), p->bidirectional);
    return op_rel_bias(p->table, bucket, Tq, Tk);    // (H,Tq,Tk)
}

const PosScheme pos_t5 = {
    .name = "t5", .declare = t5_declare, .self_bias = t5_bias,
};
