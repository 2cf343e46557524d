// The models: three sharing embeddings, stacks and an output layer, and the LSTM translator:
//   classifier: embed -> encoder -> pool (mean over tokens, or the <cls> row) -> head (C)
//   translator: src_embed -> encoder; tgt_embed -> decoder (causal + cross-attention)
//               -> generator (V)
//   lm:         embed -> decoder (causal, no cross-attention) -> generator (V)
//   lstm:       the recurrent translator of models/lstm.h (no stacks; translator_logits
//               dispatches to it, decoding runs its LstmCache)
// Parameter names follow docs/design.md §3.2 (PyTorch style), so checkpoints load by name.
#ifndef MODEL_H
#define MODEL_H
#include "core/rng.h"
#include "models/lstm.h"
#include "models/transformer.h"

typedef struct Model {
    Config cfg;                 // a copy (cfg.text not owned)
    Params ps;
    Tensor *src_embed, *tgt_embed;   // classifier/lm use src_embed ("embed.weight")
    Stack encoder, decoder;
    Linear head;                // "head" (classifier) or "generator"
    LstmTranslator lstm;        // model = lstm (then the stacks and head are empty)
    int src_vocab, tgt_vocab, n_classes;
    Rng dropout_rng;            // one seed per dropout call; saved with the run for resume
    Rng pos_rng;                // randomized positions (cfg.pos_random):
                                // every forward pass draws from it
    int training;               // dropout on; positions drawn (when cfg.pos_random > 0)
} Model;

// Declare, allocate and initialise (each parameter as its declaration says: xavier-uniform
// matrices, embeddings and position tables, zero biases, unit LayerNorm weights; from the
// RNG_INIT stream of cfg->seed). n_classes for the classifier, vocab sizes
// otherwise (classifier and lm use src_vocab).
void model_build(Model *m, const Config *cfg, int src_vocab, int tgt_vocab, int n_classes);
// A model for one micro-batch of m's steps (train/micro_batches.h): m's configuration and
// parameter values (shared, not copied), gradients of its own; its random streams are set by
// the caller each step. model_free releases it and leaves m's values alone.
void model_share(Model *copy, const Model *m);
// model_build's declarations only: m->ps.total counts the parameters, nothing is allocated
// (the memory estimate's parameter term); model_free releases it.
void model_declare(Model *m, const Config *cfg, int src_vocab, int tgt_vocab, int n_classes);
void model_free(Model *m);
// Training: dropout on, and with cfg.pos_random > 0 every forward pass draws its positions.
// Evaluation: dropout off; positions drawn only when cfg.positions = sampled.
void model_set_training(Model *m, int on);
// Randomized positions (docs/design.md §2.3.8): restart pos_rng at draw number `draw` of the
// run seed's RNG_POSITIONS stream. Training uses the step number (so a resumed run draws what
// an unbroken one did, with nothing to save), every evaluation restarts at MODEL_EVAL_DRAW
// (so a set is scored on the same positions whenever it is evaluated). model_build sets
// MODEL_EVAL_DRAW. Each forward pass draws the encoder's positions, then the decoder's.
#define MODEL_EVAL_DRAW 0   // steps count from 1
void model_seed_positions(Model *m, uint64_t draw);

// Forward passes. ids are (B,T) row-major, 0 = <pad>. run: the optional context of
// stack_forward (attention sinks; a key/value cache), or NULL.
Tensor *model_encode(Model *m, const int *src, int B, int T, const StackRun *run);  // (B,T,d)
Tensor *classifier_logits(Model *m, const int *ids, int B, int T);                  // (B,C)
// (B*Tt,V)
Tensor *translator_logits(Model *m, const int *src, int B, int Ts, const int *tgt_in, int Tt);
// The decoder on memory (B,Ts,d) of sources src (B,Ts): (B*Tt,V). With a cache, tgt_in holds
// the tokens at positions cache->len .. (decode.h) and memory may be NULL (the cache has it).
Tensor *decoder_logits(Model *m, Tensor *memory, const int *src, int Ts, const int *tgt_in, int B,
                       int Tt, const StackRun *run);
// The language model: (B*T,V). With a cache, ids hold the tokens at positions cache->len ..
Tensor *lm_logits(Model *m, const int *ids, int B, int T, const StackRun *run);
// Can every stack encode sequences this long? (a learned table without wrap cannot)
int model_check_length(const Model *m, int T, char *err, int errlen);
// Sequences of T tokens an evaluation pass (no tape) runs through a stack at once, of a batch
// of B (1..B): about 4096 tokens, so that the stack's intermediates stay within a few MiB and
// in cache. score/evaluate.c chunks by it and memory/memory_estimate.c counts those chunks.
int model_eval_chunk(int T, int B);
#endif
