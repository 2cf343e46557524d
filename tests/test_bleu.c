// BLEU against values computed by hand (sacreBLEU's definition: 13a, BLEU-4, exp smoothing).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "score/bleu.h"

static BleuScore corpus(const char *const *hyp, const char *const *ref, int n, int lowercase) {
    BleuStats st = {0};
    for (int i = 0; i < n; i++) CHECK(bleu_add(&st, hyp[i], ref[i], lowercase) == 0, "add");
    return bleu_score(&st);
}

static void expect_tok(const char *in, const char *want) {
    char *t = bleu_tokenize_13a(in);
    CHECK(t && !strcmp(t, want), "13a('%s') = '%s', want '%s'", in, t ? t : "(null)", want);
    free(t);
}

static void test_tokenize_13a(void) {
    expect_tok("Hello, world!", "Hello , world !");
    expect_tok("It costs $3.50, or 1,000 yen.", "It costs $ 3.50 , or 1,000 yen .");   // digits keep . and ,
    expect_tok("U.S. man's 2-3 &quot;x&quot; a/b", "U . S . man's 2 - 3 \" x \" a / b"); // ' stays, - after a digit splits
    expect_tok("end..x", "end . . x");
    expect_tok("t-shirt (red)", "t-shirt ( red )");
    expect_tok("  spaced\t out\xc2\xa0here  ", "spaced out here");   // Python whitespace incl. U+00A0
    expect_tok("a<skipped>b &amp;lt;", "ab <");                        // &amp; is undone before &lt;
    expect_tok("", "");
    // An untrained model's output: symbols and commas that every rule expands (rules 1-3
    // each grow the text; the buffers hold the worst case).
    char many[400] = "", want[800] = "";
    for (int i = 0; i < 60; i++) { strcat(many, "(,,"); strcat(want, i ? " ( , ," : "( , ,"); }
    expect_tok(many, want);
    char *l = bleu_lowercase("\xc3\x84RGER \xc3\x9c" "BER \xc4\xb0stanbul \xce\xa3 \xd0\x96 \xc5\xb8");
    CHECK(l && !strcmp(l, "\xc3\xa4rger \xc3\xbc" "ber i\xcc\x87stanbul \xcf\x83 \xd0\xb6 \xc3\xbf"), "lower '%s'", l);
    free(l);
}

static void test_hand_values(void) {
    // hyp "the cat sat on the mat", ref "the cat is on the mat":
    // 1-grams 5/6 (the x2, cat, on, mat), 2-grams 3/5 (the cat, on the, the mat), 3-grams 1/4
    // (on the mat), 4-grams 0/3 -> smoothed 100 / (2 * 3); equal lengths, BP = 1.
    // BLEU = exp((ln 83.333 + ln 60 + ln 25 + ln 16.667) / 4) = 37.9918
    const char *h1[] = {"the cat sat on the mat"}, *r1[] = {"the cat is on the mat"};
    BleuScore s = corpus(h1, r1, 1, 0);
    CHECK_NEAR(s.score, 37.99178428, 1e-6);
    CHECK_NEAR(s.precision[0], 500.0 / 6, 1e-9);
    CHECK_NEAR(s.precision[3], 100.0 / 6, 1e-9);
    CHECK(s.stats.correct[0] == 5 && s.stats.total[0] == 6 && s.stats.correct[1] == 3 && s.stats.correct[2] == 1 &&
          s.stats.correct[3] == 0 && s.stats.total[3] == 3, "counts");
    CHECK(s.bp == 1.0, "bp %g", s.bp);
    // Cased: "The" no longer matches "the": 4/6, 2/5, 1/4, 0/3 -> 32.4668; lower-cased as above.
    const char *h2[] = {"The cat sat on the mat"};
    CHECK_NEAR(corpus(h2, r1, 1, 0).score, 32.46679155, 1e-6);
    CHECK_NEAR(corpus(h2, r1, 1, 1).score, 37.99178428, 1e-6);
    // No 2-, 3-, 4-gram match: "a b c d" vs "d c b a": 4/4, then 100/(2*3), 100/(4*2), 100/(8*1).
    const char *h3[] = {"a b c d"}, *r3[] = {"d c b a"};
    s = corpus(h3, r3, 1, 0);
    CHECK_NEAR(s.score, exp((log(100.0) + log(100.0 / 6) + log(12.5) + log(12.5)) / 4), 1e-9);
    CHECK_NEAR(s.score, 22.59005009, 1e-6);
    // Clipping: "the the the the" vs "the cat": "the" counts once; 1/4, then 0/3 0/2 0/1.
    const char *h4[] = {"the the the the"}, *r4[] = {"the cat"};
    s = corpus(h4, r4, 1, 0);
    CHECK(s.stats.correct[0] == 1, "clipped %ld", s.stats.correct[0]);
    CHECK_NEAR(s.score, 15.97357761, 1e-6);
    // Shorter than the reference, two sentences (13a splits the final '.'): sys 11, ref 12,
    // BP = exp(1 - 12/11) = 0.91310; matches 9/11, 5/9, 2/7, 1/5.
    const char *h5[] = {"The cat sat on the mat.", "A dog runs."};
    const char *r5[] = {"The cat is on the mat.", "A dog is running."};
    s = corpus(h5, r5, 2, 0);
    CHECK(s.stats.sys_len == 11 && s.stats.ref_len == 12, "lengths %ld %ld", s.stats.sys_len, s.stats.ref_len);
    CHECK_NEAR(s.bp, exp(1.0 - 12.0 / 11.0), 1e-12);
    CHECK_NEAR(s.score, 36.65671146, 1e-6);
    // Empty hypothesis: sys_len 0, BP 0, BLEU 0.
    const char *h6[] = {""}, *r6[] = {"a man is here"};
    s = corpus(h6, r6, 1, 0);
    CHECK(s.score == 0 && s.bp == 0 && s.stats.sys_len == 0 && s.stats.ref_len == 4, "empty: %g", s.score);
    // Nothing in common: 0. Too short for 3-grams: total_3 = 0 -> precision 0 -> 0.
    const char *h7[] = {"x y z"}, *r7[] = {"a b c"};
    CHECK(corpus(h7, r7, 1, 0).score == 0, "disjoint");
    const char *h8[] = {"a man"}, *r8[] = {"a man is walking down the street"};
    s = corpus(h8, r8, 1, 0);
    CHECK(s.score < 1e-100 && s.stats.correct[1] == 1, "two words: %g", s.score);
    // Identical text, lower-cased, non-ASCII: 100.
    const char *h9[] = {"\xc3\x84RGER \xc3\xbc" "ber den Hund"}, *r9[] = {"\xc3\xa4rger \xc3\xbc" "ber den hund"};
    CHECK_NEAR(corpus(h9, r9, 1, 1).score, 100.0, 1e-9);
    CHECK(corpus(h9, r9, 1, 0).score < 100, "cased must differ");
}

int main(void) {
    RUN(test_tokenize_13a);
    RUN(test_hand_values);
    return check_summary();
}
