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
// row's position through pos_at only, so positions given another way (an explicit sorted
// sample, say) change PosSpan and pos_at, not the schemes. RoPE uses position / rope_scale.
#ifndef POS_H
#define POS_H
#include "core/params.h"
#include "io/config.h"

typedef struct PosScheme PosScheme;
#define POS_MAX_WEIGHTS 4

typedef struct PosSpan { int start, len; } PosSpan;   // rows at positions start .. start+len-1
static inline int pos_at(PosSpan s, int t) { return s.start + t; }   // position of row t

typedef struct Positional {
    const PosScheme *scheme;
    int d_model, n_heads;
    int max_len, wrap, offset;   // learned table rows, wrap around (pos % max_len), pos_offset
    float rope_base, rope_scale;
    float xpos_gamma;            // xpos: the decay's length scale
    int bidirectional;           // encoder stack (t5 buckets split by sign, symmetric ALiBi)
    Tensor *table;               // learned: (max_len, d); t5: (T5_BUCKETS, H); else NULL
    // A scheme with several parameter tensors keeps them here, in the order it declared
    // them (each scheme's file names its slots); unused slots are NULL.
    Tensor *weights[POS_MAX_WEIGHTS];
} Positional;

struct PosScheme {
    const char *name;
    // Declare parameters: `input_name` names the input table ("pos", "src_pos", "tgt_pos"),
    // `stack_name` the stack that owns a shared score table ("encoder", "decoder").
    void    (*declare)(Positional *p, Params *ps, const char *input_name, const char *stack_name);
    // The spans already include pos_offset.
    Tensor *(*add_to_input)(const Positional *p, Tensor *x, PosSpan rows);   // x (B,rows.len,d) -> same
    Tensor *(*self_bias)(const Positional *p, PosSpan queries, PosSpan keys); // -> (H,queries.len,keys.len)
    Tensor *(*rotate)(const Positional *p, Tensor *x, PosSpan rows);         // q or k (B,rows.len,d) -> rotated
    // Keys, where they are treated otherwise than queries (xPos scales them the other way);
    // NULL: keys go through rotate like queries.
    Tensor *(*rotate_key)(const Positional *p, Tensor *x, PosSpan rows);
    int     (*check_length)(const Positional *p, int T, char *err, int errlen);
    // Settings the scheme cannot work with (e.g. an odd head size for rope): 0, or -1 with
    // a message and *key set to the config key whose line the message points at.
    int     (*check_config)(const Config *c, const char **key, char *msg, int n);
    // Step-arena bytes the score-bias hook takes in one stack forward over T positions
    // (grad: while recording), for the memory estimate (run/memory_estimate.c); NULL: none.
    double  (*bias_arena_bytes)(const Config *c, double T, int grad);
    // The same for one rotation of q or k, (B,T,d); NULL: what op_rope takes (rope).
    double  (*rotate_arena_bytes)(const Config *c, double B, double T, int grad);
};

// The registry: schemes in their listed order (i = 0 .. count-1), lookup by exact name (NULL
// when unknown), and a scheme's plot style (a palette slot of io/svg.h; -1 for a name that is
// no scheme; case-insensitive, as plot legends may say "RoPE").
int              pos_scheme_count(void);
const PosScheme *pos_scheme_at(int i);
const PosScheme *pos_scheme_find(const char *name);
int              pos_scheme_plot_style(const char *name);
// The check_config hook of the scheme c->pos names (0 when it has none).
int              pos_check_config(const Config *c, const char **key, char *msg, int n);
// For the memory estimate: the parameters one stack's instance declares (pos_init into a
// scratch store), and what its score bias takes in the step arena (bias_arena_bytes).
long   pos_param_count(const Config *c, int bidirectional);
double pos_bias_arena_bytes(const Config *c, double T, int grad);
// Whether c's scheme rotates q and k, and what one rotation takes when its scheme says (-1:
// it does not say; the estimate then counts op_rope's).
int    pos_config_rotates(const Config *c);
double pos_rotate_arena_bytes(const Config *c, double B, double T, int grad);
// Set up p for one stack from the config (model.pos, max_len, pos_wrap, rope_base,
// rope_scale, xpos_gamma, pos_offset) and declare its parameters.
void pos_init(Positional *p, const Config *c, int bidirectional, Params *ps,
              const char *input_name, const char *stack_name);
// The three hooks; each is the identity / NULL for schemes that do not use it. Spans are
// token positions before the pos_offset shift, which these add.
Tensor *pos_add_to_input(const Positional *p, Tensor *x, PosSpan rows);
Tensor *pos_self_bias(const Positional *p, PosSpan queries, PosSpan keys);
Tensor *pos_rotate(const Positional *p, Tensor *x, PosSpan rows);       // queries (and keys, unless:)
Tensor *pos_rotate_key(const Positional *p, Tensor *x, PosSpan rows);   // keys
int     pos_uses_rotation(const Positional *p);
// 0 if sequences of length T (positions offset .. offset+T-1) can be encoded, else -1 with a
// message (learned, no wrap).
int     pos_check_length(const Positional *p, int T, char *err, int errlen);

// The math of each scheme, exposed for tests and plots.
void  sinusoidal_row(double pos, int d, float *out);               // P[pos, 0..d)
int   learned_row(const Positional *p, int pos);                   // table row of position pos
void  alibi_slopes(int n_heads, float *out);                       // m_1..m_H
#define T5_BUCKETS 32
#define T5_MAX_DISTANCE 128
int   t5_bucket(int rel, int bidirectional);                       // rel = j - i (key - query)
#endif
