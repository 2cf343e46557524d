// libFuzzer target for the two lexicon readers (src/data/order.c, src/data/toy_translate.c):
// task.lexicon of the order and toy_translate tasks. Every input goes to both readers.
// Any bytes must load or give a message, never a crash, leak or undefined behaviour.
// Properties checked:
//   - every failure writes a message;
//   - a lexicon that loads gives a closed vocabulary and generates data from it: every id of
//     a generated sentence is a token of the vocabulary other than <unk>.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/order.h"
#include "data/toy_translate.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ids(const int *ids, int n, const Vocab *v) {
    for (int i = 0; i < n; i++)
        if (ids[i] <= TOK_UNK || ids[i] >= v->n) abort();
}

static void check_split(const Split *s, const Vocab *src, const Vocab *tgt) {
    for (int i = 0; i < s->n; i++) {
        check_ids(s->ex[i].src, s->ex[i].n_src, src);
        if (tgt) check_ids(s->ex[i].tgt, s->ex[i].n_tgt, tgt);
    }
}

static void order(const char *path) {
    OrderLexicon lex;
    char err[512] = "";
    if (order_load_lexicon(path, &lex, err, sizeof err)) {
        if (!err[0]) abort();
        return;
    }
    Vocab v;
    if (order_build_vocab(&lex, &v)) abort();
    Split train, val, test;
    if (order_generate(&lex, &v, 1, 8, 4, 4, &train, &val, &test, err, sizeof err)) abort();
    check_split(&train, &v, NULL), check_split(&val, &v, NULL), check_split(&test, &v, NULL);
    split_free(&train), split_free(&val), split_free(&test);
    vocab_free(&v);
    order_lexicon_free(&lex);
}

static void toy(const char *path) {
    ToyLexicon lex;
    char err[512] = "";
    if (toy_load_lexicon(path, &lex, err, sizeof err)) {
        if (!err[0]) abort();
        return;
    }
    Vocab sv, tv;
    if (toy_build_vocabs(&lex, &sv, &tv)) abort();
    Split s;
    if (toy_generate(&lex, 1, 8, 1, 3, &sv, &tv, &s)) abort();
    check_split(&s, &sv, &tv);
    split_free(&s);
    int *ids = NULL, n = 0;
    if (toy_lm_stream(&lex, 1, 64, &tv, &ids, &n) || n != 64) abort();
    check_ids(ids, n, &tv);
    free(ids);
    vocab_free(&sv), vocab_free(&tv);
    toy_lexicon_free(&lex);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 8192) return 0;   // order enumerates every noun pair: keep a run fast
    const char *path = fuzz_file("lexicon.txt", data, size);
    order(path);
    toy(path);
    return 0;
}
