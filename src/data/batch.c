// Padded batches, see batch.h.
#include "data/batch.h"
#include "data/vocab.h"
#include <stdlib.h>
#include <string.h>

void batch_free(Batch *b) {
    free(b->src); free(b->tgt_in); free(b->tgt_out); free(b->labels);
    memset(b, 0, sizeof *b);
}

static int *zeros(int B, int T) {      // calloc: every entry starts as <pad> = 0
    return calloc((size_t)B * (size_t)(T > 0 ? T : 1), sizeof(int));
}

// memcpy, but an empty example may have a NULL array (memcpy(NULL) is undefined even for 0).
static void copy_ids(int *dst, const int *src, int n) {
    if (n > 0) memcpy(dst, src, sizeof(int) * (size_t)n);
}

// eos: the target ends with <eos> (BATCH_TRANSLATE); else it ends with its last token, and
// the decoder input drops that token, since nothing follows it to be predicted.
static void fill_translate(Batch *b, const Example *e, int row, int eos) {
    int *src = b->src + (size_t)row * b->T_src;
    int *in = b->tgt_in + (size_t)row * b->T_tgt, *out = b->tgt_out + (size_t)row * b->T_tgt;
    copy_ids(src, e->src, e->n_src);
    src[e->n_src] = TOK_EOS;
    in[0] = TOK_BOS;
    copy_ids(in + 1, e->tgt, eos ? e->n_tgt : e->n_tgt - 1);
    copy_ids(out, e->tgt, e->n_tgt);
    if (eos) out[e->n_tgt] = TOK_EOS;
    b->n_tgt_tokens += e->n_tgt + eos;
}

// Input tokens are context, not targets: their tgt_out entries stay <pad> (zeros()).
static void fill_prompt(Batch *b, const Example *e, int row) {
    int *in = b->tgt_in + (size_t)row * b->T_tgt, *out = b->tgt_out + (size_t)row * b->T_tgt;
    in[0] = TOK_EOS;
    copy_ids(in + 1, e->src, e->n_src);
    in[e->n_src + 1] = TOK_BOS;
    copy_ids(in + e->n_src + 2, e->tgt, e->n_tgt);
    copy_ids(out + e->n_src + 1, e->tgt, e->n_tgt);
    out[e->n_src + 1 + e->n_tgt] = TOK_EOS;
    b->n_tgt_tokens += e->n_tgt + 1;
}

static void fill_classify(Batch *b, const Example *e, int row, int add_cls) {
    int *src = b->src + (size_t)row * b->T_src;
    if (add_cls) *src++ = TOK_CLS;
    copy_ids(src, e->src, e->n_src);
    b->labels[row] = e->label;
}

int batch_from_split(const Split *split, const int *indices, int B, BatchKind kind, int add_cls,
                     Batch *b) {
    memset(b, 0, sizeof *b);
    if (B < 1) return -1;
    int max_src = 0, max_tgt = 0, max_both = 0;
    for (int i = 0; i < B; i++) {
        if (indices[i] < 0 || indices[i] >= split->n) return -1;
        const Example *e = &split->ex[indices[i]];
        if (e->n_src > max_src) max_src = e->n_src;
        if (e->n_tgt > max_tgt) max_tgt = e->n_tgt;
        if (e->n_src + e->n_tgt > max_both) max_both = e->n_src + e->n_tgt;
    }
    b->B = B;
    if (kind == BATCH_PROMPT) {
        b->T_tgt = max_both + 2;
        b->tgt_in = zeros(B, b->T_tgt);
        b->tgt_out = zeros(B, b->T_tgt);
        if (!b->tgt_in || !b->tgt_out) { batch_free(b); return -1; }
        for (int i = 0; i < B; i++) fill_prompt(b, &split->ex[indices[i]], i);
    } else if (kind == BATCH_TRANSLATE || kind == BATCH_TRANSLATE_NO_EOS) {
        int eos = kind == BATCH_TRANSLATE;
        b->T_src = max_src + 1;
        b->T_tgt = max_tgt + eos > 0 ? max_tgt + eos : 1;   // all-empty targets: one pad column
        b->src = zeros(B, b->T_src);
        b->tgt_in = zeros(B, b->T_tgt);
        b->tgt_out = zeros(B, b->T_tgt);
        if (!b->src || !b->tgt_in || !b->tgt_out) { batch_free(b); return -1; }
        for (int i = 0; i < B; i++) fill_translate(b, &split->ex[indices[i]], i, eos);
    } else {
        b->T_src = max_src + (add_cls ? 1 : 0);
        if (b->T_src < 1) b->T_src = 1;           // all-empty rows: one pad column
        b->src = zeros(B, b->T_src);
        b->labels = malloc(sizeof(int) * (size_t)B);
        if (!b->src || !b->labels) { batch_free(b); return -1; }
        for (int i = 0; i < B; i++) fill_classify(b, &split->ex[indices[i]], i, add_cls);
        b->n_tgt_tokens = B;
    }
    return 0;
}

int batch_lm(const int *stream, int n, const int *starts, int B, int T, Batch *b) {
    memset(b, 0, sizeof *b);
    if (B < 1 || T < 1) return -1;
    for (int i = 0; i < B; i++)
        if (starts[i] < 0 || starts[i] > n - 1 - T) return -1;
    b->B = B;
    b->T_tgt = T;
    b->tgt_in = malloc(sizeof(int) * (size_t)B * (size_t)T);
    b->tgt_out = malloc(sizeof(int) * (size_t)B * (size_t)T);
    if (!b->tgt_in || !b->tgt_out) { batch_free(b); return -1; }
    for (int i = 0; i < B; i++) {
        memcpy(b->tgt_in + (size_t)i * T, stream + starts[i], sizeof(int) * (size_t)T);
        memcpy(b->tgt_out + (size_t)i * T, stream + starts[i] + 1, sizeof(int) * (size_t)T);
    }
    b->n_tgt_tokens = B * T;
    return 0;
}
