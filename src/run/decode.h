// Decoding for the translator: an incremental decoder that caches each layer's keys and
// values (one new token per step instead of re-running the whole prefix), and beam search.
//
// The incremental step computes exactly what decoder_logits computes for the last position
// (same ops, same parameters, every positional scheme, pre- and post-LN); tests check the
// two agree. Dropout is off and no tape is recorded while decoding.
#ifndef RUN_DECODE_H
#define RUN_DECODE_H
#include "models/model.h"

typedef struct DecodeState {
    Model *m;
    int N, Ts, max_len, t;        // rows, source length, cache capacity, tokens decoded so far
    const int *src;               // (N,Ts), owned copy
    Tensor **mem_k, **mem_v;      // per layer: cross-attention keys/values of the memory (N,Ts,d)
    float **self_k, **self_v;     // per layer: cache (N,max_len,d)
    ArenaMark start, mark;        // arena before decode_init / after the encoder (steps release to it)
    int was_training, was_recording;
} DecodeState;

// Encodes N sources (N,Ts) and prepares the caches for up to max_len steps. Allocates the
// encoder output in the tensor arena (released by decode_free). 0, or -1 if out of memory.
int  decode_init(DecodeState *s, Model *m, const int *src, int N, int Ts, int max_len);
// Feeds tokens[N] at position s->t (the first call takes <bos>) and returns the logits of
// the next token, (N,V), valid until the next call.
Tensor *decode_step(DecodeState *s, const int *tokens);
// Row n continues from row parent[n] (beam search keeps the best hypotheses).
void decode_reorder(DecodeState *s, const int *parent);
void decode_free(DecodeState *s);

// Beam search over B sources (B,Ts). Each sentence keeps `beam` hypotheses; a hypothesis
// ends at <eos> and is scored by its log-probability divided by the GNMT length penalty
// ((5 + len) / 6)^alpha (len counts <eos>); a sentence is done when `beam` hypotheses have
// ended, or after max_len tokens (then its unfinished ones compete as they are; a learned
// position table without wrap-around stops earlier, at its last row).
// out (B,max_len) receives the best hypothesis up to and including <eos>, padded with 0.
// <pad> and <bos> are never chosen. beam = 1 is greedy decoding (the same tokens as
// greedy_decode for a model that does not predict <pad> or <bos>). 0, or -1 if out of memory.
int  beam_decode(Model *m, const int *src, int B, int Ts, int beam, float alpha, int max_len, int *out);
#endif
