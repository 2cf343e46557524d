// Model FLOPs of a training step (models/model_flops.h), the count behind ./bench's `% peak`,
// against numbers added up by hand matrix by matrix.
#include "check.h"
#include "models/model_flops.h"

static Config small(ModelKind kind, Activation act) {
    Config c;
    config_defaults(&c);
    c.model = kind; c.activation = act;
    c.d_model = 4; c.d_ff = 8; c.enc_layers = 1; c.dec_layers = 1;
    return c;
}

// Translator d 4, FFN 8 (ReLU), 1 + 1 layers, vocabulary 10; a source of 3 and a target of 2
// positions. Weights: encoder q, k, v, o 4 x 16 = 64 and fc1, fc2 2 x 32 = 64, so 128 per
// source position; decoder self 64, cross q and o 32, FFN 64 = 160 per target position;
// cross k and v 32 per source position; generator 40 per target position. Products:
// 6 (128·3 + 160·2 + 32·3 + 40·2) = 6 · 880 = 5280. Attention, 12 d = 48 per query and key:
// encoder 3·3, decoder self 2·2, cross 2·3 = 19 pairs, 912. Total 6192.
static void test_translator_by_hand(void) {
    Config c = small(MODEL_TRANSLATOR, ACTIVATION_RELU);
    CHECK_NEAR(model_flops_sequence(&c, 10, 3, 2), 6192.0, 0);
    // a source of 0 positions leaves the decoder's own part: 6 (160 + 40) 2 + 48 · 4 = 2592
    CHECK_NEAR(model_flops_sequence(&c, 10, 0, 2), 2592.0, 0);
}

// Decoder-only, d 4, SwiGLU 8 (gate, up, down: 96 weights), 2 layers, vocabulary 10, a window
// of 5: weights 2 (64 + 96) + 40 = 360, products 6 · 360 · 5 = 10800; attention 12 · 4 · 2
// layers · 25 = 2400. Total 13200, T (6 W + 12 L T d) as llm.c counts it. A source length is
// ignored (no encoder).
static void test_lm_by_hand(void) {
    Config c = small(MODEL_LM, ACTIVATION_SWIGLU);
    c.dec_layers = 2;
    CHECK_NEAR(model_flops_sequence(&c, 10, 0, 5), 13200.0, 0);
    CHECK_NEAR(model_flops_sequence(&c, 10, 7, 5), 13200.0, 0);
    c.activation = ACTIVATION_GELU;   // two FFN matrices: 2 (64 + 64) + 40 = 296 weights
    CHECK_NEAR(model_flops_sequence(&c, 10, 0, 5), 6.0 * 296 * 5 + 2400, 0);
}

// LSTM translator d 4, 2 + 2 layers, bidirectional, vocabulary 10; a source of 3 and a target
// of 2 positions. Encoder: layer 0 has 2 directions of 4·4·(4 + 4) = 128 weights, layer 1 reads
// both directions, 2 · 16 · (8 + 4) = 384, so 640 per source position. Decoder: 2 layers of
// 16 · 8 = 128, W_c 2 · 16 = 32, generator 40, so 328 per target position. Products
// 6 (640·3 + 328·2) = 6 · 2576 = 15456; attention 12 · 4 · 3 · 2 = 288. Total 15744.
static void test_lstm_by_hand(void) {
    Config c = small(MODEL_LSTM, ACTIVATION_RELU);
    c.enc_layers = 2; c.dec_layers = 2; c.bidirectional = 1; c.attention = ATTENTION_DOT;
    CHECK_NEAR(model_flops_sequence(&c, 10, 3, 2), 15744.0, 0);
    // one direction: layers 0 and 1 each 16 · 8 = 128, so 256 per source position: 6 (256·3 + 328·2) + 288 = 6 · 1424 + 288 = 8832
    c.bidirectional = 0;
    CHECK_NEAR(model_flops_sequence(&c, 10, 3, 2), 8832.0, 0);
    // additive: + 16 per source and per target position: 6 · (1424 + 48 + 32) + 288 = 9312
    c.attention = ATTENTION_ADDITIVE;
    CHECK_NEAR(model_flops_sequence(&c, 10, 3, 2), 9312.0, 0);
}

static void test_classifier_is_not_counted(void) {
    Config c = small(MODEL_CLASSIFIER, ACTIVATION_RELU);
    CHECK_NEAR(model_flops_sequence(&c, 10, 3, 0), 0.0, 0);
}

int main(void) {
    RUN(test_translator_by_hand);
    RUN(test_lm_by_hand);
    RUN(test_lstm_by_hand);
    RUN(test_classifier_is_not_counted);
    return check_summary();
}
