// Corpus chrF as sacreBLEU computes it by default (chrF2: character n-grams of orders 1..6,
// no word n-grams, beta = 2, whitespace removed, case kept, one reference).
//
//   ChrfStats st = {0};
//   for each sentence: chrf_add(&st, hypothesis, reference);
//   double score = chrf_score(&st);       // 0..100
//
// Per sentence: every whitespace character (Python's str.split() set) is removed, the rest is
// read as Unicode code points, and for n = 1..6 the corpus adds the hypothesis's n-grams, the
// reference's, and the matches (each n-gram counted at most as often as the reference has it).
// Score (sacreBLEU's default, no epsilon smoothing): per order precision P_n = match / hyp
// and recall R_n = match / ref (1e-16 when the denominator is 0); P and R are their sums
// divided by the effective order (the orders whose hypothesis and reference totals are both
// non-zero; score 0 when there is none); chrF = 100 * (1 + b²) P R / (b² P + R), b = 2.
#ifndef RUN_CHRF_H
#define RUN_CHRF_H

#define CHRF_ORDER 6

typedef struct {
    long hyp[CHRF_ORDER], ref[CHRF_ORDER], match[CHRF_ORDER];   // index n - 1
} ChrfStats;

// Adds one sentence pair (UTF-8; an invalid byte counts as one character). 0, or -1 when
// out of memory (st unchanged).
int chrf_add(ChrfStats *st, const char *hyp, const char *ref);
double chrf_score(const ChrfStats *st);
#endif
