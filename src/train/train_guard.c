#include "train/train_guard.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "run/stop.h"
#include "train/train_checkpoint.h"

int guard_not_finite(const Training *tr, long step, const StepResult *s, char *err, int errlen) {
    char good[700];
    train_last_good_text(tr, good, sizeof good);
    snprintf(err, errlen, "step %ld: the loss is %g (gradient norm %g); stopped, %s", step,
             s->loss, s->grad_norm, good);
    return -1;
}

void guard_out_of_memory(size_t bytes, void *ctx) {
    const Training *tr = ctx;
    char good[700];
    train_last_good_text(tr, good, sizeof good);
    fflush(stdout);
    fprintf(stderr,
            "error: step %ld: out of memory: cannot allocate %zu MiB for activations; "
            "stopped, %s\n",
            tr->step, bytes >> 20, good);
    exit(1);
}

int guard_log_written(const Training *tr, long step, char *err, int errlen) {
    if (!ferror(tr->log)) return 0;
    char good[700];
    train_last_good_text(tr, good, sizeof good);
    snprintf(err, errlen, "%s: write failed (disk full?); stopped at step %ld, %s", tr->log_path,
             step, good);
    return -1;
}

int guard_stop_signal(Training *tr, long step, char *err, int errlen) {
    int signo = stop_signal_received();
    if (!signo) return 0;
    if (step % tr->c->ckpt_every && train_checkpoint_save(tr, step, err, errlen)) return -1;
    fflush(stdout);
    if (isatty(STDERR_FILENO)) fputc('\n', stderr);   // end the progress line
    fprintf(stderr,
            "stopped by %s after step %ld (checkpoint %s); "
            "resume with: ./train %s/config.ini train.resume=%s\n",
            signo == SIGINT ? "SIGINT" : "SIGTERM", step, tr->ckpt, tr->dir, tr->dir);
    return signo;
}
