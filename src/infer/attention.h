// Attention maps of a translator: the softmax probabilities of every attention layer and
// head for one sentence pair, and SVG heat maps of them (./translate --attention). The LSTM
// translator has one map, its decoder's attention over the source (models/lstm.h).
//
// The probabilities are those op_attention computes in the model's own forward pass
// (stack_forward with probability sinks, see models/transformer.h), so the maps are those of
// the model that translated; the traced pass's logits equal translator_logits (tests check
// it). Dropout is off.
#ifndef RUN_ATTENTION_H
#define RUN_ATTENTION_H
#include "models/model.h"
#include "infer/translate.h"

typedef struct AttnMaps {
    int n_enc, n_dec, H, Ts, Tt;
    float *enc_self;    // [n_enc][H][Ts][Ts]
    float *dec_self;    // [n_dec][H][Tt][Tt] (zero above the diagonal: causal)
    float *dec_cross;   // [n_dec][H][Tt][Ts]
    float *logits;      // [Tt][V], the traced forward's output
    int cross_only;     // model = lstm: dec_cross alone, one layer and one head (n_enc = 0)
} AttnMaps;

// One source (Ts ids, <eos> included) and decoder input (Tt ids, <bos> first). 0, or -1 if
// out of memory.
int  attention_trace(Model *m, const int *src, int Ts, const int *tgt_in, int Tt, AttnMaps *out);
void attention_maps_free(AttnMaps *a);

// Translates `line` (beam search), traces it and writes
// dir/line<index>_{encoder_self,decoder_self,decoder_cross}_layer<l>.svg, one panel per head.
int  attention_svgs(Translator *t, const char *line, int beam, float alpha, const char *dir,
                    int index, char *err, int errlen);
#endif
