// What ./translate does with a line (infer/translate.h, infer/attention.h), on translators built
// here with a vocabulary of plain words (no files):
//  - an output that never ends stops at 2 Ts + 10 tokens (Ts: the source with its <eos>), a
//    limit only outputs longer than twice their source reach;
//  - a source longer than TRANSLATE_MAX_SRC - 1 tokens is cut there (then <eos>); a learned
//    table without wrap-around cuts it to its rows;
//  - --batch changes nothing: lines decoded 64 at a time (sorted by length, padded) give the
//    translations each line gets alone, for both model kinds and beam 1 and 3;
//  - --attention's maps are the attention of the decoding ./translate did (its beam and
//    alpha): the LSTM's one map equals tests/lstm_reference.h's attention on that output,
//    recomputed in plain loops; the Transformer's every map (encoder self, decoder self and
//    cross, each layer) equals attention_trace of the output beam search gives.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "config_words.h"
#include "lstm_reference.h"
#include "core/arena.h"
#include "core/tape.h"
#include "infer/attention.h"
#include "models/decode.h"
#include "infer/translate.h"

static Arena arena;
static const char *WORDS[] = {"haus", "hund", "katze", "mann", "frau", "sieht", "beisst", "kind"};
static const char *OUT_WORDS[] = {"house", "dog", "cat", "man", "woman", "sees", "bites"};

// kind 0: a Transformer translator (pos sinusoidal, or learned with `rows` rows and no
// wrap-around when rows > 0); kind 1: the LSTM translator. The tokeniser: lower-case words.
static void open_translator(Translator *t, int kind, int layers, int seed, int rows) {
    memset(t, 0, sizeof *t);
    config_defaults(&t->cfg);
    if (kind) {
        config_word(&t->cfg, "model.model", "lstm");
        config_word(&t->cfg, "model.pos", "none");
        t->cfg.d_model = 6;
    } else {
        t->cfg.model = MODEL_TRANSLATOR;
        config_word(&t->cfg, "model.pos", rows ? "learned" : "sinusoidal");
        t->cfg.pos_cfg.max_len = rows ? rows : 32;
        t->cfg.pos_cfg.pos_wrap = rows == 0;
        t->cfg.d_model = 16; t->cfg.n_heads = 2; t->cfg.d_ff = 24;
    }
    t->cfg.enc_layers = t->cfg.dec_layers = layers;
    t->cfg.seed = seed;
    vocab_init(&t->src_vocab, 0);
    vocab_init(&t->tgt_vocab, 0);
    for (int i = 0; i < 8; i++) vocab_add(&t->src_vocab, WORDS[i]);
    for (int i = 0; i < 7; i++) vocab_add(&t->tgt_vocab, OUT_WORDS[i]);
    model_build(&t->model, &t->cfg, t->src_vocab.n, t->tgt_vocab.n, 0);
    // sharper than a fresh model: beam search and greedy decoding part ways more often
    Tensor *w = kind ? t->model.lstm.out.weight : t->model.head.weight;
    for (long e = 0; e < w->size; e++) w->data[e] *= 4;
    model_set_training(&t->model, 0);
}

// A line of n words drawn from WORDS by a seeded stream.
static char *random_line(int n, uint64_t seed) {
    Rng r = rng_stream(seed, 5);
    char *s = malloc((size_t)n * 8 + 1), *p = s;
    *p = 0;
    for (int i = 0; i < n; i++) p += sprintf(p, "%s%s", i ? " " : "", WORDS[rng_next(&r) % 8]);
    return s;
}

static int count_words(const char *s) {
    int n = 0;
    for (const char *p = s; *p; p++) n += *p != ' ' && (p == s || p[-1] == ' ');
    return n;
}

static void test_output_stops_at_twice_the_source_plus_10(void) {
    Translator t;
    open_translator(&t, 0, 1, 3, 0);
    t.model.head.bias->data[TOK_EOS] = -1e4f;   // this model never ends a sentence
    int lens[3] = {1, 4, 9};
    for (int beam = 1; beam <= 3; beam += 2) {
        char *lines[3], *out[3] = {0}, err[256];
        for (int i = 0; i < 3; i++) lines[i] = random_line(lens[i], (uint64_t)(10 + i));
        CHECK(translate_lines(&t, lines, 3, beam, 0.6f, 64, out, err, sizeof err) == 0, "%s", err);
        for (int i = 0; i < 3; i++) {
            int want = 2 * (lens[i] + 1) + 10;   // the source has its <eos>
            CHECK(out[i] && count_words(out[i]) == want, "beam %d, %d source words: %d output words, expected %d",
                  beam, lens[i], out[i] ? count_words(out[i]) : -1, want);
            free(out[i]);
            free(lines[i]);
        }
    }
    translator_close(&t);
}

static void test_long_sources_are_cut(void) {
    Translator t;
    open_translator(&t, 0, 1, 3, 0);
    int sizes[3] = {255, 256, 300}, *ids;
    for (int k = 0; k < 3; k++) {
        char *line = random_line(sizes[k], 7);
        int n = translator_encode(&t, line, &ids);
        CHECK(n == 256 && ids[255] == TOK_EOS, "%d words: %d ids (last %d), expected 255 words + <eos>",
              sizes[k], n, n > 0 ? ids[n - 1] : -1);
        Rng r = rng_stream(7, 5);   // the words random_line drew
        for (int i = 0; i < 255 && n == 256; i++) {
            int want = vocab_id(&t.src_vocab, WORDS[rng_next(&r) % 8]);
            CHECK(ids[i] == want, "%d words: id %d is %d, expected %d", sizes[k], i, ids[i], want);
            if (ids[i] != want) break;
        }
        free(ids);
        free(line);
    }
    translator_close(&t);
    open_translator(&t, 0, 1, 3, 20);   // learned, 20 rows, no wrap-around
    char *line = random_line(30, 8);
    int n = translator_encode(&t, line, &ids);
    CHECK(n == 20 && ids[19] == TOK_EOS, "a table of 20 rows: %d ids, expected 19 words + <eos>", n);
    free(ids);
    free(line);
    translator_close(&t);
}

static void test_batches_change_nothing(void) {
    enum { N = 7 };
    int lens[N] = {5, 1, 3, 8, 3, 2, 6};
    char *lines[N], *together[N], *alone[N], err[256];
    for (int i = 0; i < N; i++) lines[i] = random_line(lens[i], (uint64_t)(20 + i));
    for (int kind = 0; kind < 2; kind++)
        for (int beam = 1; beam <= 3; beam += 2) {
            Translator t;
            open_translator(&t, kind, 2, 4, 0);
            CHECK(translate_lines(&t, lines, N, beam, 0.6f, 64, together, err, sizeof err) == 0, "%s", err);
            int distinct = 0;
            for (int i = 0; i < N; i++) {
                CHECK(translate_lines(&t, lines + i, 1, beam, 0.6f, 64, alone + i, err, sizeof err) == 0, "%s", err);
                CHECK(!strcmp(together[i], alone[i]), "%s beam %d line %d: '%s' in a batch, '%s' alone",
                      kind ? "lstm" : "translator", beam, i, together[i], alone[i]);
                distinct += i > 0 && strcmp(alone[i], alone[0]);
            }
            CHECK(distinct > 0, "every line gets the same translation: the comparison shows nothing");
            for (int i = 0; i < N; i++) { free(together[i]); free(alone[i]); }
            translator_close(&t);
        }
    for (int i = 0; i < N; i++) free(lines[i]);
}

// ---------------------------------------------------------------- --attention

// The values of an SVG heat map (one <title> a cell: panel, row, column order); -1 if unread.
static int svg_values(const char *path, float *out, int cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    int k = 0;
    for (const char *p = text; (p = strstr(p, "<title>")) && k < cap; p += 7) out[k++] = strtof(p + 7, NULL);
    return k;
}

// The output beam search gives line (ids up to and including <eos>) and the decoder's input
// (<bos> then the output but its last token); returns Tt, the output's length.
static int decoding(Translator *t, const char *line, int beam, float alpha, int **src, int *Ts, int *hyp,
                    int *tgt_in) {
    *Ts = translator_encode(t, line, src);
    int max_len = 2 * *Ts + 10, out[128], Tt = 0;
    beam_decode(&t->model, *src, 1, *Ts, beam, alpha, max_len, out);
    while (Tt < max_len && out[Tt] != 0) if (out[Tt++] == TOK_EOS) break;
    tgt_in[0] = TOK_BOS;
    for (int i = 0; i < Tt; i++) { hyp[i] = out[i]; if (i + 1 < Tt) tgt_in[i + 1] = out[i]; }
    return Tt;
}

static int same_output(Translator *t, const char *line, int beam_a, float alpha_a, int beam_b, float alpha_b) {
    int *src, Ts, a[128], b[128], in[128];
    int na = decoding(t, line, beam_a, alpha_a, &src, &Ts, a, in);
    free(src);
    int nb = decoding(t, line, beam_b, alpha_b, &src, &Ts, b, in);
    free(src);
    return na == nb && !memcmp(a, b, sizeof(int) * (size_t)na);
}

// Picks from seeded lines one whose beam-3 output at alpha differs from the greedy output and
// from beam 3's at alpha 0 (so the maps show which decoding was drawn); NULL if none.
static char *telling_line(Translator *t, float alpha) {
    for (int i = 0; i < 200; i++) {
        char *line = random_line(2 + i % 6, (uint64_t)(100 + i));
        if (!same_output(t, line, 3, alpha, 1, alpha) && !same_output(t, line, 3, alpha, 3, 0)) return line;
        free(line);
    }
    return NULL;
}

// Compares the map file dir/line1_KIND_layerL.svg with want (n values, 3 decimals written).
static void check_map(const char *dir, const char *kind, int layer, const float *want, int n) {
    char path[512];
    snprintf(path, sizeof path, "%s/line1_%s_layer%d.svg", dir, kind, layer);
    float *got = malloc(sizeof(float) * (size_t)(n + 1));
    int k = svg_values(path, got, n + 1);
    CHECK(k == n, "%s: %d cells, expected %d", path, k, n);
    double worst = 0;
    for (int i = 0; i < n && i < k; i++) worst = fmax(worst, fabs(got[i] - want[i]));
    CHECK(worst < 6e-4, "%s: cells differ from the decoding's attention by %g", path, worst);
    free(got);
    unlink(path);
}

static void test_attention_maps_are_the_decodings(void) {
    char dir[] = "/tmp/test_translate_options.XXXXXX", err[256];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    const float alpha = 2.0f;
    for (int kind = 1; kind >= 0; kind--) {
        Translator t;
        open_translator(&t, kind, 2, kind ? 6 : 5, 0);
        char *line = telling_line(&t, alpha);
        CHECK(line != NULL, "%s: no line whose beam-3 output differs from greedy and from alpha 0",
              kind ? "lstm" : "translator");
        if (!line) { translator_close(&t); continue; }
        CHECK(attention_svgs(&t, line, 3, alpha, dir, 1, err, sizeof err) == 0, "%s", err);
        int *src, Ts, hyp[128], in[128];
        int Tt = decoding(&t, line, 3, alpha, &src, &Ts, hyp, in);
        if (kind) {
            // the LSTM: its one map, recomputed in plain loops from the weights
            float *probs = malloc(sizeof(float) * (size_t)Tt * Ts), *logits = malloc(sizeof(float) * (size_t)Tt * t.model.tgt_vocab);
            lstm_reference(&t.model, src, 1, Ts, in, Tt, 0, NULL, logits, probs);
            check_map(dir, "decoder_cross", 1, probs, Tt * Ts);
            free(probs);
            free(logits);
        } else {
            AttnMaps a;
            CHECK(attention_trace(&t.model, src, Ts, in, Tt, &a) == 0, "trace");
            int H = a.H;
            for (int l = 0; l < 2; l++) {
                check_map(dir, "encoder_self", l + 1, a.enc_self + (long)l * H * Ts * Ts, H * Ts * Ts);
                check_map(dir, "decoder_self", l + 1, a.dec_self + (long)l * H * Tt * Tt, H * Tt * Tt);
                check_map(dir, "decoder_cross", l + 1, a.dec_cross + (long)l * H * Tt * Ts, H * Tt * Ts);
            }
            // the layers' maps differ, so a layer drawn twice would show
            double apart = 0;
            for (long i = 0; i < (long)H * Tt * Ts; i++)
                apart = fmax(apart, fabs(a.dec_cross[i] - a.dec_cross[(long)H * Tt * Ts + i]));
            CHECK(apart > 0.01, "the two layers' cross-attention are alike (%g)", apart);
            attention_maps_free(&a);
        }
        free(src);
        free(line);
        translator_close(&t);
    }
    rmdir(dir);
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    tape_set_enabled(0);
    RUN(test_output_stops_at_twice_the_source_plus_10);
    RUN(test_long_sources_are_cut);
    RUN(test_batches_change_nothing);
    RUN(test_attention_maps_are_the_decodings);
    arena_free(&arena);
    return check_summary();
}
