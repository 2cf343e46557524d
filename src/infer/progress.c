#include "infer/progress.h"
#include <stdio.h>
#include <unistd.h>
#include "core/runtime.h"

Progress progress_start(const char *what, const char *unit, long total) {
    Progress p = {what, unit, total, wall_seconds(), 0, isatty(STDERR_FILENO)};
    return p;
}

void progress_update(Progress *p, long done) {
    if (!p->tty || done <= 0) return;
    double now = wall_seconds(), elapsed = now - p->t0;
    if (elapsed < 1.0 || now - p->drawn < 0.25) return;
    p->drawn = now;
    double rate = done / elapsed, eta = (double)(p->total - done) / rate;
    fprintf(stderr, "\r%s %ld/%ld %s | %.1f/s | ETA %dm%02ds   ", p->what, done, p->total, p->unit,
            rate, (int)(eta / 60), (int)eta % 60);
}

void progress_end(Progress *p) {
    if (p->tty && p->drawn > 0) fputc('\n', stderr);
}
