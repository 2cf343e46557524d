// Decoding for the translator and the language model: incremental decoding with a key/value cache
// (one new token per step instead of re-running the whole prefix), beam search, and greedy
// decoding, which is beam search with one hypothesis.
//
// A step is decoder_logits on the new position with the cache (models/transformer.h
// stack_forward): the same code as the full forward pass, so every positional scheme and
// pre-/post-LN work alike; tests check the two agree. Dropout is off and no tape is recorded
// while decoding.
#ifndef RUN_DECODE_H
#define RUN_DECODE_H
#include "models/model.h"

typedef struct DecodeState {
    Model *m;
    int N, Ts;                    // rows, source length
    const int *src;               // (N,Ts), owned copy
    KVCache cache;                // cache.len = tokens decoded so far
    LstmCache lstm;               // model = lstm: the decoder's state instead of keys and values
    ArenaMark start, mark;        // arena before decode_init / after
                                  // the encoder (steps release to it)
    int was_training, was_recording;
} DecodeState;

// Encodes N sources (N,Ts) and prepares the caches for up to max_len steps. Allocates the
// encoder output in the tensor arena (released by decode_free). A language model (model =
// lm) has no encoder: src (N,Ts), if any, is a prompt fed into its cache at positions
// 0 .. Ts-1 (every row the same length; room for Ts + max_len positions), or NULL with Ts 0.
// 0, or -1 if out of memory.
int  decode_init(DecodeState *s, Model *m, const int *src, int N, int Ts, int max_len);
// Feeds tokens[N] at the next position (the first call takes <bos>) and returns the logits
// of the next token, (N,V), valid until the next call.
Tensor *decode_step(DecodeState *s, const int *tokens);
// Feeds T tokens of each row, tokens (N,T), at the next T positions and returns the logits
// of each position, (N*T,V), valid until the next call (a language model's prompt goes in
// one call; decode_step is decode_feed with T = 1).
Tensor *decode_feed(DecodeState *s, const int *tokens, int T);
// Row n continues from row parent[n] (beam search keeps the best hypotheses).
void decode_reorder(DecodeState *s, const int *parent);
// The batch becomes N rows (N <= s->N), row n continuing from row from[n] (each row's source
// and caches follow it): greedy decoding drops the sentences that have ended. Each row's
// logits are the same bits in any batch. 0, or -1 if out of memory or (N < s->N) the model
// is the LSTM, whose cache keeps its rows.
int  decode_select(DecodeState *s, const int *from, int N);
void decode_free(DecodeState *s);
// log(sum_v exp(z[v])) of one row of logits, computed stably (z[v] minus it is a log-probability).
double log_sum_exp(const float *z, int V);

// Beam search over B sources (B,Ts); for a language model the sources are prompts and the
// output continues them after <bos> (the decoder-only algorithmic form, docs/design.md §5.8). Each
// sentence keeps `beam` hypotheses; a hypothesis ends at <eos> and is scored by its log-probability
// divided by the GNMT length penalty ((5 + len) / 6)^alpha (len counts <eos>); a sentence is done
// when `beam` hypotheses have ended, or after max_len tokens (then its unfinished ones compete as
// they are; a learned position table without wrap-around stops earlier, at its last row).
// out (B,max_len) receives the best hypothesis up to and including <eos>, padded with 0.
// <pad> and <bos> are never chosen. 0, or -1 if out of memory.
int  beam_decode(Model *m, const int *src, int B, int Ts, int beam, float alpha, int max_len,
                 int *out);
// Greedy decoding: beam_decode with beam 1 (each step takes the most likely token other than
// <pad> and <bos>). ref (B,ref_T), reference tokens + <eos>, or NULL: a sentence stops as
// soon as its output leaves its reference, since it can no longer be an exact match (scoring
// long sentences a model gets wrong then costs a few steps instead of max_len); out then
// ends with the first token that differs. stop_at (B) or NULL: a length oracle (eval.length =
// oracle, docs/design.md §4.4): row b never takes <eos> before step stop_at[b] and takes it
// there, so its output is exactly stop_at[b] tokens + <eos>; nor end_token (the token that
// ends every sentence of the task, "." in toy_translate; -1 for none) before step stop_at[b] - 1.
// memory (B,Ts,d): the translator's encoder output for src, which the caller already has
// (the same as decoding would compute: positions not drawn anew), or NULL to encode src.
int  greedy_decode(Model *m, const int *src, Tensor *memory, int B, int Ts, int max_len,
                   const int *ref, int ref_T, const int *stop_at, int end_token, int *out);
// Greedy decoding with a reference, replayed from the logits of a teacher-forced pass: while
// a sentence's output equals its reference, the prefix a decoding step feeds is the one
// teacher forcing feeds, so step t's logits are the pass's at position first + t (first: the
// prompt's length, 0 for a translator). logits (B*T,V), row b*T + p for sentence b at
// position p; the other arguments and out as greedy_decode's (ref required). The steps,
// scores and choices are greedy_decode's, on those rows. 0; 1 when a sentence would go on
// past position T - 1 (out is then incomplete: decode instead); -1 if out of memory.
int  greedy_replay(Model *m, const float *logits, int T, int first, int B, int max_len,
                   const int *ref, int ref_T, const int *stop_at, int end_token, int *out);
// May greedy_replay stand for greedy_decode on this model? A transformer translator or
// language model whose positions are fixed (not drawn anew by each pass) and whose RoPE does
// not stretch with the length so far (rope_scaling = dynamic): a decoding step's logits are
// then the teacher-forced pass's at its position (tests/test_decode.c checks the bits).
int  greedy_replays(const Model *m);
#endif
