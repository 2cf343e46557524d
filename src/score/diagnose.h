// Where a translator goes wrong, position by position (./eval --positions FILE,
// docs/design.md §4.4): token accuracy under teacher forcing by target position and by clause,
// and for greedy decoding the position and clause where each output first departs from its
// reference, and whether that departure is an early end (<eos>, or the task's end-of-sentence
// token, "." in toy_translate).
//
// A Diagnosis collects counts over the examples of one test set; evaluate_diagnose
// (score/evaluate.h) fills it batch by batch, diagnosis_write prints its rows.
#ifndef RUN_DIAGNOSE_H
#define RUN_DIAGNOSE_H
#include <stdio.h>

typedef struct {
    long tokens, correct;    // teacher forcing: reference tokens at this index, argmax right
    long reached;            // greedy: outputs still equal to the
                             // reference when they reach this index
    long departs;            // greedy: outputs whose first wrong token is at this index
    long early_eos;          // ... and that token is <eos>
    long early_end;          // ... and that token is <eos> or the end token
} DiagCell;

typedef struct { DiagCell *cell; int n, cap; } DiagRows;   // cell[index], n = rows used

typedef struct {
    DiagRows by_position, by_clause;
    // an id that ends a sentence besides <eos> ("." in toy_translate), or -1
    int end_token;
} Diagnosis;

void diagnosis_init(Diagnosis *d, int end_token);
void diagnosis_free(Diagnosis *d);
// One reference row of T entries (tokens, <eos> when trained with it, <pad>), the clause of
// each entry (task_target_clauses; -1 for <pad>) and right[t] = the teacher-forced argmax at t
// equals ref[t]. 0, or -1 if out of memory.
int  diagnosis_add_teacher(Diagnosis *d, const int *ref, const int *clause, const int *right,
                           int T);
// One greedy output hyp against its reference: compared on the first n_cmp entries of ref
// (tokens, and <eos> when the decoder had to find the end itself). Returns the index of the
// first departure (n_cmp when the output is right), or -1 if out of memory.
int  diagnosis_add_greedy(Diagnosis *d, const int *hyp, const int *ref, const int *clause,
                          int n_cmp);
// First index t < n where hyp[t] != ref[t], else n: the output is an exact match iff it is n.
int  first_departure(const int *hyp, const int *ref, int n);
// CSV rows `split,length,by,index,tokens,token_acc,reached,departures,departure_rate,
// early_eos,early_end` (by = position or clause); the header with header != 0 first.
void diagnosis_write(FILE *f, const Diagnosis *d, const char *split, int length, int header);
#endif
