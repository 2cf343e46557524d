// Config: defaults, a full file, every error kind with its line, overrides, round trip.
#include "config/config.h"
#include "pos/pos.h"
#include "check.h"

#include <stddef.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[64];  // one mkdtemp folder for the whole program
static char last_path[128];

// Writes `len` bytes to a new file tmp_dir/NAME and returns its path (valid until the next call).
static const char *write_file(const char *name, const char *text, size_t len) {
    snprintf(last_path, sizeof last_path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(last_path, "wb");
    if (!f) { printf("cannot write %s\n", last_path); exit(1); }
    fwrite(text, 1, len, f);
    fclose(f);
    return last_path;
}

static const char *write_text(const char *text) { return write_file("t.ini", text, strlen(text)); }

// Loads `text` (as tmp/t.ini) with overrides; expects failure with "t.ini:LINE: " (line > 0),
// "t.ini: " (line 0) or no location (line < 0), and `fragment` in the message.
static void expect_error_at(int src_line, const char *text, size_t len, int n_over, char **over, int line, const char *fragment) {
    Config c;
    char err[512] = "", prefix[160];
    const char *path = write_file("t.ini", text, len);
    int rc = config_load(&c, &pos_config_checks, path, n_over, over, err, sizeof err);
    CHECK(rc == -1, "[line %d] load succeeded, expected error '%s'", src_line, fragment);
    if (line > 0) snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    else if (line == 0) snprintf(prefix, sizeof prefix, "%s: ", path);
    else prefix[0] = '\0';
    CHECK(!strncmp(err, prefix, strlen(prefix)), "[line %d] error '%s' does not start with '%s'", src_line, err, prefix);
    CHECK(strstr(err, fragment) != NULL, "[line %d] error '%s' lacks '%s'", src_line, err, fragment);
    CHECK(c.text == NULL, "[line %d] text allocated on error", src_line);
    config_free(&c);
}
#define EXPECT_ERROR(text, line, fragment) expect_error_at(__LINE__, text, strlen(text), 0, NULL, line, fragment)

static void test_defaults(void) {
    Config c;
    config_defaults(&c);
    CHECK(!strcmp(c.name, "run") && !strcmp(c.out_dir, "runs"), "name '%s' out_dir '%s'", c.name, c.out_dir);
    CHECK(c.seed == 1 && c.threads == 0, "seed %d threads %d", c.seed, c.threads);
    CHECK(c.task == TASK_TOY_TRANSLATE && c.lexicon[0] == '\0', "task '%s' lexicon '%s'", config_enum_name(&c, &c.task), c.lexicon);
    CHECK(c.min_clauses == 1 && c.max_clauses == 3 && c.max_tokens == 32, "clauses %d..%d", c.min_clauses, c.max_clauses);
    CHECK(c.train_size == 20000 && c.val_size == 500 && c.test_size == 500 && c.window == 32, "sizes");
    CHECK(c.lowercase == 1 && c.min_freq == 1 && c.train_src[0] == '\0', "parallel_text defaults");
    CHECK(c.model == MODEL_TRANSLATOR && c.d_model == 64 && c.n_heads == 4 && c.d_ff == 256, "model dims");
    CHECK(c.enc_layers == 2 && c.dec_layers == 2, "layers %d %d", c.enc_layers, c.dec_layers);
    CHECK(c.dropout == 0.1f && c.activation == ACTIVATION_RELU && c.norm_first && c.embed_scale, "dropout %g", c.dropout);
    CHECK(c.activation == ACTIVATION_RELU && c.norm == NORM_LAYERNORM && c.bias, "default block: %s, bias %d", config_enum_name(&c, &c.norm), c.bias);
    CHECK(c.pool == POOL_MEAN && !strcmp(c.pos, "sinusoidal") && c.pos_cfg.max_len == 32 && c.pos_cfg.pos_wrap, "pos '%s'", c.pos);
    CHECK(c.pos_cfg.rope_base == 10000.0f && c.pos_cfg.rope_scaling == ROPE_SCALING_NONE && c.pos_cfg.rope_factor == 1.0f && c.pos_cfg.pos_offset == 0,
          "rope %g %s %g", c.pos_cfg.rope_base, config_enum_name(&c, &c.pos_cfg.rope_scaling), c.pos_cfg.rope_factor);
    CHECK(c.pos_cfg.rope_original_len == 32 && c.pos_cfg.yarn_alpha == 1.0f && c.pos_cfg.yarn_beta == 32.0f && c.init_from[0] == '\0', "yarn, init_from");
    CHECK(c.steps == 2000 && c.batch_size == 64 && c.lr == 1e-3f && c.schedule == SCHED_COSINE, "train");
    CHECK(c.warmup == 100 && c.min_lr_ratio == 0.1f && c.weight_decay == 0.01f, "warmup %d", c.warmup);
    CHECK(c.beta1 == 0.9f && c.beta2 == 0.98f && c.eps == 1e-9f && c.clip == 1.0f && c.label_smoothing == 0.0f, "adam");
    CHECK(c.log_every == 50 && c.eval_every == 500 && c.ckpt_every == 500 && c.resume[0] == '\0', "every");
    CHECK(c.text == NULL && c.path[0] == '\0', "no text/path");
    char err[256] = "";
    CHECK(config_validate(&c, &pos_config_checks, err, sizeof err) == 0, "defaults invalid: %s", err);
}

static void test_minimal_file(void) {
    Config c;
    char err[256] = "";
    const char *path = write_file("mini.ini", "[model]\nd_model = 128\n", strlen("[model]\nd_model = 128\n"));
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(c.name, "mini"), "default name '%s', expected the file's base name", c.name);
    CHECK(!strcmp(c.path, path), "path '%s'", c.path);
    CHECK(c.d_model == 128 && c.n_heads == 4 && c.steps == 2000, "d_model %d", c.d_model);
    CHECK(c.text && strstr(c.text, "\nd_model = 128\n") && strstr(c.text, "[train]\n"), "text:\n%s", c.text ? c.text : "(null)");
    config_free(&c);
    // A name without ".ini" is kept whole; the name key overrides the default.
    path = write_file("plain", "[run]\nseed = 5\n", strlen("[run]\nseed = 5\n"));
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0 && !strcmp(c.name, "plain"), "name '%s' %s", c.name, err);
    config_free(&c);
    path = write_file("x.ini", "[run]\nname = custom\n", strlen("[run]\nname = custom\n"));
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0 && !strcmp(c.name, "custom"), "name '%s' %s", c.name, err);
    config_free(&c);
}

static const char *FULL =
    "\xEF\xBB\xBF; a full config, every syntax feature\r\n"
    "# hash comment\n"
    "\n"
    "[run]\n"
    "  name = lesson1   ; inline comment\n"
    "out_dir=\"my runs ; with semicolon\"  # comment after quotes\n"
    "seed = -0\n"
    "threads = 4\n"
    "[ task ]\n"
    "task = parallel_text\n"
    "lexicon = data/lex.txt\n"
    "train_src = a#b.de\n"
    "train_tgt = \"train.en\"\n"
    "val_src = v.de\n"
    "val_tgt = v.en\n"
    "lowercase = No\n"
    "min_freq = 2\n"
    "max_tokens = +40\n"
    "[model] ; trailing comment\n"
    "model = translator\n"
    "d_model = 96\n"
    "n_heads = 6\n"
    "pos = rope\n"
    "dropout = 0\n"
    "activation = swiglu\n"
    "norm = rmsnorm\n"
    "bias = false\n"
    "norm_first = off\n"
    "embed_scale = 0\n"
    "pos_wrap = FALSE\n"
    "rope_scale = 2.5\n"
    "pos_offset = 100\n"
    "[train]\n"
    "lr = 3e-4\n"
    "schedule = noam\n"
    "warmup = 4000\n"
    "label_smoothing = 0.1\n"
    "beta2 = 0.999\n"
    "resume =\n"
    "ckpt_every = 1000\n";

static void test_full_file(void) {
    Config c;
    char err[256] = "";
    const char *path = write_text(FULL);
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(c.name, "lesson1"), "name '%s'", c.name);
    CHECK(!strcmp(c.out_dir, "my runs ; with semicolon"), "out_dir '%s'", c.out_dir);
    CHECK(c.seed == 0 && c.threads == 4, "seed %d threads %d", c.seed, c.threads);
    CHECK(c.task == TASK_PARALLEL_TEXT && !strcmp(c.lexicon, "data/lex.txt"), "task '%s'", config_enum_name(&c, &c.task));
    CHECK(!strcmp(c.train_src, "a#b.de") && !strcmp(c.train_tgt, "train.en"), "src '%s' tgt '%s'", c.train_src, c.train_tgt);
    CHECK(c.lowercase == 0 && c.min_freq == 2 && c.max_tokens == 40, "lowercase %d min_freq %d", c.lowercase, c.min_freq);
    CHECK(c.d_model == 96 && c.n_heads == 6 && !strcmp(c.pos, "rope") && c.dropout == 0.0f, "model");
    CHECK(c.activation == ACTIVATION_SWIGLU && !c.norm_first && !c.embed_scale && !c.pos_cfg.pos_wrap, "bools");
    CHECK(c.activation == ACTIVATION_SWIGLU && c.norm == NORM_RMSNORM && !c.bias, "the Llama-style block");
    // rope_scale, the old spelling, is linear scaling with that factor.
    CHECK(c.pos_cfg.rope_scaling == ROPE_SCALING_LINEAR && c.pos_cfg.rope_factor == 2.5f && c.pos_cfg.pos_offset == 100,
          "rope_scale: %s %g", config_enum_name(&c, &c.pos_cfg.rope_scaling), c.pos_cfg.rope_factor);
    CHECK(c.lr == 3e-4f && c.schedule == SCHED_NOAM && c.warmup == 4000, "lr %g", c.lr);
    CHECK(c.label_smoothing == 0.1f && c.beta2 == 0.999f && c.resume[0] == '\0' && c.ckpt_every == 1000, "train");
    CHECK(c.steps == 2000 && c.batch_size == 64, "untouched defaults");
    // Lines recorded for cross-field messages: name on 5, d_model on 21, steps unset.
    CHECK(c.key_line[0] == 5, "name line %d", c.key_line[0]);
    config_free(&c);
}

static void test_syntax_errors(void) {
    EXPECT_ERROR("[modle]\nd_model = 3\n", 1, "unknown section [modle]; did you mean [model]?");
    EXPECT_ERROR("[run]\n[zzzzzz]\n", 2, "unknown section [zzzzzz]; valid sections: [run] [task] [model] [train]");
    EXPECT_ERROR("[model\n", 1, "missing ']'");
    EXPECT_ERROR("[model] x\n", 1, "unexpected text 'x' after section header");
    EXPECT_ERROR("[run]\nseed = 1\n\n[model]\n# c\nn_heads = 4\nd_modle = 64\n", 7, "unknown key 'd_modle' in [model]; did you mean 'd_model'?");
    EXPECT_ERROR("[model]\nlr = 0.1\n", 2, "unknown key 'lr' in [model]; 'lr' is a key of [train]");
    EXPECT_ERROR("[model]\nwarmpu = 3\n", 2, "did you mean 'warmup' in [train]?");
    EXPECT_ERROR("[model]\nqqqqqqqq = 3\n", 2, "unknown key 'qqqqqqqq' in [model]");
    EXPECT_ERROR("[model]\nd_model = 64\n\n[train]\n[model]\nd_model = 32\n", 6, "duplicate key 'd_model' in [model] (first set on line 2)");
    EXPECT_ERROR("; header\nd_model = 64\n", 2, "key 'd_model' before any [section] header; 'd_model' is a key of [model]");
    EXPECT_ERROR("[model]\nd_model 64\n", 2, "expected 'key = value'");
    EXPECT_ERROR("[model]\n = 64\n", 2, "missing key before '='");
    EXPECT_ERROR("[model]\nd_model =\n", 2, "d_model: empty value");
    EXPECT_ERROR("[model]\nd_model = ; nothing\n", 2, "d_model: empty value");
    EXPECT_ERROR("[run]\nname = \"\"\n", 2, "name: empty value");
    EXPECT_ERROR("[run]\nname = \"abc\n", 2, "unterminated quote");
    EXPECT_ERROR("[run]\nname = \"abc\" x\n", 2, "unexpected text 'x' after the closing quote");
    EXPECT_ERROR("[run]\nname = a\"b\n", 2, "quote");
}

static void test_value_errors(void) {
    EXPECT_ERROR("[model]\nd_model = abc\n", 2, "d_model: 'abc' is not an integer");
    EXPECT_ERROR("[model]\nd_model = 12x\n", 2, "trailing garbage 'x'");
    EXPECT_ERROR("[model]\nd_model = 1.5\n", 2, "trailing garbage '.5'");
    EXPECT_ERROR("[train]\nsteps = 99999999999\n", 2, "'99999999999' does not fit in an int");
    EXPECT_ERROR("[train]\nsteps = -99999999999999999999\n", 2, "does not fit in an int");
    EXPECT_ERROR("[train]\nlr = fast\n", 2, "lr: 'fast' is not a number");
    EXPECT_ERROR("[train]\nlr = 1e-3x\n", 2, "trailing garbage 'x'");
    EXPECT_ERROR("[train]\nlr = nan\n", 2, "'nan' is not a finite number");
    EXPECT_ERROR("[model]\ndropout = -inf\n", 2, "'-inf' is not a finite number");
    EXPECT_ERROR("[model]\ndropout = 1\n", 2, "dropout = 1 is out of range [0, 1)");
    EXPECT_ERROR("[model]\ndropout = 0.99999999999\n", 2, "out of range [0, 1)"); // rounds to 1.0f
    EXPECT_ERROR("[train]\nlr = 0\n", 2, "lr = 0 is out of range (0, 10]");
    EXPECT_ERROR("[train]\neps = 1e-60\n", 2, "out of range (0, 1]"); // underflows to 0.0f
    EXPECT_ERROR("[train]\nlr = 1e300\n", 2, "out of range (0, 10]");
    EXPECT_ERROR("[model]\nd_model = 0\n", 2, "d_model = 0 is out of range [1, 8192]");
    EXPECT_ERROR("[model]\nd_model = 8193\n", 2, "out of range [1, 8192]");
    EXPECT_ERROR("[model]\ndec_layers = -1\n", 2, "dec_layers = -1 is out of range [0, 64]");
    EXPECT_ERROR("[model]\nrope_base = 1\n", 2, "rope_base = 1 is out of range (1, 1e+09]");
    EXPECT_ERROR("[model]\nrope_scale = -2\n", 2, "rope_scale = -2 is out of range (0, 1e+06]");
    EXPECT_ERROR("[model]\nrope_scaling = yarn\nyarn_alpha = 4\nyarn_beta = 2\n", 4, "yarn_beta (2) must be > yarn_alpha (4)");
    EXPECT_ERROR("[run]\nthreads = -1\n", 2, "threads = -1 is out of range");
    EXPECT_ERROR("[model]\npos = rotary\n", 2, "pos: unknown value 'rotary'; expected none|");   // the registry's names
    EXPECT_ERROR("[model]\npos = Rope\n", 2, "unknown value 'Rope'; did you mean 'rope'? expected none|");
    EXPECT_ERROR("[train]\nschedule = linear\n", 2, "expected constant|cosine|noam");
    EXPECT_ERROR("[model]\nnorm_first = maybe\n", 2, "norm_first: 'maybe' is not a boolean");
    EXPECT_ERROR("[model]\nnorm = batchnorm\n", 2, "norm: unknown value 'batchnorm'; expected layernorm|rmsnorm");
    EXPECT_ERROR("[model]\nactivation = tanh\n", 2, "activation: unknown value 'tanh'; expected relu|gelu|swiglu");
    EXPECT_ERROR("[model]\nnorm = layernrom\n", 2, "norm: unknown value 'layernrom'; did you mean 'layernorm'? expected layernorm|rmsnorm");
    EXPECT_ERROR("[model]\nbias = none\n", 2, "bias: 'none' is not a boolean");
    char longname[400] = "[run]\nname = ";
    memset(longname + strlen(longname), 'x', 300);
    EXPECT_ERROR(longname, 2, "name: value is 300 characters, longer than 255");
}

static void test_file_errors(void) {
    Config c;
    char err[512] = "";
    CHECK(config_load(&c, &pos_config_checks, "/nonexistent/dir/x.ini", 0, NULL, err, sizeof err) == -1, "missing file loaded");
    CHECK(!strcmp(err, "/nonexistent/dir/x.ini: cannot open: No such file or directory"), "err '%s'", err);
    CHECK(config_load(&c, &pos_config_checks, tmp_dir, 0, NULL, err, sizeof err) == -1, "directory loaded");
    CHECK(strstr(err, ": cannot read: ") || strstr(err, ": cannot open: "), "err '%s'", err);
    CHECK(c.text == NULL, "text on error");
    EXPECT_ERROR("", 1, "empty config");
    EXPECT_ERROR("; only comments\n\n[model]\n[train]\n", 1, "empty config");
    // NUL byte: reported on its line.
    expect_error_at(__LINE__, "[model]\nd_model = 64\nn_heads\0 = 4\n", sizeof "[model]\nd_model = 64\nn_heads\0 = 4\n" - 1, 0, NULL, 3, "NUL byte");
    expect_error_at(__LINE__, "\0", 1, 0, NULL, 1, "NUL byte");
}

static void test_long_lines(void) {
    size_t n = 1 << 20;
    char *text = malloc(n + 64);
    // A 1 MB line on line 3.
    strcpy(text, "[model]\nd_model = 64\nname = ");
    size_t at = strlen(text);
    memset(text + at, 'y', n);
    strcpy(text + at + n, "\n");
    expect_error_at(__LINE__, text, strlen(text), 0, NULL, 3, "line is 1048583 characters, longer than 4096");
    // Boundary: a 4096-character comment line is fine, 4097 is not.
    strcpy(text, "[model]\nd_model = 64\n;");
    at = strlen(text);
    memset(text + at, 'c', 4095);
    strcpy(text + at + 4095, "\r\n");
    Config c;
    char err[256] = "";
    const char *path = write_file("t.ini", text, strlen(text));
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0, "4096-char line rejected: %s", err);
    config_free(&c);
    strcpy(text + at + 4095, "c\n");
    expect_error_at(__LINE__, text, strlen(text), 0, NULL, 3, "line is 4097 characters");
    free(text);
}

static void test_cross_field_errors(void) {
    EXPECT_ERROR("[model]\nd_model = 60\nn_heads = 8\n", 3, "d_model (60) must be divisible by n_heads (8)");
    EXPECT_ERROR("[model]\nd_model = 66\n", 2, "d_model (66) must be divisible by n_heads (4)"); // n_heads default: d_model's line
    EXPECT_ERROR("[model]\nn_heads = 2\nd_model = 66\npos = rope\n", 4, "even head size d_model/n_heads, got 66/2 = 33");
    EXPECT_ERROR("[model]\nn_heads = 1\nd_model = 63\n", 3, "pos = sinusoidal needs an even d_model, got 63");
    EXPECT_ERROR("[model]\nn_heads = 1\nd_model = 63\npos = alibi\n[run]\nname = ok\n" "[task]\ntask = order\n", 8,
                 "task = order needs model = classifier, not translator");
    EXPECT_ERROR("[task]\ntask = lm\n[model]\nmodel = translator\n", 4, "task = lm needs model = lm");
    EXPECT_ERROR("[task]\ntask = parallel_text\n", 2, "needs train_src and train_tgt");
    // parallel_text: a translator, the LSTM, or the decoder-only form (source as a prefix)
    EXPECT_ERROR("[task]\ntask = parallel_text\ntrain_src = a\ntrain_tgt = b\n[model]\nmodel = classifier\n", 6,
                 "task = parallel_text needs model = translator, lstm or lm, not classifier");
    EXPECT_ERROR("[task]\ntask = parallel_text\ntrain_src = a\ntrain_tgt = b\n[model]\nmodel = lm\nd_model = 60\nn_heads = 8\n", 8,
                 "d_model (60) must be divisible by n_heads (8)");
    EXPECT_ERROR("[task]\ntask = parallel_text\ntrain_src = a\ntrain_tgt = b\n\ntest_tgt = t\n", 6, "test_src and test_tgt must be set together");
    EXPECT_ERROR("[task]\nmin_clauses = 3\nmax_clauses = 2\n", 3, "max_clauses (2) must be >= min_clauses (3)");
    EXPECT_ERROR("[task]\ntask = lm\n[model]\nmodel = lm\n[train]\neos = false\n", 6, "eos = false needs model = translator");
    // model = lstm: no positional scheme (pos must be none, at pos's line or else model's), one
    // decoder layer per encoder layer, and only the translator's tasks.
    EXPECT_ERROR("[model]\nmodel = lstm\npos = rope\n", 3, "model = lstm has no positional scheme: pos must be none, not rope");
    EXPECT_ERROR("[model]\nmodel = lstm\n", 2, "pos must be none, not sinusoidal");
    EXPECT_ERROR("[model]\nmodel = lstm\npos = none\nenc_layers = 2\ndec_layers = 1\n", 5, "dec_layers (1) must equal enc_layers (2)");
    EXPECT_ERROR("[task]\ntask = order\n[model]\nmodel = lstm\npos = none\n", 4, "task = order needs model = classifier, not lstm");
    EXPECT_ERROR("[model]\nattention = additive\n", 2, "attention = additive needs model = lstm");
    EXPECT_ERROR("[eval]\nlength = exact\n", 2, "expected model|oracle");
    EXPECT_ERROR("[train]\nschedule = noam\nwarmup = 0\n", 3, "noam needs warmup >= 1");
    EXPECT_ERROR("[train]\nbatch_size = 4\nmicro_batches = 5\n", 3, "micro_batches (5) must be at most batch_size (4)");
    EXPECT_ERROR("[run]\nname = a/b\n", 2, "plain folder name");
    // Set by an override: no line, just the file.
    char *over[] = {"model.n_heads=7"};
    expect_error_at(__LINE__, "[model]\nd_model = 64\n", 21, 1, over, 0, "d_model (64) must be divisible by n_heads (7)");
    // The defaults-only path reads "config: ..." .
    Config c;
    char err[256] = "";
    config_defaults(&c);
    c.n_heads = 3;
    CHECK(config_validate(&c, &pos_config_checks, err, sizeof err) == -1 && !strcmp(err, "config: d_model (64) must be divisible by n_heads (3)"), "err '%s'", err);
}

static void test_overrides(void) {
    Config c;
    char err[256] = "";
    const char *path = write_text("[model]\nd_model = 128\nn_heads = 4\n[train]\nlr = 0.01\n");
    char *over[] = {"model.d_model=256", "n_heads = 8", "train.lr=0.5", "seed=2", "run.seed=3", "name=\"my run\"", "resume="};
    CHECK(config_load(&c, &pos_config_checks, path, 7, over, err, sizeof err) == 0, "%s", err);
    CHECK(c.d_model == 256 && c.n_heads == 8 && c.lr == 0.5f, "d_model %d n_heads %d lr %g", c.d_model, c.n_heads, c.lr);
    CHECK(c.seed == 3, "later override must win: seed %d", c.seed);
    CHECK(c.key_line[0] == -1 && c.key_line[2] == -1 && c.key_line[3] == 0, "key lines %d %d %d", c.key_line[0], c.key_line[2], c.key_line[3]);
    CHECK(!strcmp(c.name, "my run") && c.resume[0] == '\0', "name '%s'", c.name);
    CHECK(c.text && strstr(c.text, "\nd_model = 256\n") && strstr(c.text, "\nname = my run\n"), "text:\n%s", c.text ? c.text : "");
    config_free(&c);
    // Without overrides the file wins over defaults.
    CHECK(config_load(&c, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0 && c.d_model == 128 && c.lr == 0.01f, "d_model %d", c.d_model);
    config_free(&c);
    // An override may fix what the file alone would leave invalid (validate runs last).
    path = write_text("[model]\nd_model = 60\nn_heads = 8\n");
    char *fix[] = {"model.n_heads=6"};
    CHECK(config_load(&c, &pos_config_checks, path, 1, fix, err, sizeof err) == 0 && c.n_heads == 6, "%s", err);
    config_free(&c);
}

static void test_override_errors(void) {
    const char *ok = "[model]\nd_model = 64\n";
    struct { char *over; const char *want; } cases[] = {
        {"model.d_modle=3", "override 'model.d_modle=3': unknown key 'd_modle' in [model]; did you mean 'model.d_model'?"},
        {"modle.d_model=3", "override 'modle.d_model=3': unknown section [modle]; did you mean [model]?"},
        {"d_modle=3", "override 'd_modle=3': unknown key 'd_modle'; did you mean 'model.d_model'?"},
        {"rl=0.1", "override 'rl=0.1': unknown key 'rl'; did you mean 'train.lr'?"}, // a transposition is one edit
        {"heads=3", "override 'heads=3': unknown key 'heads'; did you mean 'model.n_heads'?"},
        {"model.lr=1", "override 'model.lr=1': unknown key 'lr' in [model]; did you mean 'train.lr'?"},
        {"d_model", "override 'd_model': expected section.key=value or key=value"},
        {"model.d_model=abc", "override 'model.d_model=abc': d_model: 'abc' is not an integer"},
        {"d_model=", "override 'd_model=': d_model: empty value"},
        {"pos=rotary", "override 'pos=rotary': pos: unknown value 'rotary'"},
        {"name=a\nb", "override 'name=a\nb': name: control character in value"},
        {"name=\"a", "unterminated quote"},
        {"dropout=1.5", "dropout = 1.5 is out of range [0, 1)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error_at(__LINE__, ok, strlen(ok), 1, &cases[i].over, -1, cases[i].want);
    // An override that is fine must not hide a later bad one.
    char *two[] = {"seed=4", "steps=0"};
    expect_error_at(__LINE__, ok, strlen(ok), 2, two, -1, "override 'steps=0': steps = 0 is out of range [1, 1000000000]");
    // Comments are not stripped from overrides: ';' is part of the value.
    Config c;
    char err[256] = "";
    char *semi[] = {"out_dir=a ;b"};
    CHECK(config_load(&c, &pos_config_checks, write_text(ok), 1, semi, err, sizeof err) == 0 && !strcmp(c.out_dir, "a ;b"), "out_dir '%s' %s", c.out_dir, err);
    config_free(&c);
}

static void test_config_set(void) {
    Config c;
    char err[256] = "";
    config_defaults(&c);
    CHECK(config_set(&c, &pos_config_checks, "pos=rope", err, sizeof err) == 0 && !strcmp(c.pos, "rope"), "pos '%s' %s", c.pos, err);
    CHECK(config_set(&c, &pos_config_checks, "model.rope_scale=4", err, sizeof err) == 0 && c.pos_cfg.rope_factor == 4.0f &&
          c.pos_cfg.rope_scaling == ROPE_SCALING_LINEAR, "%s", err);
    // rope_scale = 1 (every old checkpoint's config says so) leaves a scaling as it is.
    CHECK(config_set(&c, &pos_config_checks, "rope_scaling=yarn", err, sizeof err) == 0 && config_set(&c, &pos_config_checks, "rope_scale=1", err, sizeof err) == 0 &&
          c.pos_cfg.rope_scaling == ROPE_SCALING_YARN && c.pos_cfg.rope_factor == 4.0f, "%s %g %s", config_enum_name(&c, &c.pos_cfg.rope_scaling), c.pos_cfg.rope_factor, err);
    CHECK(config_set(&c, &pos_config_checks, "rope_scale=0", err, sizeof err) == -1 && strstr(err, "rope_scale = 0 is out of range"), "err '%s'", err);
    CHECK(config_set(&c, &pos_config_checks, "rope_scaling=ntk-aware", err, sizeof err) == -1 && strstr(err, "none|linear|ntk|yarn|dynamic"), "err '%s'", err);
    CHECK(config_set(&c, &pos_config_checks, "rope_scaling=none", err, sizeof err) == 0 && config_set(&c, &pos_config_checks, "rope_factor=1", err, sizeof err) == 0, "%s", err);
    CHECK(c.text == NULL, "config_set must not allocate text when there is none");
    CHECK(config_set(&c, &pos_config_checks, "norm_first=Off", err, sizeof err) == 0 && c.norm_first == 0, "norm_first %d %s", c.norm_first, err);
    CHECK(config_set(&c, &pos_config_checks, "norm_first=YES", err, sizeof err) == 0 && c.norm_first == 1, "bool words are case-insensitive: %s", err);
    CHECK(config_set(&c, &pos_config_checks, "model.d_model=x", err, sizeof err) == -1 && strstr(err, "'x' is not an integer"), "err '%s'", err);
    CHECK(c.d_model == 64, "failed set changed d_model to %d", c.d_model);
    // With text: kept in sync.
    config_to_ini(&c);
    CHECK(config_set(&c, &pos_config_checks, "train.steps=77", err, sizeof err) == 0 && strstr(c.text, "\nsteps = 77\n"), "text not refreshed");
    config_free(&c);
    CHECK(c.text == NULL, "config_free leaves text");
}

// Every setting field (everything before path) equal byte for byte.
static int same_settings(const Config *a, const Config *b) { return !memcmp(a, b, offsetof(Config, path)); }

static void test_round_trip(void) {
    Config a, b;
    char err[256] = "";
    const char *path = write_text(FULL);
    CHECK(config_load(&a, &pos_config_checks, path, 0, NULL, err, sizeof err) == 0, "%s", err);
    // Awkward floats and strings, through overrides.
    char *sets[] = {"lr=0.1", "eps=1e-9", "beta2=0.99999988", "weight_decay=0.333333343", "clip=1e-38",
                    "rope_base=123456.789", "min_lr_ratio=1", "dropout=0.9999999", "resume=\" x ; y \"",
                    "lexicon=has#hash", "test_src=t s", "test_tgt= t"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        CHECK(config_set(&a, &pos_config_checks, sets[i], err, sizeof err) == 0, "%s: %s", sets[i], err);
    CHECK(!strcmp(a.resume, " x ; y "), "resume '%s'", a.resume);
    char *text = config_to_ini(&a);
    CHECK(text == a.text, "returned text is not c->text");
    CHECK(config_load_text(&b, &pos_config_checks, "ckpt", text, err, sizeof err) == 0, "%s\n%s", err, text);
    CHECK(same_settings(&a, &b), "round trip changed settings:\n%s\n---\n%s", a.text, b.text ? b.text : "");
    CHECK(a.lr == b.lr && a.eps == b.eps && a.beta2 == b.beta2 && a.clip == b.clip && a.dropout == b.dropout, "floats");
    CHECK(!strcmp(b.resume, " x ; y ") && !strcmp(b.lexicon, "has#hash") && !strcmp(b.out_dir, a.out_dir), "strings");
    CHECK(b.text && !strcmp(a.text, b.text), "second rendering differs");
    CHECK(!strcmp(b.path, "ckpt"), "path '%s'", b.path);
    // Every key appears once: count "key = value" lines.
    int n_lines = 0;
    for (const char *p = text; (p = strstr(p, " = ")); p++) n_lines++;
    CHECK(n_lines == 87, "%d key lines, expected 87", n_lines);
    CHECK(strstr(text, "\nlr = 0.1\n") && strstr(text, "\neps = 9.99999972e-10\n") == NULL && strstr(text, "\neps = 1e-09\n"),
          "floats not printed shortest-exact:\n%s", text);
    config_free(&a);
    config_free(&b);
    // Defaults round-trip too, and a single changed bit is detected.
    config_defaults(&a);
    CHECK(config_load_text(&b, &pos_config_checks, "defaults", config_to_ini(&a), err, sizeof err) == 0 && same_settings(&a, &b), "%s", err);
    b.beta1 = nextafterf(b.beta1, 1.0f);
    CHECK(!same_settings(&a, &b), "comparison blind to a changed float");
    config_free(&a);
    config_free(&b);
}

static void test_load_text_errors(void) {
    Config c;
    char err[256] = "";
    CHECK(config_load_text(&c, &pos_config_checks, "ckpt.safetensors", "[model]\nd_model = x\n", err, sizeof err) == -1, "bad text loaded");
    CHECK(!strcmp(err, "ckpt.safetensors:2: d_model: 'x' is not an integer"), "err '%s'", err);
    CHECK(config_load_text(&c, &pos_config_checks, "m", "", err, sizeof err) == -1 && !strcmp(err, "m:1: empty config"), "err '%s'", err);
    CHECK(c.text == NULL, "text on error");
}

// Every word of every enum key parses to its own constant, is named back by config_enum_name
// and written back by config_to_ini: config.c's word lists and config.h's enums must keep the
// same order (a swap would silently turn one setting into another).
static void test_enum_words(void) {
    static const struct { const char *key, *word; size_t offset; int value; } cases[] = {
        {"task.task", "order", offsetof(Config, task), TASK_ORDER},
        {"task.task", "toy_translate", offsetof(Config, task), TASK_TOY_TRANSLATE},
        {"task.task", "parallel_text", offsetof(Config, task), TASK_PARALLEL_TEXT},
        {"task.task", "lm", offsetof(Config, task), TASK_LM},
        {"task.task", "algorithmic", offsetof(Config, task), TASK_ALGORITHMIC},
        {"task.algorithm", "copy", offsetof(Config, algorithm), ALGO_COPY},
        {"task.algorithm", "reverse", offsetof(Config, algorithm), ALGO_REVERSE},
        {"task.algorithm", "duplicate", offsetof(Config, algorithm), ALGO_DUPLICATE},
        {"task.algorithm", "sort", offsetof(Config, algorithm), ALGO_SORT},
        {"model.model", "classifier", offsetof(Config, model), MODEL_CLASSIFIER},
        {"model.model", "translator", offsetof(Config, model), MODEL_TRANSLATOR},
        {"model.model", "lm", offsetof(Config, model), MODEL_LM},
        {"model.activation", "relu", offsetof(Config, activation), ACTIVATION_RELU},
        {"model.activation", "gelu", offsetof(Config, activation), ACTIVATION_GELU},
        {"model.activation", "swiglu", offsetof(Config, activation), ACTIVATION_SWIGLU},
        {"model.norm", "layernorm", offsetof(Config, norm), NORM_LAYERNORM},
        {"model.norm", "rmsnorm", offsetof(Config, norm), NORM_RMSNORM},
        {"model.pool", "mean", offsetof(Config, pool), POOL_MEAN},
        {"model.pool", "cls", offsetof(Config, pool), POOL_CLS},
        {"model.rope_scaling", "none", offsetof(Config, pos_cfg.rope_scaling), ROPE_SCALING_NONE},
        {"model.rope_scaling", "linear", offsetof(Config, pos_cfg.rope_scaling), ROPE_SCALING_LINEAR},
        {"model.rope_scaling", "ntk", offsetof(Config, pos_cfg.rope_scaling), ROPE_SCALING_NTK},
        {"model.rope_scaling", "yarn", offsetof(Config, pos_cfg.rope_scaling), ROPE_SCALING_YARN},
        {"model.rope_scaling", "dynamic", offsetof(Config, pos_cfg.rope_scaling), ROPE_SCALING_DYNAMIC},
        {"model.attn_logit_scale", "none", offsetof(Config, attn_logit_scale), LOGIT_SCALE_NONE},
        {"model.attn_logit_scale", "log", offsetof(Config, attn_logit_scale), LOGIT_SCALE_LOG},
        {"train.schedule", "constant", offsetof(Config, schedule), SCHED_CONSTANT},
        {"train.schedule", "cosine", offsetof(Config, schedule), SCHED_COSINE},
        {"train.schedule", "noam", offsetof(Config, schedule), SCHED_NOAM},
        {"eval.positions", "sampled", offsetof(Config, positions), EVAL_POSITIONS_SAMPLED},
        {"eval.positions", "plain", offsetof(Config, positions), EVAL_POSITIONS_PLAIN},
        {"eval.length", "model", offsetof(Config, length), EVAL_LENGTH_MODEL},
        {"eval.length", "oracle", offsetof(Config, length), EVAL_LENGTH_ORACLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Config c;
        char err[256], assignment[96], line[96];
        config_defaults(&c);
        snprintf(assignment, sizeof assignment, "%s=%s", cases[i].key, cases[i].word);
        CHECK(config_set(&c, &pos_config_checks, assignment, err, sizeof err) == 0, "%s: %s", assignment, err);
        const int *field = (const int *)((const char *)&c + cases[i].offset);
        CHECK(*field == cases[i].value, "%s: stored %d, expected %d", assignment, *field, cases[i].value);
        CHECK(!strcmp(config_enum_name(&c, field), cases[i].word), "%s: named '%s'", assignment, config_enum_name(&c, field));
        snprintf(line, sizeof line, "\n%s = %s\n", strchr(cases[i].key, '.') + 1, cases[i].word);
        char *ini = config_to_ini(&c);
        CHECK(ini && strstr(ini, line), "%s: config_to_ini has no line '%s'", assignment, line + 1);
        config_free(&c);
    }
}

// Found by tests/fuzz/fuzz_config.c: a section name of 3000 or more characters is "too long"
// (1000) away from every section, which close_enough took as near, and the hint read
// SECTIONS[-1]. The hint now lists the sections.
static void test_fuzz_long_section_name(void) {
    static char text[3100];
    text[0] = '[';
    memset(text + 1, 'a', 3000);
    strcpy(text + 3001, "]\nd_model = 64\n");
    EXPECT_ERROR(text, 1, "unknown section [aaaaaaaaaa");
    EXPECT_ERROR(text, 1, "a]; valid sections: [run] [task] [model] [train]");
}

int main(void) {
    strcpy(tmp_dir, "/tmp/test_config_XXXXXX");
    if (!mkdtemp(tmp_dir)) { perror("mkdtemp"); return 1; }
    RUN(test_defaults);
    RUN(test_minimal_file);
    RUN(test_full_file);
    RUN(test_syntax_errors);
    RUN(test_value_errors);
    RUN(test_file_errors);
    RUN(test_long_lines);
    RUN(test_cross_field_errors);
    RUN(test_overrides);
    RUN(test_override_errors);
    RUN(test_config_set);
    RUN(test_enum_words);
    RUN(test_round_trip);
    RUN(test_load_text_errors);
    RUN(test_fuzz_long_section_name);
    const char *names[] = {"t.ini", "mini.ini", "plain", "x.ini"};
    for (int i = 0; i < 4; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", tmp_dir, names[i]);
        unlink(p);
    }
    rmdir(tmp_dir);
    return check_summary();
}
