// xPos (Sun et al., 2022, "A Length-Extrapolatable Transformer"): RoPE's rotation times an
// exponential decay. In a head of width D, pair i of a query at position m is scaled by
// zeta_i^(m/gamma) and of a key at position n by zeta_i^(-n/gamma), so their dot product
// gets zeta_i^((m-n)/gamma) per pair: attention to far keys decays, fastest in the fast
// rotating pairs, with zeta_i = (2i + 0.4 D) / (1.4 D) in (0.29, 1) and gamma =
// model.xpos_gamma (the paper's scale_base). The decay only makes sense for m >= n, so it
// applies in causal stacks; a bidirectional stack (encoder) gets the rotation alone, which
// is RoPE. The rotation is RoPE's (rope_apply, with rope_base and any rope_scaling); the decay uses
// the positions themselves. docs/design.md §2.3.11.
#include <math.h>
#include <stdio.h>
#include "core/errors.h"
#include "core/ops.h"
#include "pos/pos.h"

// Past e^80 a scale leaves too little of float32's range (e^±88) for the values it multiplies.
#define XPOS_MAX_LOG_SCALE 80.0

static double xpos_zeta(int pair, int D) { return (2.0 * pair + 0.4 * D) / (1.4 * D); }

// x (B,T,d) rotated as RoPE does; in a causal stack pair i of row t is then scaled by
// zeta_i^(direction * position / gamma): direction +1 for queries, -1 for keys.
static Tensor *rotate_and_decay(const Positional *p, Tensor *x, PosSpan rows, const int *pad,
                                int direction) {
    int B = x->shape[0], T = rows.len, C = x->shape[2], H = p->n_heads, D = C / H;
    Tensor *rotated = rope_apply(p, x, rows, pad);
    if (p->bidirectional) return rotated;
    Tensor *scale = tensor_new(3, x->shape, 0);                      // a constant, (B,T,d)
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            double exponent = direction * (double)pos_at(rows, t) / p->cfg.xpos_gamma;
            scale->data[(long)t * C + c] = (float)pow(xpos_zeta((c % D) / 2, D), exponent);
        }
    for (int b = 1; b < B; b++)
        for (long e = 0; e < (long)T * C; e++) scale->data[(long)b * T * C + e] = scale->data[e];
    return op_mul(rotated, scale);
}

static Tensor *xpos_rotate_query(const Positional *p, Tensor *x, PosSpan rows, const int *pad) {
    return rotate_and_decay(p, x, rows, pad, 1);
}
static Tensor *xpos_rotate_key(const Positional *p, Tensor *x, PosSpan rows, const int *pad) {
    return rotate_and_decay(p, x, rows, pad, -1);
}

// The largest scale is that of the fastest-decaying pair (zeta_0 = 2/7) at the last
// position: refuse lengths whose scale would leave float32's safe range.
static int xpos_check_length(const Positional *p, int T, char *err, int errlen) {
    int last = p->cfg.pos_offset + T - 1;
    double log_scale = last * log(1.4 / 0.4) / p->cfg.xpos_gamma;
    if (p->bidirectional || log_scale <= XPOS_MAX_LOG_SCALE) return 0;
    return errorf(err, errlen,
                  "pos = xpos: position %d would scale keys by e^%.0f, "
                  "beyond float32's safe e^%.0f with xpos_gamma = %g; "
                  "use shorter sequences or a larger model.xpos_gamma",
                  last, log_scale, XPOS_MAX_LOG_SCALE, p->cfg.xpos_gamma);
}

const PosScheme pos_xpos = { .name = "xpos", .rotate = xpos_rotate_query,
                             .rotate_key = xpos_rotate_key, .check_length = xpos_check_length,
                             .check_config = rope_check_config };   // pairs, as RoPE
