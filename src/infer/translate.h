// A trained translator ready to translate text: the checkpoint's config and weights, and the
// tokeniser saved beside it (src_vocab.txt, tgt_vocab.txt, and src_bpe.txt, tgt_bpe.txt when
// the run used BPE), so no training data is needed.
//
// The decoder-only form (model = lm on task = parallel_text) translates too: its vocabulary
// (vocab.txt) serves both sides, a line becomes the prompt <eos> tokens, and the output is
// the prompt's continuation after <bos> (models/decode.h).
//
// A line goes through the same steps as the training data: lower-casing when the run did,
// the punctuation split of data/tokenize.h, the saved BPE merges, the saved vocabulary
// (unknown words -> <unk>), then <eos>. Output ids become text by the reverse steps: subwords
// joined (bpe_join), tokens detokenised (detokenize); <unk> is written as "<unk>".
#ifndef RUN_TRANSLATE_H
#define RUN_TRANSLATE_H
#include "data/bpe.h"
#include "data/vocab.h"
#include "models/model.h"

#define TRANSLATE_MAX_SRC 256   // source tokens kept per line (longer lines are cut)

typedef struct Translator {
    Config cfg;
    Model model;
    Vocab src_vocab, tgt_vocab;
    Bpe src_bpe, tgt_bpe;
    int has_bpe;
    int prefix;              // the decoder-only form: the source is the prompt
    char dir[512];
} Translator;

// Whether a run's config is the decoder-only form that translates (model = lm on
// task = parallel_text, the source as a prefix).
int  translator_is_prefix(const Config *c);

// CHECKPOINT is a model.safetensors file or its run folder. -1 with a message (nothing to
// close) when anything is missing or does not match.
int  translator_open(Translator *t, const char *checkpoint, char *err, int errlen);
void translator_close(Translator *t);
// Source ids of one line: tokens + <eos>, or <eos> + tokens for the decoder-only form (at
// most TRANSLATE_MAX_SRC tokens). Returns the
// count and a malloc'd array in *ids, or -1 if out of memory.
int  translator_encode(const Translator *t, const char *line, int **ids);
// Text of target ids (up to <eos>), malloc'd; NULL if out of memory.
char *translator_text(const Translator *t, const int *ids, int n);
// Before translating: the memory the longest batch needs (memory/memory_estimate.h) against
// what is available; -1 with the one-line refusal, else 0 with the estimate on stderr.
int  translate_check_memory(const Translator *t, char *const *lines, int n, int beam, int batch,
                            char *err, int errlen);
// Translates n lines (sorted by length into batches of at most `batch` sentences of one
// source length, so a line's translation does not depend on the others) with beam search;
// out[i] receives a malloc'd string. 0, or -1 with a message.
int  translate_lines(Translator *t, char *const *lines, int n, int beam, float alpha, int batch,
                     char **out, char *err, int errlen);
#endif
