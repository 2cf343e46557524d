// Data layer: vocabulary, the order task, the toy translation generator, batches, sampler.
// Run from the repository root (lexicons are read from data/).
#include "check.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "data/order.h"
#include "data/sampler.h"
#include "data/text.h"
#include "data/toy_translate.h"
#include "data/vocab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_path[256];

// A per-process scratch file name under /tmp.
static const char *tmp_file(const char *name) {
    snprintf(tmp_path, sizeof tmp_path, "/tmp/test_data_%d_%s", (int)getpid(), name);
    return tmp_path;
}

static const char *write_file(const char *name, const char *text, size_t len) {
    const char *p = tmp_file(name);
    FILE *f = fopen(p, "wb");
    if (f) { fwrite(text, 1, len, f); fclose(f); }
    return p;
}
#define WRITE(name, lit) write_file(name, lit, sizeof(lit) - 1)

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

// ================================================================ vocab

static void test_vocab_basics(void) {
    Vocab v;
    CHECK(vocab_init(&v, 0) == 0, "init");
    CHECK(v.n == 4, "4 specials without cls, got %d", v.n);
    CHECK(vocab_id(&v, "<pad>") == TOK_PAD && vocab_id(&v, "<unk>") == TOK_UNK, "pad/unk ids");
    CHECK(vocab_id(&v, "<bos>") == TOK_BOS && vocab_id(&v, "<eos>") == TOK_EOS, "bos/eos ids");
    CHECK(!vocab_has_cls(&v) && vocab_find(&v, "<cls>") == -1, "no cls");
    CHECK(vocab_add(&v, "dog") == 4, "first word gets id 4");
    CHECK(vocab_add(&v, "dog") == 4, "adding twice keeps the id");
    CHECK(vocab_id(&v, "cat") == TOK_UNK && vocab_find(&v, "cat") == -1, "absent word");
    CHECK(vocab_add(&v, "") == -1 && vocab_add(&v, "a b") == -1 && vocab_add(&v, "a\tb") == -1,
          "invalid tokens rejected");
    char longtok[VOCAB_MAX_TOKEN + 2];
    memset(longtok, 'x', sizeof longtok - 1);
    longtok[sizeof longtok - 1] = '\0';
    CHECK(vocab_add(&v, longtok) == -1, "257-byte token rejected");
    longtok[VOCAB_MAX_TOKEN] = '\0';
    CHECK(vocab_add(&v, longtok) == 5, "256-byte token accepted");
    CHECK(vocab_word_id(&v, "<pad>") == TOK_UNK && vocab_word_id(&v, "dog") == 4,
          "text '<pad>' is an unknown word");
    CHECK(vocab_token(&v, 4) && strcmp(vocab_token(&v, 4), "dog") == 0, "token 4");
    CHECK(vocab_token(&v, 99) == NULL && vocab_token(&v, -1) == NULL, "out of range -> NULL");
    vocab_free(&v);

    CHECK(vocab_init(&v, 1) == 0 && v.n == 5 && vocab_id(&v, "<cls>") == TOK_CLS, "cls at 4");
    CHECK(vocab_has_cls(&v) && vocab_is_special(&v, 4), "cls is special");
    // Many tokens: the hash table grows and every lookup still works.
    char w[32];
    for (int i = 0; i < 20000; i++) { snprintf(w, sizeof w, "w%d", i); vocab_add(&v, w); }
    int bad = 0;
    for (int i = 0; i < 20000; i++) { snprintf(w, sizeof w, "w%d", i); bad += vocab_id(&v, w) != 5 + i; }
    CHECK(bad == 0 && v.n == 20005, "%d wrong lookups, size %d", bad, v.n);
    vocab_free(&v);
}

static void test_vocab_round_trip(void) {
    Vocab v, w;
    char err[256] = "";
    vocab_init(&v, 1);
    const char *words[] = { "der", "hund", "größe", ",", ".", "<x>" };
    for (int i = 0; i < 6; i++) vocab_add(&v, words[i]);
    const char *path = tmp_file("vocab.txt");
    CHECK(vocab_save(&v, path, err, sizeof err) == 0, "save: %s", err);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK(access(tmp, F_OK) != 0, "temporary file renamed away");
    CHECK(vocab_load(&w, path, err, sizeof err) == 0, "load: %s", err);
    CHECK(w.n == v.n, "size %d vs %d", w.n, v.n);
    for (int i = 0; i < v.n && i < w.n; i++)
        CHECK(strcmp(vocab_token(&v, i), vocab_token(&w, i)) == 0, "token %d differs", i);
    CHECK(vocab_id(&w, "größe") == 7 && vocab_has_cls(&w), "lookup after load");
    // The file is one token a line, id = line number - 1.
    FILE *f = fopen(path, "rb");
    char line[64];
    for (int i = 0; i < 7 && f; i++) CHECK(fgets(line, sizeof line, f) != NULL, "line %d", i + 1);
    CHECK(f && strcmp(line, "hund\n") == 0, "line 7 (id 6) is '%s'", line);
    if (f) fclose(f);
    vocab_free(&w);
    // CRLF file loads the same tokens.
    path = WRITE("vocab_crlf.txt", "<pad>\r\n<unk>\r\n<bos>\r\n<eos>\r\nhund\r\n");
    CHECK(vocab_load(&w, path, err, sizeof err) == 0 && w.n == 5 && vocab_id(&w, "hund") == 4, "crlf: %s", err);
    vocab_free(&w);
    vocab_free(&v);
    remove(tmp_file("vocab.txt"));
    remove(tmp_file("vocab_crlf.txt"));
}

// Loads `text` as a vocabulary file; must fail with a message containing `want`.
static void expect_vocab_error(const char *name, const char *text, size_t len, const char *want) {
    const char *p = write_file(name, text, len);
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s", p);
    Vocab v;
    int rc = vocab_load(&v, path, err, sizeof err);
    CHECK(rc == -1, "%s: loaded a bad file", name);
    char full[600];
    snprintf(full, sizeof full, "%s%s", path, want);
    CHECK(contains(err, full), "%s: error '%s' lacks '%s'", name, err, full);
    CHECK(v.n == 0 && v.str == NULL, "%s: vocab left empty", name);
    remove(path);
}
#define VOCAB_ERROR(name, lit, want) expect_vocab_error(name, lit, sizeof(lit) - 1, want)

static void test_vocab_bad_files(void) {
    VOCAB_ERROR("v_empty", "", ": empty vocabulary file");
    VOCAB_ERROR("v_short", "<pad>\n<unk>\n", ":3: missing special token <bos>");
    VOCAB_ERROR("v_order", "<pad>\n<bos>\n<unk>\n<eos>\n", ":2: expected special token <unk>");
    VOCAB_ERROR("v_nospec", "hund\nkatze\n", ":1: expected special token <pad>");
    VOCAB_ERROR("v_dup", "<pad>\n<unk>\n<bos>\n<eos>\nhund\nkatze\nhund\n", ":7: duplicate token 'hund' (first on line 5)");
    VOCAB_ERROR("v_space", "<pad>\n<unk>\n<bos>\n<eos>\nder hund\n", ":5: token contains whitespace");
    VOCAB_ERROR("v_emptyline", "<pad>\n<unk>\n<bos>\n<eos>\n\nhund\n", ":5: empty token");
    VOCAB_ERROR("v_cls", "<pad>\n<unk>\n<bos>\n<eos>\nhund\n<cls>\n", ":6: <cls> may only appear on line 5");
    VOCAB_ERROR("v_nul", "<pad>\n<unk>\n<bos>\n<eos>\nhu\0nd\n", ":5: NUL byte in a text file");
    // A 100 kB line.
    size_t n = 100000;
    char *big = malloc(n + 64);
    strcpy(big, "<pad>\n<unk>\n<bos>\n<eos>\n");
    size_t at = strlen(big);
    memset(big + at, 'a', n);
    big[at + n] = '\n';
    expect_vocab_error("v_long", big, at + n + 1, ":5: token longer than 256 bytes");
    free(big);
    Vocab v;
    char err[256] = "";
    CHECK(vocab_load(&v, "/nonexistent/vocab.txt", err, sizeof err) == -1 &&
          contains(err, "/nonexistent/vocab.txt: cannot open"), "missing file: '%s'", err);
    // Saving into a missing directory fails cleanly.
    vocab_init(&v, 0);
    CHECK(vocab_save(&v, "/nonexistent/dir/vocab.txt", err, sizeof err) == -1 && contains(err, "/nonexistent/dir/vocab.txt: cannot create temporary file"),
          "save error: '%s'", err);
    vocab_free(&v);
}

// ================================================================ order

static OrderLexicon olex;
static Vocab ovocab;

static int same_ids(const int *a, int na, const int *b, int nb) {
    return na == nb && (na == 0 || memcmp(a, b, sizeof(int) * (size_t)na) == 0);
}

static void test_order_lexicon_and_vocab(void) {
    char err[256] = "";
    CHECK(olex.n_nouns >= 12 && olex.n_verbs >= 8, "%d nouns, %d verbs", olex.n_nouns, olex.n_verbs);
    CHECK(order_n_classes(&olex) == 14 && order_n_groups(&olex) == 91 * 10, "groups %d", order_n_groups(&olex));
    CHECK(strcmp(order_class_name(&olex, 0), "dog") == 0 && strcmp(order_class_name(&olex, 1), "man") == 0, "class names");
    CHECK(order_class_name(&olex, 14) == NULL, "class 14 does not exist");
    CHECK(ovocab.n == 5 + 1 + 14 + 10, "vocab size %d", ovocab.n);
    CHECK(vocab_id(&ovocab, "<cls>") == TOK_CLS && vocab_id(&ovocab, "the") == 5 && vocab_id(&ovocab, "dog") == 6, "ids");

    struct { const char *name, *text, *want; } bad[] = {
        { "o_kind", "noun dog\nnoun man\nadj big\n", ":3: unknown entry 'adj'" },
        { "o_fields", "noun dog\nnoun man cat\n", ":2: expected `noun WORD`, found 3 fields" },
        { "o_dup", "noun dog\nverb bites\n# c\nnoun dog\n", ":4: duplicate word 'dog' (first on line 1)" },
        { "o_dupverb", "noun dog\nnoun bites\nverb bites\n", ":3: duplicate word 'bites' (first on line 2)" },
        { "o_word", "noun dog\nnoun m4n\nverb bites\n", ":2: 'm4n' is not a word" },
        { "o_the", "noun the\n", ":1: 'the' is reserved" },
        { "o_few", "noun dog\nverb bites\n", ": need at least 2 nouns and 1 verb, found 1 nouns and 1 verbs" },
        { "o_empty", "", ": need at least 2 nouns" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s", write_file(bad[i].name, bad[i].text, strlen(bad[i].text)));
        OrderLexicon l;
        int rc = order_load_lexicon(path, &l, err, sizeof err);
        char want[400];
        snprintf(want, sizeof want, "%s%s", path, bad[i].want);
        CHECK(rc == -1 && contains(err, want), "%s: rc %d, '%s' lacks '%s'", bad[i].name, rc, err, want);
        CHECK(l.nouns == NULL && l.n_nouns == 0, "%s: lexicon left empty", bad[i].name);
        remove(path);
    }
    // Comments, blank lines and capitals are fine.
    const char *p = WRITE("o_ok", "# header\n\n  noun Dog  # the dog\nnoun man\r\nverb bites\n");
    OrderLexicon l;
    CHECK(order_load_lexicon(p, &l, err, sizeof err) == 0 && l.n_nouns == 2 && l.n_verbs == 1 &&
          strcmp(l.nouns[0], "dog") == 0 && strcmp(l.nouns[1], "man") == 0, "small lexicon: %s", err);
    order_lexicon_free(&l);
    remove(p);
}

// Subject, verb and object noun/verb indices of an order example.
static void order_parse(const Example *e, int *subj, int *verb, int *obj) {
    int base = vocab_id(&ovocab, "dog"), vbase = base + olex.n_nouns;
    const int *w = e->src;
    if (e->n_src == 5) { *subj = w[1] - base; *verb = w[2] - vbase; *obj = w[4] - base; }
    else { *subj = w[0] - base; *verb = w[1] - vbase; *obj = w[2] - base; }
}

// Every example: right shape, label = subject, twin in range with swapped nouns, same form.
static void check_order_split(const Split *s, const char *name, int allow_short) {
    int the = vocab_id(&ovocab, "the"), bad_twin = 0, bad_label = 0, bad_shape = 0, n_short = 0;
    for (int i = 0; i < s->n; i++) {
        const Example *e = &s->ex[i];
        if (e->n_clauses == ORDER_FORM_SHORT) n_short++;
        int full = e->n_clauses == ORDER_FORM_FULL && e->n_src == 5 && e->src[0] == the && e->src[3] == the;
        int shrt = e->n_clauses == ORDER_FORM_SHORT && e->n_src == 3;
        if (!full && !shrt) { bad_shape++; continue; }
        int a, v, b;
        order_parse(e, &a, &v, &b);
        if (a == b || a < 0 || b < 0 || a >= olex.n_nouns || b >= olex.n_nouns || v < 0 || v >= olex.n_verbs) bad_shape++;
        if (e->label != a) bad_label++;
        if (e->twin < 0 || e->twin >= s->n || e->twin == i) { bad_twin++; continue; }
        const Example *t = &s->ex[e->twin];
        int ta, tv, tb;
        order_parse(t, &ta, &tv, &tb);
        if (t->twin != i || t->n_clauses != e->n_clauses || ta != b || tb != a || tv != v || t->label != b) bad_twin++;
        for (int k = 0; k < e->n_src; k++) if (e->src[k] < 5 && e->src[k] != the) bad_shape++;   // no specials/unk
    }
    CHECK(bad_shape == 0 && bad_label == 0 && bad_twin == 0, "%s: %d bad shapes, %d bad labels, %d bad twins",
          name, bad_shape, bad_label, bad_twin);
    if (allow_short) CHECK(2 * n_short == s->n, "%s: %d of %d are three-word forms", name, n_short, s->n);
    else CHECK(n_short == 0, "%s holds %d three-word forms", name, n_short);
}

static int split_has(const Split *s, const Example *e) {
    for (int i = 0; i < s->n; i++)
        if (same_ids(s->ex[i].src, s->ex[i].n_src, e->src, e->n_src)) return 1;
    return 0;
}

static void test_order_splits(void) {
    Split tr, va, te;
    char err[256] = "";
    CHECK(order_generate(&olex, &ovocab, 42, 800, 100, 200, &tr, &va, &te, err, sizeof err) == 0, "%s", err);
    CHECK(tr.n == 800 && va.n == 100 && te.n == 400, "sizes %d %d %d", tr.n, va.n, te.n);
    check_order_split(&tr, "train", 0);
    check_order_split(&va, "val", 0);
    check_order_split(&te, "test", 1);
    // Three-word forms are exactly the test groups, reversed literally.
    int missing = 0;
    for (int i = 0; i < te.n; i++) {
        if (te.ex[i].n_clauses != ORDER_FORM_SHORT) continue;
        Example full = te.ex[i];
        int a, v, b, ids[5];
        order_parse(&full, &a, &v, &b);
        int the = vocab_id(&ovocab, "the");
        ids[0] = the; ids[1] = full.src[0]; ids[2] = full.src[1]; ids[3] = the; ids[4] = full.src[2];
        full.src = ids; full.n_src = 5;
        missing += !split_has(&te, &full);
    }
    CHECK(missing == 0, "%d three-word forms without their five-word sentence", missing);
    // No sentence (or noun-pair/verb group) is shared between splits.
    int overlap = 0;
    for (int i = 0; i < tr.n; i++) overlap += split_has(&te, &tr.ex[i]) + split_has(&va, &tr.ex[i]);
    for (int i = 0; i < va.n; i++) overlap += split_has(&te, &va.ex[i]);
    CHECK(overlap == 0, "%d sentences in two splits", overlap);
    // Labels are spread over the classes (not all one noun).
    int seen[64] = { 0 }, n_classes_seen = 0;
    for (int i = 0; i < tr.n; i++) if (!seen[tr.ex[i].label]++) n_classes_seen++;
    CHECK(n_classes_seen == olex.n_nouns, "train covers %d of %d classes", n_classes_seen, olex.n_nouns);

    // Deterministic for a seed; another seed shuffles differently.
    Split tr2, va2, te2;
    order_generate(&olex, &ovocab, 42, 800, 100, 200, &tr2, &va2, &te2, err, sizeof err);
    int same = 1;
    for (int i = 0; i < tr.n; i++) same &= same_ids(tr.ex[i].src, 5, tr2.ex[i].src, 5);
    CHECK(same, "same seed, different train split");
    split_free(&tr2); split_free(&va2); split_free(&te2);
    order_generate(&olex, &ovocab, 43, 800, 100, 200, &tr2, &va2, &te2, err, sizeof err);
    int differ = 0;
    for (int i = 0; i < tr.n; i++) differ += !same_ids(tr.ex[i].src, 5, tr2.ex[i].src, 5);
    CHECK(differ > 700, "seed 43 differs from 42 in only %d of 800", differ);
    split_free(&tr2); split_free(&va2); split_free(&te2);
    split_free(&tr); split_free(&va); split_free(&te);

    // Odd sizes round up to whole pairs; too-large requests are clipped (test, val first).
    CHECK(order_generate(&olex, &ovocab, 1, 5000, 101, 3, &tr, &va, &te, err, sizeof err) == 0, "%s", err);
    CHECK(te.n == 8 && va.n == 102 && tr.n == 2 * (910 - 2 - 51), "clipped sizes %d %d %d", tr.n, va.n, te.n);
    check_order_split(&tr, "clipped train", 0);
    split_free(&tr); split_free(&va); split_free(&te);
    CHECK(order_generate(&olex, &ovocab, 1, 10, -1, 3, &tr, &va, &te, err, sizeof err) == -1 &&
          contains(err, "sizes must be >= 0"), "negative size: '%s'", err);
}

// ================================================================ toy_translate

static ToyLexicon tlex;
static Vocab tsrc, ttgt;

static int noun(const char *de) {
    for (int i = 0; i < tlex.n_nouns; i++) if (strcmp(tlex.nouns[i].de, de) == 0) return i;
    printf("# no noun %s\n", de);
    return 0;
}
static int word(const ToyWord *list, int n, const char *de) {
    for (int i = 0; i < n; i++) if (strcmp(list[i].de, de) == 0) return i;
    printf("# no word %s\n", de);
    return 0;
}
static int adj(const char *stem_e) {     // by the -e form: "große"
    for (int i = 0; i < tlex.n_adjs; i++) if (strcmp(tlex.adjs[i].de_e, stem_e) == 0) return i;
    printf("# no adjective %s\n", stem_e);
    return 0;
}
#define VERB(s) word(tlex.verbs, tlex.n_verbs, s)
#define ADV(s) word(tlex.advs, tlex.n_advs, s)
#define SUB(s) word(tlex.subs, tlex.n_subs, s)

static void join(const char **tok, int n, char *buf, size_t cap) {
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i) strncat(buf, " ", cap - strlen(buf) - 1);
        strncat(buf, tok[i], cap - strlen(buf) - 1);
    }
}

static ToyClause clause(ToyClauseKind k, const char *subj, int subj_adj, const char *verb,
                        const char *obj, int obj_adj, int w) {
    ToyClause c = { k, noun(subj), subj_adj, VERB(verb), noun(obj), obj_adj, w };
    return c;
}

static void expect_render(const ToyClause *c, int n, const char *want_de, const char *want_en) {
    const char *de[256], *en[256];
    int n_de, n_en;
    char got_de[1024], got_en[1024];
    int rc = toy_render(&tlex, c, n, de, &n_de, en, &n_en, 256);
    CHECK(rc == 0, "render failed for '%s'", want_de);
    if (rc) return;
    join(de, n_de, got_de, sizeof got_de);
    join(en, n_en, got_en, sizeof got_en);
    CHECK(strcmp(got_de, want_de) == 0, "German\n       got  '%s'\n       want '%s'", got_de, want_de);
    CHECK(strcmp(got_en, want_en) == 0, "English\n       got  '%s'\n       want '%s'", got_en, want_en);
}

static void test_toy_lexicon(void) {
    CHECK(tlex.n_nouns >= 20 && tlex.n_verbs >= 15 && tlex.n_adjs >= 10 && tlex.n_advs >= 6 && tlex.n_subs >= 2,
          "lexicon %d nouns %d verbs %d adjs %d advs %d subs", tlex.n_nouns, tlex.n_verbs, tlex.n_adjs, tlex.n_advs, tlex.n_subs);
    int g[3] = { 0 };
    for (int i = 0; i < tlex.n_nouns; i++) g[tlex.nouns[i].gender == 'm' ? 0 : tlex.nouns[i].gender == 'f' ? 1 : 2]++;
    CHECK(g[0] >= 5 && g[1] >= 5 && g[2] >= 5 && tlex.n_masc == g[0], "genders m %d f %d n %d", g[0], g[1], g[2]);
    CHECK(strcmp(tlex.nouns[noun("löwe")].de_acc, "löwen") == 0, "weak noun accusative");
    CHECK(strcmp(tlex.adjs[adj("müde")].de_en, "müden") == 0 && strcmp(tlex.adjs[adj("große")].de_en, "großen") == 0,
          "adjective endings");

    struct { const char *name, *text, *want; } bad[] = {
        { "t_kind", "noun m Hund dog\nnoun m Mann man\nverb beißt bites\npron er he\n", ":4: unknown entry (expected noun, verb, adj, adv or sub): 'pron'" },
        { "t_gender", "noun x Hund dog\n", ":1: gender must be m, f or n, found 'x'" },
        { "t_fields", "noun m Hund\n", ":1: expected `noun GENDER GERMAN ENGLISH [GERMAN_ACC]`" },
        { "t_acc", "noun f Katze cat Katzen\n", ":1: only masculine nouns have a different accusative form: 'katze'" },
        { "t_dup", "noun m Hund dog\n\nnoun m hund hound\n", ":3: duplicate noun 'hund' (first on line 1)" },
        { "t_verb", "verb beißt\n", ":1: expected `verb GERMAN ENGLISH`" },
        { "t_adj", "adj groß big large\n", ":1: expected `adj GERMAN_STEM ENGLISH`" },
        { "t_word", "noun m Hund dog\nadv heute, today\n", ":2: not a word (letters only): 'heute,'" },
        { "t_utf8", "noun m Hund d\xffg\n", ":1: not a word (letters only)" },
        { "t_few", "noun m Hund dog\nverb beißt bites\n", ": need at least 2 nouns and 1 verb, found 1 nouns and 1 verbs" },
    };
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256], want[400];
        snprintf(path, sizeof path, "%s", write_file(bad[i].name, bad[i].text, strlen(bad[i].text)));
        ToyLexicon l;
        err[0] = '\0';
        int rc = toy_load_lexicon(path, &l, err, sizeof err);
        snprintf(want, sizeof want, "%s%s", path, bad[i].want);
        CHECK(rc == -1 && contains(err, want), "%s: rc %d, '%s' lacks '%s'", bad[i].name, rc, err, want);
        CHECK(l.nouns == NULL && l.verbs == NULL, "%s: lexicon left empty", bad[i].name);
        remove(path);
    }
    ToyLexicon l;
    CHECK(toy_load_lexicon("/nonexistent/lex.txt", &l, err, sizeof err) == -1 && contains(err, "cannot open"), "%s", err);
}

// Fixed choices rendered to exact strings: case, adjective endings, V2, verb-final, joins.
static void test_toy_render_by_hand(void) {
    ToyClause c[3];
    c[0] = clause(TOY_SVO, "hund", -1, "beißt", "mann", -1, -1);
    expect_render(c, 1, "der hund beißt den mann .", "the dog bites the man .");
    c[0] = clause(TOY_ADV, "hund", -1, "beißt", "mann", -1, ADV("heute"));
    expect_render(c, 1, "heute beißt der hund den mann .", "today the dog bites the man .");
    c[0] = clause(TOY_TOPIC, "hund", -1, "beißt", "mann", -1, -1);
    expect_render(c, 1, "den mann beißt der hund .", "the dog bites the man .");
    c[0] = clause(TOY_SVO, "hund", -1, "beißt", "mann", -1, -1);
    c[1] = clause(TOY_SUB, "katze", -1, "sieht", "vogel", -1, SUB("weil"));
    expect_render(c, 2, "der hund beißt den mann , weil die katze den vogel sieht .",
                  "the dog bites the man because the cat sees the bird .");
    // Weak adjective declension after the definite article.
    c[0] = clause(TOY_SVO, "hund", adj("große"), "sieht", "katze", adj("kleine"), -1);
    expect_render(c, 1, "der große hund sieht die kleine katze .", "the big dog sees the small cat .");
    c[0] = clause(TOY_SVO, "katze", adj("große"), "sieht", "hund", adj("kleine"), -1);
    expect_render(c, 1, "die große katze sieht den kleinen hund .", "the big cat sees the small dog .");
    c[0] = clause(TOY_SVO, "pferd", adj("große"), "jagt", "schaf", adj("alte"), -1);
    expect_render(c, 1, "das große pferd jagt das alte schaf .", "the big horse chases the old sheep .");
    // Weak masculine noun and an adjective stem ending in -e, topicalised.
    c[0] = clause(TOY_TOPIC, "kind", -1, "sieht", "junge", adj("müde"), -1);
    expect_render(c, 1, "den müden jungen sieht das kind .", "the child sees the tired boy .");
    c[0] = clause(TOY_SVO, "junge", adj("müde"), "sieht", "löwe", -1, -1);
    expect_render(c, 1, "der müde junge sieht den löwen .", "the tired boy sees the lion .");
    // Three clauses: und + V2 inside the coordinated clause, then a verb-final während clause.
    c[0] = clause(TOY_SVO, "hund", -1, "beißt", "mann", -1, -1);
    c[1] = clause(TOY_ADV, "katze", -1, "sieht", "pferd", -1, ADV("heute"));
    c[2] = clause(TOY_SUB, "kind", adj("kleine"), "füttert", "hund", adj("alte"), SUB("während"));
    expect_render(c, 3, "der hund beißt den mann , und heute sieht die katze das pferd , während das kleine kind den alten hund füttert .",
                  "the dog bites the man and today the cat sees the horse while the small child feeds the old dog .");
    // Clause index of each English token (the per-position diagnosis): a clause begins at
    // "and" or at a subordinator; the final "." belongs to the last clause.
    {
        const char *de3[64], *en3[64];
        int n_de3, n_en3, ids[64], clause_of[64];
        CHECK(toy_render(&tlex, c, 3, de3, &n_de3, en3, &n_en3, 64) == 0 && n_en3 == 21, "render: %d English tokens", n_en3);
        for (int i = 0; i < n_en3; i++) ids[i] = vocab_id(&ttgt, en3[i]);
        toy_target_clauses(&tlex, &ttgt, ids, n_en3, clause_of);
        static const int want[21] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2};
        int same = 1;
        for (int i = 0; i < 21; i++) same &= clause_of[i] == want[i];
        CHECK(same, "clauses of 'the dog bites the man and today ... while ...': token 5 in %d, 12 in %d, 20 in %d",
              clause_of[5], clause_of[12], clause_of[20]);
    }
    // The longest clauses: 29 German and 27 English tokens for three clauses.
    int a = adj("große"), b = adj("kleine");
    c[0] = clause(TOY_ADV, "hund", a, "beißt", "mann", b, ADV("heute"));
    c[1] = c[0];
    c[2] = c[0];
    const char *de[64], *en[64];
    int n_de, n_en;
    CHECK(toy_render(&tlex, c, 3, de, &n_de, en, &n_en, 64) == 0 && n_de == 29 && n_en == 27,
          "worst case lengths %d %d", n_de, n_en);
    // Invalid choices are refused.
    c[0] = clause(TOY_TOPIC, "hund", -1, "beißt", "katze", -1, -1);
    CHECK(toy_render(&tlex, c, 1, de, &n_de, en, &n_en, 64) == -1, "topicalised feminine object accepted");
    c[0] = clause(TOY_SUB, "hund", -1, "beißt", "mann", -1, 0);
    CHECK(toy_render(&tlex, c, 1, de, &n_de, en, &n_en, 64) == -1, "sentence starting with a subordinate clause accepted");
    c[0] = clause(TOY_SVO, "hund", -1, "beißt", "mann", -1, -1);
    CHECK(toy_render(&tlex, c, 1, de, &n_de, en, &n_en, 5) == -1, "6 tokens fit into 5");
    c[0].verb = tlex.n_verbs;
    CHECK(toy_render(&tlex, c, 1, de, &n_de, en, &n_en, 64) == -1, "verb out of range accepted");
}

static int is_de(const char *tok, const char *want) { return strcmp(tok, want) == 0; }

// Checks every German sentence of a split by its structure: article/adjective/noun agreement,
// verb second in main clauses, verb last in subordinate clauses, one clause per comma.
static void check_german_grammar(const Split *s) {
    int bad_np = 0, bad_v2 = 0, bad_final = 0, bad_count = 0;
    for (int i = 0; i < s->n; i++) {
        const Example *e = &s->ex[i];
        const char *t[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)];
        for (int k = 0; k < e->n_src; k++) t[k] = vocab_token(&tsrc, e->src[k]);
        // Noun phrases: article [adjective] noun, agreeing in gender and case.
        for (int k = 0; k < e->n_src; k++) {
            int acc_m = is_de(t[k], "den"), nom_m = is_de(t[k], "der"), f = is_de(t[k], "die"), n = is_de(t[k], "das");
            if (!acc_m && !nom_m && !f && !n) continue;
            int j = k + 1, ok = 1;
            for (int a = 0; a < tlex.n_adjs; a++) {
                if (is_de(t[j], tlex.adjs[a].de_e)) { ok = !acc_m; j++; break; }
                if (is_de(t[j], tlex.adjs[a].de_en)) { ok = acc_m; j++; break; }
            }
            int found = 0;
            for (int m = 0; m < tlex.n_nouns && !found; m++) {
                const ToyNoun *w = &tlex.nouns[m];
                if (acc_m) found = w->gender == 'm' && is_de(t[j], w->de_acc);
                else if (nom_m) found = w->gender == 'm' && is_de(t[j], w->de);
                else found = w->gender == (f ? 'f' : 'n') && is_de(t[j], w->de);
            }
            bad_np += !(ok && found);
        }
        // Clauses are the comma-separated segments.
        int n_seg = 0, start = 0;
        for (int k = 0; k <= e->n_src - 1; k++) {
            if (!is_de(t[k], ",") && !is_de(t[k], ".")) continue;
            int a = start, b = k;                 // segment [a, b)
            n_seg++;
            start = k + 1;
            int sub = 0;
            for (int w = 0; w < tlex.n_subs; w++) sub |= is_de(t[a], tlex.subs[w].de);
            if (is_de(t[a], "und")) a++;
            int n_verbs = 0, verb_at = -1;
            for (int p = a; p < b; p++)
                for (int v = 0; v < tlex.n_verbs; v++)
                    if (is_de(t[p], tlex.verbs[v].de)) { n_verbs++; verb_at = p - a; }
            if (sub) { bad_final += n_verbs != 1 || verb_at != b - a - 1; continue; }
            int adv = 0;
            for (int w = 0; w < tlex.n_advs; w++) adv |= is_de(t[a], tlex.advs[w].de);
            // Verb second: after one adverb, or after a whole noun phrase (2 or 3 tokens).
            int v2 = n_verbs == 1 && (adv ? verb_at == 1 : (verb_at == 2 || verb_at == 3));
            bad_v2 += !v2;
        }
        bad_count += n_seg != e->n_clauses;
    }
    CHECK(bad_np == 0 && bad_v2 == 0 && bad_final == 0 && bad_count == 0,
          "%d bad noun phrases, %d main clauses not verb-second, %d subordinate clauses not verb-final, "
          "%d wrong clause counts", bad_np, bad_v2, bad_final, bad_count);
}

static void test_toy_generate(void) {
    CHECK(tsrc.n == 4 + 7 + 27 + 3 + 19 + 24 + 7 + 4 && ttgt.n == 4 + 3 + 27 + 19 + 12 + 7 + 4,
          "vocab sizes %d %d", tsrc.n, ttgt.n);
    Split a, b;
    CHECK(toy_generate(&tlex, 7, 2000, 1, 3, &tsrc, &ttgt, &a) == 0 && a.n == 2000, "generate");
    CHECK(toy_generate(&tlex, 7, 2000, 1, 3, &tsrc, &ttgt, &b) == 0, "generate again");
    int same = 1;
    for (int i = 0; i < a.n; i++)
        same &= same_ids(a.ex[i].src, a.ex[i].n_src, b.ex[i].src, b.ex[i].n_src) &&
                same_ids(a.ex[i].tgt, a.ex[i].n_tgt, b.ex[i].tgt, b.ex[i].n_tgt) && a.ex[i].n_clauses == b.ex[i].n_clauses;
    CHECK(same, "same seed gave different data");
    split_free(&b);
    toy_generate(&tlex, 8, 2000, 1, 3, &tsrc, &ttgt, &b);
    int differ = 0;
    for (int i = 0; i < a.n; i++) differ += !same_ids(a.ex[i].src, a.ex[i].n_src, b.ex[i].src, b.ex[i].n_src);
    CHECK(differ > 1900, "seeds 7 and 8 differ in only %d of 2000", differ);
    split_free(&b);
    toy_generate(&tlex, 7, 100, 1, 3, &tsrc, &ttgt, &b);
    same = 1;
    for (int i = 0; i < b.n; i++) same &= same_ids(a.ex[i].src, a.ex[i].n_src, b.ex[i].src, b.ex[i].n_src);
    CHECK(same, "a shorter set is not a prefix of a longer one");
    split_free(&b);

    // Clause counts 1..3 all appear, every clause kind appears, German is well formed.
    int count[4] = { 0 }, kinds_adv = 0, kinds_topic = 0, kinds_sub = 0, kinds_und = 0;
    for (int i = 0; i < a.n; i++) {
        count[a.ex[i].n_clauses]++;
        const char *first = vocab_token(&tsrc, a.ex[i].src[0]);
        for (int w = 0; w < tlex.n_advs; w++) kinds_adv += is_de(first, tlex.advs[w].de);
        kinds_topic += is_de(first, "den");     // only a topicalised object starts with "den"
        for (int k = 0; k < a.ex[i].n_src; k++) {
            kinds_sub += is_de(vocab_token(&tsrc, a.ex[i].src[k]), "weil") || is_de(vocab_token(&tsrc, a.ex[i].src[k]), "während");
            kinds_und += is_de(vocab_token(&tsrc, a.ex[i].src[k]), "und");
        }
    }
    CHECK(count[1] > 500 && count[2] > 500 && count[3] > 500, "clause counts %d %d %d", count[1], count[2], count[3]);
    CHECK(kinds_adv > 300 && kinds_topic > 300 && kinds_sub > 200 && kinds_und > 200,
          "forms: adverb-first %d, object-first %d, weil/während %d, und %d", kinds_adv, kinds_topic, kinds_sub, kinds_und);
    check_german_grammar(&a);
    split_free(&a);

    // Longest sentences with 1..3 clauses stay within 31 tokens (+ <eos> = 32).
    CHECK(toy_generate(&tlex, 123, 20000, 1, 3, &tsrc, &ttgt, &a) == 0, "generate 20000");
    int max_src, max_tgt;
    split_max_lengths(&a, &max_src, &max_tgt);
    printf("# toy_translate 1-3 clauses, 20000 pairs: longest German %d, English %d tokens\n", max_src, max_tgt);
    for (int i = 0; i < a.n; i++) if (a.ex[i].n_src == max_src) {
        printf("#");
        for (int k = 0; k < a.ex[i].n_src; k++) printf(" %s", vocab_token(&tsrc, a.ex[i].src[k]));
        printf("\n");
        break;
    }
    CHECK(max_src <= 31 && max_tgt <= 31, "longest %d / %d > 31", max_src, max_tgt);
    CHECK(max_src >= 24 && max_tgt >= 22, "longest %d / %d: suspiciously short", max_src, max_tgt);
    split_free(&a);

    // Each length 1..16: no <unk> or other specials, lengths grow with the clause count.
    double prev_mean = 0;
    int unk = 0, grow_ok = 1;
    for (int k = 1; k <= 16; k++) {
        CHECK(toy_generate(&tlex, 1000 + (uint64_t)k, 200, k, k, &tsrc, &ttgt, &a) == 0, "k = %d", k);
        double sum = 0;
        for (int i = 0; i < a.n; i++) {
            const Example *e = &a.ex[i];
            if (e->n_clauses != k) grow_ok = 0;
            sum += e->n_src + e->n_tgt;
            for (int j = 0; j < e->n_src; j++) unk += e->src[j] < 4 || e->src[j] >= tsrc.n;
            for (int j = 0; j < e->n_tgt; j++) unk += e->tgt[j] < 4 || e->tgt[j] >= ttgt.n;
            if (e->n_src > 10 * k - 1 || e->n_tgt > 9 * k) grow_ok = 0;
        }
        double mean = sum / a.n;
        if (mean <= prev_mean + 5) grow_ok = 0;
        if (k == 1 || k == 12) printf("# %d clauses: mean %.1f tokens (both sides)\n", k, mean);
        prev_mean = mean;
        split_free(&a);
    }
    CHECK(unk == 0, "%d <unk>/special ids generated", unk);
    CHECK(grow_ok, "lengths do not grow with the clause count (or exceed the bound)");
    CHECK(toy_generate(&tlex, 1, 10, 0, 3, &tsrc, &ttgt, &a) == -1 && a.n == 0, "0 clauses accepted");
    CHECK(toy_generate(&tlex, 1, 10, 3, 2, &tsrc, &ttgt, &a) == -1, "min > max accepted");
    CHECK(toy_generate(&tlex, 1, 10, 1, TOY_MAX_CLAUSES + 1, &tsrc, &ttgt, &a) == -1, "too many clauses accepted");
}

static void test_toy_lm_stream(void) {
    int *ids, n, *ids2, n2;
    CHECK(toy_lm_stream(&tlex, 5, 5000, &ttgt, &ids, &n) == 0 && n == 5000, "stream of %d", n);
    CHECK(toy_lm_stream(&tlex, 5, 5000, &ttgt, &ids2, &n2) == 0 && same_ids(ids, n, ids2, n2), "deterministic");
    free(ids2);
    int dot = vocab_id(&ttgt, "."), the = vocab_id(&ttgt, "the"), n_dots = 0, bad = 0, after_dot_ok = 1;
    for (int i = 0; i < n; i++) {
        bad += ids[i] < 4 || ids[i] >= ttgt.n;
        if (ids[i] == dot) {
            n_dots++;
            // A sentence starts with "the" or an adverb, never with "and"/"." again.
            if (i + 1 < n && (ids[i + 1] == dot || ids[i + 1] == vocab_id(&ttgt, "and"))) after_dot_ok = 0;
        }
    }
    CHECK(bad == 0 && after_dot_ok, "%d special ids, sentence starts ok %d", bad, after_dot_ok);
    CHECK(n_dots > 5000 / 27 && n_dots < 5000 / 5, "%d sentences in 5000 tokens", n_dots);
    CHECK(ids[0] == the || ids[0] >= vocab_id(&ttgt, "today"), "first token %s", vocab_token(&ttgt, ids[0]));
    free(ids);
    CHECK(toy_lm_stream(&tlex, 6, 5000, &ttgt, &ids, &n) == 0, "seed 6");
    CHECK(toy_lm_stream(&tlex, 5, 5000, &ttgt, &ids2, &n2) == 0 && !same_ids(ids, n, ids2, n2), "seeds differ");
    free(ids); free(ids2);
}

// ================================================================ batches

static Split small_split(void) {
    static const int s0[] = { 10, 11, 12 }, t0[] = { 20, 21 };
    static const int s1[] = { 13 }, t1[] = { 22, 23, 24, 25 };
    static const int s2[] = { 14, 15 }, t2[] = { 26 };
    Split s = { calloc(3, sizeof(Example)), 3 };
    const int *src[3] = { s0, s1, s2 }, *tgt[3] = { t0, t1, t2 };
    int ns[3] = { 3, 1, 2 }, nt[3] = { 2, 4, 1 };
    for (int i = 0; i < 3; i++) {
        ids_dup(src[i], ns[i], &s.ex[i].src); s.ex[i].n_src = ns[i];
        ids_dup(tgt[i], nt[i], &s.ex[i].tgt); s.ex[i].n_tgt = nt[i];
        s.ex[i].label = 7 + i;
        s.ex[i].twin = -1;
    }
    return s;
}

static int row_is(const int *row, int T, const int *want, int n_want) {
    for (int t = 0; t < T; t++) if (row[t] != (t < n_want ? want[t] : TOK_PAD)) return 0;
    return 1;
}

static void test_batches(void) {
    Split s = small_split();
    Batch b;
    int idx[3] = { 2, 0, 1 };
    CHECK(batch_from_split(&s, idx, 3, BATCH_TRANSLATE, 0, &b) == 0, "translate batch");
    CHECK(b.B == 3 && b.T_src == 4 && b.T_tgt == 5 && b.labels == NULL, "shape B %d T_src %d T_tgt %d", b.B, b.T_src, b.T_tgt);
    int r0s[] = { 14, 15, TOK_EOS }, r0i[] = { TOK_BOS, 26 }, r0o[] = { 26, TOK_EOS };
    int r1s[] = { 10, 11, 12, TOK_EOS }, r1i[] = { TOK_BOS, 20, 21 }, r1o[] = { 20, 21, TOK_EOS };
    int r2s[] = { 13, TOK_EOS }, r2i[] = { TOK_BOS, 22, 23, 24, 25 }, r2o[] = { 22, 23, 24, 25, TOK_EOS };
    CHECK(row_is(b.src, 4, r0s, 3) && row_is(b.src + 4, 4, r1s, 4) && row_is(b.src + 8, 4, r2s, 2), "src rows");
    CHECK(row_is(b.tgt_in, 5, r0i, 2) && row_is(b.tgt_in + 5, 5, r1i, 3) && row_is(b.tgt_in + 10, 5, r2i, 5), "tgt_in rows");
    CHECK(row_is(b.tgt_out, 5, r0o, 2) && row_is(b.tgt_out + 5, 5, r1o, 3) && row_is(b.tgt_out + 10, 5, r2o, 5), "tgt_out rows");
    int nonpad = 0;
    for (int i = 0; i < b.B * b.T_tgt; i++) nonpad += b.tgt_out[i] != TOK_PAD;
    CHECK(b.n_tgt_tokens == 10 && nonpad == 10, "n_tgt_tokens %d, non-pad %d", b.n_tgt_tokens, nonpad);
    batch_free(&b);

    // train.eos = false: the same rows without <eos> on the target side. The decoder input
    // loses the last token (nothing follows it to predict); the source keeps its <eos>.
    CHECK(batch_from_split(&s, idx, 3, BATCH_TRANSLATE_NO_EOS, 0, &b) == 0, "translate batch without <eos>");
    CHECK(b.B == 3 && b.T_src == 4 && b.T_tgt == 4, "no-eos shape T_src %d T_tgt %d", b.T_src, b.T_tgt);
    int n0i[] = { TOK_BOS }, n0o[] = { 26 }, n1i[] = { TOK_BOS, 20 }, n1o[] = { 20, 21 };
    int n2i[] = { TOK_BOS, 22, 23, 24 }, n2o[] = { 22, 23, 24, 25 };
    CHECK(row_is(b.src, 4, r0s, 3) && row_is(b.src + 4, 4, r1s, 4) && row_is(b.src + 8, 4, r2s, 2), "no-eos src rows");
    CHECK(row_is(b.tgt_in, 4, n0i, 1) && row_is(b.tgt_in + 4, 4, n1i, 2) && row_is(b.tgt_in + 8, 4, n2i, 4), "no-eos tgt_in rows");
    CHECK(row_is(b.tgt_out, 4, n0o, 1) && row_is(b.tgt_out + 4, 4, n1o, 2) && row_is(b.tgt_out + 8, 4, n2o, 4), "no-eos tgt_out rows");
    int eos_targets = 0;
    for (int i = 0; i < b.B * b.T_tgt; i++) eos_targets += b.tgt_out[i] == TOK_EOS;
    CHECK(b.n_tgt_tokens == 7 && eos_targets == 0, "no-eos: n_tgt_tokens %d (expected 7), %d <eos> targets", b.n_tgt_tokens, eos_targets);
    batch_free(&b);

    // T is the longest row of this batch, not of the split.
    int one[1] = { 2 };
    CHECK(batch_from_split(&s, one, 1, BATCH_TRANSLATE, 0, &b) == 0 && b.T_src == 3 && b.T_tgt == 2, "T per batch");
    batch_free(&b);

    CHECK(batch_from_split(&s, idx, 3, BATCH_CLASSIFY, 1, &b) == 0, "classify with cls");
    int c0[] = { TOK_CLS, 14, 15 }, c1[] = { TOK_CLS, 10, 11, 12 }, c2[] = { TOK_CLS, 13 };
    CHECK(b.T_src == 4 && b.tgt_in == NULL && b.tgt_out == NULL && b.T_tgt == 0, "classify shape T %d", b.T_src);
    CHECK(row_is(b.src, 4, c0, 3) && row_is(b.src + 4, 4, c1, 4) && row_is(b.src + 8, 4, c2, 2), "cls rows");
    CHECK(b.labels[0] == 9 && b.labels[1] == 7 && b.labels[2] == 8 && b.n_tgt_tokens == 3, "labels");
    batch_free(&b);
    CHECK(batch_from_split(&s, idx, 3, BATCH_CLASSIFY, 0, &b) == 0 && b.T_src == 3, "classify without cls");
    CHECK(row_is(b.src, 3, c0 + 1, 2) && row_is(b.src + 3, 3, c1 + 1, 3) && row_is(b.src + 6, 3, c2 + 1, 1), "rows without cls");
    batch_free(&b);

    int badidx[2] = { 0, 3 };
    CHECK(batch_from_split(&s, badidx, 2, BATCH_TRANSLATE, 0, &b) == -1 && b.src == NULL, "index 3 of 3 accepted");
    badidx[1] = -1;
    CHECK(batch_from_split(&s, badidx, 2, BATCH_CLASSIFY, 0, &b) == -1, "index -1 accepted");
    split_free(&s);

    // Empty examples (NULL arrays): rows of <eos> / padding only, T at least 1.
    Example empty[2] = { { NULL, 0, NULL, 0, 3, -1, 0 }, { NULL, 0, NULL, 0, 4, -1, 0 } };
    Split es = { empty, 2 };
    int both[2] = { 0, 1 };
    CHECK(batch_from_split(&es, both, 2, BATCH_CLASSIFY, 0, &b) == 0 && b.T_src == 1 && b.src[0] == TOK_PAD &&
          b.labels[1] == 4, "empty classify rows");
    batch_free(&b);
    CHECK(batch_from_split(&es, both, 2, BATCH_TRANSLATE, 0, &b) == 0 && b.T_src == 1 && b.src[1] == TOK_EOS &&
          b.tgt_in[0] == TOK_BOS && b.tgt_out[0] == TOK_EOS && b.n_tgt_tokens == 2, "empty translate rows");
    batch_free(&b);
    CHECK(batch_from_split(&es, both, 2, BATCH_TRANSLATE_NO_EOS, 0, &b) == 0 && b.T_tgt == 1 && b.tgt_in[0] == TOK_BOS &&
          b.tgt_out[0] == TOK_PAD && b.tgt_out[1] == TOK_PAD && b.n_tgt_tokens == 0, "empty translate rows without <eos>");
    batch_free(&b);

    int stream[10] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 }, starts[2] = { 0, 6 };
    CHECK(batch_lm(stream, 10, starts, 2, 3, &b) == 0, "lm batch");
    int i0[] = { 5, 6, 7 }, o0[] = { 6, 7, 8 }, i1[] = { 11, 12, 13 }, o1[] = { 12, 13, 14 };
    CHECK(b.T_tgt == 3 && b.src == NULL && row_is(b.tgt_in, 3, i0, 3) && row_is(b.tgt_out, 3, o0, 3) &&
          row_is(b.tgt_in + 3, 3, i1, 3) && row_is(b.tgt_out + 3, 3, o1, 3) && b.n_tgt_tokens == 6, "lm windows");
    batch_free(&b);
    starts[1] = 7;     // 7 + 3 = 10: the target would read past the stream
    CHECK(batch_lm(stream, 10, starts, 2, 3, &b) == -1, "window past the end accepted");
}

// ================================================================ sampler

static void test_sampler(void) {
    enum { N = 20, B = 7, STEPS = 30 };
    Sampler s, t;
    CHECK(sampler_init(&s, N, 99) == 0, "init");
    int seq[STEPS * B];
    for (int k = 0; k < STEPS; k++) sampler_next(&s, seq + k * B, B);
    // Each run of N draws is one epoch: a permutation of 0..N-1.
    int perm_ok = 1, epochs_differ = 0;
    for (int e = 0; e + 1 <= STEPS * B / N; e++) {
        int seen[N] = { 0 };
        for (int i = 0; i < N; i++) seen[seq[e * N + i]]++;
        for (int i = 0; i < N; i++) perm_ok &= seen[i] == 1;
        if (e > 0) epochs_differ += memcmp(seq + e * N, seq + (e - 1) * N, sizeof(int) * N) != 0;
    }
    CHECK(perm_ok, "an epoch is not a permutation");
    CHECK(epochs_differ == STEPS * B / N - 1, "epochs reshuffle: %d of %d differ", epochs_differ, STEPS * B / N - 1);
    SamplerState st = sampler_state(&s);
    CHECK(st.epoch == STEPS * B / N && st.pos == STEPS * B % N, "state epoch %lld pos %lld", (long long)st.epoch, (long long)st.pos);
    sampler_free(&s);

    // Same seed, same sequence; resume from the state after 11 batches continues identically.
    sampler_init(&s, N, 99);
    int x[B], mismatch = 0;
    for (int k = 0; k < 11; k++) { sampler_next(&s, x, B); mismatch += memcmp(x, seq + k * B, sizeof x) != 0; }
    SamplerState saved = sampler_state(&s);
    sampler_free(&s);
    CHECK(sampler_restore(&t, N, saved) == 0, "restore");
    for (int k = 11; k < STEPS; k++) { sampler_next(&t, x, B); mismatch += memcmp(x, seq + k * B, sizeof x) != 0; }
    CHECK(mismatch == 0, "%d batches differ after resume", mismatch);
    sampler_free(&t);

    sampler_init(&s, N, 100);
    sampler_next(&s, x, B);
    CHECK(memcmp(x, seq, sizeof x) != 0, "seeds 99 and 100 give the same first batch");
    sampler_free(&s);
    SamplerState broken = { 1, 0, N + 1 };
    CHECK(sampler_restore(&s, N, broken) == -1 && sampler_init(&s, 0, 1) == -1, "bad state or size accepted");
}

static void test_text_helpers(void) {
    char s[] = "Ärger ÖL über Straße ÉTÉ ×";
    text_lower(s);
    CHECK(strcmp(s, "ärger öl über straße été ×") == 0, "lower: '%s'", s);
    const unsigned char overlong[] = { 0xC0, 0xAF }, surrogate[] = { 0xED, 0xA0, 0x80 }, ok[] = { 0xE2, 0x82, 0xAC };
    CHECK(utf8_seq_len(overlong, 2) == 0 && utf8_seq_len(surrogate, 3) == 0 && utf8_seq_len(ok, 3) == 3 &&
          utf8_seq_len(ok, 2) == 0, "utf8 checks");
    CHECK(text_is_word("größe") && text_is_word("o'clock") && !text_is_word("a1") && !text_is_word("") && !text_is_word("a,"), "words");
}

int main(void) {
    char err[256] = "";
    if (order_load_lexicon("data/order_lexicon.txt", &olex, err, sizeof err) != 0 || order_build_vocab(&olex, &ovocab) != 0) {
        printf("FAIL order lexicon: %s (run from the repository root)\n", err);
        return 1;
    }
    if (toy_load_lexicon("data/toy_lexicon.txt", &tlex, err, sizeof err) != 0 || toy_build_vocabs(&tlex, &tsrc, &ttgt) != 0) {
        printf("FAIL toy lexicon: %s (run from the repository root)\n", err);
        return 1;
    }
    RUN(test_vocab_basics);
    RUN(test_vocab_round_trip);
    RUN(test_vocab_bad_files);
    RUN(test_text_helpers);
    RUN(test_order_lexicon_and_vocab);
    RUN(test_order_splits);
    RUN(test_toy_lexicon);
    RUN(test_toy_render_by_hand);
    RUN(test_toy_generate);
    RUN(test_toy_lm_stream);
    RUN(test_batches);
    RUN(test_sampler);
    order_lexicon_free(&olex);
    vocab_free(&ovocab);
    toy_lexicon_free(&tlex);
    vocab_free(&tsrc);
    vocab_free(&ttgt);
    return check_summary();
}
