// Small CSV reader and writer for experiment logs (log.csv, results.csv).
//
// Format read: the first non-blank line not starting with '#' is the header (lines before it
// that start with '#' are comments, e.g. log.csv's "# init_from = ..." line); fields are separated
// by commas; a field may be wrapped in double quotes, inside which "" is a literal quote and commas
// and newlines are plain text. LF and CRLF line ends are both accepted, a UTF-8 byte-order
// mark is ignored, blank lines are skipped. Every row must have as many fields as the
// header. Problems are reported as `file:line: message` (the line where the row starts).
//
//   CsvTable t;
//   if (csv_read("runs/x/log.csv", &t, err, sizeof err) != 0) { puts(err); ... }
//   int c = csv_col(&t, "loss");            // -1 when there is no such column
//   for (int r = 0; r < t.n_rows; r++) use(t.rows[r][c]);
//   csv_free(&t);
#ifndef CSV_H
#define CSV_H
#include <stddef.h>
#include <stdio.h>

typedef struct CsvTable {
    int    n_cols;
    char **header;    // [n_cols] column names
    int    n_rows;    // data rows (header excluded)
    char ***rows;     // [n_rows][n_cols] field text, never NULL ("" for an empty field)
    int   *line;      // [n_rows] 1-based line where each row starts, for error messages
    char   name[256]; // file name used in messages
} CsvTable;

// Reads and parses a whole file. Returns 0, or -1 with `err` set (missing file, empty
// file, ragged row, unterminated quote, duplicate column name); on error `t` holds nothing
// that needs freeing.
int csv_read(const char *path, CsvTable *t, char *err, int errlen);

// Same, from text in memory; `name` is used in error messages.
int csv_parse(const char *text, size_t len, const char *name, CsvTable *t, char *err, int errlen);

void csv_free(CsvTable *t);

// Index of the column called `name`, or -1.
int csv_col(const CsvTable *t, const char *name);

// Writes the column names as "a, b, c" into buf (truncated to buflen), for messages
// such as "unknown column 'x' (columns: a, b, c)".
void csv_columns(const CsvTable *t, char *buf, int buflen);

// Writes one row of n fields and a newline, quoting a field only when it holds a comma,
// a quote, a newline or a leading/trailing space. Returns 0, or -1 on a write error.
int csv_write_row(FILE *f, int n, const char *const *fields);

#endif
