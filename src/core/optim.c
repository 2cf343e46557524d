#include "core/optim.h"
#include "core/kernels.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void adamw_init(AdamW *o, const Params *ps, float beta1, float beta2, float eps,
                float weight_decay) {
    memset(o, 0, sizeof *o);
    o->beta1 = beta1; o->beta2 = beta2; o->eps = eps; o->weight_decay = weight_decay;
    o->n = ps->total;
    o->m = calloc((size_t)(o->n ? o->n : 1), sizeof(float));
    o->v = calloc((size_t)(o->n ? o->n : 1), sizeof(float));
}

void adamw_step(AdamW *o, Params *ps, float lr) { adamw_step_scaled(o, ps, lr, 1.0f); }

void adamw_step_scaled(AdamW *o, Params *ps, float lr, float grad_scale) {
    o->step++;
    float c1 = 1.0f - powf(o->beta1, (float)o->step), c2 = 1.0f - powf(o->beta2, (float)o->step);
    // One parallel region for all parameters (waking the threads once, not once per
    // tensor); every element is updated on its own, so no order matters. The loop
    // vectorises (sqrtf is one instruction without errno, see the Makefile). This file is
    // compiled without FMA contraction: the fused products are the fmaf below, and the
    // decayed weight is rounded on its own before the step is subtracted (as torch's
    // p.mul_(1 - lr wd) then p.addcdiv_), whatever the compiler would otherwise fuse.
    #pragma omp parallel if (ps->total > 65536)
    for (int k = 0; k < ps->n; k++) {
        Param *p = ps->list[k];
        float decay = p->decay ? fmaf(-lr, o->weight_decay, 1.0f) : 1.0f;
        float *w = p->t.data, *m = o->m + p->offset, *v = o->v + p->offset;
        const float *grad = p->t.grad;
        #pragma omp for schedule(static) nowait
        for (long i = 0; i < p->t.size; i++) {
            float g = grad[i] * grad_scale;   // the very product clip_grad_norm would have stored
            m[i] = fmaf(o->beta1, m[i], (1.0f - o->beta1) * g);
            v[i] = fmaf(o->beta2, v[i], (1.0f - o->beta2) * g * g);
            w[i] = w[i] * decay - lr * (m[i] / c1) / (sqrtf(v[i] / c2) + o->eps);
        }
    }
}

void adamw_free(AdamW *o) {
    free(o->m);
    free(o->v);
    memset(o, 0, sizeof *o);
}

enum { NORM_CHUNK = 1 << 14, NORM_LANES = 16 };

// Squares are exact in double; each chunk sums them in NORM_LANES lanes (element i into lane
// i % NORM_LANES, so the loop vectorises), the lanes in order, then the chunks in order: the
// same sum for any thread count.
float grad_norm(const Params *ps) {
    long chunks = (ps->total + NORM_CHUNK - 1) / NORM_CHUNK;
    double *partial = calloc((size_t)(chunks ? chunks : 1), sizeof(double));
    KERNEL_PARALLEL_FOR(ps->total > 4 * NORM_CHUNK, schedule(static),
        for (long c = 0; c < chunks; c++) {
            double lane[NORM_LANES] = {0};
            long i = c * NORM_CHUNK,
                 end = (c + 1) * NORM_CHUNK < ps->total ? (c + 1) * NORM_CHUNK : ps->total;
            for (; i + NORM_LANES <= end; i += NORM_LANES)
                for (int l = 0; l < NORM_LANES; l++)
                    lane[l] += (double)ps->grad[i + l] * ps->grad[i + l];
            for (int l = 0; i + l < end; l++) lane[l] += (double)ps->grad[i + l] * ps->grad[i + l];
            double s = 0;
            for (int l = 0; l < NORM_LANES; l++) s += lane[l];
            partial[c] = s;
        }
    );
    double sum = 0;
    for (long c = 0; c < chunks; c++) sum += partial[c];
    free(partial);
    return (float)sqrt(sum);
}

float clip_scale(float norm, float max_norm) {
    return max_norm > 0 && norm > max_norm ? max_norm / (norm + 1e-6f) : 1.0f;
}

float clip_grad_norm(Params *ps, float max_norm) {
    float norm = grad_norm(ps), s = clip_scale(norm, max_norm);
    if (s != 1.0f) {
        KERNEL_PARALLEL_FOR(ps->total > 4 * NORM_CHUNK, schedule(static),
            for (long i = 0; i < ps->total; i++) ps->grad[i] *= s;
        );
    }
    return norm;
}

float lr_at(Schedule s, long step, long total, float lr, long warmup, float min_ratio) {
    if (s == SCHED_NOAM) {
        double t = (double)step + 1, w = warmup > 0 ? (double)warmup : 1;
        double f = fmin(1.0 / sqrt(t), t * pow(w, -1.5)) * sqrt(w);
        return (float)(lr * f);
    }
    if (warmup > 0 && step < warmup) return lr * (float)(step + 1) / (float)warmup;
    if (s == SCHED_CONSTANT || total <= warmup) return lr;
    double progress = (double)(step - warmup) / (double)(total - warmup);
    if (progress > 1) progress = 1;
    double cosine = 0.5 * (1.0 + cos(3.14159265358979323846 * progress));
    return (float)(lr * fma(1.0 - min_ratio, cosine, min_ratio));
}
