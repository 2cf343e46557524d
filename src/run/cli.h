// The command line of the tools (./eval, ./generate, ./permute, ./translate, ./bench): one
// reader, so every tool names its options' mistakes the same way and exits 2 on them.
//
// A tool lists its options; cli_read walks argv, stores each option's word (or marks a flag)
// and hands back every other word (config overrides, an input file) in order. Numbers are
// read afterwards with cli_int / cli_float, which say which option was wrong and why. ./plot
// keeps its own reader: its --filter may be given several times and adds up.
#ifndef RUN_CLI_H
#define RUN_CLI_H

typedef struct CliOption {
    const char *name;     // "--tokens"; a NULL name ends the list
    const char **value;   // gets the word after the option; NULL for a flag
    int *given;           // optional: set to 1 when the option appears (a flag needs it)
} CliOption;

// Reads argv[first..argc). A word starting with '-' (other than "-" alone) must be one of
// `opts`; an option given twice keeps its last value. Other words go to rest[] (at most
// max_rest; max_rest 0 refuses them). Returns 0, or prints "TOOL: what is wrong (see ./TOOL
// --help)" on standard error and returns 2, the exit code of a usage mistake.
int cli_read(const char *tool, int argc, char **argv, int first, const CliOption *opts,
             char **rest, int *n_rest, int max_rest);

// The word of option `name` as an integer in lo..hi (or a finite float in lo..hi) into *out.
// Returns 0, or prints "TOOL: NAME: ..." and returns 2.
int cli_int(const char *tool, const char *name, const char *word, long long lo, long long hi,
            long long *out);
int cli_float(const char *tool, const char *name, const char *word, double lo, double hi,
              float *out);

// The end of a tool whose standard output is data (a CSV a script redirects into a file):
// flushes it and returns 0, or prints "error: FILE (standard output): write failed: WHY" and
// returns 1, so that a full disk is an error, not a short file and exit status 0.
int cli_stdout_done(void);
#endif
