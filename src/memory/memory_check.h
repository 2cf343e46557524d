// The check before a run: its memory estimate (memory/memory_estimate.h) against what it may use
// (memory/memory_limit.h), refused with one line of advice when over; and the estimate reported
// once the run goes ahead.
#ifndef MEMORY_CHECK_H
#define MEMORY_CHECK_H
#include <stdio.h>
#include "memory/memory_estimate.h"

// ./train's check: memory_estimate_train into e, then memory_check. Called before the data
// is loaded (t = NULL: refuses an absurd model or batch without reading any data) and after.
int  memory_check_train(const Config *c, const Task *t, MemoryEstimate *e, char *err, int errlen);
// The same for the tools that only run a model (run/run_dir.h): memory_estimate_eval, then
// memory_check.
int  memory_check_eval(const Config *c, const Task *t, const int *lengths, int n_lengths,
                       MemoryEstimate *e, char *err, int errlen);

// Compares e with the limit (run.max_memory, or what is available). Over it: -1 and one
// line in err, e.g. "train.batch_size = 1048576 needs about 310 GiB (activations 305 GiB,
// parameters and Adam 3 MiB, data 5 MiB, program 4 MiB); 21 GiB are available
// (MemAvailable). Lower batch_size or set run.max_memory." Else 0.
int  memory_check(const MemoryEstimate *e, const Config *c, char *err, int errlen);
// The estimate as one line, for the start of a run once nothing can fail any more:
// "memory: about 172 MiB (activations 156 MiB, ...); 21.9 GiB available".
void memory_report(const MemoryEstimate *e, const Config *c, FILE *out);
#endif
