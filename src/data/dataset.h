// Examples and splits: what every task produces and the batcher consumes.
//
// Token ids are stored WITHOUT specials (no <bos>/<eos>/<cls>); the batcher adds them.
//   src, n_src   source tokens (translator source, classifier input)
//   tgt, n_tgt   target tokens (translator only; NULL / 0 for the classifier)
//   label        classifier class (order: index of the subject noun); -1 when unused
//   twin         order: index of the swapped twin in the same split; -1 when none
//   n_clauses    toy_translate: number of clauses (the length knob, 1..N).
//                order: the sentence form = its number of words:
//                  ORDER_FORM_FULL (5) `the N1 V the N2`, ORDER_FORM_SHORT (3) `N1 V N2`,
//                so an evaluator that groups rows by n_clauses reports the forms separately.
//                parallel_text: 0.
#ifndef DATASET_H
#define DATASET_H

typedef struct {
    int *src; int n_src;
    int *tgt; int n_tgt;
    int label;
    int twin;
    int n_clauses;
} Example;

typedef struct { Example *ex; int n; } Split;

// Frees every example's arrays and the example array; leaves an empty split.
void split_free(Split *s);
// Longest source and target (without specials) in the split; either pointer may be NULL.
void split_max_lengths(const Split *s, int *max_src, int *max_tgt);
// Copies n ids into a new array (NULL when n == 0); -1 if out of memory.
int  ids_dup(const int *ids, int n, int **out);
#endif
