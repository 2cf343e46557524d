// Checkpoints: one safetensors file holding the model's tensors under their PyTorch-style
// names, and, for resuming, the AdamW moments (optimizer.exp_avg / optimizer.exp_avg_sq, flat
// over the parameter buffer). Metadata: format_version, the full run config (INI text),
// the step, and the RNG and sampler state, so a resumed run continues exactly.
// Written atomically (temporary file, fsync, rename): a crash never leaves a torn file.
#ifndef CHECKPOINT_H
#define CHECKPOINT_H
#include "core/optim.h"
#include "data/sampler.h"
#include "models/model.h"

#define CHECKPOINT_FORMAT "1"

typedef struct TrainState {
    long step;                  // completed updates
    SamplerState sampler;
    // tokens trained on up to `step`, stored (metadata "tokens") only when tokens_known, which
    // a run with a stop rule sets for its log.csv; a checkpoint without it loads as
    // tokens_known = 0, and a zero-initialised TrainState stores none.
    int tokens_known;
    double tokens;
} TrainState;

// opt may be NULL (weights only).
int checkpoint_save(const char *path, const Model *m, const char *config_text, const AdamW *opt,
                    const TrainState *st, char *err, int errlen);
// The config stored in a checkpoint (parsed and validated).
int checkpoint_read_config(const char *path, Config *c, char *err, int errlen);
// Load weights into a model built from that config: every parameter must be present with
// its shape; anything else is an error naming the tensor. opt / st may be NULL; when given,
// the optimizer moments, step and RNG state are restored too.
int checkpoint_load(const char *path, Model *m, AdamW *opt, TrainState *st, char *err, int errlen);
#endif
