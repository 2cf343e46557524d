// Finite-difference gradient checks shared by the op and layer tests.
//
// For out = f(inputs), take L = sum_i w_i out_i with fixed random weights w, seed out's
// gradient with w, replay the tape, and compare each input's gradient with the central
// difference (L(x + eps) - L(x - eps)) / 2 eps, L summed in double. Pass when
// |numeric - analytic| <= GC_RTOL * max(|numeric|, |analytic|) + GC_ATOL for every
// element checked (all of them, or an evenly spread sample of GC_MAX_ELEMS for big inputs).
#ifndef GRAD_CHECK_H
#define GRAD_CHECK_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/ops.h"
#include "core/rng.h"
#include "core/tape.h"

#define GC_EPS 1e-2f       // float32 forward: smaller steps drown in rounding noise
#define GC_RTOL 1e-2
#define GC_ATOL 2e-3
#define GC_MAX_ELEMS 60

typedef Tensor *(*GcForward)(Tensor **in);

static Rng gc_rng;

static inline Tensor *gc_input(int ndim, const int *shape, int with_grad) {
    Tensor *t = tensor_new(ndim, shape, with_grad);
    for (long i = 0; i < t->size; i++) t->data[i] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
    return t;
}

static double gc_weighted(GcForward f, Tensor **in, const double *w) {
    Tensor *out = f(in);
    double s = 0;
    for (long i = 0; i < out->size; i++) s += w[i] * out->data[i];
    return s;
}

// Returns the worst error ratio |num - ana| / (rtol * max + atol): <= 1 passes.
static double grad_check(const char *what, GcForward f, Tensor **in, int n_in) {
    for (int k = 0; k < n_in; k++)
        if (in[k] && in[k]->grad) memset(in[k]->grad, 0, sizeof(float) * in[k]->size);
    tape_reset();
    Tensor *out = f(in);
    CHECK(out->grad != NULL, "%s: output has no gradient", what);
    if (!out->grad) return INFINITY;
    double *w = malloc(sizeof(double) * out->size);
    float *seed = grad_zeroed(out);
    for (long i = 0; i < out->size; i++) seed[i] = (float)(w[i] = 2.0 * rng_uniform(&gc_rng) - 1.0);
    tape_replay();
    tape_set_enabled(0);
    double worst = 0;
    for (int k = 0; k < n_in; k++) {
        Tensor *x = in[k];
        if (!x || !x->grad) continue;
        long step = x->size > GC_MAX_ELEMS ? x->size / GC_MAX_ELEMS : 1;
        for (long j = 0; j < x->size; j += step) {
            float old = x->data[j];
            x->data[j] = old + GC_EPS;
            double lp = gc_weighted(f, in, w);
            x->data[j] = old - GC_EPS;
            double lm = gc_weighted(f, in, w);
            x->data[j] = old;
            double num = (lp - lm) / (2.0 * GC_EPS), ana = x->grad[j];
            double ratio = fabs(num - ana) / (GC_RTOL * fmax(fabs(num), fabs(ana)) + GC_ATOL);
            if (ratio > worst) worst = ratio;
            CHECK(ratio <= 1.0, "%s: input %d element %ld: numeric %.6f analytic %.6f", what, k, j, num, ana);
        }
    }
    tape_set_enabled(1);
    free(w);
    tape_reset();
    return worst;
}
#endif
