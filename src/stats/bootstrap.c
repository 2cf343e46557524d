#include "stats/bootstrap.h"

#include <math.h>
#include <stdlib.h>

#include "core/rng.h"

double exact_match_mean(const ExactMatchArm *arm) {
    double s = 0;
    for (int i = 0; i < arm->n_seeds * arm->n_sets; i++) s += (double)arm->correct[i] / arm->total[i];
    return s / (arm->n_seeds * arm->n_sets);
}

// Bin(total, p), p = correct / total, by inversion: walk the probabilities P(k) up from k = 0
// (P(k + 1) = P(k) (total - k) / (k + 1) p / (1 - p)) until they pass a uniform draw. For
// p > 1/2 it draws the misses instead, so P(0) = (1 - p)^total is at least 2^-total; where even
// that underflows (over about 1000 inputs) it draws the inputs one by one.
static double uniform_double(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static int binomial_draw(Rng *r, int correct, int total) {
    if (correct <= 0 || correct >= total) return correct <= 0 ? 0 : total;
    int flip = 2 * correct > total;
    double p = (double)(flip ? total - correct : correct) / total;
    double pk = pow(1 - p, total), u = uniform_double(r), cdf = pk;
    int k = 0;
    if (pk == 0) {
        for (int i = 0; i < total; i++) k += uniform_double(r) < p;
    } else {
        while (cdf < u && k < total) {
            pk *= (double)(total - k) / (k + 1) * p / (1 - p);
            k++;
            cdf += pk;
        }
    }
    return flip ? total - k : k;
}

static double resample_arm(Rng *r, const ExactMatchArm *arm) {
    double s = 0;
    for (int i = 0; i < arm->n_seeds; i++) {
        int seed = (int)rng_below(r, (uint64_t)arm->n_seeds);
        for (int j = 0; j < arm->n_sets; j++) {
            int at = seed * arm->n_sets + j;
            s += (double)binomial_draw(r, arm->correct[at], arm->total[at]) / arm->total[at];
        }
    }
    return s / (arm->n_seeds * arm->n_sets);
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void percentile_bounds(const double *sorted, int n, double level, double *lo, double *hi) {
    int k = (int)lround(n * (1 - level) / 2);
    if (k < 1) k = 1;
    *lo = sorted[k - 1];
    *hi = sorted[n - k];
}

Interval bootstrap_exact_match(const ExactMatchArm *a, const ExactMatchArm *b, int resamples,
                               double level, uint64_t seed) {
    double *d = malloc(sizeof *d * (size_t)resamples);
    Interval iv = {exact_match_mean(a) - exact_match_mean(b), 0, 0, 0};
    if (!d) { iv.lo = iv.hi = NAN; return iv; }   // no memory: no interval, never a point
    Rng r = rng_keyed(seed, 0x626f6f74);                 // "boot"
    for (int i = 0; i < resamples; i++) d[i] = resample_arm(&r, a) - resample_arm(&r, b);
    qsort(d, (size_t)resamples, sizeof *d, by_value);
    percentile_bounds(d, resamples, level, &iv.lo, &iv.hi);
    free(d);
    return iv;
}
