// Line reader and error helper, see lines.h.
#include "data/lines.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int line_open(LineReader *r, const char *path, char *err, int errlen) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "rb");
    if (!r->f) return errorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return 0;
}

long line_next(LineReader *r, char **line) {
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0) return -1;
    r->line_no++;
    if (n > 0 && r->buf[n - 1] == '\n') r->buf[--n] = '\0';
    if (n > 0 && r->buf[n - 1] == '\r') r->buf[--n] = '\0';
    *line = r->buf;
    return (long)n;
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
