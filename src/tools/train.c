// ./train CONFIG.ini [section.key=value ...] — train a model as the config says.
#include <stdio.h>
#include <string.h>
#include "core/runtime.h"
#include "config/config.h"
#include "pos/pos.h"
#include "run/stop.h"
#include "train/trainer.h"

static const char *USAGE =
    "usage: ./train CONFIG.ini [section.key=value ...]\n"
    "\n"
    "Trains the model a config describes and writes the run folder out_dir/name:\n"
    "config.ini (the settings used), log.csv, model.safetensors and the vocabularies.\n"
    "\n"
    "  section.key=value   override a config entry (e.g. model.pos=rope train.steps=500);\n"
    "                      a bare key=value works when the key is unique\n"
    "  train.resume=DIR    continue the run in DIR (or from a checkpoint file) exactly\n"
    "  train.init_from=DIR start a new run from the weights of DIR (fresh optimizer and\n"
    "                      schedule; the window and the RoPE stretch may differ, shapes may not)\n"
    "  --list-schemes      print the positional schemes (model.pos values), one a line\n"
    "  --help              this text\n"
    "\n"
    "SIGTERM or SIGINT (Ctrl-C) stops after the current step with a checkpoint, prints the\n"
    "command that resumes it and exits with 128 + the signal number; a second one stops at once.\n"
    "\n"
    "Examples: ./train configs/rope.ini\n"
    "          ./train configs/order/none.ini run.seed=2 run.name=none_s2\n";

int main(int argc, char **argv) {
    runtime_init(argc, argv);
    if (argc == 2 && !strcmp(argv[1], "--list-schemes")) {   // scripts ask this, not a copy
        for (int i = 0; i < pos_scheme_count(); i++) puts(pos_scheme_at(i)->name);
        return 0;
    }
    int usage = runtime_usage(argc, argv, USAGE);
    if (usage >= 0) return usage;
    Config c;
    char err[1024];
    if (config_load(&c, &pos_config_checks, argv[1], argc - 2, argv + 2, err, sizeof err) ||
        config_check_files(&c, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        config_free(&c);
        return 2;
    }
    stop_signals_install();
    int rc = train_run(&c, err, sizeof err);
    if (rc < 0) fprintf(stderr, "error: %s\n", err);
    config_free(&c);
    return rc > 0 ? 128 + rc : rc ? 1 : 0;   // stopped by a signal: the shell's 128 + its number
}
