// The results CSVs the claims read, each read once (io/csv) and kept until results_free.
// Paths are relative to `root` (the checkout), as data/claims.csv writes them.
#ifndef VERDICT_RESULTS_H
#define VERDICT_RESULTS_H

#include "io/csv.h"

#define RESULTS_MAX_FILES 64

typedef struct {
    const char *root;
    int n;
    char *file[RESULTS_MAX_FILES];
    CsvTable table[RESULTS_MAX_FILES];
} Results;

// The table of `file`, read on first use; NULL with err set (`file:line: ...` from io/csv).
const CsvTable *results_table(Results *r, const char *file, char *err, int errlen);
void results_free(Results *r);
#endif
