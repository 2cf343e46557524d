#include "verdict/rank.h"

double reciprocal_rank(const double *score, int n, int i) {
    int above = 0, same = 0;
    for (int j = 0; j < n; j++) {
        if (score[j] > score[i] + 1e-9) above++;
        else if (score[j] >= score[i] - 1e-9) same++;
    }
    double rr = 0;
    for (int r = above + 1; r <= above + same; r++) rr += 1.0 / r;
    return rr / same;
}
