#include "verdict/label.h"

#include <math.h>

static VerdictKind interval_kind(const Interval *iv, int direction) {
    if (iv->lo <= 0 && iv->hi >= 0) return VERDICT_WITHIN;
    if (direction == 0) return VERDICT_EFFECT;
    return (iv->effect > 0) == (direction > 0) ? VERDICT_REPRODUCED : VERDICT_OPPOSITE;
}

static int both_at(double a, double b, double v) {
    return fabs(a - v) < 1e-12 && fabs(b - v) < 1e-12;
}

Label verdict_label(const LabelInput *in) {
    Label l = {interval_kind(&in->iv, in->direction), UNTESTED_NOT, VERDICT_WITHIN};
    l.alone = l.kind;
    if (in->n_a < 2 || in->n_b < 2) {
        l.kind = VERDICT_UNTESTED, l.why = UNTESTED_ONE_SEED;
    } else if (!isnan(in->gate_low) && in->gate_low < GATE_EXACT_MATCH) {
        l.kind = VERDICT_UNTESTED, l.why = UNTESTED_NOT_LEARNED;
    } else if (in->percent && (both_at(in->mean_a, in->mean_b, 0) ||
                               both_at(in->mean_a, in->mean_b, 1))) {
        l.kind = VERDICT_FLOOR;
    } else if (in->iv.df == 0 && in->iv.effect != 0) {
        l.kind = VERDICT_UNTESTED, l.why = UNTESTED_NO_SPREAD;
    }
    return l;
}

const char *verdict_word(VerdictKind k) {
    static const char *const words[VERDICT_KINDS] = {
        "reproduced", "opposite", "effect", "within the spread", "untested", "floor"};
    return k >= 0 && k < VERDICT_KINDS ? words[k] : "?";
}
