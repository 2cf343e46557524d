// Learned absolute positions: a (max_len, d) table added to the input. Position p uses row
// p; beyond the table it wraps to p % max_len when pos_wrap is on (as the course notebook
// did) and is an error otherwise.
#include <stdio.h>
#include <stdlib.h>
#include "core/ops.h"
#include "pos/pos.h"

int learned_row(const Positional *p, int pos) {
    return p->cfg.pos_wrap ? pos % p->cfg.max_len : pos;
}

static void learned_declare(Positional *p, Params *ps, const char *input_name,
                            const char *stack_name) {
    char name[128];
    snprintf(name, sizeof name, "%s.weight", input_name);
    int shape[2] = {p->cfg.max_len, p->d_model};
    p->table = param_new(ps, name, 2, shape, 0, INIT_XAVIER);
}

static int learned_check_length(const Positional *p, int T, char *err, int errlen) {
    // drawn positions reach draw_from - 1
    int last = (p->draw_from ? p->draw_from : T) + p->cfg.pos_offset - 1;
    if (p->cfg.pos_wrap || last < p->cfg.max_len) return 0;
    snprintf(err, errlen,
             "sequence of %d tokens (positions up to %d) is longer than the learned table "
             "(max_len = %d) and pos_wrap = false",
             T, last, p->cfg.max_len);
    return -1;
}

static Tensor *learned_add(const Positional *p, Tensor *x, PosSpan rows) {   // x (B,T,d)
    int T = rows.len;
    // callers check lengths first (pos_check_length)
    if (!p->cfg.pos_wrap && pos_at(rows, T - 1) >= p->cfg.max_len) {
        fprintf(stderr,
                "learned positions up to %d, but the table has %d rows and pos_wrap = false\n",
                pos_at(rows, T - 1), p->cfg.max_len);
        abort();
    }
    int *row = arena_alloc(tensor_arena(), sizeof(int) * (size_t)T);
    for (int t = 0; t < T; t++) row[t] = learned_row(p, pos_at(rows, t));
    return op_add(x, op_embedding(p->table, row, T));             // (T,d) broadcast over the batch
}

// Drawn positions (model.pos_random = L) reach L-1: the table needs L rows.
static int learned_check_config(const Config *c, const char **key, char *msg, int n) {
    int L = c->pos_cfg.pos_random, rows = c->pos_cfg.max_len;
    if (!L || rows >= L) return 0;
    *key = "pos_random";
    snprintf(msg, n,
             "pos_random = %d draws positions up to %d, but the learned table has "
             "max_len = %d rows; set max_len = %d",
             L, L - 1, rows, L);
    return -1;
}

const PosScheme pos_learned = {
    .name = "learned", .declare = learned_declare, .add_to_input = learned_add,
    .check_length = learned_check_length, .check_config = learned_check_config,
};
