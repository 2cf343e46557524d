// libFuzzer target for log.csv as a resumed training reads it (src/train/train_log.c,
// src/train/train_stop.c): train_log_start keeps the rows up to the checkpoint's step,
// stop_replay_log replays train.until and train.patience over them, stop_read_log and
// ./eval's converged cell find the stop row.
// Any bytes must be read or refused with a message, never a crash, leak or undefined
// behaviour. Properties checked:
//   - every failure of train_log_start and stop_replay_log writes a message;
//   - the log train_log_start writes begins with the comment lines it kept and the header,
//     ends with a newline, and holds no stop row and no row past the step.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "pos/pos.h"
#include "train/train_stop.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static Config until, patience;
static const long STEP = 40;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char err[1024];
    if (config_load_text(&until, &pos_config_checks, "until", "[train]\nuntil = val_loss<=0.5\n",
                         err, sizeof err) ||
        config_load_text(&patience, &pos_config_checks, "patience", "[train]\npatience = 2\n",
                         err, sizeof err)) {
        fprintf(stderr, "fuzz_train_log: %s\n", err);
        exit(1);
    }
    return 0;
}

static void replay(const Config *c, const char *path) {
    StopRules r = stop_rules_init(c);
    StopReason why;
    char err[512] = "";
    if (stop_replay_log(&r, c, path, STEP, 0, &why, err, sizeof err) && !err[0]) abort();
    if (why < STOP_NONE || why > STOP_CEILING) abort();
}

// The log as train_log_start left it: header, then rows with step <= STEP, none a stop row.
static void check_rewritten(const char *path, int tokens) {
    char err[512];
    size_t n;
    char *text = read_file(path, &n, (size_t)1 << 30, err, sizeof err);
    if (!text) abort();
    const char *header = tokens ? TRAIN_LOG_HEADER_TOKENS : TRAIN_LOG_HEADER;
    char *p = text;
    while (*p == '#' && strchr(p, '\n')) p = strchr(p, '\n') + 1;
    if (strncmp(p, header, strlen(header)) || text[n - 1] != '\n') {
        fprintf(stderr, "rewritten log has no header or a torn end:\n%s\n", text);
        abort();
    }
    for (p += strlen(header); *p; p = strchr(p, '\n') + 1) {
        if (strtol(p, NULL, 10) > STEP) abort();
        for (int r = STOP_CONVERGED; r <= STOP_CEILING; r++) {
            const char *comma = strchr(p, ',');
            size_t k = strlen(stop_reason_names[r]);
            if (comma && !strncmp(comma + 1, stop_reason_names[r], k) && comma[1 + k] == ',')
                abort();
        }
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("log.csv", data, size);
    long step;
    StopReason why;
    if (stop_read_log(path, &step, &why) == 0 && (why < STOP_CONVERGED || why > STOP_CEILING))
        abort();
    char cell[64];
    stop_converged_cell(path, cell, sizeof cell);
    replay(&until, path);
    replay(&patience, path);
    int tokens = train_log_has_tokens(path) || (size & 1);
    char err[512] = "";
    if (train_log_start(path, STEP, NULL, tokens, err, sizeof err)) {
        if (!err[0]) abort();
        return 0;
    }
    check_rewritten(path, tokens);
    return 0;
}
