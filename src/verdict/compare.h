// One compared row: the two arms' series, their interval, the gate on both arms, the label.
// Intervals (stats/interval.h, 95 %):
//   paired      the same trained models scored two ways: the t interval of the per-seed
//               differences A_i - B_i (n - 1 df); the arms must have the same seeds
//   unpaired    different trained models: the t interval of the difference of the seed means,
//               Welch's standard error with the smaller arm's n - 1 df (Hsu)
//   one-sample  B is a fixed target: the t interval of A's seed mean minus it
// The gate: each arm's own selection at the training length (data/claims.csv's gate column),
// scored on exact match when its file has it (then below 90 % leaves the row untested), else
// on the row's metric (shown, never gating: a loss has no "learned" level).
#ifndef VERDICT_COMPARE_H
#define VERDICT_COMPARE_H

#include "stats/interval.h"
#include "verdict/claims.h"
#include "verdict/label.h"
#include "verdict/results.h"
#include "verdict/select.h"

typedef struct {
    const Claim *claim;
    Series a, b;              // b is empty for one-sample
    double mean_a, sd_a, mean_b, sd_b;
    Interval iv;
    double gate_a, gate_b;    // the arms' gate scores; NAN: none
    int gate_percent;         // the gate scored exact match
    Label label;
    int wants_5;              // tested, under 5 seeds, means within twice the larger sd
    char note[768];
} VerdictRow;

// Computes row v of claim c; 0, or -1 with err set as `claims-file:line: ...`.
int compare_claim(Results *res, const Claim *c, const char *claims_path, VerdictRow *v,
                  char *err, int errlen);
// The verdict as verdicts.csv writes it: "reproduced: +22.6 [+7.0, +38.2]",
// "untested (not learned: 89.9% in distribution)", "floor (both arms at 0%)".
void verdict_text(const VerdictRow *v, char *buf, int len);
#endif
