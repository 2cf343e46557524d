// ./translate CHECKPOINT [options] — translate stdin line by line with a trained translator.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/runtime.h"
#include "io/fileio.h"
#include "infer/attention.h"
#include "score/bleu.h"
#include "score/chrf.h"
#include "run/cli.h"
#include "run/run_dir.h"
#include "infer/translate.h"

static const char *USAGE =
    "usage: ./translate CHECKPOINT [options] < source.txt > translations.txt\n"
    "\n"
    "Translates one sentence per line of standard input with a trained translator\n"
    "(task = parallel_text, toy_translate or algorithmic) and writes one translation per line;\n"
    "a decoder-only model (model = lm) trained on parallel_text translates too: the source is\n"
    "its prompt, the translation its continuation.\n"
    "CHECKPOINT is a model.safetensors file or its run folder; the tokeniser saved beside it is\n"
    "used (vocabularies, and the BPE merges when the run learned them), so lines are lower-cased\n"
    "and split exactly as in training, and the output is detokenised text.\n"
    "\n"
    "  --beam K         beam size (default: eval.beam of the run's config; 1 = greedy)\n"
    "  --alpha A        length penalty ((5 + len) / 6)^A (default: eval.length_penalty)\n"
    "  --batch N        sentences of one length decoded together (default 64); it\n"
    "                   changes no output\n"
    "  --threads N      OpenMP threads (default: run.threads of the config, 0 = all)\n"
    "  --ref FILE       reference translations, one per line: print corpus BLEU (sacreBLEU's\n"
    "                   13a tokenisation, BLEU-4, exp smoothing), cased and lower-cased,\n"
    "                   on standard error\n"
    "  --attention DIR  write SVG heat maps of the attention of every line (at most 20\n"
    "                   lines): DIR/lineN_{encoder_self,decoder_self,decoder_cross}_layerL.svg,\n"
    "                   one panel per head (rows: queries, columns: keys); model = lstm has\n"
    "                   one map, DIR/lineN_decoder_cross_layer1.svg\n"
    "\n"
    "Example:\n"
    "  ./translate runs/rope --beam 5 --ref data/multi30k/test_2016_flickr.en \\\n"
    "      < data/multi30k/test_2016_flickr.de > hyp.en\n";

// All lines of a stream (without '\n' / '\r\n'); -1 if out of memory.
static int read_lines(FILE *f, char ***lines_out, int *n_out) {
    char **lines = NULL, *buf = NULL;
    size_t cap_buf = 0;
    int n = 0, cap = 0;
    ssize_t len;
    while ((len = getline(&buf, &cap_buf, f)) >= 0) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            char **l = realloc(lines, sizeof(char *) * (size_t)cap);
            if (!l) break;
            lines = l;
        }
        if (!(lines[n] = strdup(buf))) break;
        n++;
    }
    free(buf);
    *lines_out = lines;
    *n_out = n;
    return ferror(f) || !feof(f) ? -1 : 0;
}

static void free_lines(char **lines, int n) {
    for (int i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

static int bleu_report(char **hyp, int n, const char *ref_path, int beam, float alpha, char *err,
                       int errlen) {
    FILE *f = fopen(ref_path, "rb");
    if (!f) { snprintf(err, errlen, "%s: cannot open", ref_path); return -1; }
    char **ref;
    int n_ref, rc = read_lines(f, &ref, &n_ref);
    fclose(f);
    if (rc) {
        free_lines(ref, n_ref);
        snprintf(err, errlen, "%s: cannot read", ref_path);
        return -1;
    }
    if (n_ref != n) {
        snprintf(err, errlen, "%s has %d lines but the input has %d", ref_path, n_ref, n);
        free_lines(ref, n_ref);
        return -1;
    }
    BleuStats cased = {0}, lower = {0};
    ChrfStats chrf = {0};
    for (int i = 0; i < n && !rc; i++)
        rc = bleu_add(&cased, hyp[i], ref[i], 0) || bleu_add(&lower, hyp[i], ref[i], 1) ||
                     chrf_add(&chrf, hyp[i], ref[i])
                 ? -1
                 : 0;
    free_lines(ref, n_ref);
    if (rc) { snprintf(err, errlen, "out of memory computing BLEU"); return -1; }
    BleuScore c = bleu_score(&cased), l = bleu_score(&lower);
    fprintf(stderr,
            "BLEU = %.2f (cased), %.2f (lower-cased) | cased %.1f/%.1f/%.1f/%.1f "
            "BP = %.3f ratio = %.3f hyp_len = %ld ref_len = %ld | "
            "%d sentences, beam %d, alpha %g\n",
            c.score, l.score, c.precision[0], c.precision[1], c.precision[2], c.precision[3], c.bp,
            c.ratio, c.stats.sys_len, c.stats.ref_len, n, beam, alpha);
    fprintf(stderr, "chrF2 = %.2f (cased, character 6-grams, beta 2)\n", chrf_score(&chrf));
    return 0;
}

int main(int argc, char **argv) {
    runtime_init(argc, argv);
    int usage = runtime_usage(argc, argv, USAGE);
    if (usage >= 0) return usage;
    const char *beam_word = NULL, *alpha_word = NULL, *batch_word = NULL, *threads_word = NULL,
               *ref = NULL, *attn_dir = NULL;
    const CliOption opts[] = {{"--beam", &beam_word, NULL},
                              {"--alpha", &alpha_word, NULL},
                              {"--batch", &batch_word, NULL},
                              {"--threads", &threads_word, NULL},
                              {"--ref", &ref, NULL},
                              {"--attention", &attn_dir, NULL},
                              {NULL, NULL, NULL}};
    int n_rest;
    if (cli_read("translate", argc, argv, 2, opts, NULL, &n_rest, 0)) return 2;
    long long beam_n = -1, batch_n = 64, threads_n = -1;   // -1: the run's config decides
    float alpha = -1;
    if ((beam_word && cli_int("translate", "--beam", beam_word, 1, 256, &beam_n)) ||
        (batch_word && cli_int("translate", "--batch", batch_word, 1, 4096, &batch_n)) ||
        (threads_word && cli_int("translate", "--threads", threads_word, 0, 1024, &threads_n)) ||
        (alpha_word && cli_float("translate", "--alpha", alpha_word, 0, 10, &alpha)))
        return 2;
    int beam = (int)beam_n, batch = (int)batch_n, threads = (int)threads_n;
    char err[1024];
    Translator t;
    if (translator_open(&t, argv[1], err, sizeof err)) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    if (beam < 0) beam = t.cfg.beam;
    if (alpha < 0) alpha = t.cfg.length_penalty;
    Arena arena;
    run_inference_begin(&arena, threads >= 0 ? threads : t.cfg.threads);
    char **lines, **out = NULL;
    int n, rc = read_lines(stdin, &lines, &n);
    if (rc) snprintf(err, sizeof err, "cannot read standard input");
    if (!rc) rc = translate_check_memory(&t, lines, n, beam, batch, err, sizeof err);
    if (!rc && attn_dir && t.prefix) {
        snprintf(err, sizeof err,
                 "--attention draws a translator's attention; model = lm reads the source as a "
                 "prefix and has no cross-attention to draw");
        rc = -1;
    }
    if (!rc && attn_dir && n > 20) {
        snprintf(err, sizeof err, "--attention draws at most 20 lines, got %d", n);
        rc = -1;
    }
    if (!rc && !(out = calloc((size_t)(n ? n : 1), sizeof(char *)))) {
        snprintf(err, sizeof err, "out of memory");
        rc = -1;
    }
    if (!rc) rc = translate_lines(&t, lines, n, beam, alpha, batch, out, err, sizeof err);
    for (int i = 0; i < n && !rc; i++) printf("%s\n", out[i]);
    fflush(stdout);
    if (!rc && ref) rc = bleu_report(out, n, ref, beam, alpha, err, sizeof err);
    if (!rc && attn_dir) rc = make_dirs(attn_dir, err, sizeof err);
    for (int i = 0; i < n && !rc && attn_dir; i++)
        rc = attention_svgs(&t, lines[i], beam, alpha, attn_dir, i + 1, err, sizeof err);
    if (rc) fprintf(stderr, "error: %s\n", err);
    for (int i = 0; out && i < n; i++) free(out[i]);
    free(out);
    free_lines(lines, n);
    translator_close(&t);
    arena_free(&arena);
    return rc ? 1 : cli_stdout_done();
}
