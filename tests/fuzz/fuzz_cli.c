// libFuzzer target for the command line of the tools (src/run/cli.c) with ./eval's options
// (--positions FILE, --dump-grads FILE) and the length lists of `lengths=` and
// train.eval_lengths (parse_lengths in src/data/task.c).
// Input: the words of argv, separated by NUL bytes. Any words must be read or refused with
// exit code 2, never a crash or undefined behaviour. Properties checked:
//   - cli_read keeps every word that is not an option, in order, and gives each option the
//     word after it;
//   - cli_int / cli_float accept a value only inside their range;
//   - parse_lengths gives at most `cap` lengths, each >= 1, or a message.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/cli.h"
#include "data/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

// The tools' messages would flood the log; libFuzzer and the sanitizers keep file
// descriptor 2 for their own reports.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    FILE *null = fopen("/dev/null", "w");
    if (null) stderr = null;
    return 0;
}

static void check_lengths(const char *word) {
    int out[64];
    char err[256] = "";
    int n = parse_lengths(word, out, 64, err, sizeof err);
    if (n < 0 && !err[0]) abort();
    for (int i = 0; i < n; i++)
        if (out[i] < 1) abort();
}

static void check_numbers(const char *word) {
    long long i;
    if (!cli_int("eval", "--n", word, -5, 100, &i) && (i < -5 || i > 100)) abort();
    float f;
    if (!cli_float("eval", "--x", word, 0.0, 1.0, &f) && !(f >= 0.0f && f <= 1.0f)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[256];
    int argc = 0;
    argv[argc++] = "eval";
    for (char *p = text; p < text + size && argc < 256; p += strlen(p) + 1) argv[argc++] = p;
    const char *dump = NULL, *positions = NULL;
    int given = 0;
    const CliOption opts[] = {{"--dump-grads", &dump, NULL},
                              {"--positions", &positions, &given},
                              {"--beam", NULL, NULL},
                              {NULL, NULL, NULL}};
    char **rest = malloc(sizeof *rest * (size_t)argc);
    int n_rest = -1;
    int rc = cli_read("eval", argc, argv, 1, opts, rest, &n_rest, argc);
    if (rc != 0 && rc != 2) abort();
    if (rc == 0) {
        int k = 0;   // the words that are not options come back in order
        for (int i = 1; i < argc; i++) {
            if (argv[i][0] == '-' && argv[i][1]) {
                if (strcmp(argv[i], "--beam")) i++;   // the option's value
                continue;
            }
            if (k >= n_rest || rest[k++] != argv[i]) abort();
        }
        if (k != n_rest || (positions && !given)) abort();
        for (int i = 0; i < n_rest; i++) check_lengths(rest[i]);
        if (positions) check_numbers(positions);
        if (dump) check_numbers(dump);
    }
    free(rest);
    free(text);
    return 0;
}
