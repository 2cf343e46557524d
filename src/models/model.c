#include "models/model.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/vocab.h"

static Tensor *embed_table(Params *ps, const char *name, int V, int d) {
    int shape[2] = {V, d};
    return param_new(ps, name, 2, shape, 0, INIT_XAVIER);
}

void model_declare(Model *m, const Config *cfg, int src_vocab, int tgt_vocab, int n_classes) {
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->cfg.text = NULL;
    m->src_vocab = src_vocab;
    m->tgt_vocab = tgt_vocab;
    m->n_classes = n_classes;
    int d = cfg->d_model;
    Params *ps = &m->ps;
    switch (m->cfg.model) {
    case MODEL_CLASSIFIER:
        m->src_embed = embed_table(ps, "embed.weight", src_vocab, d);
        stack_declare(&m->encoder, ps, cfg, "encoder", 0, 0, "pos", m->src_embed);
        linear_declare(&m->head, ps, "head", d, n_classes, cfg->bias);
        break;
    case MODEL_TRANSLATOR:
        m->src_embed = embed_table(ps, "src_embed.weight", src_vocab, d);
        m->tgt_embed = embed_table(ps, "tgt_embed.weight", tgt_vocab, d);
        stack_declare(&m->encoder, ps, cfg, "encoder", 0, 0, "src_pos", m->src_embed);
        stack_declare(&m->decoder, ps, cfg, "decoder", 1, 1, "tgt_pos", m->tgt_embed);
        linear_declare(&m->head, ps, "generator", d, tgt_vocab, cfg->bias);
        break;
    case MODEL_LM:
        m->src_embed = embed_table(ps, "embed.weight", src_vocab, d);
        stack_declare(&m->decoder, ps, cfg, "decoder", 1, 0, "pos", m->src_embed);
        linear_declare(&m->head, ps, "generator", d, src_vocab, cfg->bias);
        break;
    case MODEL_LSTM:
        lstm_translator_declare(&m->lstm, ps, cfg, src_vocab, tgt_vocab);
        break;
    }
}

// Every dropout of the model draws its seeds from m->dropout_rng.
static void draw_dropout_from(Model *m) {
    Stack *stacks[2] = {&m->encoder, &m->decoder};
    for (int i = 0; i < 2; i++) stacks[i]->drop.rng = stacks[i]->attn_drop.rng = &m->dropout_rng;
    m->lstm.drop.rng = &m->dropout_rng;
}

void model_build(Model *m, const Config *cfg, int src_vocab, int tgt_vocab, int n_classes) {
    model_declare(m, cfg, src_vocab, tgt_vocab, n_classes);
    Params *ps = &m->ps;
    params_alloc(ps);
    Rng init = rng_stream((uint64_t)cfg->seed, RNG_INIT);
    params_init(ps, &init);   // each declaration names its init (layers.h, pos/*.c, embed_table)
    m->dropout_rng = rng_stream((uint64_t)cfg->seed, RNG_DROPOUT);
    model_seed_positions(m, MODEL_EVAL_DRAW);
    draw_dropout_from(m);
    model_set_training(m, 1);
}

void model_share(Model *copy, const Model *m) {
    model_declare(copy, &m->cfg, m->src_vocab, m->tgt_vocab, m->n_classes);
    params_alloc_shared(&copy->ps, m->ps.data);
    draw_dropout_from(copy);
    model_set_training(copy, m->training);
}

void model_set_training(Model *m, int on) {
    m->training = on;
    float p = on ? m->cfg.dropout : 0.0f;
    m->encoder.drop.p = m->encoder.attn_drop.p = p;
    m->decoder.drop.p = m->decoder.attn_drop.p = p;
    m->lstm.drop.p = p;
    int drawn = on || m->cfg.positions == EVAL_POSITIONS_SAMPLED;
    m->encoder.pos.draw_from = m->decoder.pos.draw_from = drawn ? m->cfg.pos_cfg.pos_random : 0;
}

void model_seed_positions(Model *m, uint64_t draw) {
    m->pos_rng = rng_keyed(rng_stream((uint64_t)m->cfg.seed, RNG_POSITIONS).state, draw);
}

void model_free(Model *m) {
    stack_free(&m->encoder);
    stack_free(&m->decoder);
    lstm_translator_free(&m->lstm);
    params_free(&m->ps);
}

int model_eval_chunk(int T, int B) {
    int chunk = 4096 / T > 1 ? 4096 / T : 1;
    return chunk < B ? chunk : B;
}

int model_check_length(const Model *m, int T, char *err, int errlen) {
    if (m->encoder.layers && pos_check_length(&m->encoder.pos, T, err, errlen)) return -1;
    if (m->decoder.layers && pos_check_length(&m->decoder.pos, T, err, errlen)) return -1;
    return 0;
}

static int *pad_mask(const int *ids, int n) {
    int *pad = arena_alloc(tensor_arena(), sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) pad[i] = ids[i] == TOK_PAD;
    return pad;
}

Tensor *model_encode(Model *m, const int *src, int B, int T, const StackRun *run) {
    pos_draw(&m->encoder.pos, &m->pos_rng, T);
    return stack_forward(&m->encoder, src, B, T, pad_mask(src, B * T), NULL, NULL, run);
}

Tensor *classifier_logits(Model *m, const int *ids, int B, int T) {
    Tensor *h = model_encode(m, ids, B, T, NULL);                // (B,T,d)
    Tensor *pooled;
    if (m->cfg.pool == POOL_CLS) {
        pooled = op_select_row(h, 0);                            // (B,d) at <cls>
    } else {
        int *keep = pad_mask(ids, B * T);
        for (int i = 0; i < B * T; i++) keep[i] = !keep[i];
        pooled = op_mean_pool(h, keep);                          // (B,d)
    }
    return linear_forward(&m->head, pooled);                     // (B,C)
}

// A decoder's positions: a whole sequence draws its own; incremental decoding draws once, on
// its first call, for every position the cache can hold, so each step continues that draw.
static void draw_decoder_positions(Model *m, const KVCache *cache, int T) {
    if (!cache) pos_draw(&m->decoder.pos, &m->pos_rng, T);
    else if (cache->len == 0) pos_draw(&m->decoder.pos, &m->pos_rng, cache->capacity);
}

static Tensor *generator(Model *m, Tensor *y) {       // (B,T,d) or packed (n,d) -> (rows,V)
    int shape[2] = {(int)tensor_rows(y), m->cfg.d_model};
    return linear_forward(&m->head, tensor_view(y, 2, shape));
}

Tensor *decoder_logits(Model *m, Tensor *memory, const int *src, int Ts, const int *tgt_in, int B,
                       int Tt, const StackRun *run) {
    KVCache *cache = run ? run->cache : NULL;
    draw_decoder_positions(m, cache, Tt);
    Tensor *y = stack_forward(&m->decoder, tgt_in, B, Tt, cache ? NULL : pad_mask(tgt_in, B * Tt),
                              memory, pad_mask(src, B * Ts), run);
    return generator(m, y);                                      // (B*Tt,V)
}

Tensor *translator_logits(Model *m, const int *src, int B, int Ts, const int *tgt_in, int Tt) {
    if (m->cfg.model == MODEL_LSTM) return lstm_translator_logits(&m->lstm, src, B, Ts, tgt_in, Tt, NULL);
    Tensor *memory = model_encode(m, src, B, Ts, NULL);          // (B,Ts,d)
    return decoder_logits(m, memory, src, Ts, tgt_in, B, Tt, NULL);
}

Tensor *lm_logits(Model *m, const int *ids, int B, int T, const StackRun *run) {
    KVCache *cache = run ? run->cache : NULL;
    draw_decoder_positions(m, cache, T);
    // Padding (after each row's tokens, as the batches put it) is masked like the
    // translator's; a causal row never attends to it, so only its own rows change, to 0.
    const int *pad = cache ? NULL : pad_mask(ids, B * T);
    return generator(m, stack_forward(&m->decoder, ids, B, T, pad, NULL, NULL, run));   // (B*T,V)
}
