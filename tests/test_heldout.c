// Held-out sets are scored whole (docs/design.md §5.5, §5.7, §5.8): for every task kind the
// validation and test splits hold every pair the data gives (parallel_text keeps pairs longer than
// max_tokens; generated sets do not depend on run.seed), and evaluation counts every one of
// them, however long. The model is one fixed distribution (every weight 0, the output bias
// chosen), so the loss of a set is a sum over its target tokens computed here by hand: an
// example left out, cut or counted twice changes it.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "config/config.h"
#include "core/arena.h"
#include "core/tape.h"
#include "pos/pos.h"
#include "score/evaluate.h"
#include "data/task.h"

static Arena arena;
static char dir[64];

static const char *write_file(const char *name, const char *text) {
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (f) { fputs(text, f); fclose(f); }
    return p;
}

// A task from config text; -1 (with the message printed) when it does not load.
static int load(Task *t, const char *ini) {
    Config c;
    char err[512] = "";
    int rc = config_load(&c, &pos_config_checks, write_file("task.ini", ini), 0, NULL, err, sizeof err);
    if (!rc) rc = task_load(t, &c, err, sizeof err);
    if (rc) printf("     load: %s\n", err);
    config_free(&c);
    return rc;
}

// Output bias of the fixed model: token (or class) v gets logit 0.05 * (v % 11).
static float bias_of(int v) { return 0.05f * (float)(v % 11); }

// A model of the task's kind whose every output is softmax(bias_of), batches of 8.
static void fixed_model(Model *m, const Task *t) {
    Config c = t->cfg;
    c.text = NULL;
    snprintf(c.pos, sizeof c.pos, "none");
    c.d_model = 8; c.n_heads = 2; c.d_ff = 8; c.enc_layers = 1; c.dec_layers = 1;
    c.batch_size = 8;
    int tgt = t->has_tgt_vocab ? t->tgt_vocab.n : t->src_vocab.n;
    model_build(m, &c, t->src_vocab.n, tgt, t->n_classes);
    memset(m->ps.data, 0, sizeof(float) * (size_t)m->ps.total);
    for (int v = 0; v < m->head.bias->size; v++) m->head.bias->data[v] = bias_of(v);
}

// -log softmax(bias)[v] over n outputs.
static double cost(int v, int n) {
    double z = 0;
    for (int i = 0; i < n; i++) z += exp(bias_of(i));
    return log(z) - bias_of(v);
}

// What evaluation must give on split s: every example, every target token and the end.
typedef struct { int n; long tokens; double loss; } Expect;

static Expect expect_split(const Task *t, const Split *s, int V) {
    Expect e = {s->n, 0, 0};
    double sum = 0;
    for (int i = 0; i < s->n; i++) {
        const Example *x = &s->ex[i];
        if (t->batch_kind == BATCH_CLASSIFY) { sum += cost(x->label, V); e.tokens++; continue; }
        for (int j = 0; j < x->n_tgt; j++) sum += cost(x->tgt[j], V);
        sum += cost(TOK_EOS, V);
        e.tokens += x->n_tgt + 1;
    }
    e.loss = e.tokens ? sum / e.tokens : 0;
    return e;
}

static void expect_scored(Model *m, const Task *t, const Split *s, int length, const char *what) {
    int V = m->head.bias->size;
    Expect want = expect_split(t, s, V);
    EvalResult r;
    char err[256] = "";
    // Translators and the decoder-only form also decode every example greedily (exact match).
    int decode = t->batch_kind != BATCH_CLASSIFY;
    CHECK(evaluate_split(m, t, s, length, decode, &r, err, sizeof err) == 0, "%s: %s", what, err);
    // The fixed model always says token 10 (the largest logit), never <eos>: no exact match.
    CHECK(!decode || r.exact_match == 0, "%s: exact match %g", what, r.exact_match);
    CHECK(r.n_examples == want.n && r.n_tokens == want.tokens, "%s: scored %d examples, %ld tokens; the set has %d, %ld",
          what, r.n_examples, r.n_tokens, want.n, want.tokens);
    CHECK(fabs(r.loss - want.loss) <= 1e-5 * want.loss, "%s: loss %.7f, by hand %.7f", what, r.loss, want.loss);
}

static int longest(const Split *s) {
    int a, b;
    split_max_lengths(s, &a, &b);
    return a > b ? a : b;
}

// order: the test split holds the five-word sentences and their three-word forms, each scored;
// grouped by form they add up to the whole.
static void test_classifier(void) {
    Task t;
    if (load(&t, "[task]\ntask = order\ntrain_size = 200\nval_size = 60\ntest_size = 30\n[model]\nmodel = classifier\n")) {
        CHECK(0, "order task");
        return;
    }
    CHECK(t.val.n == 60 && t.test.n == 60, "val %d, test %d (30 five-word and 30 three-word)", t.val.n, t.test.n);
    Model m;
    fixed_model(&m, &t);
    expect_scored(&m, &t, &t.val, 0, "order val");
    expect_scored(&m, &t, &t.test, 0, "order test");
    EvalResult r5, r3;
    char err[256];
    CHECK(evaluate_split(&m, &t, &t.test, ORDER_FORM_FULL, 0, &r5, err, sizeof err) == 0 &&
          evaluate_split(&m, &t, &t.test, ORDER_FORM_SHORT, 0, &r3, err, sizeof err) == 0, "%s", err);
    CHECK(r5.n_examples == 30 && r3.n_examples == 30, "forms: %d five-word, %d three-word", r5.n_examples, r3.n_examples);
    model_free(&m);
    task_free(&t);
}

// toy_translate: validation and test sets on fixed seeds (the same for every run, not the
// training sentences), and a set of 8 clauses, longer than anything trained on, scored whole.
static void test_toy_translate(void) {
    const char *ini = "[run]\nseed = %d\n[task]\ntask = toy_translate\ntrain_size = 300\nval_size = 45\ntest_size = 37\n";
    char text[256];
    Task t, u;
    snprintf(text, sizeof text, ini, 1);
    if (load(&t, text)) { CHECK(0, "toy task"); return; }
    snprintf(text, sizeof text, ini, 2);
    if (load(&u, text)) { CHECK(0, "toy task"); task_free(&t); return; }
    int same = t.val.n == u.val.n, in_train = 0;
    for (int i = 0; same && i < t.val.n; i++)
        same = t.val.ex[i].n_src == u.val.ex[i].n_src && !memcmp(t.val.ex[i].src, u.val.ex[i].src, sizeof(int) * t.val.ex[i].n_src);
    for (int i = 0; i < 10; i++)
        in_train += t.val.ex[i].n_src == t.train.ex[i].n_src && !memcmp(t.val.ex[i].src, t.train.ex[i].src, sizeof(int) * t.val.ex[i].n_src);
    CHECK(same, "the validation set depends on run.seed");
    CHECK(in_train == 0, "%d of the first 10 validation sentences are the first training ones", in_train);
    Model m;
    fixed_model(&m, &t);
    CHECK(t.val.n == 45 && t.test.n == 37, "val %d, test %d", t.val.n, t.test.n);
    expect_scored(&m, &t, &t.val, 0, "toy val");
    expect_scored(&m, &t, &t.test, 0, "toy test");
    Split s;
    char err[256] = "";
    CHECK(task_length_split(&t, 8, 21, &s, err, sizeof err) == 0 && s.n == 21, "8 clauses: %s", err);
    printf("# toy_translate: longest training pair %d tokens, of the 8-clause set %d\n", longest(&t.train), longest(&s));
    CHECK(longest(&s) > longest(&t.train), "the 8-clause set is not longer than training");
    expect_scored(&m, &t, &s, 0, "toy 8 clauses");
    split_free(&s);
    model_free(&m);
    task_free(&t);
    task_free(&u);
}

// parallel_text: training pairs longer than max_tokens = 4 are dropped; validation and test
// pairs never are, whatever their length, even with an empty side (the last validation line has
// no German), for the translator and the decoder-only form alike.
static void test_parallel_text(void) {
    const char *train_de = write_file("train.de", "ein hund\nein mann\nder hund sieht den mann und die katze\nein kind\n");
    const char *train_en = write_file("train.en", "a dog\na man\nthe dog sees the man and the cat\na child\n");
    const char *val_de = write_file("val.de", "ein hund\nder mann sieht den hund und ein kind sieht die katze im haus\nein mann\n\n");
    const char *val_en = write_file("val.en", "a dog\nthe man sees the dog and a child sees the cat in the house\na man\na cat\n");
    const char *test_de = write_file("test.de", "der hund und der mann und das kind und die katze\n");
    const char *test_en = write_file("test.en", "the dog and the man and the child and the cat\n");
    const char *models[2] = {"translator", "lm"};
    for (int k = 0; k < 2; k++) {
        char ini[2048];
        snprintf(ini, sizeof ini,
                 "[task]\ntask = parallel_text\nmax_tokens = 4\ntrain_src = %s\ntrain_tgt = %s\nval_src = %s\n"
                 "val_tgt = %s\ntest_src = %s\ntest_tgt = %s\n[model]\nmodel = %s\n",
                 train_de, train_en, val_de, val_en, test_de, test_en, models[k]);
        Task t;
        if (load(&t, ini)) { CHECK(0, "parallel_text task, model = %s", models[k]); continue; }
        CHECK(t.train.n == 3 && t.val.n == 4 && t.test.n == 1, "model = %s: train %d (of 4 lines), val %d (of 4), test %d (of 1)",
              models[k], t.train.n, t.val.n, t.test.n);
        CHECK(t.val.n == 4 && t.val.ex[1].n_src == 13 && t.val.ex[1].n_tgt == 14, "the long validation pair is cut");
        CHECK(t.val.n == 4 && t.val.ex[3].n_src == 0 && t.val.ex[3].n_tgt == 2, "the validation pair with an empty source");
        Model m;
        fixed_model(&m, &t);
        expect_scored(&m, &t, &t.val, 0, models[k]);
        expect_scored(&m, &t, &t.test, 0, models[k]);
        model_free(&m);
        task_free(&t);
    }
}

// The language model: windows of the validation text, which is the same for every run.seed and
// is not the training text; at most max_windows windows of T tokens (./eval: lm_windows, 256 by
// default), the first ones, each scored whole.
static void test_lm(void) {
    Task t, u;
    if (load(&t, "[run]\nseed = 1\n[task]\ntask = lm\ntrain_size = 50\n[model]\nmodel = lm\n")) { CHECK(0, "lm task"); return; }
    if (load(&u, "[run]\nseed = 2\n[task]\ntask = lm\ntrain_size = 50\n[model]\nmodel = lm\n")) { CHECK(0, "lm task"); task_free(&t); return; }
    CHECK(t.n_lm_val == 200000 && u.n_lm_val == 200000 && !memcmp(t.lm_val, u.lm_val, sizeof(int) * 200000),
          "the validation text depends on run.seed");
    CHECK(memcmp(t.lm_val, t.lm_train, sizeof(int) * 200) != 0, "the validation text starts as the training text");
    Model m;
    fixed_model(&m, &t);
    int V = m.head.bias->size;
    // T = 32 with at most 3000 windows: 3000 of the 6249 the text holds; T = 40 with at most
    // 10000: all 4999 (199999 / 40).
    const int Ts[2] = {32, 40}, caps[2] = {3000, 10000}, want_windows[2] = {3000, 4999};
    for (int k = 0; k < 2; k++) {
        int T = Ts[k];
        EvalResult r;
        char err[256] = "";
        CHECK(evaluate_lm(&m, t.lm_val, t.n_lm_val, T, caps[k], &r, err, sizeof err) == 0, "T = %d: %s", T, err);
        double sum = 0;
        for (long i = 1; i <= (long)want_windows[k] * T; i++) sum += cost(t.lm_val[i], V);
        double loss = sum / ((double)want_windows[k] * T);
        CHECK(r.n_examples == want_windows[k] && r.n_tokens == (long)want_windows[k] * T,
              "T = %d: %d windows, %ld tokens; want %d", T, r.n_examples, r.n_tokens, want_windows[k]);
        CHECK(fabs(r.loss - loss) <= 1e-5 * loss, "T = %d: loss %.7f, by hand %.7f", T, r.loss, loss);
    }
    model_free(&m);
    task_free(&t);
    task_free(&u);
}

// algorithmic, translator and decoder-only: validation and test sets and a set of inputs of 40
// symbols, five times the longest trained on, each scored whole.
static void test_algorithmic(void) {
    const char *models[2] = {"translator", "lm"};
    for (int k = 0; k < 2; k++) {
        char ini[512];
        snprintf(ini, sizeof ini, "[task]\ntask = algorithmic\nalgorithm = duplicate\nalphabet = 5\nmin_length = 1\n"
                                  "max_length = 8\ntrain_size = 100\nval_size = 43\ntest_size = 29\n[model]\nmodel = %s\n", models[k]);
        Task t;
        if (load(&t, ini)) { CHECK(0, "algorithmic task, model = %s", models[k]); continue; }
        CHECK(t.val.n == 43 && t.test.n == 29, "val %d, test %d", t.val.n, t.test.n);
        Model m;
        fixed_model(&m, &t);
        expect_scored(&m, &t, &t.val, 0, models[k]);
        expect_scored(&m, &t, &t.test, 0, models[k]);
        Split s;
        char err[256] = "";
        CHECK(task_length_split(&t, 40, 13, &s, err, sizeof err) == 0 && s.n == 13, "length 40: %s", err);
        expect_scored(&m, &t, &s, 0, models[k]);
        split_free(&s);
        model_free(&m);
        task_free(&t);
    }
}

static int same_pair(const Example *a, const Example *b) {
    return a->n_src == b->n_src && a->n_tgt == b->n_tgt && !memcmp(a->src, b->src, sizeof(int) * (size_t)a->n_src) &&
           !memcmp(a->tgt, b->tgt, sizeof(int) * (size_t)a->n_tgt);
}

// Test examples that are also training examples: how many, how many of `length` (n_clauses),
// and the longest input among them.
static void overlap(const Task *t, int length, int *n, int *n_length, int *longest) {
    *n = *n_length = *longest = 0;
    for (int i = 0; i < t->test.n; i++) {
        int in = 0;
        for (int j = 0; j < t->train.n && !in; j++) in = same_pair(&t->test.ex[i], &t->train.ex[j]);
        *n += in;
        *n_length += in && t->test.ex[i].n_clauses == length;
        if (in && t->test.ex[i].n_src > *longest) *longest = t->test.ex[i].n_src;
    }
}

// The held-out sets are drawn apart from the training data, not de-duplicated against it, as
// docs/design.md §5.7 and §5.8 count: toy_translate at the default sizes, seed 1: 11 of the 169
// one-clause test sentences (11 of 500 in all) are training sentences; configs/algorithmic/copy.ini:
// 44 of the 200 test inputs, none longer than 4 symbols; with alphabet = 2, 136, up to 14.
static void test_documented_overlap(void) {
    Task t;
    int n, n1, longest, ones = 0;
    if (load(&t, "[run]\nseed = 1\n[task]\ntask = toy_translate\n")) { CHECK(0, "toy task"); return; }
    overlap(&t, 1, &n, &n1, &longest);
    for (int i = 0; i < t.test.n; i++) ones += t.test.ex[i].n_clauses == 1;
    CHECK(t.test.n == 500 && ones == 169 && n1 == 11 && n == 11, "toy_translate: %d of %d one-clause test sentences (%d of %d) are training ones",
          n1, ones, n, t.test.n);
    task_free(&t);
    Config c;
    char err[512] = "";
    const char *alphabet[2] = {"task.alphabet=10", "task.alphabet=2"};
    const int want_n[2] = {44, 136}, want_longest[2] = {4, 14};
    for (int k = 0; k < 2; k++) {
        char *over[1] = {(char *)alphabet[k]};
        if (config_load(&c, &pos_config_checks, "configs/algorithmic/copy.ini", 1, over, err, sizeof err) ||
            task_load(&t, &c, err, sizeof err)) {
            CHECK(0, "copy.ini: %s", err);
            config_free(&c);
            continue;
        }
        config_free(&c);
        overlap(&t, -1, &n, &n1, &longest);
        CHECK(n == want_n[k] && longest == want_longest[k], "copy.ini, %s: %d of %d test inputs are training ones, up to %d symbols",
              alphabet[k], n, t.test.n, longest);
        task_free(&t);
    }
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/test_heldout_%d", (int)getpid());
    if (mkdir(dir, 0700)) { printf("FAIL cannot create %s\n", dir); return 1; }
    arena_init(&arena, 1 << 24);
    tensor_set_arena(&arena);
    tape_set_enabled(0);
    RUN(test_classifier);
    RUN(test_toy_translate);
    RUN(test_parallel_text);
    RUN(test_lm);
    RUN(test_algorithmic);
    RUN(test_documented_overlap);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) printf("# could not remove %s\n", dir);
    arena_free(&arena);
    return check_summary();
}
