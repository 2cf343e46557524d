// Opening a saved run for the tools that only run a model (./eval, ./permute, ./translate):
// where its checkpoint and folder are, its config with the command line's overrides, and a
// model with the trained weights, ready for inference (dropout off, no tape).
//
// Two steps, so that a tool can check its own options against the config before any data
// is built:
//   Run r;
//   if (run_read_config(&r, argv[1], 0, n_over, over, err, errlen)) return -1;  // nothing to close
//   int rc = my_checks(&r.cfg, err, errlen);
//   if (!rc) rc = run_open(&r, err, errlen);
//   ... use r.cfg, r.task, r.model ...
//   run_close(&r);                                                             // whatever rc was
#ifndef RUN_DIR_H
#define RUN_DIR_H
#include <stddef.h>
#include "core/arena.h"
#include "models/model.h"
#include "memory/memory_estimate.h"
#include "data/task.h"

typedef struct Run {
    Config cfg;
    char   ckpt[600];   // the model.safetensors file; "" for a fresh model built from a .ini
    char   dir[600];    // the run folder beside it (the saved vocabularies)
    Task   task;
    Model  model;
    Arena  arena;       // the tensor arena of run_open (the Run must not move afterwards)
    int    opened;      // how far run_open got, for run_close
    const int *lengths; // ./eval's lengths= (set before run_open), for the memory estimate
    int    n_lengths;
    MemoryEstimate memory;
} Run;

// Where a checkpoint argument points: a run folder (then its model.safetensors) or a
// checkpoint file (then the folder that holds it, "." for a bare file name).
void run_locate(const char *arg, char *ckpt, char *dir, size_t n);

// The config of ARG, a checkpoint or its run folder (the config stored in the checkpoint),
// or with allow_ini a .ini file (a fresh model, r->ckpt = ""). Overrides ("key=value") are
// applied, then the config is validated and the files it names are checked. 0, or -1 with
// a message and nothing to close.
int  run_read_config(Run *r, const char *arg, int allow_ini, int n_over, char **over, char *err,
                     int errlen);

// After run_read_config: the config's thread count, a tensor arena with the tape off
// (run_inference_begin), the task's data, the memory estimate checked (memory/memory_estimate.h;
// printed on stderr once all else succeeded), the saved vocabularies checked against the data, the
// model built with dropout off and the checkpoint's weights loaded (a fresh model keeps its seeded
// initial weights). 0, or -1 with a message; call run_close either way.
int  run_open(Run *r, char *err, int errlen);

// Frees what run_read_config and run_open made (safe after a failed run_open).
void run_close(Run *r);

// The set-up of a tool that runs a model without training: OpenMP threads (0 = all), a
// fresh arena made the tensor arena, and no tape. Free the arena with arena_free.
void run_inference_begin(Arena *arena, int threads);
#endif
