// The verdict of one compared row, from its interval and the arms' in-distribution scores, in
// this order:
//   one seed       either arm has a single seed: no interval, untested
//   not learned    either arm's exact match at the training length (the gate, on both arms)
//                  is below 90 %: whatever its interval says, untested
//   floor          both arms at 0 % or both at 100 % (a percentage metric): no interval can
//                  tell them apart; kept out of the tallies
//   no spread      the interval is the point (no spread in the seeds) and not 0: untested
//   within         the interval holds 0
//   effect         it excludes 0 and the claim gives no direction
//   reproduced     it excludes 0 in the claim's direction; opposite: against it
#ifndef VERDICT_LABEL_H
#define VERDICT_LABEL_H

#include "stats/interval.h"

#define GATE_EXACT_MATCH 0.9

typedef enum {
    VERDICT_REPRODUCED, VERDICT_OPPOSITE, VERDICT_EFFECT, VERDICT_WITHIN, VERDICT_UNTESTED,
    VERDICT_FLOOR, VERDICT_KINDS
} VerdictKind;

typedef enum { UNTESTED_NOT, UNTESTED_ONE_SEED, UNTESTED_NOT_LEARNED, UNTESTED_NO_SPREAD } Untested;

typedef struct {
    int n_a, n_b;
    double mean_a, mean_b;
    int percent;          // a percentage metric (floor applies)
    int direction;        // +1, -1, 0
    Interval iv;
    double gate_low;      // the lower of the arms' gate scores; NAN: no gate
} LabelInput;

typedef struct {
    VerdictKind kind;
    Untested why;         // for VERDICT_UNTESTED
    VerdictKind alone;    // what the interval alone says (for a note on untested rows)
} Label;

Label verdict_label(const LabelInput *in);
// "reproduced", "within the spread", ... (the tally's words)
const char *verdict_word(VerdictKind k);
#endif
