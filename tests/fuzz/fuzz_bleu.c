// libFuzzer target for what ./translate --ref does with the reference file and its own output
// lines: BLEU's 13a tokenisation and lower-casing (src/score/bleu.c) and chrF (src/score/chrf.c).
// Input: the reference lines, then a line "%%", then the hypothesis lines (as read_lines
// gives them: split at '\n', a NUL ends a line's text). Any bytes must give scores, never a
// crash or undefined behaviour. Properties checked:
//   - BLEU (cased and lower-cased) and chrF are in 0..100;
//   - the reference scored against itself: BLEU 100 when it has a 4-gram (then every n-gram
//     order has a total), chrF 100 when it has a character that is not whitespace.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "score/bleu.h"
#include "score/chrf.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// The lines of text[0..n) in a NUL-terminated copy (*buf, caller frees): returns the count.
static int split_lines(const void *text, size_t n, char **buf, char ***lines) {
    *buf = malloc(n + 1);
    memcpy(*buf, text, n);
    (*buf)[n] = '\0';
    int count = 0;
    for (size_t i = 0; i < n; i++) count += (*buf)[i] == '\n';
    *lines = malloc(sizeof **lines * (size_t)(count + 1));
    int k = 0;
    char *p = *buf, *end = *buf + n;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl) *nl = '\0';
        (*lines)[k++] = p;
        p = nl ? nl + 1 : end;
    }
    return k;
}

static void in_range(double score) {
    if (!(score >= 0 && score <= 100.0000001)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 16384) return 0;
    size_t ref_n, hyp_n;
    const void *hyp_text;
    fuzz_split(data, size, &ref_n, &hyp_text, &hyp_n);
    char *ref_buf, *hyp_buf, **ref, **hyp;
    int n_ref = split_lines(data, ref_n, &ref_buf, &ref);
    int n_hyp = split_lines(hyp_text ? hyp_text : "", hyp_n, &hyp_buf, &hyp);
    int n = n_ref < n_hyp ? n_ref : n_hyp;
    BleuStats cased = {0}, lower = {0}, self = {0};
    ChrfStats chrf = {0}, chrf_self = {0};
    for (int i = 0; i < n; i++)
        if (bleu_add(&cased, hyp[i], ref[i], 0) || bleu_add(&lower, hyp[i], ref[i], 1) ||
            chrf_add(&chrf, hyp[i], ref[i]))
            abort();
    for (int i = 0; i < n_ref; i++)
        if (bleu_add(&self, ref[i], ref[i], 0) || chrf_add(&chrf_self, ref[i], ref[i])) abort();
    in_range(bleu_score(&cased).score);
    in_range(bleu_score(&lower).score);
    in_range(chrf_score(&chrf));
    BleuScore s = bleu_score(&self);
    if (self.total[BLEU_N - 1] > 0 && (s.score < 99.999 || s.score > 100.001)) {
        fprintf(stderr, "BLEU of the reference against itself is %g\n", s.score);
        abort();
    }
    double c = chrf_score(&chrf_self);
    if (chrf_self.hyp[0] > 0 && (c < 99.999 || c > 100.001)) {
        fprintf(stderr, "chrF of the reference against itself is %g\n", c);
        abort();
    }
    free(ref_buf), free(hyp_buf), free(ref), free(hyp);
    return 0;
}
