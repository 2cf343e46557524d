// Student's t distribution, for the intervals of the verdicts (stats/interval.h): the two-sided
// tail P(|T| > t) through the regularized incomplete beta function, and the quantile by
// bisection on that tail. Degrees of freedom may be fractional (Welch-Satterthwaite), so no
// table is used; accurate to about 1e-12 over the df and levels the verdicts meet (1..1e7).
#ifndef STATS_T_DIST_H
#define STATS_T_DIST_H

// I_x(a, b), the regularized incomplete beta function, a, b > 0; 0 for x <= 0, 1 for x >= 1.
double beta_regularized(double a, double b, double x);
// P(|T| > t) for T ~ t(df), t >= 0, df > 0.
double t_two_sided_tail(double t, double df);
// The t with P(|T| > t) = 1 - level, e.g. level 0.95 gives t_{0.975, df}; 0 < level < 1.
double t_critical(double level, double df);
#endif
