// libFuzzer target for the BPE merges reader (bpe_load in src/data/bpe.c): the merges file
// saved beside a checkpoint and read by ./eval, ./translate and ./generate.
// Input: the merges file, optionally followed by a line "%%" and text whose words are
// segmented with the merges loaded. Any bytes must load or give a message, never a crash,
// leak or undefined behaviour. Properties checked:
//   - every failure writes a message;
//   - merges that load, saved with bpe_save, load again to the same merges;
//   - every word of the text (tokenised as parallel_text does) segments into subwords that
//     bpe_join turns back into the word (words that end in "@@" excepted, see bpe.h).
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/bpe.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const Bpe *b) {
    char err[512] = "";
    const char *path = fuzz_file("saved_bpe.txt", "", 0);
    if (bpe_save(b, path, err, sizeof err)) abort();
    Bpe back;
    if (bpe_load(&back, path, err, sizeof err)) {
        fprintf(stderr, "saved merges do not load: %s\n", err);
        abort();
    }
    if (back.n_merges != b->n_merges) abort();
    for (int r = 0; r < b->n_merges; r++)
        if (strcmp(back.sym.str[back.result[r]], b->sym.str[b->result[r]])) abort();
    bpe_free(&back);
}

static void check_words(const Bpe *b, const char *text, size_t n) {
    PtSide side = {0};
    long replaced = 0;
    if (pt_add_line(&side, text, n, 0, &replaced)) abort();
    for (int i = 0; i < pt_line_len(&side, 0); i++) {
        const char *w = pt_token(&side, 0, i);
        size_t len = strlen(w);
        if (len >= 2 && !strcmp(w + len - 2, "@@")) continue;
        char *buf = malloc(bpe_buf_size(w)), *joined = malloc(bpe_buf_size(w));
        const char **toks = malloc(sizeof *toks * (len + 1)), *words[1];
        int k = bpe_segment_word(b, w, buf, toks);
        if (k < 1 || bpe_join(toks, k, joined, words) != 1 || strcmp(words[0], w)) {
            fprintf(stderr, "BPE does not give back '%s'\n", w);
            abort();
        }
        free(buf), free(joined), free(toks);
    }
    pt_side_free(&side);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t merges_n, text_n;
    const void *text;
    fuzz_split(data, size, &merges_n, &text, &text_n);
    Bpe b;
    char err[512] = "";
    if (bpe_load(&b, fuzz_file("bpe.txt", data, merges_n), err, sizeof err)) {
        if (!err[0]) abort();   // every failure must say why
        return 0;
    }
    check_round_trip(&b);
    if (text) check_words(&b, text, text_n);
    bpe_free(&b);
    return 0;
}
