// CSV reader and writer; see csv.h for the accepted format.
#include "io/csv.h"
#include "core/errors.h"
#include "io/fileio.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CSV_MAX_BYTES ((size_t)1 << 32)   // results tables are small; refuse anything absurd

// Growable list of fields: one row while it is being read.
typedef struct { char **v; int n, cap; } Row;

static int row_push(Row *r, const StrBuf *b) {
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        char **v = realloc(r->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        r->v = v, r->cap = cap;
    }
    char *s = malloc(b->len + 1);
    if (!s) return -1;
    memcpy(s, b->len ? b->s : "", b->len);
    s[b->len] = '\0';
    r->v[r->n++] = s;
    return 0;
}

static void free_fields(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

void csv_free(CsvTable *t) {
    if (!t) return;
    if (t->header) free_fields(t->header, t->n_cols);
    for (int r = 0; r < t->n_rows; r++) free_fields(t->rows[r], t->n_cols);
    free(t->rows);
    free(t->line);
    memset(t, 0, sizeof *t);
}

// True when text[pos] ends a line: "\n", or "\r" followed by "\n" or the end of the text.
static int at_line_end(const char *text, size_t len, size_t pos) {
    if (text[pos] == '\n') return 1;
    return text[pos] == '\r' && (pos + 1 == len || text[pos + 1] == '\n');
}

// Reads one record starting at *pos into `row`, advancing *pos past its line end and
// *line past every newline consumed (quoted fields may span lines).
static int parse_record(const char *text, size_t len, size_t *pos, int *line, int row_line,
                        const char *name, Row *row, char *err, int errlen) {
    StrBuf b = {0};
    size_t p = *pos;
    for (;;) {
        b.len = 0;
        if (p < len && text[p] == '"') {
            p++;
            for (;;) {
                if (p >= len) {
                    errorf(err, errlen, "%s:%d: unterminated quoted field", name, row_line);
                    goto fail;
                }
                char c = text[p];
                if (c == '"' && p + 1 < len && text[p + 1] == '"') { c = '"'; p++; }
                else if (c == '"') { p++; break; }
                if (c == '\n') (*line)++;
                strbuf_append(&b, &c, 1);
                p++;
            }
            if (p < len && text[p] != ',' && !at_line_end(text, len, p)) {
                errorf(err, errlen, "%s:%d: unexpected '%c' after a closing quote "
                        "(write \"\" for a quote inside a quoted field)", name, *line, text[p]);
                goto fail;
            }
        } else {
            size_t start = p;
            while (p < len && text[p] != ',' && !at_line_end(text, len, p)) p++;
            strbuf_append(&b, text + start, p - start);
        }
        if (b.failed || row_push(row, &b)) goto oom;
        if (p < len && text[p] == ',') { p++; continue; }
        if (p < len && text[p] == '\r') p++;
        if (p < len && text[p] == '\n') { p++; (*line)++; }
        break;
    }
    strbuf_free(&b);
    *pos = p;
    return 0;
oom:
    errorf(err, errlen, "%s:%d: out of memory", name, row_line);
fail:
    strbuf_free(&b);
    return -1;
}

static int add_row(CsvTable *t, char **fields, int line_no, int *cap) {
    if (t->n_rows == *cap) {
        int c = *cap ? *cap * 2 : 64;
        char ***rows = realloc(t->rows, (size_t)c * sizeof *rows);
        if (!rows) return -1;
        t->rows = rows;
        int *lines = realloc(t->line, (size_t)c * sizeof *lines);
        if (!lines) return -1;
        t->line = lines;
        *cap = c;
    }
    t->rows[t->n_rows] = fields;
    t->line[t->n_rows] = line_no;
    t->n_rows++;
    return 0;
}

static int check_header(const CsvTable *t, char *err, int errlen) {
    for (int i = 0; i < t->n_cols; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(t->header[i], t->header[j]) == 0) {
                errorf(err, errlen, "%s:1: duplicate column name '%s'", t->name, t->header[i]);
                return -1;
            }
    return 0;
}

int csv_parse(const char *text, size_t len, const char *name, CsvTable *t, char *err, int errlen) {
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name ? name : "<csv>");
    size_t pos = 0;
    const char *nul = memchr(text, '\0', len);   // fields are C strings: a NUL would cut one
    if (nul) {
        int at = 1;
        for (const char *c = text; c < nul; c++) at += *c == '\n';
        errorf(err, errlen, "%s:%d: NUL byte (a CSV file is text)", t->name, at);
        return -1;
    }
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) pos = 3;  // UTF-8 BOM
    int line = 1, cap = 0;
    while (pos < len) {
        if (at_line_end(text, len, pos)) {  // blank line
            pos += (text[pos] == '\r' && pos + 1 < len) ? 2 : 1;
            line++;
            continue;
        }
        // a comment before the header (log.csv's init_from line)
        if (!t->header && text[pos] == '#') {
            while (pos < len && text[pos] != '\n') pos++;
            pos++;
            line++;
            continue;
        }
        int row_line = line;
        Row row = {0};
        if (parse_record(text, len, &pos, &line, row_line, t->name, &row, err, errlen)) {
            free_fields(row.v, row.n);
            csv_free(t);
            return -1;
        }
        if (!t->header) {
            t->header = row.v, t->n_cols = row.n;
            if (check_header(t, err, errlen)) { csv_free(t); return -1; }
            continue;
        }
        if (row.n != t->n_cols) {
            errorf(err, errlen, "%s:%d: row has %d field%s but the header has %d",
                    t->name, row_line, row.n, row.n == 1 ? "" : "s", t->n_cols);
            free_fields(row.v, row.n);
            csv_free(t);
            return -1;
        }
        if (add_row(t, row.v, row_line, &cap)) {
            errorf(err, errlen, "%s:%d: out of memory", t->name, row_line);
            free_fields(row.v, row.n);
            csv_free(t);
            return -1;
        }
    }
    if (!t->header) {
        errorf(err, errlen, "%s: empty file (expected a header row)", t->name);
        csv_free(t);
        return -1;
    }
    return 0;
}

int csv_read(const char *path, CsvTable *t, char *err, int errlen) {
    memset(t, 0, sizeof *t);
    size_t n;
    char *text = read_file(path, &n, CSV_MAX_BYTES, err, errlen);
    if (!text) return -1;
    int rc = csv_parse(text, n, path, t, err, errlen);
    free(text);
    return rc;
}

int csv_col(const CsvTable *t, const char *name) {
    for (int i = 0; i < t->n_cols; i++)
        if (strcmp(t->header[i], name) == 0) return i;
    return -1;
}

void csv_columns(const CsvTable *t, char *buf, int buflen) {
    if (buflen <= 0) return;
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < t->n_cols && used + 1 < (size_t)buflen; i++) {
        int k = snprintf(buf + used, (size_t)buflen - used, "%s%s", i ? ", " : "", t->header[i]);
        if (k < 0) break;
        used += (size_t)k;
    }
}

// Quotes keep what the reader would otherwise drop or change: a lone empty field (a blank
// line is skipped), a first field starting with '#' (a comment before the header) or with a
// byte-order mark (stripped at the start of a file), and edge spaces.
static int needs_quotes(const char *s, int n_fields, int i) {
    size_t n = strlen(s);
    if (n_fields == 1 && n == 0) return 1;
    if (i == 0 && (s[0] == '#' || !strncmp(s, "\xEF\xBB\xBF", 3))) return 1;
    if (n && (s[0] == ' ' || s[n - 1] == ' ')) return 1;
    return strpbrk(s, ",\"\r\n") != NULL;
}

int csv_write_row(FILE *f, int n, const char *const *fields) {
    for (int i = 0; i < n; i++) {
        const char *s = fields[i] ? fields[i] : "";
        if (i && fputc(',', f) == EOF) return -1;
        if (!needs_quotes(s, n, i)) {
            if (fputs(s, f) == EOF) return -1;
            continue;
        }
        if (fputc('"', f) == EOF) return -1;
        for (; *s; s++) {
            if (*s == '"' && fputc('"', f) == EOF) return -1;
            if (fputc(*s, f) == EOF) return -1;
        }
        if (fputc('"', f) == EOF) return -1;
    }
    return fputc('\n', f) == EOF ? -1 : 0;
}
