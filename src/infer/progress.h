// A progress line for long loops on standard error: "\rgenerate 1200/4000 tokens | 35.2/s |
// ETA 1m20s". Only on a terminal (logs and pipes stay clean), first drawn after a second (a
// short call prints nothing) and then at most four times a second; progress_end ends the line
// if one was drawn. The rate and ETA are over the whole loop so far.
#ifndef RUN_PROGRESS_H
#define RUN_PROGRESS_H

typedef struct Progress {
    const char *what, *unit;   // "generate", "tokens"
    long total;
    double t0, drawn;          // start; last draw (0: none yet)
    int tty;
} Progress;

Progress progress_start(const char *what, const char *unit, long total);
void progress_update(Progress *p, long done);
void progress_end(Progress *p);
#endif
