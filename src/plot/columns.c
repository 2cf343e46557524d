// Axis titles of known CSV columns; see columns.h.
#include "plot/columns.h"

#include <string.h>

static const struct { const char *name, *title; } titles[] = {
    {"step", "training step"},
    {"loss", "loss (nats per token)"},
    {"loss_last", "loss on the last 32 tokens (nats per token)"},
    {"token_acc", "token accuracy"},
    {"exact_match", "exact match"},
    {"pair_acc", "pair accuracy (both twins right)"},
    {"window", "evaluation window (tokens)"},
    {"budget", "fine-tuning steps"},
    {"departure_rate", "share going wrong here, of the outputs still right"},
    {"early_eos", "departures by an early <eos>"},
    {"reached", "outputs still right when they reach this point"},
    {"lr", "learning rate"},
    {"grad_norm", "gradient norm (before clipping)"},
    {"cpu_seconds", "CPU seconds"},
};

const char *column_title(const char *name) {
    for (int i = 0; i < (int)(sizeof titles / sizeof *titles); i++)
        if (!strcmp(titles[i].name, name)) return titles[i].title;
    return NULL;
}
