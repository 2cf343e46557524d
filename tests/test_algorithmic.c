// The algorithmic task: each rule on hand-checked examples, the symbol vocabulary, the
// generator (lengths, reproducibility, prefix stability), the task's splits and length sets, and
// the config errors of its keys.
#include "check.h"
#include "data/algorithmic.h"
#include "config/config.h"
#include "pos/pos.h"
#include "data/task.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int same_ints(const int *a, const int *b, int n) { return n == 0 || !memcmp(a, b, sizeof(int) * (size_t)n); }

// Rule applied to `in` must give exactly `want` (n_want values).
static void expect_rule(int line, const char *name, const int *in, int n, const int *want, int n_want) {
    int algo = algo_parse(name), out[64];
    CHECK(algo >= 0, "[line %d] algo_parse('%s') = %d", line, name, algo);
    CHECK(algo_output_length(algo, n) == n_want, "[line %d] %s: output length %d, want %d", line, name,
          algo_output_length(algo, n), n_want);
    CHECK(algo_apply(algo, in, n, out) == 0 && same_ints(out, want, n_want), "[line %d] %s: wrong output", line, name);
}
#define EXPECT_RULE(name, in, want) \
    expect_rule(__LINE__, name, in, (int)(sizeof in / sizeof in[0]), want, (int)(sizeof want / sizeof want[0]))

static void test_rules_by_hand(void) {
    static const int x[] = {0, 1, 1};
    static const int x_rev[] = {1, 1, 0};
    EXPECT_RULE("copy", x, x);
    EXPECT_RULE("reverse", x, x_rev);
    static const int y[] = {2, 0, 1}, y_dup[] = {2, 0, 1, 2, 0, 1};
    EXPECT_RULE("duplicate", y, y_dup);
    static const int z[] = {3, 1, 2, 1, 0, 9}, z_sorted[] = {0, 1, 1, 2, 3, 9}, z_rev[] = {9, 0, 1, 2, 1, 3};
    EXPECT_RULE("sort", z, z_sorted);
    EXPECT_RULE("reverse", z, z_rev);
    // Binary: sorting counts the zeros, duplicating repeats the whole string.
    static const int b[] = {1, 0, 1, 1, 0}, b_sorted[] = {0, 0, 1, 1, 1}, b_dup[] = {1, 0, 1, 1, 0, 1, 0, 1, 1, 0},
                     b_rev[] = {0, 1, 1, 0, 1};
    EXPECT_RULE("sort", b, b_sorted);
    EXPECT_RULE("duplicate", b, b_dup);
    EXPECT_RULE("reverse", b, b_rev);
    static const int one[] = {7};
    EXPECT_RULE("reverse", one, one);
    EXPECT_RULE("sort", one, one);
    CHECK(algo_parse("rotate") == -1 && algo_parse("") == -1 && algo_parse("Copy") == -1, "unknown names");
    int out[4];
    CHECK(algo_output_length(7, 3) == -1 && algo_apply(-1, x, 3, out) == -1, "unknown algorithm ids refused");
}

static void test_vocab(void) {
    Vocab v;
    CHECK(algo_build_vocab(2, &v) == 0, "binary vocabulary");
    CHECK(v.n == 6 && !strcmp(vocab_token(&v, 4), "0") && !strcmp(vocab_token(&v, 5), "1"),
          "binary: 4 specials then '0' '1', got %d tokens", v.n);
    CHECK(vocab_id(&v, "<eos>") == TOK_EOS && vocab_id(&v, "2") == TOK_UNK, "specials; '2' is not a symbol");
    vocab_free(&v);
    CHECK(algo_build_vocab(12, &v) == 0 && v.n == 16, "12 symbols");
    CHECK(vocab_id(&v, "9") == 13 && vocab_id(&v, "11") == ALGO_SYMBOL_ID(11) && ALGO_SYMBOL_ID(11) == 15,
          "'9' -> 13, '11' -> 15");
    vocab_free(&v);
    CHECK(algo_build_vocab(0, &v) == -1 && algo_build_vocab(ALGO_MAX_ALPHABET + 1, &v) == -1, "bad alphabets refused");
}

// The rules as their definitions, written apart from algo_apply: is y the output for x?
static int follows_rule(int algo, const int *x, int n, const int *y, int m) {
    int ok = m == (algo == ALGO_DUPLICATE ? 2 * n : n);
    for (int j = 0; ok && j < m; j++)
        switch (algo) {
        case ALGO_COPY: ok = y[j] == x[j]; break;
        case ALGO_REVERSE: ok = y[j] == x[n - 1 - j]; break;
        case ALGO_DUPLICATE: ok = y[j] == x[j % n]; break;
        case ALGO_SORT: {   // ascending, and y[j] occurs in y as often as in x
            int in_x = 0, in_y = 0;
            for (int i = 0; i < n; i++) in_x += x[i] == y[j], in_y += y[i] == y[j];
            ok = (j == 0 || y[j - 1] <= y[j]) && in_x == in_y;
            break;
        }
        default: ok = 0;
        }
    return ok;
}

// Every example: length in [lo, hi], symbols in the alphabet, target = rule(source).
static void check_split(const Split *s, int algo, int alphabet, int lo, int hi, const char *what) {
    int bad_len = 0, bad_sym = 0, bad_tgt = 0, seen[ALGO_MAX_LENGTH + 1] = {0};
    for (int i = 0; i < s->n; i++) {
        const Example *e = &s->ex[i];
        bad_len += e->n_src < lo || e->n_src > hi || e->n_clauses != e->n_src;
        if (e->n_src >= 1 && e->n_src <= ALGO_MAX_LENGTH) seen[e->n_src] = 1;
        for (int j = 0; j < e->n_src; j++) bad_sym += e->src[j] < ALGO_SYMBOL_ID(0) || e->src[j] > ALGO_SYMBOL_ID(alphabet - 1);
        bad_tgt += !follows_rule(algo, e->src, e->n_src, e->tgt, e->n_tgt);
    }
    int missing = 0;
    for (int k = lo; k <= hi; k++) missing += !seen[k];
    CHECK(!bad_len && !bad_sym && !bad_tgt, "%s: %d lengths outside %d..%d, %d symbols outside the alphabet, %d wrong targets",
          what, bad_len, lo, hi, bad_sym, bad_tgt);
    CHECK(missing == 0, "%s: %d of the lengths %d..%d never drawn in %d examples", what, missing, lo, hi, s->n);
}

static int same_split(const Split *a, const Split *b, int n) {
    for (int i = 0; i < n; i++)
        if (a->ex[i].n_src != b->ex[i].n_src || !same_ints(a->ex[i].src, b->ex[i].src, a->ex[i].n_src) ||
            a->ex[i].n_tgt != b->ex[i].n_tgt || !same_ints(a->ex[i].tgt, b->ex[i].tgt, a->ex[i].n_tgt))
            return 0;
    return 1;
}

static void test_generate(void) {
    const char *names[] = {"copy", "reverse", "duplicate", "sort"};
    for (int a = 0; a < 4; a++) {
        Split s;
        char what[64];
        snprintf(what, sizeof what, "%s, binary, 1..16", names[a]);
        CHECK(algo_generate(a, 2, 7, 500, 1, 16, &s) == 0, "%s", what);
        check_split(&s, a, 2, 1, 16, what);
        split_free(&s);
        snprintf(what, sizeof what, "%s, 10 digits, 17..64", names[a]);
        CHECK(algo_generate(a, 10, 7, 1000, 17, 64, &s) == 0, "%s", what);
        check_split(&s, a, 10, 17, 64, what);
        split_free(&s);
    }
    // Same seed: the same examples; a larger n starts with the smaller one's; another seed differs.
    Split a, b, c;
    algo_generate(ALGO_REVERSE, 10, 11, 50, 3, 9, &a);
    algo_generate(ALGO_REVERSE, 10, 11, 80, 3, 9, &b);
    algo_generate(ALGO_REVERSE, 10, 12, 50, 3, 9, &c);
    CHECK(a.n == 50 && b.n == 80 && same_split(&a, &b, 50), "same seed: same examples, prefix-stable in n");
    CHECK(!same_split(&a, &c, 50), "seeds 11 and 12 gave the same 50 examples");
    split_free(&a); split_free(&b); split_free(&c);
    // One length: every example has it (the test sets of ./eval lengths=k).
    CHECK(algo_generate(ALGO_DUPLICATE, 3, 5, 20, 500, 500, &a) == 0, "length 500");
    check_split(&a, ALGO_DUPLICATE, 3, 500, 500, "duplicate at 500");
    CHECK(a.ex[0].n_tgt == 1000, "duplicate of 500 symbols has 1000, got %d", a.ex[0].n_tgt);
    split_free(&a);
    // Refused: min > max, length 0, past ALGO_MAX_LENGTH, alphabet 0, unknown algorithm.
    CHECK(algo_generate(ALGO_COPY, 2, 1, 5, 5, 4, &a) == -1 && a.n == 0, "min_len > max_len");
    CHECK(algo_generate(ALGO_COPY, 2, 1, 5, 0, 4, &a) == -1, "length 0");
    CHECK(algo_generate(ALGO_COPY, 2, 1, 5, 1, ALGO_MAX_LENGTH + 1, &a) == -1, "length past the maximum");
    CHECK(algo_generate(ALGO_COPY, 0, 1, 5, 1, 4, &a) == -1, "alphabet 0");
    CHECK(algo_generate(9, 2, 1, 5, 1, 4, &a) == -1, "algorithm 9");
}

static const char *write_tmp(const char *name, const char *text) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/test_algorithmic_%d_%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    if (f) { fputs(text, f); fclose(f); }
    return path;
}

#define TASK_INI "[run]\nseed = %d\n[task]\ntask = algorithmic\nalgorithm = %s\nalphabet = 2\n" \
                 "min_length = 2\nmax_length = 8\ntrain_size = 400\nval_size = 100\ntest_size = 100\n"

static int load_task(Task *t, int seed, const char *algo) {
    char text[512], err[512] = "";
    snprintf(text, sizeof text, TASK_INI, seed, algo);
    Config c;
    int rc = config_load(&c, &pos_config_checks, write_tmp("task.ini", text), 0, NULL, err, sizeof err);
    if (!rc) rc = task_load(t, &c, err, sizeof err);
    if (rc) printf("     load_task: %s\n", err);
    config_free(&c);
    return rc;
}

static void test_task_splits(void) {
    Task t1, t2;
    if (load_task(&t1, 1, "sort") || load_task(&t2, 2, "sort")) { CHECK(0, "task_load failed"); return; }
    CHECK(t1.has_tgt_vocab && t1.src_vocab.n == 6 && t1.tgt_vocab.n == 6, "binary vocabularies on both sides");
    CHECK(t1.train.n == 400 && t1.val.n == 100 && t1.test.n == 100, "split sizes %d %d %d", t1.train.n, t1.val.n, t1.test.n);
    check_split(&t1.train, ALGO_SORT, 2, 2, 8, "train");
    check_split(&t1.val, ALGO_SORT, 2, 2, 8, "val");
    // Training follows run.seed; val and test are the same for every run, and not the training data.
    CHECK(!same_split(&t1.train, &t2.train, 100), "seeds 1 and 2 trained on the same data");
    CHECK(same_split(&t1.val, &t2.val, 100) && same_split(&t1.test, &t2.test, 100), "held-out sets depend on run.seed");
    CHECK(!same_split(&t1.val, &t1.test, 100) && !same_split(&t1.train, &t1.val, 100), "val = test or train = val");
    // Length sets: all of length k, the same for every run seed, one seed per k.
    Split a = {0}, b = {0};
    char err[256] = "";
    CHECK(task_length_split(&t1, 40, 30, &a, err, sizeof err) == 0 && task_length_split(&t2, 40, 30, &b, err, sizeof err) == 0,
          "length 40: %s", err);
    check_split(&a, ALGO_SORT, 2, 40, 40, "length 40");
    CHECK(same_split(&a, &b, 30), "length-40 set depends on run.seed");
    split_free(&a); split_free(&b);
    CHECK(task_length_split(&t1, 0, 5, &a, err, sizeof err) == -1, "length 0 accepted");
    CHECK(task_length_split(&t1, ALGO_MAX_LENGTH + 1, 5, &a, err, sizeof err) == -1 &&
          !strcmp(err, "input length 4097 asked for; algorithmic supports 1..4096"), "err '%s'", err);
    task_free(&t1);
    task_free(&t2);
    // A run seed equal to the validation seed still trains on other data than it is scored on.
    if (load_task(&t1, 0x5eed0001, "copy")) { CHECK(0, "task_load failed"); return; }
    CHECK(!same_split(&t1.train, &t1.val, 100), "run.seed = 0x5eed0001: training data = validation data");
    task_free(&t1);
}

// One config error with `file:line: ` in front of `fragment`.
static void expect_config_error(int src_line, const char *text, int line, const char *fragment) {
    Config c;
    char err[512] = "", prefix[300];
    const char *path = write_tmp("bad.ini", text);
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == -1, "[line %d] accepted, expected '%s'", src_line, fragment);
    snprintf(prefix, sizeof prefix, "%s:%d: %s", path, line, fragment);
    CHECK(strstr(err, prefix) == err && !strchr(err, '\n'), "[line %d] error '%s', expected '%s...'", src_line, err, prefix);
    config_free(&c);
}

static void test_config_errors(void) {
    expect_config_error(__LINE__, "[task]\ntask = algorithmic\nmin_length = 9\nmax_length = 4\n", 4,
                        "max_length (4) must be >= min_length (9)");
    expect_config_error(__LINE__, "[task]\ntask = algorithmic\nmin_length = 20\n", 3,   // max_length default 16
                        "max_length (16) must be >= min_length (20)");
    expect_config_error(__LINE__, "[task]\ntask = algorithmic\nalphabet = 0\n", 3, "alphabet = 0 is out of range [1, 1000]");
    expect_config_error(__LINE__, "[task]\ntask = algorithmic\nalgorithm = rotate\n", 3,
                        "algorithm: unknown value 'rotate'; expected copy|reverse|duplicate|sort");
    expect_config_error(__LINE__, "[task]\ntask = algorithmic\nmax_length = 5000\n", 3, "max_length = 5000 is out of range [1, 4096]");
    expect_config_error(__LINE__, "[task]\ntask = algorithmic\n[model]\nmodel = classifier\n", 4,
                        "task = algorithmic needs model = translator, lstm or lm, not classifier");
    Config c;
    char err[256];
    config_defaults(&c);
    CHECK(c.algorithm == ALGO_COPY && c.alphabet == 10 && c.min_length == 1 && c.max_length == 16, "defaults");
    c.task = TASK_ORDER;
    CHECK(task_check_length(&c, 3, err, sizeof err) == -1 && strstr(err, "task = order has no lengths"), "order: '%s'", err);
    c.task = TASK_TOY_TRANSLATE;
    CHECK(task_check_length(&c, 64, err, sizeof err) == 0 && task_check_length(&c, 65, err, sizeof err) == -1 &&
          !strcmp(err, "65 clauses asked for; toy_translate supports 1..64"), "toy_translate: '%s'", err);
    c.task = TASK_ALGORITHMIC;
    CHECK(task_check_length(&c, 4096, err, sizeof err) == 0 && task_check_length(&c, 4097, err, sizeof err) == -1,
          "algorithmic 4096 / 4097");
}

int main(void) {
    RUN(test_rules_by_hand);
    RUN(test_vocab);
    RUN(test_generate);
    RUN(test_task_splits);
    RUN(test_config_errors);
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_algorithmic_%d_task.ini", (int)getpid());
    unlink(path);
    snprintf(path, sizeof path, "/tmp/test_algorithmic_%d_bad.ini", (int)getpid());
    unlink(path);
    return check_summary();
}
