// ./generate's logic (infer/generate.h): greedy generation through the language model's cache
// picks, at every step, the argmax of the full forward (lm_logits on the whole prefix), for
// every scheme and far past the learned table's rows; --score's losses are the full
// forward's cross-entropies; sampling follows its seed; a learned table without wrap-around
// refuses lengths it cannot encode.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "check.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "pos/pos.h"
#include "core/runtime.h"
#include "infer/generate.h"
#include "infer/progress.h"

static Arena arena;
enum { V = 17, PROMPT = 3, STEPS = 29 };   // 32 positions: 4x the learned table's 8 rows

static void lm(Model *m, const char *pos, int norm_first, int wrap) {
    Config c;
    config_defaults(&c);
    c.model = MODEL_LM;
    snprintf(c.pos, sizeof c.pos, "%s", pos);
    c.d_model = 16; c.n_heads = 2; c.d_ff = 24; c.dec_layers = 2;
    c.dropout = 0.1f;                // must be off while generating
    c.norm_first = norm_first;
    c.pos_cfg.max_len = 8;
    c.pos_cfg.pos_wrap = wrap;
    c.seed = 5;
    model_build(m, &c, V, 0, 0);
    for (int i = 0; i < m->head.weight->size; i++) m->head.weight->data[i] *= 8;   // spread the logits: no near-ties
    model_set_training(m, 1);
}

// The most likely non-special token of a row of logits.
static int argmax(const float *z) {
    int best = TOK_EOS + 1;
    for (int v = best + 1; v < V; v++) if (z[v] > z[best]) best = v;
    return best;
}

static const int PROMPT_IDS[PROMPT] = {5, 9, 4};

static void test_greedy_is_argmax_of_full_forward(void) {
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int nf = 0; nf < 2; nf++) {
            const char *name = pos_scheme_at(s)->name;
            Model m;
            lm(&m, name, nf, 1);
            int out[STEPS], seq[PROMPT + STEPS];
            char err[256];
            GenOptions o = {STEPS, 0, 0, 1};
            CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, out, err, sizeof err) == 0, "%s: %s", name, err);
            CHECK(m.training == 1, "%s: dropout switched back on", name);
            model_set_training(&m, 0);
            tape_set_enabled(0);
            memcpy(seq, PROMPT_IDS, sizeof PROMPT_IDS);
            memcpy(seq + PROMPT, out, sizeof out);
            int wrong = 0, first_wrong = -1;
            for (int i = 0; i < STEPS; i++) {   // the prefix seq[0 .. PROMPT+i-1] predicts out[i]
                ArenaMark mark = arena_mark(&arena);
                int T = PROMPT + i;
                Tensor *z = lm_logits(&m, seq, 1, T, NULL);            // (T,V)
                if (argmax(z->data + (long)(T - 1) * V) != out[i] && !wrong++) first_wrong = i;
                arena_release(&arena, mark);
            }
            CHECK(!wrong, "%s norm_first=%d: %d of %d steps differ from the full forward's argmax (first: step %d)",
                  name, nf, wrong, STEPS, first_wrong);
            int distinct = 0;
            for (int v = 0; v < V; v++) for (int i = 0; i < STEPS; i++) if (out[i] == v) { distinct++; break; }
            CHECK(distinct >= 2, "%s: greedy output is one token repeated (a degenerate check)", name);
            tape_set_enabled(1);
            model_free(&m);
        }
}

// The losses of lm_score (fed through the cache 64 positions a call) are the cross-entropies
// of the full forward, 150 positions long (three chunks, past the learned table's rows).
static void test_score_is_full_cross_entropy(void) {
    enum { N = 151 };
    int ids[N];
    for (int i = 0; i < N; i++) ids[i] = 4 + (i * 7 + i / 5) % (V - 4);
    for (int s = 0; s < pos_scheme_count(); s++) {
        const char *name = pos_scheme_at(s)->name;
        Model m;
        lm(&m, name, 1, 1);
        double loss[N], worst = 0;
        char err[256];
        CHECK(lm_score(&m, ids, N, loss, err, sizeof err) == 0, "%s: %s", name, err);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        ArenaMark mark = arena_mark(&arena);
        Tensor *z = lm_logits(&m, ids, 1, N - 1, NULL);                // (N-1,V)
        for (int t = 0; t < N - 1; t++) {
            const float *row = z->data + (long)t * V;
            double sum = 0;
            for (int v = 0; v < V; v++) sum += exp((double)row[v]);
            worst = fmax(worst, fabs(loss[t] - (log(sum) - row[ids[t + 1]])));
        }
        CHECK(worst < 1e-4, "%s: scores differ from the full forward by %g", name, worst);
        if (s == 0) {   // by hand at position 100: -log softmax(z_100)[ids[101]]
            const float *row = z->data + 100L * V;
            double sum = 0;
            for (int v = 0; v < V; v++) sum += exp((double)row[v]);
            CHECK_NEAR(loss[100], -log(exp((double)row[ids[101]]) / sum), 1e-4);
        }
        arena_release(&arena, mark);
        tape_set_enabled(1);
        model_free(&m);
    }
}

// Same seed, same text; another seed, another text; top-k 1 is greedy; no specials.
static void test_sampling_follows_the_seed(void) {
    Model m;
    lm(&m, "rope", 1, 1);
    int a[STEPS], b[STEPS], c[STEPS], greedy[STEPS], top1[STEPS];
    char err[256];
    GenOptions o = {STEPS, 1.5f, 0, 42};
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, a, err, sizeof err) == 0, "%s", err);
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, b, err, sizeof err) == 0, "%s", err);
    o.seed = 43;
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, c, err, sizeof err) == 0, "%s", err);
    CHECK(!memcmp(a, b, sizeof a), "seed 42 gave two different texts");
    CHECK(memcmp(a, c, sizeof a), "seeds 42 and 43 gave the same %d tokens", STEPS);
    o.top_k = 1;
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, top1, err, sizeof err) == 0, "%s", err);
    o.temperature = 0;
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, greedy, err, sizeof err) == 0, "%s", err);
    CHECK(!memcmp(top1, greedy, sizeof top1), "top-k 1 is not greedy");
    for (int i = 0; i < STEPS; i++) CHECK(a[i] > TOK_EOS && a[i] < V, "step %d: token %d", i, a[i]);
    model_free(&m);
}

// lm_pick's frequencies follow softmax(z / T) over the top k (200000 draws).
static void test_pick_distribution(void) {
    float z[V];
    for (int v = 0; v < V; v++) z[v] = v < 4 ? 9.0f : (float)((v * 5) % 7) * 0.3f;   // specials most likely
    GenOptions o = {1, 0.7f, 3, 0};
    Rng rng = rng_stream(9, RNG_SAMPLE);
    int count[V] = {0}, draws = 200000;
    for (int i = 0; i < draws; i++) count[lm_pick(z, V, &o, &rng)]++;
    // Top 3 of ids 4..16 by z (lower id on ties): z = 1.8 at ids 4, 11; 1.5 at 8 and 15 -> 4, 11, 8.
    double p[V] = {0}, sum = 0;
    int top[3] = {4, 11, 8};
    for (int i = 0; i < 3; i++) sum += p[top[i]] = exp(z[top[i]] / 0.7);
    for (int v = 0; v < V; v++) CHECK_NEAR((double)count[v] / draws, p[v] / sum, 0.005);
}

static void test_learned_without_wrap_refuses(void) {
    Model m;
    lm(&m, "learned", 1, 0);
    int out[STEPS];
    char err[256] = "";
    GenOptions o = {STEPS, 0, 0, 1};
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, out, err, sizeof err) != 0, "generated past 8 rows");
    CHECK(strstr(err, "8") != NULL, "message: %s", err);
    o.n_tokens = 6;   // 3 + 6 - 1 = 8 positions: fits
    CHECK(lm_generate(&m, PROMPT_IDS, PROMPT, &o, out, err, sizeof err) == 0, "%s", err);
    model_free(&m);
}

// What progress_update draws, standard error captured. The loop is made to have started
// 100 s ago, so the rate and ETA are known: 400 of 1000 tokens -> 4.0/s, 150 s left.
static void test_progress_line(void) {
    Capture capture = capture_begin();
    Progress p = progress_start("generate", "tokens", 1000);
    p.tty = 1;                       // as on a terminal
    p.t0 = wall_seconds() - 100;
    progress_update(&p, 400);
    progress_update(&p, 600);        // within a quarter second of the last draw: nothing
    progress_end(&p);
    Progress quiet = progress_start("score", "positions", 10);
    quiet.tty = 0;                   // a pipe or a log file: nothing at all
    quiet.t0 = wall_seconds() - 100;
    progress_update(&quiet, 5);
    progress_end(&quiet);
    Progress early = progress_start("score", "positions", 10);
    early.tty = 1;                   // under a second: nothing, not even the final newline
    progress_update(&early, 5);
    progress_end(&early);
    char said[256];
    capture_end(&capture, said, sizeof said);
    CHECK(!strcmp(said, "\rgenerate 400/1000 tokens | 4.0/s | ETA 2m30s   \n"), "drew '%s'", said);
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_greedy_is_argmax_of_full_forward);
    RUN(test_score_is_full_cross_entropy);
    RUN(test_sampling_follows_the_seed);
    RUN(test_pick_distribution);
    RUN(test_learned_without_wrap_refuses);
    RUN(test_progress_line);
    arena_free(&arena);
    return check_summary();
}
