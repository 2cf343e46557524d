// Reading untrusted text files line by line, and the error-message helper the data layer
// shares. Lines may be of any length (getline grows the buffer); '\n' and one trailing '\r'
// (CRLF files) are stripped. A final line without '\n' is still a line.
#ifndef DATA_LINES_H
#define DATA_LINES_H
#include "core/errors.h"
#include <stdio.h>

typedef struct {
    FILE *f;
    const char *path;   // for messages; not owned
    long line_no;       // number of the line last returned (1-based)
    char *buf;
    size_t cap;
} LineReader;

// Opens `path`. -1 with "path: cannot open: reason" in err.
int  line_open(LineReader *r, const char *path, char *err, int errlen);
// Next line into *line (valid until the next call). Returns its length in bytes (which is
// larger than strlen(*line) when the line holds a NUL byte), or -1 at end of file.
long line_next(LineReader *r, char **line);
void line_close(LineReader *r);

// Splits a line in place into whitespace-separated fields, ignoring everything from '#' on
// (comments). Returns the number of fields found (may exceed max; only max are stored).
int  line_fields(char *line, char **fields, int max);
#endif
