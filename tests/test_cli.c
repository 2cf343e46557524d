// The tools' option reader (src/run/cli.c): options, flags, overrides compacted in place, and
// each mistake's message and exit code.
#include <string.h>

#include "capture.h"
#include "check.h"
#include "run/cli.h"

static char said[512];   // what the last call printed on standard error

// Runs cli_read on the words of `line` (split at spaces) with the options of ./generate's
// shape, standard error captured into `said`.
typedef struct { const char *prompt, *tokens; int score, n_rest; char *rest[8]; } Got;

static int read_line(const char *line, Got *g, int max_rest) {
    static char buf[256];
    char *argv[16] = {"tool"};   // argv[0], the program; the words start at 1
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 16; w = strtok(NULL, " ")) argv[argc++] = strcmp(w, "''") ? w : "";
    *g = (Got){0};
    const CliOption opts[] = {{"--prompt", &g->prompt, NULL}, {"--tokens", &g->tokens, NULL},
                              {"--score", NULL, &g->score}, {NULL, NULL, NULL}};
    Capture c = capture_begin();
    int rc = cli_read("tool", argc, argv, 1, opts, g->rest, &g->n_rest, max_rest);
    capture_end(&c, said, sizeof said);
    return rc;
}

static void test_options_flags_and_rest(void) {
    Got g;
    int rc = read_line("RUN a=1 --prompt hi --score b=2 --tokens 5 --prompt again -", &g, 8);
    CHECK(rc == 0, "rc %d: %s", rc, said);
    CHECK(g.prompt && !strcmp(g.prompt, "again"), "the last --prompt wins, got '%s'", g.prompt ? g.prompt : "(null)");
    CHECK(g.tokens && !strcmp(g.tokens, "5"), "--tokens '%s'", g.tokens ? g.tokens : "(null)");
    CHECK(g.score == 1, "--score not seen");
    CHECK(g.n_rest == 4, "%d other words", g.n_rest);
    if (g.n_rest == 4)
        CHECK(!strcmp(g.rest[0], "RUN") && !strcmp(g.rest[1], "a=1") && !strcmp(g.rest[2], "b=2") && !strcmp(g.rest[3], "-"),
              "rest %s %s %s %s", g.rest[0], g.rest[1], g.rest[2], g.rest[3]);
    CHECK(!said[0], "printed '%s'", said);
    CHECK(read_line("RUN", &g, 8) == 0 && g.n_rest == 1 && !g.prompt && !g.score, "no options");
}

static void test_mistakes_are_named_and_exit_2(void) {
    Got g;
    CHECK(read_line("RUN --bogus 3", &g, 8) == 2, "unknown option accepted");
    CHECK(!strcmp(said, "tool: unknown option '--bogus' (see ./tool --help)\n"), "said '%s'", said);
    CHECK(read_line("RUN --tokens", &g, 8) == 2, "missing value accepted");
    CHECK(!strcmp(said, "tool: --tokens needs a value\n"), "said '%s'", said);
    CHECK(read_line("RUN --prompt ''", &g, 8) == 2, "empty value accepted");
    CHECK(read_line("RUN a=1 b=2", &g, 2) == 2, "a third word past max_rest 2 accepted");
    CHECK(!strcmp(said, "tool: more than 2 arguments besides options, at 'b=2' (see ./tool --help)\n"), "said '%s'", said);
    CHECK(read_line("RUN", &g, 0) == 2, "a word accepted with max_rest 0");
    CHECK(!strcmp(said, "tool: unexpected argument 'RUN' (see ./tool --help)\n"), "said '%s'", said);
    CHECK(read_line("--prompt x", &g, 0) == 0 && g.n_rest == 0, "options alone with max_rest 0: %s", said);
}

static void test_numbers(void) {
    long long v = 0;
    float f = 0;
    Capture c = capture_begin();
    CHECK(cli_int("tool", "--n", "12", 1, 20, &v) == 0 && v == 12, "12 -> %lld", v);
    CHECK(cli_int("tool", "--n", "-3", -5, 20, &v) == 0 && v == -3, "-3 -> %lld", v);
    CHECK(cli_int("tool", "--n", "0", 1, 20, &v) == 2, "0 below 1 accepted");
    CHECK(cli_int("tool", "--n", "21", 1, 20, &v) == 2, "21 above 20 accepted");
    CHECK(cli_int("tool", "--n", "20", 1, 20, &v) == 0 && v == 20, "20 -> %lld", v);
    CHECK(cli_int("tool", "--n", "3x", 1, 20, &v) == 2, "3x accepted");
    CHECK(cli_int("tool", "--n", "99999999999999999999", 0, 1LL << 62, &v) == 2, "overflow accepted");
    CHECK(cli_float("tool", "--t", "0.25", 0, 1, &f) == 0 && f == 0.25f, "0.25 -> %g", f);
    CHECK(cli_float("tool", "--t", "nan", 0, 1, &f) == 2, "nan accepted");
    CHECK(cli_float("tool", "--t", "1.5", 0, 1, &f) == 2, "1.5 above 1 accepted");
    CHECK(cli_float("tool", "--t", "", 0, 1, &f) == 2, "empty accepted");
    capture_end(&c, said, sizeof said);
    CHECK(strstr(said, "tool: --n must be in 1..20, got 0\n") && strstr(said, "tool: --n: '3x' is not an integer\n") &&
          strstr(said, "tool: --t: 'nan' is not a number\n"), "said '%s'", said);
}

int main(void) {
    RUN(test_options_flags_and_rest);
    RUN(test_mistakes_are_named_and_exit_2);
    RUN(test_numbers);
    return check_summary();
}
