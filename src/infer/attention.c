// Traced forward pass and attention heat maps, see attention.h.
#include "infer/attention.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/tape.h"
#include "data/parallel_text.h"
#include "data/vocab.h"
#include "plot/heatmap.h"
#include "models/decode.h"

int attention_trace(Model *m, const int *src, int Ts, const int *tgt_in, int Tt, AttnMaps *a) {
    memset(a, 0, sizeof *a);
    int lstm = m->cfg.model == MODEL_LSTM;
    int H = lstm ? 1 : m->cfg.n_heads, V = m->tgt_vocab;
    a->n_enc = lstm ? 0 : m->encoder.n_layers;
    a->n_dec = lstm ? 1 : m->decoder.n_layers;
    a->cross_only = lstm;
    a->H = H;
    a->Ts = Ts;
    a->Tt = Tt;
    a->enc_self = malloc(sizeof(float) * (size_t)a->n_enc * H * Ts * Ts + 1);
    a->dec_self = malloc(sizeof(float) * (size_t)a->n_dec * H * Tt * Tt + 1);
    a->dec_cross = malloc(sizeof(float) * (size_t)a->n_dec * H * Tt * Ts + 1);
    a->logits = malloc(sizeof(float) * (size_t)Tt * V);
    if (!a->enc_self || !a->dec_self || !a->dec_cross || !a->logits) {
        attention_maps_free(a);
        return -1;
    }
    int was_training = m->training, was_recording = tape_enabled();
    model_set_training(m, 0);
    tape_set_enabled(0);
    ArenaMark mark = arena_mark(tensor_arena());
    Tensor *logits;                                                                // (Tt,V)
    if (lstm) {
        LstmEncoded enc = lstm_encode(&m->lstm, src, 1, Ts);
        logits = lstm_decode(&m->lstm, &enc, tgt_in, 1, Tt, NULL, enc.final, a->dec_cross);
    } else {
        StackRun enc = { .self_probs = a->enc_self },
                 dec = { .self_probs = a->dec_self, .cross_probs = a->dec_cross };
        Tensor *memory = model_encode(m, src, 1, Ts, &enc);
        logits = decoder_logits(m, memory, src, Ts, tgt_in, 1, Tt, &dec);
    }
    memcpy(a->logits, logits->data, sizeof(float) * (size_t)Tt * V);
    arena_release(tensor_arena(), mark);
    model_set_training(m, was_training);
    tape_set_enabled(was_recording);
    return 0;
}

void attention_maps_free(AttnMaps *a) {
    free(a->enc_self);
    free(a->dec_self);
    free(a->dec_cross);
    free(a->logits);
    memset(a, 0, sizeof *a);
}

static int write_maps(const char *dir, int index, const char *kind, const char *what, int layer,
                      const AttnMaps *a, const float *P, int rows, int cols, const char *const *rl,
                      const char *const *cl, const char *sentence, char *err, int errlen) {
    char path[700], title[600], heads[64][24];
    const char *head_titles[64];
    for (int h = 0; h < a->H && h < 64; h++) {
        snprintf(heads[h], sizeof heads[h], "head %d", h + 1);
        head_titles[h] = heads[h];
    }
    snprintf(path, sizeof path, "%s/line%d_%s_layer%d.svg", dir, index, kind, layer + 1);
    snprintf(title, sizeof title, "%s, layer %d: \"%.400s\"", what, layer + 1, sentence);
    Heatmap hm = { title, a->H < 64 ? a->H : 64, rows, cols, P, rl, cl, head_titles };
    return heatmap_write_svg(&hm, path, err, errlen);
}

int attention_svgs(Translator *t, const char *line, int beam, float alpha, const char *dir,
                   int index, char *err, int errlen) {
    int *src = NULL, Ts = translator_encode(t, line, &src), rc = -1;
    if (Ts < 0) { snprintf(err, errlen, "out of memory"); return -1; }
    int max_len = 2 * Ts + 10, *hyp = malloc(sizeof(int) * (size_t)max_len),
        *tgt_in = malloc(sizeof(int) * (size_t)max_len);
    const char **src_tok = malloc(sizeof(char *) * (size_t)Ts),
               **out_tok = malloc(sizeof(char *) * (size_t)max_len);
    const char **in_tok = malloc(sizeof(char *) * (size_t)max_len);
    AttnMaps a = {0};
    if (!hyp || !tgt_in || !src_tok || !out_tok || !in_tok ||
        beam_decode(&t->model, src, 1, Ts, beam, alpha, max_len, hyp)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    int Tt = 0;
    while (Tt < max_len && hyp[Tt] != 0) if (hyp[Tt++] == TOK_EOS) break;
    if (Tt == 0) hyp[Tt++] = TOK_EOS;
    tgt_in[0] = TOK_BOS;
    for (int i = 1; i < Tt; i++) tgt_in[i] = hyp[i - 1];
    for (int i = 0; i < Ts; i++) src_tok[i] = vocab_token(&t->src_vocab, src[i]);
    for (int i = 0; i < Tt; i++) {
        out_tok[i] = vocab_token(&t->tgt_vocab, hyp[i]);
        in_tok[i] = vocab_token(&t->tgt_vocab, tgt_in[i]);
    }
    if (attention_trace(&t->model, src, Ts, tgt_in, Tt, &a)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    rc = 0;
    int H = a.H;
    for (int l = 0; l < a.n_enc && !rc; l++)
        rc = write_maps(dir, index, "encoder_self", "encoder self-attention", l, &a,
                        a.enc_self + (long)l * H * Ts * Ts, Ts, Ts, src_tok, src_tok, line, err,
                        errlen);
    for (int l = 0; l < a.n_dec && !rc; l++)
        rc = (!a.cross_only &&
              write_maps(dir, index, "decoder_self", "decoder self-attention (rows: output tokens)",
                         l, &a, a.dec_self + (long)l * H * Tt * Tt, Tt, Tt, out_tok, in_tok, line,
                         err, errlen)) ||
             write_maps(dir, index, "decoder_cross",
                        "cross-attention (rows: output tokens, columns: source)", l, &a,
                        a.dec_cross + (long)l * H * Tt * Ts, Tt, Ts, out_tok, src_tok, line, err,
                        errlen) ? -1 : 0;
done:
    attention_maps_free(&a);
    free(src); free(hyp); free(tgt_in); free(src_tok); free(out_tok); free(in_tok);
    return rc;
}
