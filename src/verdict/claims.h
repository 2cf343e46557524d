// The claims as data: data/claims.csv holds one line per compared row (which claim, which two
// arms, how they are compared), data/remedies.csv one line per claim key (the paragraph that
// introduces it in verdicts.md and its line in summary.md). No claim is written in code.
//
//   Claims c;
//   if (claims_read("data/claims.csv", &c, err, sizeof err)) { puts(err); ... }
//   for (int i = 0; i < c.n; i++) use(&c.rows[i]);
//   claims_free(&c);
//
// Every field is checked on reading: a bad value is reported as `file:line: what is wrong`.
// An arm selects rows of a results CSV (verdict/select.h); the gate names the in-distribution
// setting, put into both arms' selections (a one-sample B has no gate).
#ifndef VERDICT_CLAIMS_H
#define VERDICT_CLAIMS_H

#include "io/csv.h"

typedef enum { PAIRING_PAIRED, PAIRING_UNPAIRED, PAIRING_ONE_SAMPLE } Pairing;
typedef enum { QUOTE_NONE, QUOTE_HEADLINE, QUOTE_SECOND } Quote;

typedef struct {
    const char *label;    // what the row calls it ("rope, rope_base=40000")
    const char *file;     // results CSV, relative to the root ("" for a one-sample target)
    const char *select;   // "col=v1|v2;col=v" (verdict/select.h); the target for one-sample
} Arm;

typedef struct {
    int line;             // line of data/claims.csv, for messages
    const char *key, *paper, *claim, *model, *task, *steps, *evaluation, *metric, *gate, *note;
    int direction;        // +1: the claim expects A > B, -1: A < B, 0: any difference
    Pairing pairing;
    Quote quote;          // the row verdicts.md's summary quotes for its key
    double target;        // one-sample: B's fixed value
    Arm a, b;
} Claim;

typedef struct {
    int line;
    const char *key, *remedy, *paper, *claim, *setting, *note, *intro;
    int glance;           // place in summary.md (1, 2, ...), 0: not there
    const char *replaced_by;  // the key of the study that answers this one, or NULL / "":
                              // its rows leave the verdicts for verdicts.md's list of them
} Remedy;

typedef struct {
    CsvTable table;       // owns the text every pointer above points into
    int n;
    Claim *rows;
} Claims;

typedef struct {
    CsvTable table;
    int n;
    Remedy *rows;
} Remedies;

int claims_read(const char *path, Claims *c, char *err, int errlen);
void claims_free(Claims *c);
// The column replaced_by is optional; a successor must be another key of the file that is
// not itself replaced, and a replaced key has no glance place.
int remedies_read(const char *path, Remedies *r, char *err, int errlen);
void remedies_free(Remedies *r);
// The remedy of `key`, or NULL.
const Remedy *remedy_find(const Remedies *r, const char *key);
// The successor of key when the remedies file replaces it, else NULL.
const char *remedy_successor(const Remedies *r, const char *key);
int metric_is_percent(const char *metric);   // exact_match, token_acc: shown in %
#endif
