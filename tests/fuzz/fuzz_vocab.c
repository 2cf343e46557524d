// libFuzzer target for the vocabulary reader (vocab_load in src/data/vocab.c): the vocab.txt,
// src_vocab.txt and tgt_vocab.txt saved beside a checkpoint.
// Any bytes must load or give a message, never a crash, leak or undefined behaviour.
// Properties checked:
//   - every failure writes a message;
//   - a loaded vocabulary starts with the specials, maps every token to its own id, and
//     saved with vocab_save loads again to the same tokens in the same order.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/vocab.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Vocab v;
    char err[512] = "";
    if (vocab_load(&v, fuzz_file("vocab.txt", data, size), err, sizeof err)) {
        if (!err[0]) abort();   // every failure must say why
        return 0;
    }
    if (v.n < 4 || strcmp(vocab_token(&v, TOK_EOS), "<eos>")) abort();
    for (int id = 0; id < v.n; id++)
        if (vocab_find(&v, vocab_token(&v, id)) != id) abort();
    const char *path = fuzz_file("saved_vocab.txt", "", 0);
    if (vocab_save(&v, path, err, sizeof err)) abort();
    Vocab back;
    if (vocab_load(&back, path, err, sizeof err)) {
        fprintf(stderr, "saved vocabulary does not load: %s\n", err);
        abort();
    }
    if (back.n != v.n || vocab_has_cls(&back) != vocab_has_cls(&v)) abort();
    for (int id = 0; id < v.n; id++)
        if (strcmp(vocab_token(&back, id), vocab_token(&v, id))) abort();
    vocab_free(&back);
    vocab_free(&v);
    return 0;
}
