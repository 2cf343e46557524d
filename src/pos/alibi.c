// ALiBi (Press et al., 2022): no input signal; each head h adds -m_h * distance to the
// self-attention scores. Encoder: -m |i - j| (symmetric); decoder: -m (i - j) for j <= i
// (the causal mask hides the rest). Slopes 2^(-8k/H) for H a power of two; otherwise the p
// slopes of the nearest power of two p < H, then every other slope of the 2p-head list.
#include <math.h>
#include <stdlib.h>
#include "core/ops.h"
#include "pos/pos.h"

static void power_of_two_slopes(int n, float *out) {
    for (int k = 1; k <= n; k++) out[k - 1] = (float)pow(2.0, -8.0 * k / n);
}

void alibi_slopes(int n_heads, float *out) {
    int p = 1;
    while (p * 2 <= n_heads) p *= 2;
    power_of_two_slopes(p, out);
    if (p == n_heads) return;
    float *wide = malloc(sizeof(float) * 2 * p);
    power_of_two_slopes(2 * p, wide);
    for (int k = 0; k < n_heads - p; k++) out[p + k] = wide[2 * k];
    free(wide);
}

static Tensor *alibi_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    int H = p->n_heads, Tq = queries.len, Tk = keys.len;
    Tensor *bias = tensor_new3(H, Tq, Tk, 0);                      // (H,Tq,Tk), a constant
    float *m = arena_alloc(tensor_arena(), sizeof(float) * (size_t)H);
    alibi_slopes(H, m);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < Tk; j++) {
                int ahead = pos_at(queries, i) - pos_at(keys, j);   // how far the key is behind
                int dist = p->bidirectional ? abs(ahead) : ahead;
                bias->data[((long)h * Tq + i) * Tk + j] = -m[h] * (float)dist;
            }
    return bias;
}

const PosScheme pos_alibi = {
    .name = "alibi", .self_bias = alibi_bias,
};
