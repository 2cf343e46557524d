// chrF against values computed by hand and sacreBLEU's own output (its default chrF2:
// character 1..6-grams, beta 2, whitespace removed, no epsilon smoothing).
#include <math.h>
#include <stdio.h>
#include "check.h"
#include "score/chrf.h"

static double corpus(const char *const *hyp, const char *const *ref, int n) {
    ChrfStats st = {0};
    for (int i = 0; i < n; i++) CHECK(chrf_add(&st, hyp[i], ref[i]) == 0, "add");
    return chrf_score(&st);
}

static void expect(const char *what, double got, double want) {
    CHECK(fabs(got - want) < 1e-9, "%s: chrF %.10f, want %.10f", what, got, want);
}

static void test_hand_values(void) {
    // "ab" against "abc": 1-grams P 2/2, R 2/3; 2-grams P 1/1, R 1/2; 3-grams: no hypothesis
    // n-gram (P eps, R 0/1); effective order 2. P = 1, R = (2/3 + 1/2) / 2 = 7/12;
    // chrF = 100 * 5 * P * R / (4 P + R) = 100 * (35/12) / (55/12) = 700 / 11.
    const char *h1[] = {"ab"}, *r1[] = {"abc"};
    expect("ab/abc", corpus(h1, r1, 1), 700.0 / 11.0);
    // Whitespace is removed before counting: the same n-grams.
    const char *h2[] = {"a b"}, *r2[] = {" ab\tc\xc2\xa0"};
    expect("whitespace", corpus(h2, r2, 1), 700.0 / 11.0);
    // Characters, not bytes: "Ä" (2 bytes) is one character.
    const char *h3[] = {"\xc3\x84" "b"}, *r3[] = {"\xc3\x84" "bc"};
    expect("utf-8", corpus(h3, r3, 1), 700.0 / 11.0);
    // Clipping: "aaa" against "a": 1-grams P 1/3 (a matches once), R 1/1; the 2- and 3-grams
    // have no reference (not effective). P = 1/3, R = 1: chrF = 100 * (5/3) / (7/3) = 500 / 7.
    const char *h4[] = {"aaa"}, *r4[] = {"a"};
    expect("clipping", corpus(h4, r4, 1), 500.0 / 7.0);
    // The corpus sums the counts before dividing (not a mean of sentence scores): both pairs
    // above give 1-grams 3/5, 3/4; 2-grams 1/3, 1/2; 3-grams 0/1, 0/1; effective order 3:
    // P = (3/5 + 1/3) / 3 = 14/45, R = (3/4 + 1/2) / 3 = 5/12,
    // chrF = 100 * 5 P R / (4 P + R) = 100 * (35/54) / (299/180) = 630000 / 16146.
    const char *h5[] = {"ab", "aaa"}, *r5[] = {"abc", "a"};
    expect("corpus", corpus(h5, r5, 2), 630000.0 / 16146.0);
    const char *h6[] = {"Ein Hund."}, *r6[] = {"Ein Hund."};
    expect("identical", corpus(h6, r6, 1), 100.0);
    const char *h7[] = {""}, *r7[] = {"abc"};
    expect("empty hypothesis", corpus(h7, r7, 1), 0.0);
    // Case is kept: "A" does not match "a".
    const char *h8[] = {"Ab"}, *r8[] = {"abc"};
    // 1-grams P 1/2, R 1/3; 2-grams P 0/1, R 0/2; P = 1/4, R = 1/6:
    // chrF = 100 * 5 (1/24) / (1 + 1/6) = 100 * (5/24) / (7/6) = 500 / 28
    expect("case", corpus(h8, r8, 1), 500.0 / 28.0);
}

// The scores sacreBLEU's corpus_chrf prints for these pairs (quoted in the Hugging Face
// `chrf` metric card, which wraps sacreBLEU with its defaults).
static void test_sacrebleu_values(void) {
    const char *h1[] = {"The relationship between Obama and Netanyahu is not exactly friendly."};
    const char *r1[] = {"The ties between Obama and Netanyahu are not particularly friendly."};
    CHECK(fabs(corpus(h1, r1, 1) - 61.576379378113785) < 1e-9, "one pair: %.12f",
          corpus(h1, r1, 1));
    const char *h2[] = {"The relationship between cats and dogs is not exactly friendly.",
                        "a good bookshop is just a genteel black hole that knows how to read."};
    const char *r2[] = {"The relationship between dogs and cats is not exactly friendly.",
                        "A good bookshop is just a genteel Black Hole that knows how to read."};
    CHECK(fabs(corpus(h2, r2, 2) - 84.64214891738334) < 1e-9, "two pairs: %.12f",
          corpus(h2, r2, 2));
}

int main(void) {
    RUN(test_hand_values);
    RUN(test_sacrebleu_values);
    return check_summary();
}
