// Model FLOPs of one training step: the count `./bench` divides by its peak loop for `% peak`
// (docs/performance.md), the usual one of llm.c and the PaLM paper, extended to the
// encoder-decoder translator.
//
// One sequence of S source and T target positions (S = 0 for a language model) costs
//   6 x (weights of every matrix product) per position that goes through them
//       (forward 2, backward 4: dX and dW); with d = d_model, f = d_ff and m = 2 FFN matrices
//       (3 for SwiGLU's gate, up and down):
//       encoder layer   4 d^2 + m d f      (q, k, v, o and the FFN) for each source position
//       decoder layer   4 d^2 + m d f      (self-attention and the FFN) for each target position
//         its cross-attention 2 d^2 (q, o) for each target and 2 d^2 (k, v) for each source
//         position: keys and values are products of the encoder's output
//       generator       d V                for each target position
//   + 12 d per query per key per layer for attention's scores and weighted sums (forward 4,
//       backward 8), as if nothing were masked:
//       encoder self 12 L_enc S^2 d, decoder self 12 L_dec T^2 d, cross 12 L_dec T S d.
// For a language model window of T tokens this is T (6 W + 12 L T d), W the weights.
// The LSTM translator: 6 x its weights per position the same way, with
//       encoder layer l  dirs 4 d (in_l + d)  for each source position (in_0 = d, later
//                        in_l = dirs d: both directions are read), dirs = 2 if bidirectional
//       decoder layer    4 d (d + d)          for each target position
//       W_c 2 d^2 and the generator d V for each target position; additive attention adds
//       its key projection d^2 per source and query projection d^2 per target position
//   + 12 d per target per source position for the one attention (its scores and weighted
//       sum; additive's tanh and v are not counted).
// Embedding lookups, norms, activations, softmax and the optimizer are not counted.
#ifndef MODEL_FLOPS_H
#define MODEL_FLOPS_H
#include "config/config.h"

// FLOPs of one training step on one sequence of S source and T target positions of the model
// c describes, with an output vocabulary of V (translator and lm; 0 for a classifier).
double model_flops_sequence(const Config *c, int V, int S, int T);
#endif
