// Confidence intervals for the difference of two arms' means over seeds, as the verdicts use
// them. Every interval here has its coverage measured (tests/test_stats.c simulates 3 and 5
// seeds): the t intervals hold their nominal level on normal seeds, and on skewed exact-match
// scores stay at or above 95 % for 95 %. The percentile bootstrap (stats/bootstrap.h) does not
// with 5 seeds (its width is about sqrt((n-1)/n) z / t of the t interval's), so verdicts take
// the t intervals.
//   paired:     both arms share their seeds (the same pretrained model, the same data): the t
//               interval of the per-seed differences A_i - B_i, n - 1 degrees of freedom.
//   unpaired:   the arms are different models: Welch's standard error of the difference, with
//               the smaller arm's n - 1 degrees of freedom (Hsu): see interval.c for why.
//   one sample: B is a fixed number (a target): the t interval of A's mean minus it.
// With no spread (every difference equal, or both arms constant) the interval is the point and
// df is 0: there is nothing to estimate, and a verdict must not read it as evidence.
#ifndef STATS_INTERVAL_H
#define STATS_INTERVAL_H

typedef struct {
    double effect;     // mean(A) - mean(B)
    double lo, hi;     // the interval at the level asked for
    double df;         // degrees of freedom of its t; 0 when there is no spread
} Interval;

double sample_mean(const double *x, int n);
double sample_sd(const double *x, int n);     // divides by n - 1; 0 for n < 2

Interval interval_paired(const double *a, const double *b, int n, double level);
Interval interval_unpaired(const double *a, int na, const double *b, int nb, double level);
Interval interval_one_sample(const double *a, int n, double target, double level);
// Welch's standard error with the Welch-Satterthwaite df (fractional), for the study tables
// that print it (`./verdicts --welch`); the verdicts take interval_unpaired, which covers.
Interval interval_welch(const double *a, int na, const double *b, int nb, double level);
#endif
