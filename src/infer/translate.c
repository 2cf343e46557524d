// Translating text with a saved translator, see translate.h.
#include "infer/translate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/parallel_text.h"
#include "data/tokenize.h"
#include "run/checkpoint.h"
#include "models/decode.h"
#include "memory/memory_check.h"
#include "core/errors.h"
#include "run/run_dir.h"

int translator_open(Translator *t, const char *arg, char *err, int errlen) {
    memset(t, 0, sizeof *t);
    char path[sizeof t->dir], file[700];
    run_locate(arg, path, t->dir, sizeof t->dir);
    if (checkpoint_read_config(path, &t->cfg, err, errlen)) return -1;
    int rc = 0;
    t->prefix = translator_is_prefix(&t->cfg);
    if (!model_is_seq2seq(t->cfg.model) && !t->prefix) {
        snprintf(err, errlen, "%s: model = %s on task = %s, not a translator", path,
                 config_enum_name(&t->cfg, &t->cfg.model), config_enum_name(&t->cfg, &t->cfg.task));
        rc = -1;
    }
    // The decoder-only form has one vocabulary of both languages (vocab.txt), read as both.
    snprintf(file, sizeof file, "%s/%s", t->dir, t->prefix ? "vocab.txt" : "src_vocab.txt");
    if (!rc && vocab_load(&t->src_vocab, file, err, errlen)) rc = -1;
    if (!t->prefix) snprintf(file, sizeof file, "%s/tgt_vocab.txt", t->dir);
    if (!rc && vocab_load(&t->tgt_vocab, file, err, errlen)) { vocab_free(&t->src_vocab); rc = -1; }
    if (rc) { config_free(&t->cfg); return -1; }
    if (t->cfg.bpe_merges > 0) {
        t->has_bpe = 1;
        snprintf(file, sizeof file, "%s/src_bpe.txt", t->dir);
        if (bpe_load(&t->src_bpe, file, err, errlen)) rc = -1;
        snprintf(file, sizeof file, "%s/tgt_bpe.txt", t->dir);
        if (!rc && bpe_load(&t->tgt_bpe, file, err, errlen)) rc = -1;
    }
    if (!rc) {
        model_build(&t->model, &t->cfg, t->src_vocab.n, t->tgt_vocab.n, 0);
        rc = checkpoint_load(path, &t->model, NULL, NULL, err, errlen);
        if (rc) model_free(&t->model);
    }
    if (rc) {
        if (t->has_bpe) { bpe_free(&t->src_bpe); bpe_free(&t->tgt_bpe); }
        vocab_free(&t->src_vocab);
        vocab_free(&t->tgt_vocab);
        config_free(&t->cfg);
        return -1;
    }
    model_set_training(&t->model, 0);
    return 0;
}

void translator_close(Translator *t) {
    model_free(&t->model);
    if (t->has_bpe) { bpe_free(&t->src_bpe); bpe_free(&t->tgt_bpe); }
    vocab_free(&t->src_vocab);
    vocab_free(&t->tgt_vocab);
    config_free(&t->cfg);
    memset(t, 0, sizeof *t);
}

int translator_is_prefix(const Config *c) {
    return c->model == MODEL_LM && c->task == TASK_PARALLEL_TEXT;
}

// Longest source the model takes: a learned table without wrap-around has max_len rows (the
// decoder-only form's prompt shares its positions with the output: half of them).
static int max_source(const Translator *t) {
    int n = TRANSLATE_MAX_SRC;
    char msg[256];
    const Positional *pos = t->prefix ? &t->model.decoder.pos : &t->model.encoder.pos;
    while (n > 1 && pos_check_length(pos, t->prefix ? 2 * n : n, msg, sizeof msg)) n--;
    return n;
}

int translator_encode(const Translator *t, const char *line, int **ids) {
    PtSide words = {0}, subwords = {0};
    long replaced = 0;
    if (pt_add_line(&words, line, strlen(line), t->cfg.lowercase, &replaced)) return -1;
    PtSide *side = &words;
    if (t->has_bpe) {
        if (bpe_segment_side(&t->src_bpe, &words, &subwords)) { pt_side_free(&words); return -1; }
        side = &subwords;
    }
    int n = pt_line_len(side, 0), limit = max_source(t) - 1;
    if (n > limit) n = limit;
    *ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (*ids) {   // tokens <eos>, or the decoder-only form's prompt <eos> tokens
        int first = t->prefix;
        for (int i = 0; i < n; i++)
            (*ids)[first + i] = vocab_word_id(&t->src_vocab, pt_token(side, 0, i));
        (*ids)[t->prefix ? 0 : n] = TOK_EOS;
    }
    pt_side_free(&words);
    pt_side_free(&subwords);
    return *ids ? n + 1 : -1;
}

int translate_check_memory(const Translator *t, char *const *lines, int n, int beam, int batch,
                           char *err, int errlen) {
    int longest = 1;
    for (int i = 0; i < n; i++) {
        int *ids, k = translator_encode(t, lines[i], &ids);
        if (k < 0) return errorf(err, errlen, "out of memory");
        free(ids);
        if (k > longest) longest = k;
    }
    MemoryEstimate e;
    MemoryVocab v = {t->src_vocab.n, t->tgt_vocab.n, 0};
    memory_estimate_translate(&t->cfg, v, n < batch ? (n > 0 ? n : 1) : batch, beam, longest, &e);
    if (memory_check(&e, &t->cfg, err, errlen)) return -1;
    memory_report(&e, &t->cfg, stderr);
    return 0;
}

char *translator_text(const Translator *t, const int *ids, int n) {
    const char **toks = malloc(sizeof(char *) * (size_t)(n + 1)),
               **words = malloc(sizeof(char *) * (size_t)(n + 1));
    int k = 0;
    size_t size = 1;
    for (int i = 0; toks && i < n && ids[i] != TOK_EOS; i++) {
        if (ids[i] == TOK_PAD || ids[i] == TOK_BOS) continue;
        const char *tok = vocab_token(&t->tgt_vocab, ids[i]);
        if (!tok) continue;
        toks[k++] = tok;
        size += strlen(tok) + 1;
    }
    char *buf = malloc(size), *text = NULL;
    if (toks && words && buf) {
        int nw = t->has_bpe ? bpe_join(toks, k, buf, words) : k;
        text = detokenize(t->has_bpe ? words : toks, nw);
    }
    free(toks);
    free(words);
    free(buf);
    return text;
}

typedef struct { int len, line; } ByLength;

static int by_length(const void *a, const void *b) {
    const ByLength *x = a, *y = b;
    return x->len != y->len ? x->len - y->len : x->line - y->line;
}

int translate_lines(Translator *t, char *const *lines, int n, int beam, float alpha, int batch,
                    char **out, char *err, int errlen) {
    int **ids = calloc((size_t)(n ? n : 1), sizeof(int *));
    ByLength *order = malloc(sizeof(ByLength) * (size_t)(n ? n : 1));
    int rc = ids && order ? 0 : -1;
    for (int i = 0; i < n && !rc; i++) {
        order[i].line = i;
        if ((order[i].len = translator_encode(t, lines[i], &ids[i])) < 0) rc = -1;
    }
    // similar lengths: little padding
    if (!rc) qsort(order, (size_t)n, sizeof(ByLength), by_length);
    for (int start = 0, B; start < n && !rc; start += B) {
        B = n - start < batch ? n - start : batch;
        // One source length a batch: a line's output may run to 2 Ts + 10 tokens of its own
        // source (a longer line beside it would let it run on, and beam search's cut
        // hypotheses compete at that limit), and a language model's prompts are not padded:
        // they share the cache's positions.
        for (int b = 1; b < B; b++)
            if (order[start + b].len != order[start].len) { B = b; break; }
        int Ts = order[start + B - 1].len;
        int max_len = 2 * Ts + 10;                 // targets are rarely twice the source
        int *src = calloc((size_t)B * Ts, sizeof(int)),
            *hyp = malloc(sizeof(int) * (size_t)B * max_len);
        if (!src || !hyp) rc = -1;
        for (int b = 0; b < B && !rc; b++)
            memcpy(src + (long)b * Ts, ids[order[start + b].line],
                   sizeof(int) * (size_t)order[start + b].len);
        if (!rc) rc = beam_decode(&t->model, src, B, Ts, beam, alpha, max_len, hyp);
        for (int b = 0; b < B && !rc; b++)
            if (!(out[order[start + b].line] =
                      translator_text(t, hyp + (long)b * max_len, max_len)))
                rc = -1;
        free(src);
        free(hyp);
    }
    if (rc) snprintf(err, errlen, "out of memory while translating");
    for (int i = 0; ids && i < n; i++) free(ids[i]);
    free(ids);
    free(order);
    return rc;
}
