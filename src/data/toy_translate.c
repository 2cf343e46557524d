// The toy German -> English generator, see toy_translate.h.
#include "data/toy_translate.h"
#include "core/rng.h"
#include "data/lines.h"
#include "data/text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOY_MAX_WORD 64
#define TOY_MAX_ENTRIES 100000

// ---------------------------------------------------------------- lexicon

void toy_lexicon_free(ToyLexicon *lex) {
    for (int i = 0; i < lex->n_nouns; i++) {
        free(lex->nouns[i].de); free(lex->nouns[i].de_acc); free(lex->nouns[i].en);
    }
    for (int i = 0; i < lex->n_adjs; i++) {
        free(lex->adjs[i].de_e); free(lex->adjs[i].de_en); free(lex->adjs[i].en);
    }
    ToyWord *lists[3] = { lex->verbs, lex->advs, lex->subs };
    int counts[3] = { lex->n_verbs, lex->n_advs, lex->n_subs };
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < counts[l]; i++) { free(lists[l][i].de); free(lists[l][i].en); }
    free(lex->nouns); free(lex->adjs); free(lex->verbs); free(lex->advs); free(lex->subs);
    free(lex->masc);
    memset(lex, 0, sizeof *lex);
}

// Grows *arr (of elem-sized items) to hold n + 1 items; returns the new slot or NULL.
static void *grow(void *arr_ptr, int n, size_t elem) {
    void **arr = arr_ptr;
    void *a = realloc(*arr, elem * (size_t)(n + 1));
    if (!a) return NULL;
    *arr = a;
    return (char *)a + elem * (size_t)n;
}

static char *concat(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) { memcpy(s, a, la); memcpy(s + la, b, lb + 1); }
    return s;
}

typedef struct {
    const char *path;
    long line;
    char *err; int errlen;
    Vocab seen;          // "kind:german" keys, to catch duplicates
    int *seen_line;
} LexReader;

static int bad(LexReader *r, const char *what, const char *word) {
    return errorf(r->err, r->errlen, "%s:%ld: %s%s%.40s%s", r->path, r->line, what,
                    word ? " '" : "", word ? word : "", word ? "'" : "");
}

// Lower-cases and checks one word field.
static int check_word(LexReader *r, char *w) {
    text_lower(w);
    if (strlen(w) > TOY_MAX_WORD) return bad(r, "word longer than 64 bytes:", w);
    if (!text_is_word(w)) return bad(r, "not a word (letters only):", w);
    return 0;
}

// Records kind:de; -1 with a message if it was seen before.
static int check_unique(LexReader *r, const char *kind, const char *de) {
    char key[TOY_MAX_WORD + 16];
    snprintf(key, sizeof key, "%s:%s", kind, de);
    int id = vocab_find(&r->seen, key);
    if (id >= 0)
        return errorf(r->err, r->errlen, "%s:%ld: duplicate %s '%s' (first on line %d)",
                        r->path, r->line, kind, de, r->seen_line[id]);
    id = vocab_add(&r->seen, key);
    int *sl = id >= 0 ? realloc(r->seen_line, sizeof(int) * (size_t)(id + 1)) : NULL;
    if (!sl) return bad(r, "out of memory", NULL);
    r->seen_line = sl;
    sl[id] = (int)r->line;
    return 0;
}

static int add_noun(LexReader *r, ToyLexicon *lex, char **f, int nf) {
    if (nf != 4 && nf != 5)
        return bad(r, "expected `noun GENDER GERMAN ENGLISH [GERMAN_ACC]`", NULL);
    if (strlen(f[1]) != 1 || !strchr("mfn", f[1][0]))
        return bad(r, "gender must be m, f or n, found", f[1]);
    for (int i = 2; i < nf; i++) if (check_word(r, f[i])) return -1;
    if (nf == 5 && f[1][0] != 'm')
        return bad(r, "only masculine nouns have a different accusative form:", f[2]);
    if (check_unique(r, "noun", f[2])) return -1;
    if (f[1][0] == 'm') {
        int *m = grow(&lex->masc, lex->n_masc, sizeof(int));
        if (!m) return bad(r, "out of memory", NULL);
        *m = lex->n_nouns;
        lex->n_masc++;
    }
    ToyNoun *n = grow(&lex->nouns, lex->n_nouns, sizeof(ToyNoun));
    if (!n) return bad(r, "out of memory", NULL);
    lex->n_nouns++;
    n->gender = f[1][0];
    n->de = strdup(f[2]);
    n->en = strdup(f[3]);
    n->de_acc = strdup(nf == 5 ? f[4] : f[2]);
    if (!n->de || !n->en || !n->de_acc) return bad(r, "out of memory", NULL);
    return 0;
}

static int add_adj(LexReader *r, ToyLexicon *lex, char **f, int nf) {
    if (nf != 3) return bad(r, "expected `adj GERMAN_STEM ENGLISH`", NULL);
    if (check_word(r, f[1]) || check_word(r, f[2]) || check_unique(r, "adj", f[1])) return -1;
    ToyAdj *a = grow(&lex->adjs, lex->n_adjs, sizeof(ToyAdj));
    if (!a) return bad(r, "out of memory", NULL);
    lex->n_adjs++;
    size_t len = strlen(f[1]);
    int ends_in_e = f[1][len - 1] == 'e';     // müde -> müde / müden
    a->de_e = concat(f[1], ends_in_e ? "" : "e");
    a->de_en = concat(f[1], ends_in_e ? "n" : "en");
    a->en = strdup(f[2]);
    if (!a->de_e || !a->de_en || !a->en) return bad(r, "out of memory", NULL);
    return 0;
}

static int add_word(LexReader *r, ToyWord **list, int *count, char **f, int nf) {
    if (nf != 3) {
        char msg[64];
        snprintf(msg, sizeof msg, "expected `%s GERMAN ENGLISH`", f[0]);
        return bad(r, msg, NULL);
    }
    if (check_word(r, f[1]) || check_word(r, f[2]) || check_unique(r, f[0], f[1])) return -1;
    ToyWord *w = grow(list, *count, sizeof(ToyWord));
    if (!w) return bad(r, "out of memory", NULL);
    (*count)++;
    w->de = strdup(f[1]);
    w->en = strdup(f[2]);
    if (!w->de || !w->en) return bad(r, "out of memory", NULL);
    return 0;
}

static int parse_line(LexReader *r, ToyLexicon *lex, char *line) {
    char *f[8];
    int nf = line_fields(line, f, 8);
    if (nf == 0) return 0;
    if (nf > 8) return bad(r, "too many fields", NULL);
    if (strcmp(f[0], "noun") == 0) return add_noun(r, lex, f, nf);
    if (strcmp(f[0], "verb") == 0) return add_word(r, &lex->verbs, &lex->n_verbs, f, nf);
    if (strcmp(f[0], "adj") == 0) return add_adj(r, lex, f, nf);
    if (strcmp(f[0], "adv") == 0) return add_word(r, &lex->advs, &lex->n_advs, f, nf);
    if (strcmp(f[0], "sub") == 0) return add_word(r, &lex->subs, &lex->n_subs, f, nf);
    return bad(r, "unknown entry (expected noun, verb, adj, adv or sub):", f[0]);
}

int toy_load_lexicon(const char *path, ToyLexicon *lex, char *err, int errlen) {
    memset(lex, 0, sizeof *lex);
    LineReader lr;
    if (line_open(&lr, path, err, errlen) != 0) return -1;
    LexReader r = { .path = path, .err = err, .errlen = errlen };
    int rc = vocab_init(&r.seen, 0) == 0 ? 0 : errorf(err, errlen, "out of memory");
    char *line;
    long len;
    int entries = 0;
    while (rc == 0 && (len = line_next(&lr, &line)) >= 0) {
        r.line = lr.line_no;
        if (++entries > TOY_MAX_ENTRIES)
            rc = bad(&r, "lexicon too large (over 100000 lines)", NULL);
        else rc = parse_line(&r, lex, line);
    }
    if (rc == 0) rc = line_failed(&lr, err, errlen);
    if (rc == 0 && (lex->n_nouns < 2 || lex->n_verbs < 1))
        rc =
            errorf(err, errlen, "%s: need at least 2 nouns and 1 verb, found %d nouns and %d verbs",
                   path, lex->n_nouns, lex->n_verbs);
    line_close(&lr);
    vocab_free(&r.seen);
    free(r.seen_line);
    if (rc != 0) toy_lexicon_free(lex);
    return rc;
}

// ---------------------------------------------------------------- vocabularies

int toy_build_vocabs(const ToyLexicon *lex, Vocab *sv, Vocab *tv) {
    if (vocab_init(sv, 0) != 0) return -1;
    if (vocab_init(tv, 0) != 0) { vocab_free(sv); return -1; }
    static const char *src_fixed[] = { ",", ".", "und", "der", "den", "die", "das" };
    static const char *tgt_fixed[] = { ".", "and", "the" };
    int ok = 1;
    for (int i = 0; i < 7; i++) ok &= vocab_add(sv, src_fixed[i]) >= 0;
    for (int i = 0; i < 3; i++) ok &= vocab_add(tv, tgt_fixed[i]) >= 0;
    for (int i = 0; i < lex->n_nouns; i++) {
        ok &= vocab_add(sv, lex->nouns[i].de) >= 0 && vocab_add(sv, lex->nouns[i].de_acc) >= 0;
        ok &= vocab_add(tv, lex->nouns[i].en) >= 0;
    }
    for (int i = 0; i < lex->n_verbs; i++)
        ok &= vocab_add(sv, lex->verbs[i].de) >= 0 && vocab_add(tv, lex->verbs[i].en) >= 0;
    for (int i = 0; i < lex->n_adjs; i++) {
        ok &= vocab_add(sv, lex->adjs[i].de_e) >= 0 && vocab_add(sv, lex->adjs[i].de_en) >= 0;
        ok &= vocab_add(tv, lex->adjs[i].en) >= 0;
    }
    for (int i = 0; i < lex->n_advs; i++)
        ok &= vocab_add(sv, lex->advs[i].de) >= 0 && vocab_add(tv, lex->advs[i].en) >= 0;
    for (int i = 0; i < lex->n_subs; i++)
        ok &= vocab_add(sv, lex->subs[i].de) >= 0 && vocab_add(tv, lex->subs[i].en) >= 0;
    if (!ok) { vocab_free(sv); vocab_free(tv); return -1; }
    return 0;
}

// ---------------------------------------------------------------- rendering

typedef struct { const char **tok; int n, cap, overflow; } Toks;

static void put(Toks *t, const char *s) {
    if (t->n < t->cap) t->tok[t->n++] = s;
    else t->overflow = 1;
}

static const char *article(char gender, int accusative) {
    switch (gender) {
    case 'm': return accusative ? "den" : "der";
    case 'f': return "die";
    default:  return "das";
    }
}

// German noun phrase: article, weak adjective, noun in the case's form.
static void np_de(Toks *t, const ToyLexicon *lex, int noun, int adj, int accusative) {
    const ToyNoun *n = &lex->nouns[noun];
    put(t, article(n->gender, accusative));
    if (adj >= 0) {
        int en_ending = accusative && n->gender == 'm';   // den großen Hund, but die große Katze
        put(t, en_ending ? lex->adjs[adj].de_en : lex->adjs[adj].de_e);
    }
    put(t, accusative ? n->de_acc : n->de);
}

static void np_en(Toks *t, const ToyLexicon *lex, int noun, int adj) {
    put(t, "the");
    if (adj >= 0) put(t, lex->adjs[adj].en);
    put(t, lex->nouns[noun].en);
}

static int clause_valid(const ToyLexicon *lex, const ToyClause *c, int first) {
    if (c->subj < 0 || c->subj >= lex->n_nouns || c->obj < 0 || c->obj >= lex->n_nouns) return 0;
    if (c->verb < 0 || c->verb >= lex->n_verbs) return 0;
    if (c->subj_adj < -1 || c->subj_adj >= lex->n_adjs || c->obj_adj < -1 ||
        c->obj_adj >= lex->n_adjs)
        return 0;
    switch (c->kind) {
    case TOY_SVO: return 1;
    case TOY_ADV: return c->word >= 0 && c->word < lex->n_advs;
    case TOY_TOPIC: return lex->nouns[c->obj].gender == 'm';
    case TOY_SUB: return !first && c->word >= 0 && c->word < lex->n_subs;
    }
    return 0;
}

static void render_clause(const ToyLexicon *lex, const ToyClause *c, int first, Toks *de,
                          Toks *en) {
    const char *verb_de = lex->verbs[c->verb].de;
    if (!first) {                       // ", und ..." / ", weil ..." ; English "and" / "because"
        put(de, ",");
        if (c->kind != TOY_SUB) { put(de, "und"); put(en, "and"); }
    }
    switch (c->kind) {
    case TOY_SVO:       // der Hund beißt den Mann
        np_de(de, lex, c->subj, c->subj_adj, 0);
        put(de, verb_de);
        np_de(de, lex, c->obj, c->obj_adj, 1);
        break;
    case TOY_ADV:       // heute beißt der Hund den Mann
        put(de, lex->advs[c->word].de); put(en, lex->advs[c->word].en);
        put(de, verb_de);
        np_de(de, lex, c->subj, c->subj_adj, 0);
        np_de(de, lex, c->obj, c->obj_adj, 1);
        break;
    case TOY_TOPIC:     // den Mann beißt der Hund
        np_de(de, lex, c->obj, c->obj_adj, 1);
        put(de, verb_de);
        np_de(de, lex, c->subj, c->subj_adj, 0);
        break;
    case TOY_SUB:       // weil der Hund den Mann beißt
        put(de, lex->subs[c->word].de); put(en, lex->subs[c->word].en);
        np_de(de, lex, c->subj, c->subj_adj, 0);
        np_de(de, lex, c->obj, c->obj_adj, 1);
        put(de, verb_de);
        break;
    }
    // English is always subject - verb - object.
    np_en(en, lex, c->subj, c->subj_adj);
    put(en, lex->verbs[c->verb].en);
    np_en(en, lex, c->obj, c->obj_adj);
}

int toy_render(const ToyLexicon *lex, const ToyClause *clauses, int n,
               const char **de, int *n_de, const char **en, int *n_en, int cap) {
    *n_de = *n_en = 0;
    if (n < 1) return -1;
    for (int i = 0; i < n; i++)
        if (!clause_valid(lex, &clauses[i], i == 0)) return -1;
    Toks td = { de, 0, cap, 0 }, te = { en, 0, cap, 0 };
    for (int i = 0; i < n; i++) render_clause(lex, &clauses[i], i == 0, &td, &te);
    put(&td, ".");
    put(&te, ".");
    if (td.overflow || te.overflow) return -1;
    *n_de = td.n;
    *n_en = te.n;
    return 0;
}

// ---------------------------------------------------------------- sampling

static int pick_adj(Rng *r, const ToyLexicon *lex) {   // an adjective one time in three
    return (lex->n_adjs > 0 && rng_chance(r, 1, 3)) ? (int)rng_below(r, (uint64_t)lex->n_adjs)
                                                     : -1;
}

// Random noun other than `avoid`.
static int pick_other_noun(Rng *r, const ToyLexicon *lex, int avoid) {
    int k = (int)rng_below(r, (uint64_t)lex->n_nouns - 1);
    return k >= avoid ? k + 1 : k;
}

static ToyClause sample_clause(Rng *r, const ToyLexicon *lex, int first) {
    ToyClause c = { .kind = TOY_SVO, .word = -1 };
    if (!first && lex->n_subs > 0 && rng_chance(r, 1, 2)) {
        c.kind = TOY_SUB;
        c.word = (int)rng_below(r, (uint64_t)lex->n_subs);
    } else {
        int k = (int)rng_below(r, 4);          // main clause: SVO 1/2, ADV 1/4, TOPIC 1/4
        if (k == 2 && lex->n_advs > 0) {
            c.kind = TOY_ADV;
            c.word = (int)rng_below(r, (uint64_t)lex->n_advs);
        } else if (k == 3 && lex->n_masc > 0) {
            c.kind = TOY_TOPIC;
        }
    }
    if (c.kind == TOY_TOPIC) {                  // masculine object, so "den" shows the case
        c.obj = lex->masc[rng_below(r, (uint64_t)lex->n_masc)];
        c.subj = pick_other_noun(r, lex, c.obj);
    } else {
        c.subj = (int)rng_below(r, (uint64_t)lex->n_nouns);
        c.obj = pick_other_noun(r, lex, c.subj);
    }
    c.subj_adj = pick_adj(r, lex);
    c.obj_adj = pick_adj(r, lex);
    c.verb = (int)rng_below(r, (uint64_t)lex->n_verbs);
    return c;
}

// Samples and renders one sentence of k clauses into de/en (capacity TOY_MAX_TOKENS(k)).
static int sample_sentence(Rng *r, const ToyLexicon *lex, int k,
                           const char **de, int *n_de, const char **en, int *n_en) {
    ToyClause c[TOY_MAX_CLAUSES];
    for (int i = 0; i < k; i++) c[i] = sample_clause(r, lex, i == 0);
    return toy_render(lex, c, k, de, n_de, en, n_en, TOY_MAX_TOKENS(k));
}

static int *map_ids(const Vocab *v, const char **tok, int n) {
    int *ids = malloc(sizeof(int) * (size_t)n);
    if (ids) for (int i = 0; i < n; i++) ids[i] = vocab_id(v, tok[i]);
    return ids;
}

int toy_generate(const ToyLexicon *lex, uint64_t seed, int n, int min_clauses, int max_clauses,
                 const Vocab *sv, const Vocab *tv, Split *out) {
    memset(out, 0, sizeof *out);
    if (n < 0 || min_clauses < 1 || max_clauses < min_clauses || max_clauses > TOY_MAX_CLAUSES)
        return -1;
    out->ex = calloc((size_t)(n ? n : 1), sizeof(Example));
    if (!out->ex) return -1;
    out->n = n;
    const char *de[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)], *en[TOY_MAX_TOKENS(TOY_MAX_CLAUSES)];
    Rng r = rng_keyed(seed, 0x7047);
    for (int i = 0; i < n; i++) {
        Example *e = &out->ex[i];
        int k = min_clauses + (int)rng_below(&r, (uint64_t)(max_clauses - min_clauses + 1));
        if (sample_sentence(&r, lex, k, de, &e->n_src, en, &e->n_tgt) != 0) {
            split_free(out);
            return -1;
        }
        e->src = map_ids(sv, de, e->n_src);
        e->tgt = map_ids(tv, en, e->n_tgt);
        e->label = e->twin = -1;
        e->n_clauses = k;
        if (!e->src || !e->tgt) { split_free(out); return -1; }
    }
    return 0;
}

void toy_target_clauses(const ToyLexicon *lex, const Vocab *tv, const int *ids, int n,
                        int *clause) {
    int and_id = vocab_id(tv, "and"), c = 0;
    for (int t = 0; t < n; t++) {
        int starts = t > 0 && ids[t] == and_id;
        for (int w = 0; w < lex->n_subs && t > 0 && !starts; w++)
            starts = ids[t] == vocab_id(tv, lex->subs[w].en);
        clause[t] = c += starts;
    }
}

int toy_lm_stream(const ToyLexicon *lex, uint64_t seed, int n_tokens, const Vocab *tv,
                  int **ids, int *n) {
    *ids = NULL;
    *n = 0;
    if (n_tokens < 1) return -1;
    int *out = malloc(sizeof(int) * (size_t)n_tokens);
    if (!out) return -1;
    const char *de[TOY_MAX_TOKENS(3)], *en[TOY_MAX_TOKENS(3)];
    Rng r = rng_keyed(seed, 0x1A46);
    int have = 0;
    while (have < n_tokens) {
        int k = 1 + (int)rng_below(&r, 3), n_de, n_en;
        if (sample_sentence(&r, lex, k, de, &n_de, en, &n_en) != 0) { free(out); return -1; }
        for (int i = 0; i < n_en && have < n_tokens; i++) out[have++] = vocab_id(tv, en[i]);
    }
    *ids = out;
    *n = have;
    return 0;
}
