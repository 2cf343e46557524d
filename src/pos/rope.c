// Rotary embeddings (Su et al.): queries and keys of self-attention are rotated pair by pair
// by angle p * base^(-2i/d_k), p = position / rope_scale, so q_m . k_n depends on m - n
// only. rope_scale > 1 is position interpolation; a larger rope_base the NTK-style stretch.
#include "core/errors.h"
#include "core/ops.h"
#include "pos/pos.h"

static Tensor *rope_rotate(const Positional *p, Tensor *x, PosSpan rows) {   // x (B,T,d)
    int T = rows.len;
    float *pos = arena_alloc(tensor_arena(), sizeof(float) * (size_t)T);
    for (int t = 0; t < T; t++) pos[t] = (float)pos_at(rows, t) / p->rope_scale;
    return op_rope(x, p->n_heads, pos, p->rope_base);
}

static int rope_check_config(const Config *c, const char **key, char *msg, int n) {
    if ((c->d_model / c->n_heads) % 2 == 0) return 0;   // rotations act on pairs within a head
    *key = "pos";
    return errorf(msg, n, "pos = rope needs an even head size d_model/n_heads, got %d/%d = %d",
                  c->d_model, c->n_heads, c->d_model / c->n_heads);
}

const PosScheme pos_rope = { .name = "rope", .rotate = rope_rotate, .check_config = rope_check_config };
