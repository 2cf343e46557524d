// libFuzzer target for the CSV reader (src/io/csv.c), which reads log.csv and the results
// tables (./plot, the stop rules of train.resume, ./eval's converged cell).
// Any bytes must give a table or a message, never a crash, leak or undefined behaviour.
// Properties checked:
//   - every failure writes a message; every row has n_cols fields and a line number;
//   - a table that parses, written back with csv_write_row, parses to the same table.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_same(const CsvTable *a, const CsvTable *b, const char *text) {
    int ok = a->n_cols == b->n_cols && a->n_rows == b->n_rows;
    for (int c = 0; ok && c < a->n_cols; c++) ok = !strcmp(a->header[c], b->header[c]);
    for (int r = 0; ok && r < a->n_rows; r++)
        for (int c = 0; ok && c < a->n_cols; c++) ok = !strcmp(a->rows[r][c], b->rows[r][c]);
    if (!ok) {
        fprintf(stderr, "round trip changed the table:\n%s\n", text);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    CsvTable t;
    char err[512] = "";
    if (csv_parse((const char *)data, size, "fuzz.csv", &t, err, sizeof err)) {
        if (!err[0]) abort();   // every failure must say why
        return 0;
    }
    char cols[256];
    csv_columns(&t, cols, sizeof cols);
    for (int c = 0; c < t.n_cols; c++)
        if (csv_col(&t, t.header[c]) != c) abort();   // names are unique
    for (int r = 0; r < t.n_rows; r++) {
        if (t.line[r] < 2) abort();
        for (int c = 0; c < t.n_cols; c++)
            if (!t.rows[r][c]) abort();
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    int rc = csv_write_row(f, t.n_cols, (const char *const *)t.header);
    for (int r = 0; r < t.n_rows && !rc; r++)
        rc = csv_write_row(f, t.n_cols, (const char *const *)t.rows[r]);
    fclose(f);
    if (rc) abort();
    CsvTable back;
    char err2[512] = "";
    if (csv_parse(text, len, "back.csv", &back, err2, sizeof err2)) {
        fprintf(stderr, "written table does not parse: %s\n%s\n", err2, text);
        abort();
    }
    check_same(&t, &back, text);
    csv_free(&back);
    free(text);
    csv_free(&t);
    return 0;
}
