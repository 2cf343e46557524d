// ./generate RUN [options] [key=value ...] — sample text from a trained language model, or
// print the loss of each position of a text (--score).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/runtime.h"
#include "data/parallel_text.h"
#include "data/tokenize.h"
#include "io/csv.h"
#include "run/cli.h"
#include "infer/generate.h"
#include "memory/memory_check.h"
#include "run/run_dir.h"

static const char *USAGE =
    "usage: ./generate RUN [--prompt TEXT] [--tokens N] [--temperature T] [--top-k K] [--seed S]\n"
    "                  [key=value ...]\n"
    "       ./generate RUN --score [--prompt TEXT | --text-from-task N [--offset K]]"
    " [key=value ...]\n"
    "\n"
    "Continues a prompt with a trained language model (model = lm; RUN is a model.safetensors\n"
    "file or its run folder) and prints the prompt and its continuation as one line of text.\n"
    "Tokens are produced one at a time through the model's key/value cache, so the text may\n"
    "run far past the training window (a learned position table without pos_wrap cannot).\n"
    "\n"
    "  --prompt TEXT      the start of the text (default \"the\"); lower-cased and split like the\n"
    "                     training text; every word must be in the run's vocabulary\n"
    "  --tokens N         tokens to generate (default 40)\n"
    "  --temperature T    0 = always the most likely token (greedy); otherwise sample from\n"
    "                     softmax(logits / T) (default 1)\n"
    "  --top-k K          sample among the K most likely tokens only (default 0 = all)\n"
    "  --seed S           the sampling seed (default 1): the same seed, run and thread count\n"
    "                     give the same text\n"
    "\n"
    "--score prints instead the CSV position,token,loss of a text: for each position t (0 = the\n"
    "first token) the cross-entropy (natural log) of predicting the next token from tokens\n"
    "0..t. The training window covers positions 0..window-1; higher rows show how a scheme\n"
    "does beyond it. The text is --prompt, or standard input, or with --text-from-task N the N\n"
    "tokens of the task's held-out text (the one ./eval scores) starting at token --offset K.\n"
    "On a terminal, a call longer than a second shows its progress and ETA on standard error.\n"
    "\n"
    "Overrides change the stored config for this run, for example:\n"
    "  threads=1           OpenMP threads (0 = all)\n"
    "  rope_scaling=ntk rope_factor=4   stretch RoPE (linear, ntk, dynamic, yarn;"
    " see ./eval --help)\n"
    "  pos_offset=16       shift every position index by 16\n"
    "\n"
    "Example:\n"
    "  ./generate runs/lm/rope --prompt \"the dog\" --tokens 100 --temperature 0\n";

typedef struct Args {
    const char *prompt;
    int tokens, top_k, score, from_task, offset;
    float temperature;
    unsigned long long seed;
    int n_over;
    char **over;
} Args;

// Parses the options after RUN; the other words ("key=value") are the overrides. Returns 0,
// or 2 with the mistake printed.
static int parse_args(int argc, char **argv, Args *a) {
    *a = (Args){.tokens = 40, .temperature = 1, .seed = 1, .over = argv + 2};
    const char *tokens = NULL, *temperature = NULL, *top_k = NULL, *seed = NULL, *from_task = NULL,
               *offset = NULL;
    const CliOption opts[] = {
        {"--prompt", &a->prompt, NULL}, {"--tokens", &tokens, NULL},
        {"--temperature", &temperature, NULL}, {"--top-k", &top_k, NULL}, {"--seed", &seed, NULL},
        {"--text-from-task", &from_task, NULL}, {"--offset", &offset, NULL},
        {"--score", NULL, &a->score}, {NULL, NULL, NULL}};
    // The overrides are compacted into argv itself: each lands at or before where it was read.
    if (cli_read("generate", argc, argv, 2, opts, a->over, &a->n_over, argc - 2)) return 2;
    long long v;
    if (tokens) {
        if (cli_int("generate", "--tokens", tokens, 1, 1 << 20, &v)) return 2;
        a->tokens = (int)v;
    }
    if (top_k) {
        if (cli_int("generate", "--top-k", top_k, 0, 1 << 20, &v)) return 2;
        a->top_k = (int)v;
    }
    if (seed) {
        if (cli_int("generate", "--seed", seed, 0, 1LL << 62, &v)) return 2;
        a->seed = (unsigned long long)v;
    }
    if (from_task) {
        if (cli_int("generate", "--text-from-task", from_task, 2, 1 << 20, &v)) return 2;
        a->from_task = (int)v;
    }
    if (offset) {
        if (cli_int("generate", "--offset", offset, 0, 1 << 20, &v)) return 2;
        a->offset = (int)v;
    }
    if (temperature && cli_float("generate", "--temperature", temperature, 0, 1e6, &a->temperature))
        return 2;
    for (int i = 0; i < a->n_over; i++)
        if (!strchr(a->over[i], '=')) {
            fprintf(stderr,
                    "generate: unexpected argument '%.80s' "
                    "(options start with --, overrides are key=value)\n",
                    a->over[i]);
            return 2;
        }
    const char *wrong = a->from_task && !a->score ? "--text-from-task goes with --score"
                      : a->from_task && a->prompt
                          ? "--score takes --prompt or --text-from-task, not both"
                      : a->offset && !a->from_task ? "--offset goes with --text-from-task" : NULL;
    if (wrong) fprintf(stderr, "generate: %s\n", wrong);
    return wrong ? 2 : 0;
}

// All of standard input; NULL if it cannot be read.
static char *read_stdin(void) {
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, stdin)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                return NULL;
            }
            buf = b;
        }
    }
    if (buf) buf[n] = 0;
    if (ferror(stdin)) { free(buf); return NULL; }
    return buf;
}

// Token ids of text, split as the training text was; -1 with a message for a word the
// vocabulary does not hold.
static int encode_text(const Vocab *v, const char *text, int **ids, char *err, int errlen) {
    PtSide side = {0};
    long replaced = 0;
    *ids = NULL;
    if (pt_add_line(&side, text, strlen(text), 1, &replaced)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = pt_line_len(&side, 0), rc = n;
    if (n == 0) { snprintf(err, errlen, "the text is empty"); rc = -1; }
    if (rc > 0 && !(*ids = malloc(sizeof(int) * (size_t)n))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (int i = 0; i < n && rc > 0; i++) {
        int id = vocab_find(v, pt_token(&side, 0, i));
        if (id < 0 || vocab_is_special(v, id)) {
            snprintf(err, errlen,
                     "unknown token '%s' in the text (not in the run's vocabulary of %d tokens)",
                     pt_token(&side, 0, i), v->n);
            rc = -1;
        } else {
            (*ids)[i] = id;
        }
    }
    pt_side_free(&side);
    if (rc < 0) { free(*ids); *ids = NULL; }
    return rc;
}

static int print_text(const Vocab *v, const int *ids, int n) {
    const char **toks = malloc(sizeof(char *) * (size_t)n);
    if (!toks) return -1;
    for (int i = 0; i < n; i++) toks[i] = vocab_token(v, ids[i]);
    char *text = detokenize(toks, n);
    free(toks);
    if (!text) return -1;
    printf("%s\n", text);
    free(text);
    return 0;
}

static int print_scores(const Vocab *v, const int *ids, const double *loss, int n) {
    printf("position,token,loss\n");
    for (int t = 0; t + 1 < n; t++) {
        char pos[16], val[32];
        snprintf(pos, sizeof pos, "%d", t);
        snprintf(val, sizeof val, "%.6f", loss[t]);
        const char *fields[3] = {pos, vocab_token(v, ids[t + 1]), val};
        if (csv_write_row(stdout, 3, fields)) return -1;
    }
    return 0;
}

static int run(const char *run_arg, const Args *a, char *err, int errlen) {
    Run r;
    if (run_read_config(&r, run_arg, 0, a->n_over, a->over, err, errlen)) return -1;
    if (r.cfg.model != MODEL_LM) {
        snprintf(err, errlen,
                 "%s is a %s (model = %s); ./generate needs a language model (model = lm)", run_arg,
                 config_enum_name(&r.cfg, &r.cfg.model), config_enum_name(&r.cfg, &r.cfg.model));
        run_close(&r);
        return -1;
    }
    int rc = run_open(&r, err, errlen), n = 0, *ids = NULL;
    const Vocab *v = &r.task.src_vocab;
    char *input = NULL;
    if (!rc && a->from_task) {
        if ((long)a->offset + a->from_task > r.task.n_lm_val) {
            snprintf(err, errlen,
                     "--text-from-task: the held-out text has %d tokens, asked for %d from %d",
                     r.task.n_lm_val, a->from_task, a->offset);
            rc = -1;
        } else if (!(ids = malloc(sizeof(int) * (size_t)a->from_task))) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else {
            n = a->from_task;
            memcpy(ids, r.task.lm_val + a->offset, sizeof(int) * (size_t)n);
        }
    } else if (!rc) {
        const char *text = a->prompt ? a->prompt : a->score ? (input = read_stdin()) : "the";
        if (!text) { snprintf(err, errlen, "cannot read standard input"); rc = -1; }
        else if ((n = encode_text(v, text, &ids, err, errlen)) < 0) rc = -1;
    }
    if (!rc) {   // the cache is allocated whole: refuse before any of it, not pages into a run
        MemoryEstimate e;
        MemoryVocab mv = {v->n, v->n, 0};
        int positions = a->score ? n - 1 : n + a->tokens - 1,
            chunk = a->score ? GEN_SCORE_CHUNK : n;
        memory_estimate_generate(&r.cfg, mv, positions, chunk < positions ? chunk : positions, &e);
        rc = memory_check(&e, &r.cfg, err, errlen);
    }
    if (!rc && a->score) {
        double *loss = malloc(sizeof(double) * (size_t)n);
        if (!loss) { snprintf(err, errlen, "out of memory"); rc = -1; }
        if (!rc) rc = lm_score(&r.model, ids, n, loss, err, errlen);
        if (!rc && print_scores(v, ids, loss, n)) {
            snprintf(err, errlen, "cannot write the scores");
            rc = -1;
        }
        free(loss);
    } else if (!rc) {
        GenOptions o = {a->tokens, a->temperature, a->top_k, a->seed};
        int *all = malloc(sizeof(int) * ((size_t)n + (size_t)a->tokens));
        if (!all) { snprintf(err, errlen, "out of memory"); rc = -1; }
        if (!rc) {
            memcpy(all, ids, sizeof(int) * (size_t)n);
            rc = lm_generate(&r.model, ids, n, &o, all + n, err, errlen);
        }
        if (!rc && print_text(v, all, n + a->tokens)) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
        free(all);
    }
    fflush(stdout);
    free(ids);
    free(input);
    run_close(&r);
    return rc;
}

int main(int argc, char **argv) {
    runtime_init(argc, argv);
    int usage = runtime_usage(argc, argv, USAGE);
    if (usage >= 0) return usage;
    Args a;
    if (parse_args(argc, argv, &a)) return 2;
    char err[1024];
    if (run(argv[1], &a, err, sizeof err)) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    return cli_stdout_done();
}
