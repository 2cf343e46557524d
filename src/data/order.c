// The `order` task: lexicon, vocabulary and twin-paired splits, see order.h.
#include "data/order.h"
#include "core/rng.h"
#include "data/lines.h"
#include "data/text.h"
#include <stdlib.h>
#include <string.h>

#define ORDER_MAX_WORD 64
#define ORDER_MAX_GROUPS 10000000

void order_lexicon_free(OrderLexicon *lex) {
    for (int i = 0; i < lex->n_nouns; i++) free(lex->nouns[i]);
    for (int i = 0; i < lex->n_verbs; i++) free(lex->verbs[i]);
    free(lex->nouns);
    free(lex->verbs);
    memset(lex, 0, sizeof *lex);
}

static int push_word(char ***list, int *n, const char *w) {
    char **l = realloc(*list, sizeof(char *) * (size_t)(*n + 1));
    if (!l) return -1;
    *list = l;
    if (!(l[*n] = strdup(w))) return -1;
    (*n)++;
    return 0;
}

// Line where `w` was already defined, or 0. Lines are remembered per word in `seen_line`.
static int seen_before(const Vocab *seen, const int *seen_line, const char *w) {
    int id = vocab_find(seen, w);
    return id < 0 ? 0 : seen_line[id];
}

int order_load_lexicon(const char *path, OrderLexicon *lex, char *err, int errlen) {
    memset(lex, 0, sizeof *lex);
    LineReader r;
    if (line_open(&r, path, err, errlen) != 0) return -1;
    Vocab seen;                       // every word so far, to catch duplicates
    int *seen_line = NULL, rc = 0;
    if (vocab_init(&seen, 0) != 0) { line_close(&r); return errorf(err, errlen, "out of memory"); }
    char *line, *f[3];
    long len;
    while (rc == 0 && (len = line_next(&r, &line)) >= 0) {
        long ln = r.line_no;
        int nf = line_fields(line, f, 3);
        if (nf == 0) continue;
        int is_noun = strcmp(f[0], "noun") == 0, is_verb = strcmp(f[0], "verb") == 0;
        if (!is_noun && !is_verb) {
            rc = errorf(err, errlen,
                        "%s:%ld: unknown entry '%.40s' (expected `noun WORD` or `verb WORD`)", path,
                        ln, f[0]);
            break;
        }
        if (nf != 2) {
            rc = errorf(err, errlen, "%s:%ld: expected `%s WORD`, found %d fields", path, ln, f[0],
                        nf);
            break;
        }
        text_lower(f[1]);
        if (strlen(f[1]) > ORDER_MAX_WORD || !text_is_word(f[1])) {
            rc = errorf(err, errlen,
                        "%s:%ld: '%.40s' is not a word (letters only, at most %d bytes)", path, ln,
                        f[1], ORDER_MAX_WORD);
            break;
        }
        if (strcmp(f[1], "the") == 0) {
            rc = errorf(err, errlen, "%s:%ld: 'the' is reserved for the article", path, ln);
            break;
        }
        int prev = seen_before(&seen, seen_line, f[1]);
        if (prev) {
            rc = errorf(err, errlen, "%s:%ld: duplicate word '%s' (first on line %d)", path, ln,
                        f[1], prev);
            break;
        }
        int id = vocab_add(&seen, f[1]);
        int *sl = id >= 0 ? realloc(seen_line, sizeof(int) * (size_t)(id + 1)) : NULL;
        if (!sl) { rc = errorf(err, errlen, "out of memory"); break; }
        seen_line = sl;
        seen_line[id] = (int)ln;
        if (is_noun ? push_word(&lex->nouns, &lex->n_nouns, f[1])
                    : push_word(&lex->verbs, &lex->n_verbs, f[1]))
            rc = errorf(err, errlen, "out of memory");
    }
    if (rc == 0) rc = line_failed(&r, err, errlen);
    if (rc == 0 && (lex->n_nouns < 2 || lex->n_verbs < 1))
        rc =
            errorf(err, errlen, "%s: need at least 2 nouns and 1 verb, found %d nouns and %d verbs",
                   path, lex->n_nouns, lex->n_verbs);
    if (rc == 0 &&
        (long long)lex->n_nouns * (lex->n_nouns - 1) / 2 * lex->n_verbs > ORDER_MAX_GROUPS)
        rc = errorf(err, errlen,
                    "%s: lexicon too large: %d nouns and %d verbs give more than %d sentence pairs",
                    path, lex->n_nouns, lex->n_verbs, ORDER_MAX_GROUPS);
    line_close(&r);
    vocab_free(&seen);
    free(seen_line);
    if (rc != 0) order_lexicon_free(lex);
    return rc;
}

int order_n_classes(const OrderLexicon *lex) { return lex->n_nouns; }

const char *order_class_name(const OrderLexicon *lex, int label) {
    return (label >= 0 && label < lex->n_nouns) ? lex->nouns[label] : NULL;
}

int order_n_groups(const OrderLexicon *lex) {
    return lex->n_nouns * (lex->n_nouns - 1) / 2 * lex->n_verbs;
}

int order_build_vocab(const OrderLexicon *lex, Vocab *v) {
    if (vocab_init(v, 1) != 0) return -1;
    int ok = vocab_add(v, "the") >= 0;
    for (int i = 0; ok && i < lex->n_nouns; i++) ok = vocab_add(v, lex->nouns[i]) >= 0;
    for (int i = 0; ok && i < lex->n_verbs; i++) ok = vocab_add(v, lex->verbs[i]) >= 0;
    if (!ok) { vocab_free(v); return -1; }
    return 0;
}

typedef struct { int a, verb, b; } Group;   // nouns a < b

// Writes example `at` of split s: subject `subj`, object `obj`, in the given form.
static int make_example(Example *e, const OrderLexicon *lex, const Vocab *v,
                        int subj, int verb, int obj, int form, int twin) {
    int the = vocab_id(v, "the");
    int s = vocab_id(v, lex->nouns[subj]), vb = vocab_id(v, lex->verbs[verb]),
        o = vocab_id(v, lex->nouns[obj]);
    int full[5] = { the, s, vb, the, o }, shrt[3] = { s, vb, o };
    memset(e, 0, sizeof *e);
    e->n_src = form;
    e->label = subj;
    e->twin = twin;
    e->n_clauses = form;
    return ids_dup(form == ORDER_FORM_FULL ? full : shrt, form, &e->src);
}

// Fills a split with the given groups; with_short adds the three-word forms after them.
static int fill_split(Split *s, const OrderLexicon *lex, const Vocab *v,
                      const Group *g, int n_groups, int with_short) {
    s->n = 2 * n_groups * (with_short ? 2 : 1);
    s->ex = calloc((size_t)(s->n ? s->n : 1), sizeof(Example));
    if (!s->ex) { s->n = 0; return -1; }
    int rc = 0;
    for (int pass = 0; pass < (with_short ? 2 : 1); pass++) {
        int form = pass == 0 ? ORDER_FORM_FULL : ORDER_FORM_SHORT;
        int base = pass * 2 * n_groups;
        for (int k = 0; k < n_groups; k++) {
            int i = base + 2 * k;
            rc |= make_example(&s->ex[i], lex, v, g[k].a, g[k].verb, g[k].b, form, i + 1);
            rc |= make_example(&s->ex[i + 1], lex, v, g[k].b, g[k].verb, g[k].a, form, i);
        }
    }
    if (rc) split_free(s);
    return rc ? -1 : 0;
}

static int clip(int want, int *left) {
    int got = want < *left ? want : *left;
    *left -= got;
    return got;
}

int order_generate(const OrderLexicon *lex, const Vocab *v, uint64_t seed,
                   int train_size, int val_size, int test_size,
                   Split *train, Split *val, Split *test, char *err, int errlen) {
    memset(train, 0, sizeof *train); memset(val, 0, sizeof *val); memset(test, 0, sizeof *test);
    if (train_size < 0 || val_size < 0 || test_size < 0)
        return errorf(err, errlen, "order: split sizes must be >= 0 (got %d, %d, %d)", train_size,
                      val_size, test_size);
    if (vocab_find(v, "the") < 0 || vocab_find(v, lex->nouns[0]) < 0)
        return errorf(err, errlen, "order: vocabulary was not built from this lexicon");
    int n_groups = order_n_groups(lex);
    Group *g = malloc(sizeof(Group) * (size_t)n_groups);
    int *perm = malloc(sizeof(int) * (size_t)n_groups);
    Group *shuffled = malloc(sizeof(Group) * (size_t)n_groups);
    if (!g || !perm || !shuffled) {
        free(g);
        free(perm);
        free(shuffled);
        return errorf(err, errlen, "out of memory");
    }
    int k = 0;
    for (int a = 0; a < lex->n_nouns; a++)
        for (int b = a + 1; b < lex->n_nouns; b++)
            for (int vb = 0; vb < lex->n_verbs; vb++) g[k++] = (Group){ a, vb, b };
    for (int i = 0; i < n_groups; i++) perm[i] = i;
    Rng rng = rng_keyed(seed, 0x04DE7);
    rng_shuffle(&rng, perm, n_groups);
    for (int i = 0; i < n_groups; i++) shuffled[i] = g[perm[i]];

    int left = n_groups;
    int n_test = clip((test_size + 1) / 2, &left);
    int n_val = clip((val_size + 1) / 2, &left);
    int n_train = clip((train_size + 1) / 2, &left);
    int rc = fill_split(test, lex, v, shuffled, n_test, 1);
    if (rc == 0) rc = fill_split(val, lex, v, shuffled + n_test, n_val, 0);
    if (rc == 0) rc = fill_split(train, lex, v, shuffled + n_test + n_val, n_train, 0);
    free(g); free(perm); free(shuffled);
    if (rc != 0) {
        split_free(train); split_free(val); split_free(test);
        return errorf(err, errlen, "out of memory");
    }
    return 0;
}
