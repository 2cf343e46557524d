#include "stats/interval.h"

#include <math.h>

#include "stats/t_dist.h"

double sample_mean(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return n > 0 ? s / n : 0;
}

double sample_sd(const double *x, int n) {
    if (n < 2) return 0;
    double m = sample_mean(x, n), s = 0;
    for (int i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (n - 1));
}

// effect +- t_{level, df} * se; the point itself when se is 0
static Interval t_interval(double effect, double se, double df, double level) {
    if (se == 0 || df <= 0) return (Interval){effect, effect, effect, 0};
    double half = t_critical(level, df) * se;
    return (Interval){effect, effect - half, effect + half, df};
}

Interval interval_one_sample(const double *a, int n, double target, double level) {
    return t_interval(sample_mean(a, n) - target, sample_sd(a, n) / sqrt(n), n - 1, level);
}

Interval interval_paired(const double *a, const double *b, int n, double level) {
    double m = 0, ss = 0;
    for (int i = 0; i < n; i++) m += a[i] - b[i];
    m = n > 0 ? m / n : 0;
    for (int i = 0; i < n; i++) ss += (a[i] - b[i] - m) * (a[i] - b[i] - m);
    double sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    return t_interval(m, n > 0 ? sd / sqrt(n) : 0, n - 1, level);
}

Interval interval_welch(const double *a, int na, const double *b, int nb, double level) {
    double sa = sample_sd(a, na), sb = sample_sd(b, nb);
    double va = sa * sa / na, vb = sb * sb / nb, se2 = va + vb;
    double den = (na > 1 ? va * va / (na - 1) : 0) + (nb > 1 ? vb * vb / (nb - 1) : 0);
    double df = den > 0 ? se2 * se2 / den : 0;
    return t_interval(sample_mean(a, na) - sample_mean(b, nb), sqrt(se2), df, level);
}

// Welch's standard error, Hsu's degrees of freedom (the smaller arm's n - 1): the Welch-
// Satterthwaite df covered 93.8 % (5 seeds) and 92.9 % (3 seeds) of simulated exact-match
// studies with unequal seed spreads (tests/test_stats.c); Hsu's holds at least the nominal level
// under normal seeds whatever the two variances, at the price of width when they are equal.
Interval interval_unpaired(const double *a, int na, const double *b, int nb, double level) {
    double va = sample_sd(a, na), vb = sample_sd(b, nb);
    double se = sqrt(va * va / na + vb * vb / nb);
    return t_interval(sample_mean(a, na) - sample_mean(b, nb), se, (na < nb ? na : nb) - 1, level);
}
