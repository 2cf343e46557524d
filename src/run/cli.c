#include "run/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

// "TOOL: what is wrong", with a pointer to --help when the command line's shape is wrong
// (a misspelt option) rather than one value.
static int cli_error(const char *tool, int see_help, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", tool);
    vfprintf(stderr, fmt, ap);
    if (see_help) fprintf(stderr, " (see ./%s --help)", tool);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int cli_read(const char *tool, int argc, char **argv, int first, const CliOption *opts,
             char **rest, int *n_rest, int max_rest) {
    *n_rest = 0;
    for (int i = first; i < argc; i++) {
        char *word = argv[i];
        if (word[0] != '-' || !word[1]) {   // "-" alone names standard input
            if (*n_rest == max_rest)
                return max_rest ? cli_error(tool, 1,
                                            "more than %d arguments besides options, at '%.80s'",
                                            max_rest, word)
                                : cli_error(tool, 1, "unexpected argument '%.80s'", word);
            rest[(*n_rest)++] = word;
            continue;
        }
        const CliOption *o = opts;
        while (o->name && strcmp(o->name, word)) o++;
        if (!o->name) return cli_error(tool, 1, "unknown option '%.80s'", word);
        if (o->given) *o->given = 1;
        if (!o->value) continue;
        if (i + 1 >= argc || !argv[i + 1][0]) return cli_error(tool, 0, "%s needs a value", word);
        *o->value = argv[++i];
    }
    return 0;
}

int cli_int(const char *tool, const char *name, const char *word, long long lo, long long hi,
            long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(word, &end, 10);
    if (end == word || *end || errno)
        return cli_error(tool, 0, "%s: '%.80s' is not an integer", name, word);
    if (v < lo || v > hi) return cli_error(tool, 0, "%s must be in %lld..%lld, got %s",
                                           name, lo, hi, word);
    *out = v;
    return 0;
}

int cli_float(const char *tool, const char *name, const char *word, double lo, double hi,
              float *out) {
    char *end;
    errno = 0;
    double v = strtod(word, &end);
    if (end == word || *end || errno || !isfinite(v))
        return cli_error(tool, 0, "%s: '%.80s' is not a number", name, word);
    if (v < lo || v > hi) return cli_error(tool, 0, "%s must be in %g..%g, got %s",
                                           name, lo, hi, word);
    *out = (float)v;
    return 0;
}

int cli_stdout_done(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    int why = errno;
    struct statvfs fs;   // an earlier write failed: errno is gone, a full disk is not
    if (!why && fstatvfs(STDOUT_FILENO, &fs) == 0 && fs.f_bavail == 0) why = ENOSPC;
    char target[512];
    ssize_t k = readlink("/proc/self/fd/1", target, sizeof target - 1);
    target[k > 0 ? k : 0] = '\0';
    fprintf(stderr, "error: %s%sstandard output%s: write failed: %s\n", target,
            k > 0 ? " (" : "", k > 0 ? ")" : "", strerror(why ? why : EIO));
    return 1;
}
