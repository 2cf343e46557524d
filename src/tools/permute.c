// ./permute MODEL [options] [key=value ...] — order blindness, measured (docs/design.md §1,
// §4.6).
//
// Runs a model's encoder on a sentence X and on a permutation ΠX of it and prints, as CSV, the
// largest difference between out(ΠX) and Π out(X): zero (up to float rounding) when the
// encoder is permutation-equivariant. Each row is computed twice with the same weights: once
// as trained (bidirectional) and once with a causal mask switched on, which ties attention to
// positions and breaks the symmetry even without any positional scheme.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/runtime.h"
#include "config/config.h"
#include "run/cli.h"
#include "run/run_dir.h"

static const char *USAGE =
    "usage: ./permute MODEL [--sentence TEXT] [--perm I,J,...] [key=value ...]\n"
    "\n"
    "MODEL is a checkpoint (model.safetensors or its run folder) or a config file (.ini), from\n"
    "which a fresh model is built with the config's seed. Classifier or translator (its encoder).\n"
    "Runs the encoder on the sentence X and on a permutation PX and prints CSV:\n"
    "  pos,mask,permutation,sentence,permuted,max_diff,logit_diff\n"
    "max_diff = max |out(PX) - P out(X)| over the encoder outputs; logit_diff = the largest\n"
    "difference between the classifier's logits for X and PX (empty for a translator).\n"
    "Every permutation is measured with the encoder as built (mask = bidirectional) and with\n"
    "a causal mask switched on (mask = causal), same weights.\n"
    "\n"
    "  --sentence TEXT   words of the model's vocabulary (default: the dog bites the man)\n"
    "  --perm I,J,...    output position t holds input word perm[t] (default: two rows, the\n"
    "                    reversal and a fixed shuffle that is not a reversal)\n"
    "  key=value         config overrides, e.g. seed=3 or pos=rope (for a config file)\n";

typedef struct {
    const char *name;
    int p[64];
} Perm;

static int parse_perm(const char *text, int T, Perm *out, char *err, int errlen) {
    int seen[64] = {0}, n = 0;
    for (const char *s = text; *s;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v >= T || seen[v] || n == T) {
            snprintf(err, errlen, "--perm '%s': expected a permutation of 0..%d", text, T - 1);
            return -1;
        }
        seen[v] = 1;
        out->p[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            snprintf(err, errlen, "--perm '%s': expected numbers separated by commas", text);
            return -1;
        }
    }
    if (n != T) {
        snprintf(err, errlen, "--perm '%s': %d positions for a %d-word sentence", text, n, T);
        return -1;
    }
    out->name = "given";
    return 0;
}

// The reversal, and a shuffle that is neither the identity nor the reversal (when T >= 3).
static int default_perms(int T, Perm *out) {
    out[0].name = "reverse";
    for (int t = 0; t < T; t++) out[0].p[t] = T - 1 - t;
    if (T < 3) return 1;
    out[1].name = "shuffle";
    Rng r = rng_stream(7, RNG_DATA);
    for (;;) {
        for (int t = 0; t < T; t++) out[1].p[t] = t;
        for (int t = T - 1; t > 0; t--) {
            int j = (int)(rng_next(&r) % (uint64_t)(t + 1)), tmp = out[1].p[t];
            out[1].p[t] = out[1].p[j];
            out[1].p[j] = tmp;
        }
        int ident = 1, rev = 1;
        for (int t = 0; t < T; t++) {
            ident &= out[1].p[t] == t;
            rev &= out[1].p[t] == T - 1 - t;
        }
        if (!ident && !rev) return 2;
    }
}

static int tokenize(const Vocab *v, const char *text, int *ids, char words[][64], int cap,
                    char *err, int errlen) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *w = strtok(buf, " \t"); w; w = strtok(NULL, " \t")) {
        if (n == cap) {
            snprintf(err, errlen, "the sentence has more than %d words", cap);
            return -1;
        }
        int id = vocab_find(v, w);
        if (id < 0 || vocab_is_special(v, id)) {
            snprintf(err, errlen, "'%s' is not in the model's vocabulary", w);
            return -1;
        }
        snprintf(words[n], 64, "%s", w);
        ids[n++] = id;
    }
    if (n == 0) { snprintf(err, errlen, "empty sentence"); return -1; }
    return n;
}

static double max_abs_diff(const float *a, const float *b, long n) {
    double w = 0;
    for (long i = 0; i < n; i++) w = fmax(w, fabs((double)a[i] - b[i]));
    return w;
}

static void print_words(char words[][64], const int *order, int T) {
    for (int t = 0; t < T; t++) printf("%s%s", t ? " " : "", words[order ? order[t] : t]);
}

// One CSV row: encoder equivariance and (classifier) pooled logits, for one mask.
static void measure(Model *m, const int *ids, char words[][64], int T, const Perm *pm, int causal) {
    int pids[64], d = m->cfg.d_model;
    for (int t = 0; t < T; t++) pids[t] = ids[pm->p[t]];
    ArenaMark mark = arena_mark(tensor_arena());
    m->encoder.causal = causal;
    Tensor *h = model_encode(m, ids, 1, T, NULL), *hp = model_encode(m, pids, 1, T, NULL);
    double worst = 0;
    for (int t = 0; t < T; t++)
        worst = fmax(worst, max_abs_diff(hp->data + (long)t * d, h->data + (long)pm->p[t] * d, d));
    printf("%s,%s,%s,", m->cfg.pos, causal ? "causal" : "bidirectional", pm->name);
    print_words(words, NULL, T);
    printf(",");
    print_words(words, pm->p, T);
    printf(",%.3g,", worst);
    if (m->cfg.model == MODEL_CLASSIFIER) {
        Tensor *y = classifier_logits(m, ids, 1, T), *yp = classifier_logits(m, pids, 1, T);
        printf("%.3g", max_abs_diff(y->data, yp->data, m->n_classes));
    }
    printf("\n");
    m->encoder.causal = 0;
    arena_release(tensor_arena(), mark);
}

static int run(const char *model_arg, const char *sentence, const char *perm_text, int n_over,
               char **over, char *err, int errlen) {
    Run run;
    if (run_read_config(&run, model_arg, 1, n_over, over, err, errlen)) return -1;
    int rc = 0;
    if (run.cfg.model == MODEL_LM) {
        snprintf(err, errlen, "a language model has no encoder: use a classifier or translator");
        rc = -1;
    }
    if (run.cfg.model == MODEL_LSTM) {   // its encoder is recurrent: no positions to permute
        snprintf(err, errlen, "model = lstm has no positions to permute: use a Transformer");
        rc = -1;
    }
    if (!rc) rc = run_open(&run, err, errlen);
    Model *m = &run.model;
    int ids[64], T = 0, n_perms = 0;
    char words[64][64];
    Perm perms[2];
    if (!rc && (T = tokenize(&run.task.src_vocab, sentence, ids, words, 64, err, errlen)) < 0)
        rc = -1;
    if (!rc && (rc = model_check_length(m, T, err, errlen)) == 0) {
        if (!perm_text) n_perms = default_perms(T, perms);
        else if ((rc = parse_perm(perm_text, T, &perms[0], err, errlen)) == 0) n_perms = 1;
    }
    if (!rc) {
        printf("pos,mask,permutation,sentence,permuted,max_diff,logit_diff\n");
        for (int k = 0; k < n_perms; k++)
            for (int causal = 0; causal < 2; causal++) measure(m, ids, words, T, &perms[k], causal);
    }
    run_close(&run);
    return rc;
}

int main(int argc, char **argv) {
    runtime_init(argc, argv);
    int usage = runtime_usage(argc, argv, USAGE);
    if (usage >= 0) return usage;
    const char *sentence = "the dog bites the man", *perm = NULL;
    const CliOption opts[] = {
        {"--sentence", &sentence, NULL}, {"--perm", &perm, NULL}, {NULL, NULL, NULL}};
    char *over[64];
    int n_over;
    if (cli_read("permute", argc, argv, 2, opts, over, &n_over, 64)) return 2;
    char err[1024];
    if (run(argv[1], sentence, perm, n_over, over, err, sizeof err)) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    return cli_stdout_done();
}
