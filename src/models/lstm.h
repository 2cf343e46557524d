// The recurrent translator (model = lstm, docs/design.md §2.8): an LSTM encoder, an LSTM
// decoder started from the encoder's final state, Luong dot-product attention of each
// decoder state over the encoder states, and the attentional state tanh(W_c [ctx; h])
// feeding the output layer. Width d_model everywhere (embeddings, hidden states).
//
//   encoder: embedding -> dropout -> LSTM (enc_layers; bidirectional: both directions, their
//            outputs concatenated between layers as torch.nn.LSTM does, and summed after the
//            last layer and in every final state) -> memory (B,Ts,d)
//   decoder: embedding -> dropout -> LSTM (dec_layers, from the encoder's final states)
//            -> h (B,Tt,d); ctx = softmax(scores, padding masked) memory, scores = h memory^T
//            (attention = dot) or v . tanh(W_q h + W_k memory) (additive);
//            a = dropout(tanh(attn_combine [ctx; h])); logits = out a
//
// Without input feeding, the decoder's LSTM does not read the attention: teacher forcing runs
// it over all target steps at once, and a cached state (LstmCache) continues it step by step.
// Parameter names are those of an equivalent torch.nn.Module (docs/design.md §3.6).
#ifndef MODELS_LSTM_H
#define MODELS_LSTM_H
#include "nn/layers.h"

typedef struct LstmNet {
    int n_layers, n_dirs;   // n_dirs 2: bidirectional
    LstmWeights *w;         // [n_layers * n_dirs]: layer by layer, forward then reverse
} LstmNet;

typedef struct LstmTranslator {
    int d;
    Tensor *enc_embed, *dec_embed;   // (V_src,d), (V_tgt,d)
    LstmNet enc, dec;
    int additive;                    // model.attention = additive: scores v . tanh(W_q h + W_k m)
    Linear attn_query, attn_key;     // additive: (d, d) each; the key's bias as model.bias
    Tensor *attn_v;                  // additive: (1, d)
    Linear attn_combine;             // (d, 2d): [ctx; h] -> d
    Linear out;                      // (V_tgt, d); weight = dec_embed when tied
    Dropout drop;
} LstmTranslator;

void lstm_translator_declare(LstmTranslator *t, Params *ps, const Config *c, int src_vocab,
                             int tgt_vocab);
void lstm_translator_free(LstmTranslator *t);

// The encoder's result: memory (B,Ts,d), each sequence's length (trailing padding excluded),
// and the final state of every layer (directions summed), which starts the decoder.
typedef struct LstmEncoded {
    Tensor *memory;
    const int *lengths;   // (B), arena
    LstmState *final;     // [n_layers], arena
    int B, Ts;
} LstmEncoded;
LstmEncoded lstm_encode(const LstmTranslator *t, const int *src, int B, int Ts);

// The decoder on tgt_in (B,Tt) from the state `state` ([n_layers], each (B,d)), which it
// replaces with the state after the last step -> logits (B*Tt,V). lengths (B) or NULL: the
// steps t >= lengths[b] of the LSTMs do not run (op_lstm), so those rows' logits are not
// the tokens' and the state is the one after each row's last real step. probs (B,Tt,Ts) or
// NULL receives the attention probabilities.
Tensor *lstm_decode(const LstmTranslator *t, const LstmEncoded *enc, const int *tgt_in, int B,
                    int Tt, const int *lengths, LstmState *state, float *probs);

// Teacher forcing: encode, then decode from the encoder's final states, each target's
// trailing padding skipped by the decoder's LSTMs (its logits are ignored by the loss and
// nothing real depends on them). (B*Tt,V); with rows_out the logits of the token rows only,
// packed as *rows_out says (its rows NULL when no row is padding).
Tensor *lstm_translator_logits(const LstmTranslator *t, const int *src, int B, int Ts,
                               const int *tgt_in, int Tt, RowPacking *rows_out);

// Incremental decoding: the encoder's result (arena tensors: keep them alive while decoding)
// and the decoder's state between calls, in malloc'd rows so that the arena can be released
// after every step.
typedef struct LstmCache {
    int N, n_layers, d;
    LstmEncoded enc;
    float **h, **c;   // per layer (N,d)
} LstmCache;
int  lstm_cache_init(LstmCache *c, const LstmTranslator *t, LstmEncoded enc);  // 0, or -1
// tokens (N,T) at the next T steps -> logits (N*T,V); the cached state advances by T.
Tensor *lstm_cache_step(LstmCache *c, const LstmTranslator *t, const int *tokens, int T,
                        float *probs);
void lstm_cache_reorder(LstmCache *c, const int *parent);   // row n continues row parent[n]
void lstm_cache_free(LstmCache *c);
#endif
