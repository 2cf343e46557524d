// Reading untrusted text files line by line, and the error-message helper the data layer
// shares. '\n' and one trailing '\r' (CRLF files) are stripped. A final line without '\n' is
// still a line. Reading is bounded: only a regular file opens (a device such as /dev/zero,
// a FIFO or a folder is refused), and a NUL byte or a line longer than LINE_MAX_BYTES stops
// the reader the moment it is read, so a binary or endless file never fills memory.
#ifndef DATA_LINES_H
#define DATA_LINES_H
#include "core/errors.h"
#include <stdio.h>

// 4 MiB: a sentence, a lexicon or vocabulary entry is far shorter
#define LINE_MAX_BYTES ((size_t)4 << 20)

typedef struct {
    FILE *f;
    const char *path;   // for messages; not owned
    long line_no;       // number of the line last returned (1-based)
    char *buf;
    size_t cap;
    char error[320];    // why line_next stopped early ("" = end of file or not stopped)
} LineReader;

// Opens `path`. -1 with "path: cannot open: reason" or "path: ... not a regular file" in err.
int  line_open(LineReader *r, const char *path, char *err, int errlen);
// Next line into *line (valid until the next call). Returns its length in bytes, or -1 at
// the end of the file or on an error: a NUL byte, a line over LINE_MAX_BYTES, a read error
// (then r->error says `path:line: what`, and line_failed reports it).
long line_next(LineReader *r, char **line);
// After the last line_next: -1 with r->error copied into err if reading stopped on an error.
int  line_failed(const LineReader *r, char *err, int errlen);
void line_close(LineReader *r);

// Splits a line in place into whitespace-separated fields, ignoring everything from '#' on
// (comments). Returns the number of fields found (may exceed max; only max are stored).
int  line_fields(char *line, char **fields, int max);
#endif
