#include "models/transformer.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/tape.h"

void stack_declare(Stack *s, Params *ps, const Config *c, const char *name, int causal, int cross,
                   const char *pos_input_name, Tensor *embed) {
    int n = causal ? c->dec_layers : c->enc_layers, d = c->d_model;
    Activation act = c->activation;
    NormKind norm = c->norm;
    s->layers = calloc((size_t)n, sizeof(Layer));
    s->n_layers = n;
    s->causal = causal;
    s->norm_first = c->norm_first;
    s->embed = embed;
    s->embed_scale = c->embed_scale;
    s->logit_train_length = c->attn_logit_scale == LOGIT_SCALE_LOG ? c->attn_train_length : 0;
    char buf[128];
    for (int i = 0; i < n; i++) {
        Layer *l = &s->layers[i];
        l->has_cross = cross;
        snprintf(buf, sizeof buf, "%s.layers.%d.self_attn", name, i);
        mha_declare(&l->self_attn, ps, buf, d, c->n_heads, c->bias);
        if (cross) {
            snprintf(buf, sizeof buf, "%s.layers.%d.cross_attn", name, i);
            mha_declare(&l->cross_attn, ps, buf, d, c->n_heads, c->bias);
        }
        snprintf(buf, sizeof buf, "%s.layers.%d.norm1", name, i);
        norm_declare(&l->norm1, ps, buf, d, norm);
        if (cross) {
            snprintf(buf, sizeof buf, "%s.layers.%d.norm2", name, i);
            norm_declare(&l->norm2, ps, buf, d, norm);
        }
        // The FFN's norm: norm2 in an encoder layer, norm3 in a decoder layer.
        snprintf(buf, sizeof buf, "%s.layers.%d.norm%d", name, i, causal ? 3 : 2);
        norm_declare(&l->norm3, ps, buf, d, norm);
        snprintf(buf, sizeof buf, "%s.layers.%d.ffn", name, i);
        ffn_declare(&l->ffn, ps, buf, d, c->d_ff, act, c->bias);
    }
    snprintf(buf, sizeof buf, "%s.norm", name);
    norm_declare(&s->norm, ps, buf, d, norm);
    pos_init(&s->pos, c, !causal, ps, pos_input_name, name);
}

void stack_free(Stack *s) {
    free(s->layers);
    s->layers = NULL;
    pos_free(&s->pos);
}

// Table rows times sqrt(d) if embed_scale.
static Tensor *scaled(const Stack *s, Tensor *x) {
    if (s->embed_scale) x = op_scale(x, sqrtf((float)s->embed->shape[1]));
    return x;
}

Tensor *stack_embed(const Stack *s, const int *ids, int B, int T, int start) {
    int d = s->embed->shape[1], shape[3] = {B, T, d};
    Tensor *x = scaled(s, tensor_view(op_embedding(s->embed, ids, B * T), 3, shape));
    x = pos_add_to_input(&s->pos, x, (PosSpan){.start = start, .len = T});
    return dropout_forward(&s->drop, x);
}

Tensor *stack_embed_rows(const Stack *s, const int *ids, const RowPacking *p) {
    int *picked = arena_alloc(tensor_arena(), sizeof(int) * (size_t)p->n);
    for (int k = 0; k < p->n; k++) picked[k] = ids[p->rows[k]];
    return dropout_rows(&s->drop, scaled(s, op_embedding(s->embed, picked, p->n)), p);
}

// ---------------------------------------------------------------- key/value cache

// floats of one layer's keys (or values): N sequences of `capacity` positions
static size_t kv_layer_floats(const Stack *s, int N, int capacity) {
    return (size_t)N * capacity * s->pos.d_model;
}

double kv_cache_bytes(const Stack *s, int N, int capacity) {
    return 2.0 * s->n_layers * sizeof(float) * (double)kv_layer_floats(s, N, capacity);
}

int kv_cache_init(KVCache *c, const Stack *s, int N, int capacity) {
    memset(c, 0, sizeof *c);
    int L = s->n_layers;
    c->N = N;
    c->capacity = capacity;
    c->n_layers = L;
    c->d = s->pos.d_model;
    // + 1: never calloc(0); mem_k[0] exists (NULL) without layers
    c->k = calloc((size_t)L + 1, sizeof(float *));
    c->v = calloc((size_t)L + 1, sizeof(float *));
    c->mem_k = calloc((size_t)L + 1, sizeof(Tensor *));
    c->mem_v = calloc((size_t)L + 1, sizeof(Tensor *));
    int oom = !c->k || !c->v || !c->mem_k || !c->mem_v;
    for (int l = 0; l < L && !oom; l++) {
        c->k[l] = malloc(sizeof(float) * kv_layer_floats(s, N, capacity));
        c->v[l] = malloc(sizeof(float) * kv_layer_floats(s, N, capacity));
        oom = !c->k[l] || !c->v[l];
    }
    if (oom) kv_cache_free(c);
    return oom ? -1 : 0;
}

void kv_cache_set_memory(KVCache *c, const Stack *s, Tensor *memory) {
    for (int l = 0; l < s->n_layers; l++) {
        const MultiHeadAttention *ca = &s->layers[l].cross_attn;
        c->mem_k[l] = linear_forward(&ca->k_proj, memory);
        c->mem_v[l] = linear_forward(&ca->v_proj, memory);
    }
}

// Rows `stride` floats apart, of which the first `used` count: row n of x becomes row from[n]
// of it, for n < N. In place when every row comes from itself or a later one (in increasing
// n, each row is read before anything is written over it), else through a copy.
static void select_rows(float *x, size_t stride, size_t used, const int *from, int N) {
    int in_place = 1;
    for (int n = 0; n < N; n++) in_place &= from[n] >= n;
    if (in_place) {
        for (int n = 0; n < N; n++)
            if (from[n] != n) memcpy(x + n * stride, x + from[n] * stride, sizeof(float) * used);
        return;
    }
    float *tmp = malloc(sizeof(float) * (size_t)N * used + 1);
    if (!tmp) abort();   // a few MB at most; nothing sensible to do without them
    for (int n = 0; n < N; n++) memcpy(tmp + n * used, x + from[n] * stride, sizeof(float) * used);
    for (int n = 0; n < N; n++) memcpy(x + n * stride, tmp + n * used, sizeof(float) * used);
    free(tmp);
}

void kv_cache_select(KVCache *c, const int *from, int N) {
    int moved = N != c->N;
    // greedy decoding (one hypothesis a row) keeps every row where it is: nothing to copy
    for (int n = 0; n < N; n++) moved |= from[n] != n;
    if (!moved) return;
    for (int l = 0; l < c->n_layers; l++) {
        select_rows(c->k[l], (size_t)c->capacity * c->d, (size_t)c->len * c->d, from, N);
        select_rows(c->v[l], (size_t)c->capacity * c->d, (size_t)c->len * c->d, from, N);
    }
    // The memory's keys and values: a row keeps its own while the rows stay (a beam's rows
    // share one source); dropping rows moves the others.
    for (int l = 0; N != c->N && l < c->n_layers && c->mem_k[l]; l++) {
        Tensor *mem[2] = {c->mem_k[l], c->mem_v[l]};
        for (int i = 0; i < 2; i++) {
            size_t row = (size_t)(mem[i]->size / mem[i]->shape[0]);
            select_rows(mem[i]->data, row, row, from, N);
            mem[i]->shape[0] = N;
            mem[i]->size = (long)N * (long)row;
        }
    }
    c->N = N;
}

void kv_cache_reorder(KVCache *c, const int *parent) { kv_cache_select(c, parent, c->N); }

void kv_cache_free(KVCache *c) {
    for (int l = 0; l < c->n_layers; l++) {
        if (c->k) free(c->k[l]);
        if (c->v) free(c->v[l]);
    }
    free(c->k);
    free(c->v);
    free(c->mem_k);
    free(c->mem_v);
    memset(c, 0, sizeof *c);
}

// ---------------------------------------------------------------- forward

// One residual sub-layer: pre-LN x + Drop(f(LN(x))), or post-LN LN(x + Drop(f(x))); x holds
// the packed rows of `packed` (or the padded batch when NULL).
typedef enum { SUB_SELF, SUB_CROSS, SUB_FFN } Sublayer;

static Tensor *sublayer_compute(const Stack *s, const Layer *l, Sublayer which, Tensor *x,
                                Tensor *memory, const AttnCall *call, const RowPacking *packed) {
    const Norm *norm = which == SUB_SELF ? &l->norm1 : which == SUB_CROSS ? &l->norm2 : &l->norm3;
    Tensor *h = s->norm_first ? norm_forward(norm, x) : x, *y;
    switch (which) {
    case SUB_SELF:  y = mha_forward(&l->self_attn, h, h, call); break;
    case SUB_CROSS: y = mha_forward(&l->cross_attn, h, memory, call); break;
    default:        y = ffn_forward(&l->ffn, h); break;
    }
    Tensor *sum = residual_dropout(&s->drop, x, y, packed);
    return s->norm_first ? sum : norm_forward(norm, sum);
}

// Without a tape nothing but a sub-layer's output is read again, not even its input: each
// sub-layer's output is moved down to `base` (where the stack's first output went), over its
// input and its intermediates (the FFN's hidden rows, attention's projections), so a forward
// pass without gradients peaks at one sub-layer's intermediates instead of holding the whole
// stack's. Each first touch of an arena page costs a fault and a cleared page: they were a
// third of a long evaluation's time.
static Tensor *keep_output(ArenaMark base, Tensor *y) {
    Tensor out = *y;
    arena_release(tensor_arena(), base);
    Tensor *kept = tensor_new(out.ndim, out.shape, 0);
    // kept->data lies at or below out.data (allocated from the same mark, in order)
    memmove(kept->data, out.data, sizeof(float) * (size_t)out.size);
    return kept;
}

// base: NULL while a tape records, else where the stack's layers keep their output.
static Tensor *sublayer(const Stack *s, const Layer *l, Sublayer which, Tensor *x, Tensor *memory,
                        const AttnCall *call, const RowPacking *packed, const ArenaMark *base) {
    Tensor *y = sublayer_compute(s, l, which, x, memory, call, packed);
    return base ? keep_output(*base, y) : y;
}

// Packing pays from a quarter of the rows padding up. Below, it saves little and the batch
// would take more memory than padded: attention's inputs exist in both layouts (3 tensors of
// (B,T,d) in a layer of 19 at d_ff = 4d, and their gradients).
#define PACK_MIN_PADDING 4
static int worth_packing(const RowPacking *p) {
    long all = (long)p->B * p->T;
    return PACK_MIN_PADDING * (all - p->n) >= all;
}

Tensor *stack_forward(const Stack *s, const int *ids, int B, int T, const int *key_pad,
                      Tensor *memory, const int *memory_pad, const StackRun *run) {
    static const StackRun plain;
    if (!run) run = &plain;
    KVCache *cache = run->cache;
    if (cache && key_pad) { fprintf(stderr, "stack_forward: key_pad with a cache\n"); abort(); }
    int H = s->pos.n_heads, start = cache ? cache->len : 0;
    int Tm = memory ? memory->shape[1] : cache && cache->mem_k[0] ? cache->mem_k[0]->shape[1] : 0;
    PosSpan rows = {.start = start, .len = T};
    // (H,T,start+T) or NULL, shared by every layer: only the rows of the new positions.
    Tensor *bias = pos_self_bias(&s->pos, rows, (PosSpan){.start = 0, .len = start + T});
    // A padding position's own attention output is never used by a real position (it is a
    // masked key to every other row, and the loss ignores it): skip computing it.
    AttnCall self = { .rope = pos_uses_rotation(&s->pos) ? &s->pos : NULL, .rows = rows,
                      .bias = bias, .key_pad = key_pad, .query_pad = key_pad, .causal = s->causal,
                      .drop = &s->attn_drop, .logit_train_length = s->logit_train_length };
    AttnCall cross = { .rows = rows, .key_pad = memory_pad, .query_pad = key_pad,
                       .drop = &s->attn_drop };
    long self_size = (long)B * H * T * (start + T), cross_size = (long)B * H * T * Tm;
    // A batch with much padding runs its position-wise work (norms, products, the FFN,
    // residual sums) on its token rows only, packed; attention unpacks them into (B,T,d), where
    // padding is masked. Each token's row is computed as in the padded layout, bit for bit.
    RowPacking self_pack = {0}, memory_pack = {0};
    int padded = !cache && key_pad && row_packing_init(&self_pack, key_pad, B, T);
    // a batch without padding (the language model's text windows) needs no masks at all
    if (key_pad && !padded) self.key_pad = self.query_pad = cross.query_pad = NULL;
    Tensor *x;
    if (padded && worth_packing(&self_pack)) {
        // only the token rows embedded, unless the scheme adds positions to the input
        x = pos_adds_to_input(&s->pos) ? op_pack_rows(stack_embed(s, ids, B, T, start), &self_pack)
                                       : stack_embed_rows(s, ids, &self_pack);
        self.q_pack = self.kv_pack = cross.q_pack = &self_pack;
    } else {
        x = stack_embed(s, ids, B, T, start);
    }
    if (memory && memory_pad && row_packing_init(&memory_pack, memory_pad, B, Tm) &&
        worth_packing(&memory_pack)) {
        memory = op_pack_rows(memory, &memory_pack);
        cross.kv_pack = &memory_pack;
    }
    // releasing to an empty arena would free the block holding a layer's output
    ArenaMark base = arena_mark(tensor_arena());
    const ArenaMark *keep = tape_enabled() || !base.block ? NULL : &base;
    for (int i = 0; i < s->n_layers; i++) {
        const Layer *l = &s->layers[i];
        if (cache) {
            self.past_k = cache->k[i];
            self.past_v = cache->v[i];
            self.capacity = cache->capacity;
            cross.mem_k = cache->mem_k[i];
            cross.mem_v = cache->mem_v[i];
        }
        if (run->self_probs) self.probs = run->self_probs + i * self_size;
        if (run->cross_probs) cross.probs = run->cross_probs + i * cross_size;
        x = sublayer(s, l, SUB_SELF, x, NULL, &self, self.q_pack, keep);
        if (l->has_cross) x = sublayer(s, l, SUB_CROSS, x, memory, &cross, self.q_pack, keep);
        x = sublayer(s, l, SUB_FFN, x, NULL, NULL, self.q_pack, keep);
    }
    if (cache) cache->len += T;
    x = norm_forward(&s->norm, x);
    if (run->rows_out) {   // the head's rows: the token rows, packed here if not before
        if (padded && !self.q_pack) x = op_pack_rows(x, &self_pack);
        *run->rows_out = padded ? self_pack : (RowPacking){NULL, B * T, B, T};
        return x;
    }
    return self.q_pack ? op_unpack_rows(x, &self_pack) : x;     // padding rows 0
}
