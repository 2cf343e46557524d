// Line reader and error helper, see lines.h.
#include "data/lines.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int line_open(LineReader *r, const char *path, char *err, int errlen) {
    memset(r, 0, sizeof *r);
    r->path = path;
    struct stat st;   // before fopen: opening a FIFO would wait for a writer
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return errorf(err, errlen, "%s: %s, not a regular file", path,
                      S_ISDIR(st.st_mode)    ? "a folder"
                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                                             : "a device or socket");
    r->f = fopen(path, "rb");
    if (!r->f) return errorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return 0;
}

static long stop(LineReader *r, const char *what) {
    snprintf(r->error, sizeof r->error, "%.200s:%ld: %s", r->path, r->line_no, what);
    return -1;
}

long line_next(LineReader *r, char **line) {
    if (r->error[0]) return -1;
    size_t n = 0;
    int ch;
    r->line_no++;
    while ((ch = getc(r->f)) != EOF && ch != '\n') {
        if (ch == '\0') return stop(r, "NUL byte in a text file (is it a binary file?)");
        if (n == LINE_MAX_BYTES)
            return stop(r, "line is longer than 4 MiB (LINE_MAX_BYTES); "
                           "is this a text file with one sentence per line?");
        if (n + 2 > r->cap) {   // the line, then room for the '\0'
            size_t cap = r->cap ? 2 * r->cap : 256;
            char *b = realloc(r->buf, cap);
            if (!b) return stop(r, "out of memory reading a line");
            r->buf = b;
            r->cap = cap;
        }
        r->buf[n++] = (char)ch;
    }
    if (ch == EOF && ferror(r->f)) return stop(r, "read error");
    if (ch == EOF && n == 0) { r->line_no--; return -1; }
    if (n > 0 && r->buf[n - 1] == '\r') n--;
    if (!r->buf && !(r->buf = malloc(r->cap = 256))) return stop(r, "out of memory reading a line");
    r->buf[n] = '\0';
    *line = r->buf;
    return (long)n;
}

int line_failed(const LineReader *r, char *err, int errlen) {
    return r->error[0] ? errorf(err, errlen, "%s", r->error) : 0;
}

void line_close(LineReader *r) {
    if (r->f) fclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int line_fields(char *line, char **fields, int max) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') p++;
        if (!*p) break;
        if (n < max) fields[n] = p;
        n++;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' && *p != '\f') p++;
        if (*p) *p++ = '\0';
    }
    return n;
}
