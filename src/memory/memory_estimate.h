// Memory a run will need, estimated from its shapes before any of it is allocated.
//
// The estimate adds up what a run holds at its peak:
//   parameters   weights and gradients, the AdamW moments, and the checkpoint written from
//                them (a buffer of the whole file) or read into the model
//   activations  the step arena's high-water mark: the largest training step (activations,
//                their gradients, attention probabilities, the tape's saved arrays) or
//                evaluation batch (forward pass plus greedy decoding), whichever is larger
//   data         the task's examples or token streams, from the config and the data files' sizes
//   program      code, libraries, thread stacks, the allocator's own overhead (measured)
// Each term follows the code that allocates it (core/ops_*.c, score/evaluate.c, models/decode.c);
// tests/test_memory.sh measures runs' peak resident memory against it (docs/robustness.md).
//
// memory/memory_check.h compares an estimate with what the run may use (memory/memory_limit.h).
#ifndef MEMORY_ESTIMATE_H
#define MEMORY_ESTIMATE_H
#include <stdio.h>
#include "config/config.h"
#include "data/task.h"

typedef struct MemoryEstimate {
    double params, activations, data, program;   // bytes
    double total;
    const char *params_label;                    // "parameters and Adam" (training) or "parameters"
    int partial;   // the parameters alone are over the limit: activations were not counted
    // The setting behind the largest term and the advice, for the refusal:
    // "train.batch_size = 1048576", "Lower batch_size".
    char setting[96], advice[96];
} MemoryEstimate;

// The shapes a pass runs on. train: with gradients (a training step); else a forward pass
// without tape; decode_len > 0 adds greedy decoding of up to that many tokens with a
// key/value cache (a translator's sources of T_src tokens; a language model continuing
// prompts of T_src tokens, <eos> and the input: the decoder-only form).
typedef struct MemoryPass {
    int B, T_src, T_tgt;
    int train;
    int decode_len;
} MemoryPass;

typedef struct MemoryVocab { int src, tgt, classes; } MemoryVocab;

// Parameter count of the model the config describes (model_build's, without allocating).
double memory_param_count(const Config *c, MemoryVocab v);
// Step-arena bytes of one pass (what core/ops_*.c allocate for it, at its peak).
double memory_pass_bytes(const Config *c, MemoryVocab v, const MemoryPass *p);
// Data bytes of the task, from the config and the sizes of the files it names.
double memory_data_bytes(const Config *c);

// Whole-run estimates. The task may be NULL (before its data is loaded): the vocabularies
// are then the specials only and the lengths the config's bounds (max_tokens, window).
void memory_estimate_train(const Config *c, const Task *t, MemoryEstimate *e);
void memory_estimate_eval(const Config *c, const Task *t, const int *lengths, int n_lengths,
                          MemoryEstimate *e);
// One training step of a model on one batch shape (./bench): parameters, gradients and
// AdamW moments, the step's activations, no data, no checkpoint.
void memory_estimate_step(const Config *c, MemoryVocab v, const MemoryPass *p, MemoryEstimate *e);
// ./translate: beam search over batches of `batch` lines of up to T_src tokens.
void memory_estimate_translate(const Config *c, MemoryVocab v, int batch, int beam, int T_src,
                               MemoryEstimate *e);
// ./generate: a language model's key/value cache of `positions` positions (one sequence, every
// layer, allocated whole before the first token) and one pass of `chunk` new tokens against it.
void memory_estimate_generate(const Config *c, MemoryVocab v, int positions, int chunk,
                              MemoryEstimate *e);
#endif
