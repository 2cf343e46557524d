// libFuzzer target for the parallel text reader (src/data/parallel_text.c, through
// src/data/lines.c) and what a task does next with the lines: vocabularies, ids, BPE.
// Input: the source file, then a line "%%", then the target file (no "%%": the target is
// empty). Any bytes must load or give a message, never a crash, leak or undefined behaviour.
// Properties checked:
//   - every failure writes a message; a loaded pair has as many lines on both sides;
//   - every token is non-empty valid UTF-8 without whitespace, and a token that fits a
//     vocabulary maps to itself (vocab_find);
//   - BPE learned on the source side segments every source word so that bpe_join gives the
//     word back (words that end in "@@" excepted: bpe.h says they are ambiguous).
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/bpe.h"
#include "data/parallel_text.h"
#include "util/utf8.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_side(const PtSide *s, int n_lines, const Vocab *v) {
    if (s->n_lines != n_lines) abort();
    for (int l = 0; l < n_lines; l++)
        for (int i = 0; i < pt_line_len(s, l); i++) {
            const char *tok = pt_token(s, l, i);
            size_t n = strlen(tok);
            if (n == 0 || !utf8_valid(tok, n) || strpbrk(tok, " \t\r\n"))
                abort();
            if (n <= VOCAB_MAX_TOKEN && vocab_find(v, tok) < 0) abort();
        }
}

static void check_bpe(const ParallelText *pt) {
    Bpe b;
    if (bpe_learn(&pt->src, 30, &b)) abort();
    for (int l = 0; l < pt->n_lines; l++)
        for (int i = 0; i < pt_line_len(&pt->src, l); i++) {
            const char *w = pt_token(&pt->src, l, i);
            size_t n = strlen(w);
            if (n >= 2 && !strcmp(w + n - 2, "@@")) continue;
            char *buf = malloc(bpe_buf_size(w)), *joined = malloc(bpe_buf_size(w));
            const char **toks = malloc(sizeof *toks * (n + 1)), *words[1];
            int k = bpe_segment_word(&b, w, buf, toks);
            if (k < 1 || bpe_join(toks, k, joined, words) != 1 || strcmp(words[0], w)) {
                fprintf(stderr, "BPE does not give back '%s'\n", w);
                abort();
            }
            free(buf), free(joined), free(toks);
        }
    bpe_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 16384) return 0;   // BPE learning is quadratic in the worst case: keep it fast
    size_t src_n, tgt_n;
    const void *tgt;
    fuzz_split(data, size, &src_n, &tgt, &tgt_n);
    const char *src_path = fuzz_file("train.de", data, src_n);
    const char *tgt_path = fuzz_file("train.en", tgt, tgt_n);
    ParallelText pt;
    char err[512] = "";
    if (parallel_load(src_path, tgt_path, size & 1, &pt, err, sizeof err)) {
        if (!err[0]) abort();   // every failure must say why
        return 0;
    }
    Vocab sv, tv, joint;
    if (parallel_build_vocabs(&pt, 1, &sv, &tv) || parallel_build_joint_vocab(&pt, 1, &joint))
        abort();
    check_side(&pt.src, pt.n_lines, &sv);
    check_side(&pt.tgt, pt.n_lines, &tv);
    Split split;
    int dropped = 0;
    if (parallel_to_split(&pt, &sv, &tv, 32, &split, &dropped)) abort();
    if (split.n + dropped != pt.n_lines) abort();
    split_free(&split);
    check_bpe(&pt);
    vocab_free(&sv), vocab_free(&tv), vocab_free(&joint);
    parallel_free(&pt);
    return 0;
}
