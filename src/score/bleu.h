// Corpus BLEU as sacreBLEU computes it by default (BLEU-4, one reference, 13a tokenisation,
// "exp" smoothing, brevity penalty), on detokenised text, cased or lower-cased.
//
//   BleuStats st = {0};
//   for each sentence: bleu_add(&st, hypothesis, reference, lowercase);
//   BleuScore s = bleu_score(&st);          // s.score in 0..100
//
// Per sentence: both lines lose trailing whitespace, are lower-cased when asked, and are
// tokenised by 13a (mteval-v13a): "<skipped>" and "-\n" removed, &quot; &amp; &lt; &gt;
// unescaped, the symbols { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
// split off, '.' and ',' split off unless between digits, '-' split off after a digit,
// then split on whitespace. n-gram matches (n = 1..4) are clipped by the reference counts;
// the corpus sums the matches, the n-gram totals and the lengths.
// Score: precisions p_n = 100 * correct_n / total_n; a p_n with no match becomes
// 100 / (2^k * total_n) for the k-th such n ("exp" smoothing); no match at all gives 0;
// BLEU = BP * exp(mean(log p_n)), BP = exp(1 - ref_len / sys_len) when sys_len < ref_len
// (0 when sys_len = 0), else 1.
// Lower-casing follows Python's str.lower() for ASCII, Latin-1, Latin Extended-A, Greek
// and Cyrillic letters; other characters are kept.
#ifndef RUN_BLEU_H
#define RUN_BLEU_H

#define BLEU_N 4

typedef struct {
    long correct[BLEU_N], total[BLEU_N];
    long sys_len, ref_len;
} BleuStats;

typedef struct {
    double score;                 // 0..100
    double precision[BLEU_N];     // percent, after smoothing
    double bp, ratio;             // brevity penalty, sys_len / ref_len
    BleuStats stats;
} BleuScore;

// 13a tokenisation of one line: tokens separated by single spaces, malloc'd (NULL when out
// of memory).
char *bleu_tokenize_13a(const char *line);
// Lower-cased copy (malloc'd; NULL when out of memory).
char *bleu_lowercase(const char *s);
// Adds one hypothesis/reference pair. 0, or -1 when out of memory.
int  bleu_add(BleuStats *st, const char *hyp, const char *ref, int lowercase);
BleuScore bleu_score(const BleuStats *st);
#endif
