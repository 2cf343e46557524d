// Fused multi-head attention and rotary position embedding.
//
// Attention is one op rather than a chain of matmul/softmax ops: the masks and the
// positional bias go in where the scores are made, and without a gradient no T*T matrix is
// stored at all (each row of scores lives in a per-thread scratch buffer), so evaluation on
// long windows needs memory linear in T.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/ops.h"
#include "core/rng.h"
#include "core/tape.h"

#define PARALLEL_FLOPS (1L << 18)

// i[0] H; f[0] dropout; seed; saved = P (B,H,Tq,Tk) before dropout; aux = AttnArgs copy.

static int is_masked(const AttnArgs *a, int b, int i, int j, int Tq, int Tk) {
    if (a->causal && j > i + (Tk - Tq)) return 1;
    return a->key_pad && a->key_pad[(long)b * Tk + j];
}

static float drop_scale(const AttnArgs *a, long index) {
    if (a->dropout <= 0) return 1.0f;
    return hash_uniform(a->seed, (uint64_t)index) >= a->dropout ? 1.0f / (1.0f - a->dropout) : 0.0f;
}

static void attention_backward(const Node *n) {
    Tensor *q = n->in[0], *k = n->in[1], *v = n->in[2];
    const AttnArgs *a = n->aux;
    int B = q->shape[0], Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = a->n_heads, D = C / H;
    float scale = 1.0f / sqrtf((float)D);
    float *P = n->saved;
    const float *dY = n->out->grad;
    int bias_grad = a->bias && a->bias->grad;
    int threads = omp_get_max_threads();
    float *scratch = arena_alloc(tensor_arena(), sizeof(float) * (size_t)threads * Tk);
    #pragma omp parallel for schedule(static) if ((long)B * H * Tq * Tk * D > PARALLEL_FLOPS)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        float *dp = scratch + (long)omp_get_thread_num() * Tk;
        for (int i = 0; i < Tq; i++) {
            float *p = P + ((long)bh * Tq + i) * Tk;
            const float *dy = dY + ((long)b * Tq + i) * C + h * D;
            const float *qi = q->data + ((long)b * Tq + i) * C + h * D;
            // y = sum_j drop(p_j) v_j  =>  d drop(p_j) = dy . v_j, dv_j += drop(p_j) dy
            float dot = 0;
            for (int j = 0; j < Tk; j++) {
                if (p[j] == 0) { dp[j] = 0; continue; }
                float ds = drop_scale(a, ((long)bh * Tq + i) * Tk + j);
                const float *vj = v->data + ((long)b * Tk + j) * C + h * D;
                float g = 0;
                for (int e = 0; e < D; e++) g += dy[e] * vj[e];
                dp[j] = g * ds;
                dot += p[j] * dp[j];
                if (v->grad) {
                    float *dv = v->grad + ((long)b * Tk + j) * C + h * D;
                    for (int e = 0; e < D; e++) dv[e] += p[j] * ds * dy[e];
                }
            }
            // softmax: dscore_j = p_j (dp_j - sum p dp); scores = q.k * scale + bias
            float *dq = q->grad ? q->grad + ((long)b * Tq + i) * C + h * D : NULL;
            for (int j = 0; j < Tk; j++) {
                float dscore = p[j] * (dp[j] - dot);
                if (bias_grad) p[j] = dscore;   // P is not needed again: reuse it for the bias reduction
                if (dscore == 0) continue;
                const float *kj = k->data + ((long)b * Tk + j) * C + h * D;
                if (dq) for (int e = 0; e < D; e++) dq[e] += scale * dscore * kj[e];
                if (k->grad) {
                    float *dk = k->grad + ((long)b * Tk + j) * C + h * D;
                    for (int e = 0; e < D; e++) dk[e] += scale * dscore * qi[e];
                }
            }
        }
    }
    if (bias_grad) {  // the bias is shared by the batch: sum over b in a fixed order
        long per_b = (long)H * Tq * Tk;
        #pragma omp parallel for schedule(static) if (per_b * B > PARALLEL_FLOPS)
        for (long e = 0; e < per_b; e++) {
            float s = 0;
            for (int b = 0; b < B; b++) s += P[(long)b * per_b + e];
            a->bias->grad[e] += s;
        }
    }
}

Tensor *op_attention(Tensor *q, Tensor *k, Tensor *v, const AttnArgs *args) {
    int B = q->shape[0], Tq = q->shape[1], C = q->shape[2], Tk = k->shape[1];
    int H = args->n_heads, D = C / H;
    if (q->ndim != 3 || k->ndim != 3 || v->ndim != 3 || C % H || k->shape[2] != C || v->shape[2] != C ||
        k->shape[0] != B || v->shape[0] != B || v->shape[1] != Tk ||
        (args->bias && (args->bias->size != (long)H * Tq * Tk))) {
        fprintf(stderr, "op_attention: shapes do not match\n");
        abort();
    }
    float scale = 1.0f / sqrtf((float)D);
    int grad = tape_needs_grad(q, k, v) || (tape_enabled() && args->bias && args->bias->grad);
    Tensor *out = tensor_zeros(3, q->shape, grad);
    float *P = grad ? arena_alloc(tensor_arena(), sizeof(float) * (size_t)B * H * Tq * Tk) : NULL;
    int threads = omp_get_max_threads();
    float *scratch = P ? NULL : arena_alloc(tensor_arena(), sizeof(float) * (size_t)threads * Tk);
    const float *bias = args->bias ? args->bias->data : NULL;
    #pragma omp parallel for schedule(static) if ((long)B * H * Tq * Tk * D > PARALLEL_FLOPS)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        for (int i = 0; i < Tq; i++) {
            float *p = P ? P + ((long)bh * Tq + i) * Tk : scratch + (long)omp_get_thread_num() * Tk;
            const float *qi = q->data + ((long)b * Tq + i) * C + h * D;
            for (int j = 0; j < Tk; j++) {
                if (is_masked(args, b, i, j, Tq, Tk)) { p[j] = -INFINITY; continue; }
                const float *kj = k->data + ((long)b * Tk + j) * C + h * D;
                float s = 0;
                for (int e = 0; e < D; e++) s += qi[e] * kj[e];
                p[j] = s * scale + (bias ? bias[((long)h * Tq + i) * Tk + j] : 0.0f);
            }
            softmax_row(p, p, Tk);
            float *y = out->data + ((long)b * Tq + i) * C + h * D;
            for (int j = 0; j < Tk; j++) {
                if (p[j] == 0) continue;
                float w = p[j] * drop_scale(args, ((long)bh * Tq + i) * Tk + j);
                const float *vj = v->data + ((long)b * Tk + j) * C + h * D;
                for (int e = 0; e < D; e++) y[e] += w * vj[e];
            }
        }
    }
    if (grad) {
        AttnArgs *saved = arena_alloc(tensor_arena(), sizeof *saved);
        *saved = *args;
        if (args->key_pad) {
            int *pad = arena_alloc(tensor_arena(), sizeof(int) * (size_t)B * Tk);
            memcpy(pad, args->key_pad, sizeof(int) * (size_t)B * Tk);
            saved->key_pad = pad;
        }
        Node *n = tape_record("attention", attention_backward, out, q, k, v);
        n->in[3] = args->bias;
        n->aux = saved;
        n->saved = P;
    }
    return out;
}

// --- rope: rotate pair (2i, 2i+1) of each head by angle pos[t] * base^(-2i/D) ----------
// Backward rotates the gradient by the opposite angle. saved: cos, sin tables (T, D/2).

static void rope_apply(const float *src, float *dst, const float *cs, const float *sn,
                       int B, int T, int H, int D, int inverse, int add) {
    int half = D / 2;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < H; h++) {
                const float *x = src + (((long)b * T + t) * H + h) * D;
                float *y = dst + (((long)b * T + t) * H + h) * D;
                for (int i = 0; i < half; i++) {
                    float c = cs[(long)t * half + i], s = inverse ? -sn[(long)t * half + i] : sn[(long)t * half + i];
                    float y0 = x[2 * i] * c - x[2 * i + 1] * s;
                    float y1 = x[2 * i] * s + x[2 * i + 1] * c;
                    if (add) { y[2 * i] += y0; y[2 * i + 1] += y1; }
                    else     { y[2 * i] = y0;  y[2 * i + 1] = y1; }
                }
            }
}

static void rope_backward(const Node *n) {
    Tensor *x = n->in[0];
    int B = x->shape[0], T = x->shape[1], H = n->i[0], D = x->shape[2] / H;
    const float *cs = n->saved, *sn = n->saved + (long)T * (D / 2);
    rope_apply(n->out->grad, x->grad, cs, sn, B, T, H, D, 1, 1);
}

Tensor *op_rope(Tensor *x, int H, const float *pos, float base) {
    int B = x->shape[0], T = x->shape[1], C = x->shape[2], D = C / H, half = D / 2;
    if (C % H || D % 2) { fprintf(stderr, "op_rope: head width %d must be even\n", D); abort(); }
    float *tab = arena_alloc(tensor_arena(), sizeof(float) * 2 * (size_t)T * half);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < half; i++) {
            double angle = pos[t] * pow((double)base, -2.0 * i / D);
            tab[(long)t * half + i] = (float)cos(angle);
            tab[(long)T * half + (long)t * half + i] = (float)sin(angle);
        }
    int grad = tape_needs_grad(x, NULL, NULL);
    Tensor *out = tensor_new(3, x->shape, grad);
    rope_apply(x->data, out->data, tab, tab + (long)T * half, B, T, H, D, 0, 0);
    if (grad) {
        Node *n = tape_record("rope", rope_backward, out, x, NULL, NULL);
        n->i[0] = H;
        n->saved = tab;
    }
    return out;
}
