// Positional schemes. Each scheme is one file src/pos/<name>.c defining `const PosScheme
// pos_<name>`: which of the three places it acts on (added to the input embeddings, a bias on
// the self-attention scores, a rotation of queries and keys). Adding a scheme means that file
// and one line in registry.c, the only list of schemes: the config, ./train --list-schemes,
// ./plot and scripts/lib.sh ask it (tests/test_registry.sh checks no other list exists).
//
// Positions. A hook never sees token indices, only positions: it is handed PosSpans, runs
// of rows whose row t sits at position start + t. The dispatchers below add the evaluation
// shift pos_offset to every span first, so a scheme reads absolute positions and needs no
// knowledge of how they came about: a whole sequence (start 0), the new rows of an
// incremental decoding step (queries start at the cache length, keys at 0), or a shifted
// probe. A bias or a rotation is built only for the rows it is asked for. Schemes read a
// row's position through pos_at only, so positions given another way change PosSpan and
// pos_at, not the schemes. RoPE's frequencies may be stretched (rope_scaling: linear, ntk,
// yarn, dynamic; rope_inv_freq below).
//
// Randomized positions (model.pos_random = L, docs/design.md §2.3.8): while `draw_from` is L,
// every forward pass first draws its positions, a sorted sample without replacement of
// [0, L) (pos_draw), and the spans handed to the hooks point into that sample: row t of a
// span then sits at position sample[start + t] + pos_offset instead of start + t.
#ifndef POS_H
#define POS_H
#include "core/ops.h"
#include "core/params.h"
#include "core/rng.h"
#include "config/config.h"

typedef struct PosScheme PosScheme;
#define POS_MAX_WEIGHTS 6

// Rows start .. start+len-1 of a sequence. Their positions are those indices, or, when `at`
// is set (drawn positions), at[start] .. at[start+len-1].
typedef struct PosSpan { int start, len; const int *at; } PosSpan;
// position of row t
static inline int pos_at(PosSpan s, int t) { return s.at ? s.at[s.start + t] : s.start + t; }

typedef struct Positional {
    const PosScheme *scheme;
    // The config's positional settings (config/config.h): the learned table's rows and
    // wrap, pos_offset, RoPE's base and stretch (rope_inv_freq), xPos's decay, pos_random.
    PosConfig cfg;
    int d_model, n_heads;
    int bidirectional;           // encoder stack (t5 buckets split by sign, symmetric ALiBi)
    Tensor *table;               // learned: (max_len, d); t5: (T5_BUCKETS, H); else NULL
    // A scheme with several parameter tensors keeps them here, in the order it declared
    // them (each scheme's file names its slots); unused slots are NULL.
    Tensor *weights[POS_MAX_WEIGHTS];
    // Randomized positions: 0 = positions 0, 1, 2, ...; L = each forward pass draws them
    // from [0, L) (pos_draw; the model sets it for training, and for evaluation when
    // eval.positions = sampled). sample holds the last draw, pos_offset added (malloc'd,
    // freed by pos_free: a decoding run keeps it across many arena resets).
    int draw_from;
    int *sample, n_sampled, sample_capacity;
} Positional;

struct PosScheme {
    const char *name;
    // Declare parameters: `input_name` names the input table ("pos", "src_pos", "tgt_pos"),
    // `stack_name` the stack that owns a shared score table ("encoder", "decoder").
    void    (*declare)(Positional *p, Params *ps, const char *input_name, const char *stack_name);
    // The spans already include pos_offset.
    // x (B,rows.len,d) -> same
    Tensor *(*add_to_input)(const Positional *p, Tensor *x, PosSpan rows);
    // -> (H,queries.len,keys.len)
    Tensor *(*self_bias)(const Positional *p, PosSpan queries, PosSpan keys);
    // q or k (B,rows.len,d) -> rotated; pad (B,rows.len) or NULL: rows nothing reads
    // (attention's padding), which come out 0 and pass no gradient back (op_rope_freq)
    Tensor *(*rotate)(const Positional *p, Tensor *x, PosSpan rows, const int *pad);
    // Keys, where they are treated otherwise than queries (xPos scales them the other way);
    // NULL: keys go through rotate like queries.
    Tensor *(*rotate_key)(const Positional *p, Tensor *x, PosSpan rows, const int *pad);
    // rotate (queries and keys alike) of packed rows (pos_rotate_packed), or NULL: such a
    // scheme rotates them unpacked
    Tensor *(*rotate_packed)(const Positional *p, Tensor *x, PosSpan rows,
                             const RowPacking *packed);
    int     (*check_length)(const Positional *p, int T, char *err, int errlen);
    // Settings the scheme cannot work with (e.g. an odd head size for rope): 0, or -1 with
    // a message and *key set to the config key whose line the message points at.
    int     (*check_config)(const Config *c, const char **key, char *msg, int n);
};

// The registry: schemes in their listed order (i = 0 .. count-1), lookup by exact name (NULL
// when unknown), and a scheme's plot style (a palette slot of plot/svg.h; -1 for a name that is
// no scheme; case-insensitive, as plot legends may say "RoPE").
int              pos_scheme_count(void);
const PosScheme *pos_scheme_at(int i);
const PosScheme *pos_scheme_find(const char *name);
int              pos_scheme_plot_style(const char *name);
// The check_config hook of the scheme c->pos names (0 when it has none).
int              pos_check_config(const Config *c, const char **key, char *msg, int n);
// The registry's names and pos_check_config, for the config parser (config/config.h), which
// every caller of config_load, config_load_text, config_set and config_validate passes them to.
extern const ConfigChecks pos_config_checks;
// Set up p for one stack from the config (model.pos, d_model, n_heads and the positional
// settings c->pos_cfg) and declare its parameters.
void pos_init(Positional *p, const Config *c, int bidirectional, Params *ps,
              const char *input_name, const char *stack_name);
void pos_free(Positional *p);
// Randomized positions. pos_sample_sorted writes n distinct integers of [0, L), ascending,
// each n-subset equally likely (selection sampling, Knuth's Algorithm S: L draws of r);
// n <= L. pos_draw draws the positions of the next n rows when p->draw_from > 0 (else it
// does nothing): at most draw_from of them, as a longer sequence is refused first
// (pos_check_length).
void pos_sample_sorted(Rng *r, int L, int n, int *out);
void pos_draw(Positional *p, Rng *r, int n);
// The three hooks; each is the identity / NULL for schemes that do not use it. Spans are
// token positions before the pos_offset shift, which these add.
Tensor *pos_add_to_input(const Positional *p, Tensor *x, PosSpan rows);
Tensor *pos_self_bias(const Positional *p, PosSpan queries, PosSpan keys);
// queries (and keys, unless:); pad as for the rotate hook
Tensor *pos_rotate(const Positional *p, Tensor *x, PosSpan rows, const int *pad);
Tensor *pos_rotate_key(const Positional *p, Tensor *x, PosSpan rows, const int *pad);   // keys
// The same (of queries, or with key of keys) of op_unpack_rows(x, packed): x (n,d) holds the
// token rows of `packed` (core/ops.h), whose other rows are padding; the rotated rows in the
// padded layout (B,rows.len,d), padding rows 0, the token rows' bits those of the padded call.
Tensor *pos_rotate_packed(const Positional *p, Tensor *x, PosSpan rows, const RowPacking *packed,
                          int key);
int     pos_uses_rotation(const Positional *p);
int     pos_adds_to_input(const Positional *p);   // has an add_to_input hook
// 0 if sequences of length T (positions offset .. offset+T-1) can be encoded, else -1 with a
// message (learned, no wrap; drawn positions: T > draw_from). A Positional without a scheme
// (a model without that stack) takes any length.
int     pos_check_length(const Positional *p, int T, char *err, int errlen);

// The math of each scheme, exposed for tests and plots.
void  sinusoidal_row(double pos, int d, float *out);               // P[pos, 0..d)
int   learned_row(const Positional *p, int pos);                   // table row of position pos
void  alibi_slopes(int n_heads, float *out);                       // m_1..m_H
#define T5_BUCKETS 32
#define T5_MAX_DISTANCE 128
int   t5_bucket(int rel, int bidirectional);                       // rel = j - i (key - query)
// RoPE's D/2 inverse frequencies (radians per position) for head width D = d_model/n_heads
// and a sequence of n positions (0 .. n-1, pos_offset included; only dynamic looks at n),
// stretched as p->cfg.rope_scaling says (docs/design.md §2.3.5):
//   none     b^(-2i/D)                      linear  b^(-2i/D) / s
//   ntk      b'^(-2i/D), b' = b·s^(D/(D-2))  dynamic ntk with s = max(1, n/L)
//   yarn     per pair (1-γ)·θ/s + γ·θ, γ the ramp of r = L/λ_i between yarn_alpha and
//            yarn_beta
void   rope_inv_freq(const Positional *p, int n, double *out);
// YaRN's ramp: 0 for r <= alpha (interpolate), 1 for r >= beta (keep), linear between.
double yarn_ramp(double r, double alpha, double beta);
// What q and k are each multiplied by: 0.1·ln s + 1 for yarn with s > 1 (so the attention
// logits by its square, YaRN's temperature), else 1.
double rope_qk_factor(const Positional *p);
// RoPE's rotation of q or k (B,T,d) at the span's positions, with the stretch and YaRN's factor
// (the rope scheme's hook; xpos rotates with it too); pad as for the hook.
Tensor *rope_apply(const Positional *p, Tensor *x, PosSpan rows, const int *pad);
// The same on packed rows (the rope scheme's rotate_packed hook).
Tensor *rope_apply_packed(const Positional *p, Tensor *x, PosSpan rows, const RowPacking *packed);
// The rotating schemes' check_config (rope, xpos): an even head width d_model/n_heads, since
// the rotation acts on pairs; else -1 with the message, on model.pos.
int    rope_check_config(const Config *c, const char **key, char *msg, int n);
#endif
