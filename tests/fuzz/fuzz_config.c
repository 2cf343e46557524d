// libFuzzer target for the INI parser: any bytes must give a valid Config or a message,
// never a crash, leak or undefined behaviour. Built and run by `make fuzz`.
//
// Input: config text, optionally followed by a line "%%" and override lines
// ("section.key=value"), so the override parser is fuzzed too. Properties checked:
//   - every failure writes a message;
//   - a config that loads, renders (config_to_ini) to text that loads back to the same
//     text: nothing the parser accepts is lost or changed by a round trip.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "pos/pos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must_say_why(int rc, const char *err) {
    if (rc && err[0] == '\0') abort();
}

// A loaded config must survive render -> parse -> render unchanged.
static void check_round_trip(Config *c) {
    char err[1024] = "";
    if (config_validate(c, &pos_config_checks, err, sizeof err)) return;  // overrides may leave it invalid: fine
    char *text = config_to_ini(c);
    if (!text) return;
    Config back;
    if (config_load_text(&back, &pos_config_checks, "roundtrip", text, err, sizeof err)) {
        fprintf(stderr, "rendered config does not load back: %s\n%s\n", err, text);
        abort();
    }
    if (strcmp(back.text, text)) {
        fprintf(stderr, "round trip changed the config:\n%s\n---\n%s\n", text, back.text);
        abort();
    }
    config_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // Configs are small. Each override re-renders the whole config and a bad one computes
    // edit distances to every key, so long inputs and many overrides only slow the search.
    if (size > 8192) return 0;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';  // config_load_text takes a C string: an embedded NUL ends the text
    char *overrides = strstr(buf, "\n%%\n");
    if (overrides) {
        *overrides = '\0';
        overrides += 4;
    }
    Config c;
    char err[1024] = "";
    int rc = config_load_text(&c, &pos_config_checks, "fuzz.ini", buf, err, sizeof err);
    must_say_why(rc, err);
    if (!rc) {
        int n_over = 0;
        for (char *line = overrides; line && *line && n_over++ < 16;) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            err[0] = '\0';
            must_say_why(config_set(&c, &pos_config_checks, line, err, sizeof err), err);
            line = nl ? nl + 1 : NULL;
        }
        check_round_trip(&c);
    }
    config_free(&c);
    free(buf);
    return 0;
}
