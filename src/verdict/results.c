#include "verdict/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const CsvTable *results_table(Results *r, const char *file, char *err, int errlen) {
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->file[i], file)) return &r->table[i];
    if (r->n == RESULTS_MAX_FILES) {
        snprintf(err, errlen, "%s: more than %d results files", file, RESULTS_MAX_FILES);
        return NULL;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", r->root ? r->root : ".", file);
    if (csv_read(path, &r->table[r->n], err, errlen)) return NULL;
    r->file[r->n] = strdup(file);
    return &r->table[r->n++];
}

void results_free(Results *r) {
    for (int i = 0; i < r->n; i++) {
        free(r->file[i]);
        csv_free(&r->table[i]);
    }
    r->n = 0;
}
