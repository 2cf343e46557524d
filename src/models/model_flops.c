// Model FLOPs of one training step, see model_flops.h.
#include "models/model_flops.h"

// The LSTM translator (models/lstm.h): its gate products, the attention's, W_c and the
// generator, as the header counts them.
static double lstm_flops(const Config *c, int V, int S, int T) {
    double d = c->d_model, dirs = c->bidirectional ? 2 : 1;
    double src_weights = 0;
    for (int l = 0; l < c->enc_layers; l++)
        src_weights += dirs * 4 * d * ((l == 0 ? d : dirs * d) + d);
    double tgt_weights = c->dec_layers * 4 * d * (d + d) + 2 * d * d + d * V;
    if (c->attention == ATTENTION_ADDITIVE) src_weights += d * d, tgt_weights += d * d;
    return 6.0 * (src_weights * S + tgt_weights * T) + 12.0 * d * (double)T * S;
}

double model_flops_sequence(const Config *c, int V, int S, int T) {
    if (c->model == MODEL_CLASSIFIER) return 0;
    if (c->model == MODEL_LSTM) return lstm_flops(c, V, S, T);
    double d = c->d_model, ffn = (c->activation == ACTIVATION_SWIGLU ? 3.0 : 2.0) * d * c->d_ff;
    int cross = c->model == MODEL_TRANSLATOR;
    double enc = c->model == MODEL_TRANSLATOR ? c->enc_layers : 0, dec = c->dec_layers;
    if (!cross) S = 0;   // a language model has no source
    // weights each source and each target position goes through (cross: k, v on the source
    // side, q, o on the target side)
    double src_weights = enc * (4 * d * d + ffn) + (cross ? dec * 2 * d * d : 0);
    double tgt_weights = dec * ((cross ? 6 : 4) * d * d + ffn) + d * V;
    double products = 6.0 * (src_weights * S + tgt_weights * T);
    double attention = 12.0 * d * (enc * (double)S * S + dec * (double)T * T +
                                   (cross ? dec * (double)T * S : 0));
    return products + attention;
}
