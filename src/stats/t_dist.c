#include "stats/t_dist.h"

#include <math.h>

// The continued fraction of I_x(a, b) (modified Lentz), valid where x < (a + 1) / (a + b + 2);
// the other side comes from I_x(a, b) = 1 - I_{1-x}(b, a).
static double beta_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 + even * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + even / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d; h *= d * c;
        double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + odd * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + odd / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1) < 1e-15) break;
    }
    return h;
}

double beta_regularized(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    // x^a (1-x)^b / B(a, b), the prefactor both sides share
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2)
double t_two_sided_tail(double t, double df) {
    return beta_regularized(df / 2, 0.5, df / (df + t * t));
}

double t_critical(double level, double df) {
    double lo = 0, hi = 1e4, alpha = 1 - level;
    // the tail falls as t grows: keep the t whose tail is still above alpha in lo
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (t_two_sided_tail(mid, df) > alpha) lo = mid; else hi = mid;
    }
    return (lo + hi) / 2;
}
