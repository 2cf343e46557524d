// The `toy_translate` task (docs/design.md §5.4): seeded German -> English sentence pairs whose
// German side differs from the English only in order and morphology.
//
// Lexicon (data/toy_lexicon.txt), one entry a line, '#' comments, words lower-cased on reading:
//   noun GENDER GERMAN ENGLISH [GERMAN_ACC]   gender m|f|n; GERMAN_ACC only for (weak) masculine
//                                            nouns whose accusative differs (Junge -> Jungen)
//   verb GERMAN_3SG ENGLISH_3SG               transitive verb with an accusative object
//   adj  GERMAN_STEM ENGLISH                  weak declension after the definite article:
//                                            stem+"e" (all nominatives, f/n accusative),
//                                            stem+"en" (masculine accusative); a stem ending in
//                                            "e" adds "" / "n" (müde, müden)
//   adv  GERMAN ENGLISH                       fronted adverb
//   sub  GERMAN ENGLISH                       subordinator
// At least 2 nouns and 1 verb; adjectives, adverbs, subordinators are optional (a clause kind
// whose words are missing is never generated). German words of one kind must be unique.
//
// Grammar. A noun phrase is article + optional adjective + noun; German articles are
// der/die/das (nominative), den/die/das (accusative). A clause is one of
//   TOY_SVO    der Hund beißt den Mann            the dog bites the man
//   TOY_ADV    heute beißt der Hund den Mann      today the dog bites the man      (verb second)
//   TOY_TOPIC  den Mann beißt der Hund            the dog bites the man  (object must be
//                                                                        masculine, so its
//                                                                        case is visible)
//   TOY_SUB    weil die Katze den Vogel sieht     because the cat sees the bird    (verb final)
// A sentence is a main clause followed by clauses joined with ", und" (-> "and") for a main
// clause or ", SUB" (-> "SUB", no comma in English) for a subordinate clause, and ends with "."
// on both sides. Tokens are lower-cased words and "," / "." as separate tokens.
//
// Length. Each clause adds at most TOY_MAX_CLAUSE_TOKENS tokens on either side (German 10:
// ", und heute beißt der große Hund den kleinen Mann"; English 9), so a sentence of k clauses
// has at most 10k - 1 tokens (German) and 9k (English) counting the final "." — with 1..3
// clauses at most 29 and 27, within 31 (+ <eos> = 32 = the learned table's max_len).
// Any number of clauses 1..TOY_MAX_CLAUSES is supported.
#ifndef TOY_TRANSLATE_H
#define TOY_TRANSLATE_H
#include <stdint.h>
#include "data/dataset.h"
#include "data/vocab.h"

#define TOY_MAX_CLAUSES 64
#define TOY_MAX_CLAUSE_TOKENS 10
// Upper bound on the tokens of a k-clause sentence on either side (incl. the final ".").
#define TOY_MAX_TOKENS(k) (TOY_MAX_CLAUSE_TOKENS * (k) + 1)

typedef struct { char *de, *de_acc, *en; char gender; } ToyNoun;   // gender 'm' 'f' 'n'
typedef struct { char *de_e, *de_en, *en; } ToyAdj;                 // große, großen, big
typedef struct { char *de, *en; } ToyWord;                          // verbs, adverbs, subordinators

typedef struct {
    ToyNoun *nouns; int n_nouns;
    ToyWord *verbs; int n_verbs;
    ToyAdj  *adjs;  int n_adjs;
    ToyWord *advs;  int n_advs;
    ToyWord *subs;  int n_subs;
    int *masc; int n_masc;      // indices of the masculine nouns (topicalisation objects)
} ToyLexicon;

// Reads and checks a lexicon; -1 with `file:line: message` on error (lex left empty).
int  toy_load_lexicon(const char *path, ToyLexicon *lex, char *err, int errlen);
void toy_lexicon_free(ToyLexicon *lex);

// Closed vocabularies from the lexicon (deterministic order; no <cls>): every token any
// generated sentence can hold, so no <unk> ever appears at any length.
//   source: specials , . und der den die das, nouns (nom, acc), verbs, adjectives (-e, -en),
//           adverbs, subordinators
//   target: specials . and the, nouns, verbs, adjectives, adverbs, subordinators
int  toy_build_vocabs(const ToyLexicon *lex, Vocab *src_vocab, Vocab *tgt_vocab);

// n examples with a number of clauses drawn uniformly from [min_clauses, max_clauses]
// (1 <= min <= max <= TOY_MAX_CLAUSES), recorded in Example.n_clauses. Deterministic for a
// seed; example i depends only on the seed and the examples before it (so a longer set
// extends a shorter one). label = twin = -1. -1 on bad arguments or out of memory.
int  toy_generate(const ToyLexicon *lex, uint64_t seed, int n, int min_clauses, int max_clauses,
                  const Vocab *src_vocab, const Vocab *tgt_vocab, Split *out);

// Clause index (0, 1, ...) of each token of an English target ids[0..n-1] made by the
// generator: a clause after the first begins with "and" or with a subordinator's English
// word (because, while, ...), so clause[t] counts those tokens in ids[0..t]; the final "."
// belongs to the last clause. Exact as long as no subordinator's English word is also another
// English word of the lexicon (true of data/toy_lexicon.txt).
void toy_target_clauses(const ToyLexicon *lex, const Vocab *tgt_vocab, const int *ids, int n,
                        int *clause);

// English-only continuous text for the language-model task: sentences of 1..3 clauses from
// the generator, concatenated (each ends with "."), cut to exactly n_tokens ids in *ids
// (caller frees). Deterministic for a seed. -1 on bad arguments or out of memory.
int  toy_lm_stream(const ToyLexicon *lex, uint64_t seed, int n_tokens, const Vocab *tgt_vocab,
                   int **ids, int *n);

// ---- Rendering fixed choices (used by the generator; exposed for tests and tools) ----
typedef enum { TOY_SVO, TOY_ADV, TOY_TOPIC, TOY_SUB } ToyClauseKind;

typedef struct {
    ToyClauseKind kind;
    int subj, subj_adj;     // noun index; adjective index or -1
    int verb;
    int obj, obj_adj;
    int word;               // TOY_ADV: adverb index; TOY_SUB: subordinator index; else unused
} ToyClause;

// Renders a sentence of n clauses into token strings (pointers into the lexicon or string
// constants), at most `cap` per side. The first clause must be a main clause; TOY_TOPIC needs
// a masculine object. Returns 0, or -1 if a choice is invalid or cap is too small.
int  toy_render(const ToyLexicon *lex, const ToyClause *clauses, int n,
                const char **de, int *n_de, const char **en, int *n_en, int cap);
#endif
