// Rotary embeddings (Su et al.): queries and keys of self-attention are rotated pair by pair
// by angle p * θ_i, θ_i = base^(-2i/d_k), so q_m . k_n depends on m - n only. rope_scaling
// stretches the frequencies for contexts longer than the training window L (docs/design.md
// §2.3.5): linear = position interpolation (Chen et al. 2023), ntk = a larger base, dynamic =
// ntk with the stretch taken from the current length, yarn = per-pair interpolation with an
// attention temperature (Peng et al. 2024). All of them are rope_inv_freq below.
#include <math.h>
#include "core/errors.h"
#include "core/ops.h"
#include "pos/pos.h"

#define PI 3.14159265358979323846

static int head_width(const Positional *p) { return p->d_model / p->n_heads; }

double yarn_ramp(double r, double alpha, double beta) {
    if (r <= alpha) return 0;
    if (r >= beta) return 1;
    return (r - alpha) / (beta - alpha);
}

// The NTK-aware base for stretch s: b·s^(D/(D-2)), which slows the slowest pair by exactly s
// (its angle p·b^(-(D-2)/D) becomes (p/s)·b^(-(D-2)/D)) and leaves pair 0 as it is. s = 1 is b.
// With D = 2 the only pair is pair 0, which no base changes.
static double ntk_base(double base, double s, int D) {
    return s == 1 || D == 2 ? base : base * pow(s, (double)D / (D - 2));
}

void rope_inv_freq(const Positional *p, int n, double *out) {
    int D = head_width(p);
    double b = p->cfg.rope_base, s = p->cfg.rope_factor;
    switch (p->cfg.rope_scaling) {
    case ROPE_SCALING_NONE: rope_plain_inv_freq(b, D, out); return;
    case ROPE_SCALING_LINEAR:
        rope_plain_inv_freq(b, D, out);
        for (int i = 0; i < D / 2; i++) out[i] /= s;
        return;
    case ROPE_SCALING_NTK: rope_plain_inv_freq(ntk_base(b, s, D), D, out); return;
    case ROPE_SCALING_DYNAMIC: {
        double grow = (double)n / p->cfg.rope_original_len;
        rope_plain_inv_freq(ntk_base(b, grow > 1 ? grow : 1, D), D, out);
        return;
    }
    case ROPE_SCALING_YARN:
        rope_plain_inv_freq(b, D, out);
        for (int i = 0; i < D / 2; i++) {
            // r = L / λ_i, λ_i = 2π / θ_i
            double turns = p->cfg.rope_original_len * out[i] / (2 * PI);
            double keep = yarn_ramp(turns, p->cfg.yarn_alpha, p->cfg.yarn_beta);
            out[i] = (1 - keep) * out[i] / s + keep * out[i];
        }
        return;
    }
}

double rope_qk_factor(const Positional *p) {
    return p->cfg.rope_scaling == ROPE_SCALING_YARN && p->cfg.rope_factor > 1
               ? 0.1 * log(p->cfg.rope_factor) + 1
               : 1;
}

// The span's positions and the stretched inverse frequencies, in the step arena.
static const float *span_positions(PosSpan rows) {
    float *pos = arena_alloc(tensor_arena(), sizeof(float) * (size_t)rows.len);
    for (int t = 0; t < rows.len; t++) pos[t] = (float)pos_at(rows, t);
    return pos;
}
static const double *span_inv_freq(const Positional *p, PosSpan rows) {
    double *inv_freq =
        arena_alloc(tensor_arena(), sizeof(double) * (size_t)(head_width(p) / 2 + 1));
    rope_inv_freq(p, rows.start + rows.len, inv_freq);   // the sequence so far: positions 0 .. last
    return inv_freq;
}

Tensor *rope_apply(const Positional *p, Tensor *x, PosSpan rows, const int *pad) {   // x (B,T,d)
    return op_rope_freq(x, p->n_heads, span_positions(rows), span_inv_freq(p, rows),
                        (float)rope_qk_factor(p), pad);
}

Tensor *rope_apply_packed(const Positional *p, Tensor *x, PosSpan rows, const RowPacking *packed) {
    return op_rope_rows(x, packed, p->n_heads, span_positions(rows), span_inv_freq(p, rows),
                        (float)rope_qk_factor(p));
}

int rope_check_config(const Config *c, const char **key, char *msg, int n) {
    if ((c->d_model / c->n_heads) % 2 == 0) return 0;   // rotations act on pairs within a head
    *key = "pos";
    return errorf(msg, n, "pos = %s needs an even head size d_model/n_heads, got %d/%d = %d",
                  c->pos, c->d_model, c->n_heads, c->d_model / c->n_heads);
}

const PosScheme pos_rope = {
    .name = "rope", .rotate = rope_apply, .rotate_packed = rope_apply_packed,
    .check_config = rope_check_config,
};
