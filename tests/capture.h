// What a piece of code prints on standard error, for tests of messages:
//
//   Capture c = capture_begin();  ...code that prints...;  capture_end(&c, buf, sizeof buf);
#ifndef CAPTURE_H
#define CAPTURE_H
#include <stdio.h>
#include <unistd.h>

typedef struct { int saved; FILE *file; } Capture;

static inline Capture capture_begin(void) {
    fflush(stderr);
    Capture c = {dup(2), tmpfile()};
    if (c.file) dup2(fileno(c.file), 2);
    return c;
}

// Puts stderr back and copies what was printed (at most n - 1 bytes) into out.
static inline void capture_end(Capture *c, char *out, size_t n) {
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    out[0] = 0;
    if (!c->file) return;
    rewind(c->file);
    size_t got = fread(out, 1, n - 1, c->file);
    out[got] = 0;
    fclose(c->file);
}
#endif
