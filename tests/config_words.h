// Tests set a config's enum keys by their words, as a config file does ("model.model", "lm"):
// the word goes through config_set, so a test cannot store a value the parser would refuse.
#ifndef CONFIG_WORDS_H
#define CONFIG_WORDS_H
#include <stdio.h>
#include <stdlib.h>
#include "config/config.h"
#include "pos/pos.h"

static inline void config_word(Config *c, const char *key, const char *word) {
    char assignment[160], err[512];
    snprintf(assignment, sizeof assignment, "%s=%s", key, word);
    if (config_set(c, &pos_config_checks, assignment, err, sizeof err)) {
        fprintf(stderr, "config_word: %s\n", err);
        abort();
    }
}
#endif
