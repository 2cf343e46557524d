#include "train/train_log.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io/fileio.h"

// A stop row (train/train_stop.h): its split is none of train, val, test.
static int is_stop_row(const char *line) {
    const char *split = strchr(line, ',');
    if (!split) return 0;
    split++;
    return strncmp(split, "train,", 6) && strncmp(split, "val,", 4) && strncmp(split, "test,", 5);
}

int train_log_has_tokens(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024];
    int has = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#') { has = !strcmp(line, TRAIN_LOG_HEADER_TOKENS); break; }
    fclose(f);
    return has;
}

int train_log_start(const char *path, long step, const char *note, int tokens, char *err,
                    int errlen) {
    size_t n = 0;
    char *text = NULL;
    struct stat s;
    if (stat(path, &s) == 0 && !(text = read_file(path, &n, (size_t)1 << 30, err, errlen)))
        return -1;
    char *old_header = text;
    while (old_header && *old_header == '#' && strchr(old_header, '\n'))
        old_header = strchr(old_header, '\n') + 1;
    size_t kept = old_header && !note ? (size_t)(old_header - text) : 0, len = 0;
    if (!note) note = "";
    const char *header = tokens ? TRAIN_LOG_HEADER_TOKENS : TRAIN_LOG_HEADER;
    // a log without the tokens column that gains it: one empty cell a row, at most n rows
    int pad = tokens && old_header && strncmp(old_header, header, strlen(header));
    char *out = malloc(strlen(note) + kept + strlen(header) + 2 * n + 1);
    if (!out) { free(text); snprintf(err, errlen, "%s: out of memory", path); return -1; }
    if (kept) memcpy(out, text, kept), len = kept;
    memcpy(out + len, note, strlen(note)), len += strlen(note);
    memcpy(out + len, header, strlen(header)), len += strlen(header);
    char *line = old_header ? strchr(old_header, '\n') : NULL;   // skip the old header
    while (line && line[1]) {
        char *next = strchr(line + 1, '\n');
        if (!next) break;                             // torn last row
        if (strtol(line + 1, NULL, 10) <= step && !is_stop_row(line + 1)) {
            memcpy(out + len, line + 1, (size_t)(next - line - 1));
            len += (size_t)(next - line - 1);
            if (pad) out[len++] = ',';
            out[len++] = '\n';
        }
        line = next;
    }
    int rc = write_file_atomic(path, out, len, err, errlen);
    free(out);
    free(text);
    return rc;
}

static void log_cell_write(FILE *f, LogCell c, int last) {
    if (!c.present || isnan(c.value)) fputs(last ? "\n" : ",", f);
    else fprintf(f, last ? "%.6g\n" : "%.6g,", c.value);
}

void train_log_row(FILE *f, const LogRow *row, int tokens) {
    fprintf(f, "%ld,%s,%d,", row->step, row->split, row->length);
    log_cell_write(f, row->loss, 0);
    log_cell_write(f, row->token_acc, 0);
    log_cell_write(f, row->exact_match, 0);
    log_cell_write(f, row->loss_last, 0);
    log_cell_write(f, row->lr, 0);
    log_cell_write(f, row->grad_norm, !tokens);
    if (tokens && row->tokens.present) fprintf(f, "%.0f\n", row->tokens.value);   // a count
    else if (tokens) fputc('\n', f);
    fflush(f);
}
