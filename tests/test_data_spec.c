// The built-in data as docs/design.md specifies it (§5.3 order, §5.4 toy_translate, §5.6 lm
// text, §5.8 algorithmic), checked on many draws: every rate of the specification within five
// binomial standard deviations (deterministic for the fixed seeds, yet far outside for a changed
// rate), every constraint between the words of a sentence, and the first examples of a seed
// pinned byte for byte. Then BPE learning (§5.5) on corpora worked by hand: pairs at the
// minimum frequency (2), ties, frequency weighting, overlapping pairs and the word-length limit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "data/algorithmic.h"
#include "data/bpe.h"
#include "data/order.h"
#include "data/toy_translate.h"

static ToyLexicon tlex;
static Vocab tsrc, ttgt;
static OrderLexicon olex;
static Vocab ovocab;

// count of n draws, each a success with probability p: within 5 binomial sd of n p.
static void check_rate(const char *what, long count, long n, double p) {
    double sd = sqrt(n * p * (1 - p)), z = sd > 0 ? (count - n * p) / sd : 0;
    CHECK(n > 0 && fabs(count - n * p) <= 5 * sd, "%s: %ld of %ld = %.4f, spec %.4f (z = %.1f)", what,
          count, n, n ? (double)count / n : 0, p, z);
}

// The ids `ids[0..n)` of vocabulary v joined by spaces.
static const char *joined(const Vocab *v, const int *ids, int n, char *buf, size_t cap) {
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i) strncat(buf, " ", cap - strlen(buf) - 1);
        strncat(buf, vocab_token(v, ids[i]), cap - strlen(buf) - 1);
    }
    return buf;
}

// ================================================================ toy_translate (§5.4)

static int find_en(const ToyWord *list, int n, const char *w) {
    for (int i = 0; i < n; i++) if (!strcmp(list[i].en, w)) return i;
    return -1;
}
static int noun_en(const char *w) {
    for (int i = 0; i < tlex.n_nouns; i++) if (!strcmp(tlex.nouns[i].en, w)) return i;
    return -1;
}
static int adj_en(const char *w) {
    for (int i = 0; i < tlex.n_adjs; i++) if (!strcmp(tlex.adjs[i].en, w)) return i;
    return -1;
}

// English noun phrase at t[*p]: "the" [adjective] noun. -1 when it is not one.
static int parse_np(const char **t, int n, int *p, int *noun, int *adj) {
    if (*p >= n || strcmp(t[*p], "the")) return -1;
    (*p)++;
    *adj = *p < n ? adj_en(t[*p]) : -1;
    if (*adj >= 0) (*p)++;
    *noun = *p < n ? noun_en(t[*p]) : -1;
    if (*noun < 0) return -1;
    (*p)++;
    return 0;
}

// One English clause at t[*p] (first: the sentence's first): the conjunction ("and" or a
// subordinator), an adverb, then subject, verb, object. The kind is SVO, ADV or SUB (English
// does not show a topicalised object). -1 when the clause does not have this shape.
static int parse_en_clause(const char **t, int n, int *p, int first, ToyClause *c) {
    memset(c, 0, sizeof *c);
    c->kind = TOY_SVO;
    c->word = -1;
    if (!first) {
        if (*p < n && !strcmp(t[*p], "and")) (*p)++;
        else if (*p < n && (c->word = find_en(tlex.subs, tlex.n_subs, t[*p])) >= 0) {
            c->kind = TOY_SUB;
            (*p)++;
        } else return -1;
    }
    int adv = *p < n ? find_en(tlex.advs, tlex.n_advs, t[*p]) : -1;
    if (adv >= 0) {
        if (c->kind == TOY_SUB) return -1;   // a subordinate clause has no fronted adverb
        c->kind = TOY_ADV;
        c->word = adv;
        (*p)++;
    }
    if (parse_np(t, n, p, &c->subj, &c->subj_adj)) return -1;
    c->verb = *p < n ? find_en(tlex.verbs, tlex.n_verbs, t[*p]) : -1;
    if (c->verb < 0) return -1;
    (*p)++;
    return parse_np(t, n, p, &c->obj, &c->obj_adj);
}

// Statistics of the clauses drawn, for the rates of the specification.
typedef struct {
    long sentences, by_clauses[4];
    long first, first_kind[4], later, later_kind[4];
    long nps, with_adj, clauses, both_adj, same_noun, topic_not_masc;
    long adj_idx[64], verb_idx[64], adv_idx[64], sub_idx[64], n_adv, n_sub;
    long plain_subj[64], plain_obj[64], n_plain, topic_obj[64], topic_subj[64], n_topic;
    long unparsed, unrendered;
} ToyStats;

static void count_clause(ToyStats *st, const ToyClause *c, int first) {
    if (first) { st->first++; st->first_kind[c->kind]++; }
    else { st->later++; st->later_kind[c->kind]++; }
    st->clauses++;
    st->nps += 2;
    st->with_adj += (c->subj_adj >= 0) + (c->obj_adj >= 0);
    st->both_adj += c->subj_adj >= 0 && c->obj_adj >= 0;
    if (c->subj_adj >= 0) st->adj_idx[c->subj_adj]++;
    if (c->obj_adj >= 0) st->adj_idx[c->obj_adj]++;
    st->verb_idx[c->verb]++;
    if (c->kind == TOY_ADV) { st->adv_idx[c->word]++; st->n_adv++; }
    if (c->kind == TOY_SUB) { st->sub_idx[c->word]++; st->n_sub++; }
    st->same_noun += c->subj == c->obj;
    if (c->kind == TOY_TOPIC) {
        st->topic_not_masc += tlex.nouns[c->obj].gender != 'm';
        st->topic_obj[c->obj]++;
        st->topic_subj[c->subj]++;
        st->n_topic++;
    } else {
        st->plain_subj[c->subj]++;
        st->plain_obj[c->obj]++;
        st->n_plain++;
    }
}

// Parses an example into its clauses: English for the words, German for the one thing English
// does not show (a German clause that starts with "den" has its object fronted). The German and
// English are then rendered again from the parsed choices and must equal the example token for
// token: the two sides are translations of each other, clause by clause.
static int parse_example(const Example *e, ToyClause *c, int *n_c) {
    const char *en[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)], *de[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)];
    for (int i = 0; i < e->n_tgt; i++) en[i] = vocab_token(&ttgt, e->tgt[i]);
    for (int i = 0; i < e->n_src; i++) de[i] = vocab_token(&tsrc, e->src[i]);
    int p = 0, n = e->n_tgt - 1;   // the last token is "."
    if (n < 0 || strcmp(en[n], ".")) return -1;
    for (*n_c = 0; p < n; (*n_c)++)
        if (*n_c == TOY_MAX_CLAUSES || parse_en_clause(en, n, &p, *n_c == 0, &c[*n_c])) return -1;
    // German clause starts: the first token, and the token after each "," (after "und").
    int k = 0;
    for (int i = 0; i < e->n_src && k < *n_c; i++) {
        if (i > 0 && strcmp(de[i - 1], ",")) continue;
        int s = i + (i > 0 && !strcmp(de[i], "und"));
        if (c[k].kind == TOY_SVO && !strcmp(de[s], "den")) c[k].kind = TOY_TOPIC;
        k++;
    }
    return k == *n_c ? 0 : -1;
}

static int renders_as(const Example *e, const ToyClause *c, int n_c) {
    const char *de[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)], *en[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)];
    int n_de, n_en;
    if (toy_render(&tlex, c, n_c, de, &n_de, en, &n_en, TOY_MAX_TOKENS(TOY_MAX_CLAUSES))) return 0;
    if (n_de != e->n_src || n_en != e->n_tgt) return 0;
    for (int i = 0; i < n_de; i++) if (strcmp(de[i], vocab_token(&tsrc, e->src[i]))) return 0;
    for (int i = 0; i < n_en; i++) if (strcmp(en[i], vocab_token(&ttgt, e->tgt[i]))) return 0;
    return 1;
}

static void check_uniform(const char *what, const long *count, int k, long n) {
    char name[96];
    for (int i = 0; i < k; i++) {
        snprintf(name, sizeof name, "%s %d of %d", what, i, k);
        check_rate(name, count[i], n, 1.0 / k);
    }
}

// 20,000 sentences of 1-3 clauses: every rule of the generator, on every clause.
static void test_toy_translate_spec(void) {
    Split s;
    CHECK(toy_generate(&tlex, 2024, 20000, 1, 3, &tsrc, &ttgt, &s) == 0, "generate");
    static ToyStats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < s.n; i++) {
        ToyClause c[TOY_MAX_CLAUSES];
        int n_c;
        if (parse_example(&s.ex[i], c, &n_c) || n_c != s.ex[i].n_clauses) { st.unparsed++; continue; }
        st.unrendered += !renders_as(&s.ex[i], c, n_c);
        st.sentences++;
        st.by_clauses[n_c]++;
        for (int k = 0; k < n_c; k++) count_clause(&st, &c[k], k == 0);
    }
    CHECK(st.unparsed == 0 && st.unrendered == 0,
          "%ld sentences do not parse as the grammar, %ld German sides are not the English one's", st.unparsed,
          st.unrendered);
    printf("# toy_translate: %ld clauses; first SVO/ADV/TOPIC %ld/%ld/%ld; later SVO/ADV/TOPIC/SUB %ld/%ld/%ld/%ld; "
           "adjectives %ld of %ld noun phrases\n", st.clauses, st.first_kind[TOY_SVO], st.first_kind[TOY_ADV],
           st.first_kind[TOY_TOPIC], st.later_kind[TOY_SVO], st.later_kind[TOY_ADV], st.later_kind[TOY_TOPIC],
           st.later_kind[TOY_SUB], st.with_adj, st.nps);
    // Clauses: uniform in min_clauses..max_clauses.
    for (int k = 1; k <= 3; k++) check_rate("sentences of k clauses", st.by_clauses[k], st.sentences, 1.0 / 3);
    // A first clause is a main clause: SVO 1/2, adverb first 1/4, object first 1/4.
    CHECK(st.first_kind[TOY_SUB] == 0, "%ld sentences open with a subordinate clause", st.first_kind[TOY_SUB]);
    check_rate("first clause SVO", st.first_kind[TOY_SVO], st.first, 0.5);
    check_rate("first clause adverb first", st.first_kind[TOY_ADV], st.first, 0.25);
    check_rate("first clause object first", st.first_kind[TOY_TOPIC], st.first, 0.25);
    // A later clause is subordinate 1/2, else a main clause as above.
    check_rate("later clause subordinate", st.later_kind[TOY_SUB], st.later, 0.5);
    check_rate("later clause SVO", st.later_kind[TOY_SVO], st.later, 0.25);
    check_rate("later clause adverb first", st.later_kind[TOY_ADV], st.later, 0.125);
    check_rate("later clause object first", st.later_kind[TOY_TOPIC], st.later, 0.125);
    // Each noun phrase takes an adjective 1/3, independently of the other.
    check_rate("noun phrase with an adjective", st.with_adj, st.nps, 1.0 / 3);
    check_rate("clause with two adjectives", st.both_adj, st.clauses, 1.0 / 9);
    // Subject and object differ; an object put first is masculine ("den" shows its case).
    CHECK(st.same_noun == 0, "%ld clauses with the subject as object", st.same_noun);
    CHECK(st.topic_not_masc == 0, "%ld fronted objects not masculine", st.topic_not_masc);
    // Words uniform: adjectives, verbs, adverbs, subordinators; nouns of a plain clause uniform,
    // the object uniform among the others (so uniform too); a fronted object uniform among the
    // masculine nouns, its subject among the other nouns.
    check_uniform("adjective", st.adj_idx, tlex.n_adjs, st.with_adj);
    check_uniform("verb", st.verb_idx, tlex.n_verbs, st.clauses);
    check_uniform("adverb", st.adv_idx, tlex.n_advs, st.n_adv);
    check_uniform("subordinator", st.sub_idx, tlex.n_subs, st.n_sub);
    check_uniform("subject", st.plain_subj, tlex.n_nouns, st.n_plain);
    check_uniform("object", st.plain_obj, tlex.n_nouns, st.n_plain);
    char name[96];
    for (int i = 0; i < tlex.n_nouns; i++) {
        int masc = tlex.nouns[i].gender == 'm';
        snprintf(name, sizeof name, "fronted object %s", tlex.nouns[i].en);
        if (masc) check_rate(name, st.topic_obj[i], st.n_topic, 1.0 / tlex.n_masc);
        else CHECK(st.topic_obj[i] == 0, "%s: %ld", name, st.topic_obj[i]);
        snprintf(name, sizeof name, "subject %s of a fronted object", tlex.nouns[i].en);
        double p = masc ? (1.0 - 1.0 / tlex.n_masc) / (tlex.n_nouns - 1) : 1.0 / (tlex.n_nouns - 1);
        check_rate(name, st.topic_subj[i], st.n_topic, p);
    }
    // Lengths: a clause adds at most 10 German and 9 English tokens, "." included once.
    int too_long = 0;
    for (int i = 0; i < s.n; i++)
        too_long += s.ex[i].n_src > 10 * s.ex[i].n_clauses - 1 || s.ex[i].n_tgt > 9 * s.ex[i].n_clauses;
    CHECK(too_long == 0, "%d sentences longer than 10k - 1 / 9k tokens", too_long);
    split_free(&s);
}

// k-clause sets (./eval lengths=k) follow the same rules: every sentence has k clauses, parses
// and renders back; the later clauses are subordinate half of the time.
static void test_toy_length_sets_spec(void) {
    const int ks[] = {4, 8};
    for (int j = 0; j < 2; j++) {
        Split s;
        int k = ks[j];
        CHECK(toy_generate(&tlex, 77, 1000, k, k, &tsrc, &ttgt, &s) == 0, "k = %d", k);
        long bad = 0, later = 0, sub = 0;
        for (int i = 0; i < s.n; i++) {
            ToyClause c[TOY_MAX_CLAUSES];
            int n_c;
            if (parse_example(&s.ex[i], c, &n_c) || n_c != k || !renders_as(&s.ex[i], c, n_c)) { bad++; continue; }
            for (int m = 1; m < n_c; m++) later++, sub += c[m].kind == TOY_SUB;
        }
        CHECK(bad == 0, "%d clauses: %ld of %d sentences break the grammar", k, bad, s.n);
        check_rate("subordinate later clause (k-clause set)", sub, later, 0.5);
        split_free(&s);
    }
}

// The first sentences of seed 1 (1-3 clauses), byte for byte.
static void test_toy_translate_pinned(void) {
    static const char *want[3][2] = {
        {"den weißen hund kennt die königin , obwohl der schnelle bär den tiger fängt .",
         "the queen knows the white dog although the fast bear catches the tiger ."},
        {"morgen jagt der löwe das pferd , weil das kind den tiger liebt , weil das kaninchen die ente füttert .",
         "tomorrow the lion chases the horse because the child loves the tiger because the rabbit feeds the duck ."},
        {"den braunen jungen fragt der könig , während die maus den großen fisch ruft .",
         "the king asks the brown boy while the mouse calls the big fish ."},
    };
    Split s;
    CHECK(toy_generate(&tlex, 1, 3, 1, 3, &tsrc, &ttgt, &s) == 0, "generate");
    char de[1024], en[1024];
    for (int i = 0; i < 3 && i < s.n; i++) {
        joined(&tsrc, s.ex[i].src, s.ex[i].n_src, de, sizeof de);
        joined(&ttgt, s.ex[i].tgt, s.ex[i].n_tgt, en, sizeof en);
        CHECK(!strcmp(de, want[i][0]) && !strcmp(en, want[i][1]), "sentence %d:\n  got  {\"%s\", \"%s\"}", i, de, en);
    }
    split_free(&s);
}

// ================================================================ lm text (§5.6)

// The toy generator's English sentences of 1-3 clauses, concatenated: every sentence parses,
// its clause count is uniform in 1..3, later clauses subordinate 1/2, an adjective 1/3.
static void test_lm_text_spec(void) {
    int *ids, n;
    CHECK(toy_lm_stream(&tlex, 9, 200000, &ttgt, &ids, &n) == 0 && n == 200000, "stream of %d", n);
    const char **t = malloc(sizeof(char *) * (size_t)n);
    for (int i = 0; i < n; i++) t[i] = vocab_token(&ttgt, ids[i]);
    long sentences = 0, by_clauses[TOY_MAX_CLAUSES + 1] = {0}, bad = 0, later = 0, sub = 0, first = 0, adv = 0;
    long nps = 0, adj = 0, same = 0;
    int start = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(t[i], ".")) continue;
        int p = start, n_c = 0;
        ToyClause c;
        while (p < i && n_c < TOY_MAX_CLAUSES && !parse_en_clause(t, i, &p, n_c == 0, &c)) {
            if (n_c == 0) { first++; adv += c.kind == TOY_ADV; }
            else { later++; sub += c.kind == TOY_SUB; }
            nps += 2;
            adj += (c.subj_adj >= 0) + (c.obj_adj >= 0);
            same += c.subj == c.obj;
            n_c++;
        }
        if (p != i || n_c < 1 || n_c > 3) bad++;
        else by_clauses[n_c]++, sentences++;
        start = i + 1;
    }
    printf("# lm text: %ld sentences in 200000 tokens (1/2/3 clauses %ld/%ld/%ld), the last %d tokens an unfinished one\n",
           sentences, by_clauses[1], by_clauses[2], by_clauses[3], n - start);
    CHECK(bad == 0, "%ld sentences do not parse as 1-3 English clauses", bad);
    for (int k = 1; k <= 3; k++) check_rate("lm sentences of k clauses", by_clauses[k], sentences, 1.0 / 3);
    check_rate("lm first clause adverb first", adv, first, 0.25);
    check_rate("lm later clause subordinate", sub, later, 0.5);
    check_rate("lm noun phrase with an adjective", adj, nps, 1.0 / 3);
    CHECK(same == 0, "%ld clauses with the subject as object", same);
    free(t);
    free(ids);
    // The first tokens of seed 5, byte for byte; the stream is cut to exactly n tokens, so a
    // shorter one is a prefix of a longer one.
    const char *want = "the wolf pulls the duck and the wolf carries the brown queen and the tiger hates the king . "
                       "the sheep finds the strong king because the lion catches the cook and the duck watches the cook . "
                       "here the";
    char got[4096];
    CHECK(toy_lm_stream(&tlex, 5, 40, &ttgt, &ids, &n) == 0 && n == 40, "40 tokens");
    CHECK(!strcmp(joined(&ttgt, ids, n, got, sizeof got), want), "seed 5:\n  got  \"%s\"", got);
    int *longer, n_longer;
    CHECK(toy_lm_stream(&tlex, 5, 1000, &ttgt, &longer, &n_longer) == 0 && !memcmp(ids, longer, sizeof(int) * 40),
          "the 40-token stream is not the start of the 1000-token one");
    free(ids);
    free(longer);
}

// ================================================================ order (§5.3)

// Nouns and verbs of a five-word sentence `the N1 V the N2`.
static void order_words(const Example *e, int *a, int *v, int *b) {
    int base = vocab_id(&ovocab, olex.nouns[0]), vbase = vocab_id(&ovocab, olex.verbs[0]);
    *a = e->src[1] - base;
    *v = e->src[2] - vbase;
    *b = e->src[4] - base;
}

// Groups are shuffled with the seed and dealt to test, val, train: over 300 seeds of a test
// split of 300 groups (of the 910), every group is in it 300 / 910 of the time, each noun is in
// 2 / n of its groups (a group is 2 of the n nouns) and each verb in 1 / n_verbs.
static void test_order_spec(void) {
    int n_groups = order_n_groups(&olex), nn = olex.n_nouns, per_seed = 300, seeds = 300;
    long noun_in[64] = {0}, verb_in[64] = {0}, groups = 0;
    long *group_in = calloc((size_t)nn * nn * olex.n_verbs, sizeof(long));
    char err[256] = "";
    for (int seed = 1; seed <= seeds; seed++) {
        Split tr, va, te;
        CHECK(order_generate(&olex, &ovocab, (uint64_t)seed, 0, 0, 2 * per_seed, &tr, &va, &te, err, sizeof err) == 0, "%s", err);
        for (int i = 0; i + 1 < te.n; i += 2) {
            if (te.ex[i].n_clauses != ORDER_FORM_FULL) continue;
            int a, v, b;
            order_words(&te.ex[i], &a, &v, &b);
            noun_in[a]++, noun_in[b]++, verb_in[v]++, groups++;
            group_in[((long)(a < b ? a : b) * nn + (a < b ? b : a)) * olex.n_verbs + v]++;
        }
        split_free(&tr); split_free(&va); split_free(&te);
    }
    char name[96];
    long off = 0, worst = 0;
    for (int a = 0; a < nn; a++)
        for (int b = a + 1; b < nn; b++)
            for (int v = 0; v < olex.n_verbs; v++) {
                long c = group_in[((long)a * nn + b) * olex.n_verbs + v];
                double p = (double)per_seed / n_groups, sd = sqrt(seeds * p * (1 - p));
                if (fabs(c - seeds * p) > 5 * sd) {
                    off++;
                    if (!worst) snprintf(name, sizeof name, "%s %s %s", olex.nouns[a], olex.verbs[v], olex.nouns[b]);
                    worst = c;
                }
            }
    CHECK(off == 0, "%ld groups reach the test split at a rate off 300/910 by 5 sd (e.g. '%s' %ld of %d seeds)", off,
          off ? name : "", worst, seeds);
    free(group_in);
    for (int k = 0; k < nn; k++) {
        snprintf(name, sizeof name, "test groups holding %s", olex.nouns[k]);
        check_rate(name, noun_in[k], groups, 2.0 / nn);
    }
    check_uniform("test group verb", verb_in, olex.n_verbs, groups);
    // Every group once when the splits ask for all of them.
    Split tr, va, te;
    CHECK(order_generate(&olex, &ovocab, 5, 2 * n_groups, 100, 100, &tr, &va, &te, err, sizeof err) == 0, "%s", err);
    char *seen = calloc((size_t)olex.n_nouns * olex.n_nouns * olex.n_verbs, 1);
    long twice = 0, total = 0;
    const Split *sp[3] = {&tr, &va, &te};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < sp[k]->n; i += 2) {
            if (sp[k]->ex[i].n_clauses != ORDER_FORM_FULL) continue;
            int a, v, b;
            order_words(&sp[k]->ex[i], &a, &v, &b);
            if (a > b) { int x = a; a = b; b = x; }
            twice += seen[((long)a * olex.n_nouns + b) * olex.n_verbs + v]++ > 0;
            total++;
        }
    CHECK(twice == 0 && total == n_groups, "%ld groups dealt, %ld twice; %d exist", total, twice, n_groups);
    free(seen);
    split_free(&tr); split_free(&va); split_free(&te);
}

// Seed 1, two sentences a split: the first of each split, byte for byte (test: its five-word
// group, then the three-word forms).
static void test_order_pinned(void) {
    static const char *want[6] = {"the dog hears the farmer", "the farmer hears the dog", "dog hears farmer",
                                        "farmer hears dog", "the woman sees the lion", "the cat watches the horse"};
    static const int label[6] = {0, 9, 0, 9, 3, 2};   // the subject: dog, farmer, woman, cat
    Split tr, va, te;
    char err[256] = "", got[256];
    CHECK(order_generate(&olex, &ovocab, 1, 2, 2, 2, &tr, &va, &te, err, sizeof err) == 0, "%s", err);
    CHECK(tr.n == 2 && va.n == 2 && te.n == 4, "sizes %d %d %d", tr.n, va.n, te.n);
    const Example *ex[6] = {&te.ex[0], &te.ex[1], &te.ex[2], &te.ex[3], &va.ex[0], &tr.ex[0]};
    for (int i = 0; i < 6; i++) {
        joined(&ovocab, ex[i]->src, ex[i]->n_src, got, sizeof got);
        CHECK(!strcmp(got, want[i]) && ex[i]->label == label[i], "example %d: got \"%s\" (label %d)", i, got,
              ex[i]->label);
    }
    split_free(&tr); split_free(&va); split_free(&te);
}

// ================================================================ algorithmic (§5.8)

// Lengths uniform in min..max, every symbol uniform in the alphabet, at every position.
static void test_algorithmic_spec(void) {
    Split s;
    CHECK(algo_generate(ALGO_COPY, 10, 31, 20000, 1, 16, &s) == 0, "generate");
    long by_len[17] = {0}, first[10] = {0}, all[10] = {0}, symbols = 0;
    for (int i = 0; i < s.n; i++) {
        const Example *e = &s.ex[i];
        by_len[e->n_src]++;
        first[e->src[0] - ALGO_SYMBOL_ID(0)]++;
        for (int j = 0; j < e->n_src; j++) all[e->src[j] - ALGO_SYMBOL_ID(0)]++, symbols++;
    }
    check_uniform("input length", by_len + 1, 16, s.n);
    check_uniform("first symbol", first, 10, s.n);
    check_uniform("symbol", all, 10, symbols);
    split_free(&s);
    // Lengths 17..64 (a range that does not start at 1): uniform too.
    CHECK(algo_generate(ALGO_DUPLICATE, 10, 33, 20000, 17, 64, &s) == 0, "generate 17..64");
    long by_len48[48] = {0};
    for (int i = 0; i < s.n; i++) by_len48[s.ex[i].n_src - 17]++;
    check_uniform("input length in 17..64", by_len48, 48, s.n);
    split_free(&s);
    // A binary alphabet at one length (a length set): half zeros at each of the 8 positions.
    CHECK(algo_generate(ALGO_SORT, 2, 32, 4000, 8, 8, &s) == 0, "generate binary");
    for (int j = 0; j < 8; j++) {
        long zeros = 0;
        for (int i = 0; i < s.n; i++) zeros += s.ex[i].src[j] == ALGO_SYMBOL_ID(0);
        check_rate("binary symbol 0 at a position", zeros, s.n, 0.5);
    }
    split_free(&s);
}

static void test_algorithmic_pinned(void) {
    static const char *want[3][2] = {{"6 9 4", "4 9 6"}, {"7 1 4", "4 1 7"}, {"3 4 0 7 2 1", "1 2 7 0 4 3"}};
    Vocab v;
    Split s;
    CHECK(algo_build_vocab(10, &v) == 0 && algo_generate(ALGO_REVERSE, 10, 7, 3, 1, 16, &s) == 0, "generate");
    char in[256], out[256];
    for (int i = 0; i < 3 && i < s.n; i++) {
        joined(&v, s.ex[i].src, s.ex[i].n_src, in, sizeof in);
        joined(&v, s.ex[i].tgt, s.ex[i].n_tgt, out, sizeof out);
        CHECK(!strcmp(in, want[i][0]) && !strcmp(out, want[i][1]), "example %d:\n  got  {\"%s\", \"%s\"}", i, in, out);
    }
    split_free(&s);
    vocab_free(&v);
}

// ================================================================ BPE learning (§5.5)

static void side_of(PtSide *s, const char *line) {
    long replaced = 0;
    memset(s, 0, sizeof *s);
    pt_add_line(s, line, strlen(line), 0, &replaced);
}

static const char *merge_at(const Bpe *b, int r, char *buf, size_t n) {
    snprintf(buf, n, "%s %s", b->sym.str[b->left[r]], b->sym.str[b->right[r]]);
    return buf;
}

static void expect_merges(const Bpe *b, const char *const *want, int n_want, const char *what) {
    char got[256];
    CHECK(b->n_merges == n_want, "%s: %d merges, want %d", what, b->n_merges, n_want);
    for (int r = 0; r < b->n_merges && r < n_want; r++)
        CHECK(!strcmp(merge_at(b, r, got, sizeof got), want[r]), "%s: merge %d is '%s', want '%s'", what, r, got, want[r]);
}

// Words (count): mn (4), ba (3), bc (3), dab (2), eeee (1), fg (1). Symbols, '</w>' marking the
// last one, and the pair counts weighted by the words' counts:
//   m n</w> 4;  b a</w> 3;  b c</w> 3;  d a 2;  a b</w> 2;  e e 2 (eeee: e e e e</w> holds the
//   pair twice, overlapping, as subword-nmt counts it too);  e e</w> 1;  f g</w> 1.
// Merges, the most frequent pair first, ties to the pair whose symbols come first in byte
// order (left symbol, then right), while a pair occurs at least twice:
//   1. m n</w> (4)
//   2. b a</w> (3, tie with b c</w>: same left symbol, a</w> < c</w>)
//   3. b c</w> (3)
//   4. a b</w> (2, tie with d a and e e: a < d < e); dab is now d ab</w>
//   5. d ab</w> (2, tie with e e: d < e)
//   6. e e (2): eeee is ee e e</w>, whose pairs occur once each; f g</w> occurs once: stop.
// subword-nmt's learn_bpe.py applies the same counts and the same minimum frequency (2) but
// breaks ties the other way (the largest pair), so on this corpus it learns m n</w>, b c</w>,
// b a</w>, e e, d a, da b</w>: the same words end up whole, through other merges.
static void test_bpe_hand_worked(void) {
    PtSide s;
    side_of(&s, "ba mn dab eeee bc mn ba fg bc mn dab ba mn bc");
    Bpe b;
    CHECK(bpe_learn(&s, 1000, &b) == 0, "learn");
    static const char *want[] = {"m n</w>", "b a</w>", "b c</w>", "a b</w>", "d ab</w>", "e e"};
    expect_merges(&b, want, 6, "until no pair occurs twice");
    char buf[256];
    const char *toks[16];
    int k = bpe_segment_word(&b, "eeee", buf, toks);
    CHECK(k == 3 && !strcmp(toks[0], "ee@@") && !strcmp(toks[1], "e@@") && !strcmp(toks[2], "e"),
          "eeee -> %d tokens", k);
    k = bpe_segment_word(&b, "dab", buf, toks);
    CHECK(k == 1 && !strcmp(toks[0], "dab"), "dab -> %d tokens", k);
    bpe_free(&b);
    CHECK(bpe_learn(&s, 4, &b) == 0, "learn 4");
    expect_merges(&b, want, 4, "4 merges asked for");
    bpe_free(&b);
    pt_side_free(&s);
}

// Words of up to BPE_MAX_WORD = 64 characters are learned from, longer ones are not: "pq" x 32
// (64 characters, once) has p q 31 times and q p 31 times (and p q</w> once); "rs" x 32 + "r"
// (65 characters, three times) would give r s 96 times. One merge: p q (tie with q p: p < q).
static void test_bpe_word_length_limit(void) {
    char line[512] = "", w64[70] = "", w65[70] = "";
    for (int i = 0; i < 32; i++) strcat(w64, "pq"), strcat(w65, "rs");
    strcat(w65, "r");
    snprintf(line, sizeof line, "%s %s %s %s", w65, w64, w65, w65);
    PtSide s;
    side_of(&s, line);
    Bpe b;
    CHECK(bpe_learn(&s, 1, &b) == 0, "learn");
    static const char *want[] = {"p q"};
    expect_merges(&b, want, 1, "64 and 65 characters");
    bpe_free(&b);
    pt_side_free(&s);
}

int main(void) {
    char err[256] = "";
    if (toy_load_lexicon("data/toy_lexicon.txt", &tlex, err, sizeof err) || toy_build_vocabs(&tlex, &tsrc, &ttgt) ||
        order_load_lexicon("data/order_lexicon.txt", &olex, err, sizeof err) || order_build_vocab(&olex, &ovocab)) {
        printf("FAIL lexicons: %s (run from the repository root)\n", err);
        return 1;
    }
    RUN(test_toy_translate_spec);
    RUN(test_toy_length_sets_spec);
    RUN(test_toy_translate_pinned);
    RUN(test_lm_text_spec);
    RUN(test_order_spec);
    RUN(test_order_pinned);
    RUN(test_algorithmic_spec);
    RUN(test_algorithmic_pinned);
    RUN(test_bpe_hand_worked);
    RUN(test_bpe_word_length_limit);
    toy_lexicon_free(&tlex);
    vocab_free(&tsrc);
    vocab_free(&ttgt);
    order_lexicon_free(&olex);
    vocab_free(&ovocab);
    return check_summary();
}
