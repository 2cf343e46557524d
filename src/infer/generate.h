// Text from a trained language model (model = lm), and the loss it gives each position of a
// text. The contract:
//  - Tokens go through models/decode.h's DecodeState, the language model's key/value cache:
//    the prompt in one call, then one token a step. That is the same stack_forward as
//    training, so the logits of every step equal lm_logits on the whole prefix
//    (tests/test_generate.c checks it for every scheme, past the training window).
//  - Positions are 0 .. prompt + tokens - 2: the cache holds prompt + tokens; a scheme that
//    cannot encode that many positions (a learned table without wrap-around) is refused
//    with its own message before anything is generated (pos_check_length).
//  - The specials (<pad> <unk> <bos> <eos>, ids 0..3) never appear in the language model's
//    text and are never generated.
//  - temperature 0: the most likely token (the lowest id on ties). Otherwise one draw from
//    softmax(z / temperature) over the top_k most likely tokens (0 = all of them), one
//    rng_uniform per token from the RNG_SAMPLE stream of seed: the same model, seed and
//    thread count give the same text.
//  - Scoring: loss[t] = -log p(ids[t+1] | ids[0..t]) for t = 0 .. n-2 (natural log), the
//    text fed through the cache GEN_SCORE_CHUNK positions a call.
// Dropout is off and no tape is recorded (DecodeState sees to it).
#ifndef RUN_GENERATE_H
#define RUN_GENERATE_H
#include <stdint.h>
#include "models/model.h"

#define GEN_SCORE_CHUNK 64

typedef struct GenOptions {
    int n_tokens;        // >= 1
    float temperature;   // >= 0
    int top_k;           // 0 = no limit
    uint64_t seed;
} GenOptions;

// Continues prompt (n_prompt >= 1 ids) by o->n_tokens tokens into out[n_tokens]. 0, or -1
// with a message.
int lm_generate(Model *m, const int *prompt, int n_prompt, const GenOptions *o, int *out, char *err,
                int errlen);
// The loss of each position of ids (n >= 2): loss[0 .. n-2]. 0, or -1 with a message.
int lm_score(Model *m, const int *ids, int n, double *loss, char *err, int errlen);
// The choice of one step from logits z[V] (exposed for tests): see the contract above.
int lm_pick(const float *z, int V, const GenOptions *o, Rng *rng);
#endif
