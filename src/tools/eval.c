// ./eval CHECKPOINT [key=value ...]: evaluate a checkpoint (dropout off), print CSV or a table.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/runtime.h"
#include "config/config.h"
#include "io/fileio.h"
#include "run/cli.h"
#include "score/diagnose.h"
#include "score/evaluate.h"
#include "score/grad_dump.h"
#include "run/run_dir.h"
#include "data/task.h"
#include "train/train_stop.h"

static const char *USAGE =
    "usage: ./eval CHECKPOINT [key=value ...] [--table] [--positions FILE] [--dump-grads FILE]\n"
    "\n"
    "Evaluates a checkpoint (a model.safetensors file or its run folder) on the data its\n"
    "config names, with dropout off, and prints one CSV row per split and length:\n"
    "  split,length,examples,loss,token_acc,exact_match,pair_acc,max_twin_diff,loss_last,"
    "converged\n"
    "token_acc is the classifier's accuracy; exact_match compares greedy translations (the\n"
    "decoder-only algorithmic form: greedy continuations after the input) with the\n"
    "reference; pair_acc counts twins that are both right; loss_last is the language model's\n"
    "loss on the last 32 tokens of each window; converged (the same on every row) is the\n"
    "step a run trained with train.until converged at, or \"not in N steps\" when it\n"
    "stopped at N without converging (patience, or train.steps), empty without a stop rule.\n"
    "The CSV holds fractions (token_acc 0.9995); scripts read it.\n"
    "\n"
    "--table: the same rows for reading, accuracies in percent as every results table gives\n"
    "them, empty cells as -:\n"
    "  split  length  examples      loss  token acc %  exact %  pair acc %  loss_last\n"
    "\n"
    "Overrides change the stored config for this evaluation, for example:\n"
    "  splits=val,test       which splits to report (none: only the lengths= sets)\n"
    "  lengths=1..12         toy_translate: test sets of 1..12 clauses; algorithmic: of input\n"
    "                        lengths 1..12; lm: window sizes\n"
    "  pos_offset=16         shift every position index by 16\n"
    "  rope_scaling=yarn rope_factor=4 rope_original_len=32\n"
    "                        stretch RoPE for 4x the training window: linear (position\n"
    "                        interpolation), ntk, dynamic or yarn; rope_base=40000 a larger base\n"
    "  positions=plain       a run trained with model.pos_random: positions 0..n-1 instead\n"
    "                        of drawn ones (positions=sampled, the default)\n"
    "  attn_logit_scale=log  self-attention scores times log(n)/log(n_train) past the training\n"
    "                        length n_train (model.attn_train_length, recorded by ./train)\n"
    "  test_size=200         sentences per generated test set\n"
    "  lm_windows=16         lm: score at most the first 16 windows of each size (default 256)\n"
    "  length=oracle         exact match decodes to the reference length: <eos> is forbidden\n"
    "                        before it and forced there, and toy_translate's final \".\" before\n"
    "                        the last token (always so for a model trained with train.eos=false;\n"
    "                        default length=model: stop at the model's <eos>)\n"
    "\n"
    "--positions FILE (translator, lstm): also write where the model goes wrong, one CSV row per\n"
    "target position and per clause of every reported set:\n"
    "  split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,"
    "early_end\n"
    "token_acc under teacher forcing; of the greedy outputs, `reached` were still right up to\n"
    "this index, `departures` first went wrong here, early_eos of them with <eos>, early_end\n"
    "with <eos> or the sentence's end (\".\" in toy_translate).\n"
    "\n"
    "--dump-grads FILE: instead of the CSV, one training step's gradients for checking the\n"
    "math against another implementation (scripts/torch_model.py). The data ./eval scores\n"
    "(the whole validation split; lm: the evaluation windows of `window` tokens) as one\n"
    "batch, dropout off, the training loss (train.label_smoothing included), one backward\n"
    "pass, no update. FILE is safetensors (all F32): batch.src / batch.tgt_in / batch.tgt_out /\n"
    "batch.labels (the ids the model saw), loss, and grad.NAME for every parameter NAME;\n"
    "metadata: the resolved config. Meant for small runs: the split is one batch.\n";

// The run's `converged` cell (train/train_stop.h), the last of every row.
static char converged[64];
// --table: rows for reading, accuracies in percent, instead of the CSV scripts read
static int as_table;

// A cell of the table: the percentage of a fraction, or "-" when the row has none.
static void print_pct(double fraction, int present, int width) {
    if (present) printf("  %*.2f", width, 100.0 * fraction);
    else printf("  %*s", width, "-");
}

static void print_table_row(const char *split, int length, const EvalResult *r) {
    printf("%-5s  %6d  %8d  %8.4f", split, length, r->n_examples, r->loss);
    print_pct(r->token_acc, 1, 11);
    print_pct(r->exact_match, r->exact_match >= 0, 7);
    print_pct(r->pair_acc, r->twin_pairs > 0, 10);
    if (r->loss_last > 0) printf("  %9.4f\n", r->loss_last);
    else printf("  %9s\n", "-");
    fflush(stdout);
}

static void print_row(const char *split, int length, const EvalResult *r) {
    if (as_table) {
        print_table_row(split, length, r);
        return;
    }
    printf("%s,%d,%d,%.6g,%.6g,", split, length, r->n_examples, r->loss, r->token_acc);
    if (r->exact_match >= 0) printf("%.6g", r->exact_match);
    printf(",");
    if (r->twin_pairs > 0) printf("%.6g,%.6g", r->pair_acc, r->max_twin_diff);
    else printf(",");
    printf(",");
    if (r->loss_last > 0) printf("%.6g", r->loss_last);
    printf(",%s\n", converged);
    fflush(stdout);
}

static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

// Every word of splits= must be a split ./eval reports ("none": only the lengths= sets): a
// typo would silently print nothing.
static int check_splits(const char *list, char *err, int errlen) {
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (strcmp(w, "val") && strcmp(w, "test") && strcmp(w, "none")) {
            snprintf(err, errlen,
                     "splits: unknown split '%s' (expected val, test, val,test or none)", w);
            return -1;
        }
    return 0;
}

// Refuse lengths the task cannot generate before printing any row, not halfway through.
static int check_lengths(const Config *c, const int *lengths, int n, char *err, int errlen) {
    char msg[512];
    for (int i = 0; i < n; i++)
        if (task_check_length(c, lengths[i], msg, sizeof msg)) {
            snprintf(err, errlen, "lengths: %s", msg);
            return -1;
        }
    return 0;
}

// Evaluates a translator's split and, with diag_out, appends its per-position rows.
static int evaluate_translator(Model *m, const Task *t, const Split *s, FILE *diag_out,
                               const char *split, int length, EvalResult *r, char *err,
                               int errlen) {
    if (!diag_out) return evaluate_split(m, t, s, 0, 1, r, err, errlen);
    Diagnosis d;
    diagnosis_init(&d, task_end_token(t));
    int rc = evaluate_diagnose(m, t, s, 0, 1, &d, r, err, errlen);
    if (!rc) diagnosis_write(diag_out, &d, split, length, 0);
    diagnosis_free(&d);
    return rc;
}

// The rows of the evaluation: the language model's windows, or each split asked for (the
// classifier's two forms apart) and the generated test sets of each length in lengths.
static int print_rows(Run *run, int *lengths, int n_lengths, FILE *diag_out, char *err,
                      int errlen) {
    const Config *c = &run->cfg;
    Model *m = &run->model;
    Task *t = &run->task;
    int rc = 0;
    char log_path[700];
    snprintf(log_path, sizeof log_path, "%s/log.csv", run->dir);
    stop_converged_cell(log_path, converged, sizeof converged);
    if (as_table)
        printf("split  length  examples      loss  token acc %%  exact %%  pair acc %%"
               "  loss_last\n");
    else
        printf("split,length,examples,loss,token_acc,exact_match,pair_acc,max_twin_diff,"
               "loss_last,converged\n");
    EvalResult r;
    if (t->cfg.task == TASK_LM) {
        if (!n_lengths) lengths[n_lengths++] = c->window;
        for (int i = 0; i < n_lengths && !rc; i++)
            if (!(rc = evaluate_lm(m, t->lm_val, t->n_lm_val, lengths[i], c->lm_windows, &r,
                                   err, errlen)))
                print_row("val", lengths[i], &r);
    } else {
        const char *names[2] = {"val", "test"};
        const Split *splits[2] = {&t->val, &t->test};
        for (int k = 0; k < 2 && !rc; k++) {
            if (!has_word(c->splits, names[k]) || splits[k]->n == 0) continue;
            // report the five- and three-word forms apart
            if (m->cfg.model == MODEL_CLASSIFIER) {
                for (int form = 5; form >= 3 && !rc; form -= 2)
                    if (!(rc = evaluate_split(m, t, splits[k], form, 0, &r, err, errlen)) &&
                        r.n_examples)
                        print_row(names[k], form, &r);
            } else if (!(rc = evaluate_translator(m, t, splits[k], diag_out, names[k], 0, &r,
                                                  err, errlen))) {
                print_row(names[k], 0, &r);
            }
        }
        for (int i = 0; i < n_lengths && !rc; i++) {   // generated test sets of length k
            Split ls = {0};
            if (!(rc = task_length_split(t, lengths[i], c->test_size, &ls, err, errlen)) &&
                !(rc = evaluate_translator(m, t, &ls, diag_out, "test", lengths[i], &r, err,
                                           errlen)))
                print_row("test", lengths[i], &r);
            split_free(&ls);
        }
    }
    return rc;
}

static int run(const char *ckpt_arg, int n_over, char **over, const char *dump_path,
               const char *positions_path, char *err, int errlen) {
    Run run;
    if (run_read_config(&run, ckpt_arg, 0, n_over, over, err, errlen)) return -1;
    const Config *c = &run.cfg;
    int lengths[256], n_lengths = 0, rc = 0;
    if (check_splits(c->splits, err, errlen) ||
        (c->lengths[0] && (n_lengths = parse_lengths(c->lengths, lengths, 256, err, errlen)) < 0) ||
        check_lengths(c, lengths, n_lengths, err, errlen))
        rc = -1;
    run.lengths = lengths;   // for the memory estimate
    run.n_lengths = n_lengths > 0 ? n_lengths : 0;
    if (!rc && run_open(&run, err, errlen)) rc = -1;
    Model *m = &run.model;
    Task *t = &run.task;
    char *diag_text = NULL;
    size_t diag_len = 0;
    FILE *diag_out = NULL;
    if (!rc && positions_path && !model_is_seq2seq(m->cfg.model)) {
        snprintf(err, errlen,
                 "--positions: only a translator or lstm has target positions (this is model = %s)",
                 config_enum_name(c, &c->model));
        rc = -1;
    } else if (!rc && positions_path) {
        if (!(diag_out = open_memstream(&diag_text, &diag_len))) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else diagnosis_write(diag_out, &(Diagnosis){.end_token = -1}, "", 0, 1);   // the header
    }
    if (!rc && dump_path) {
        rc = grad_dump(m, t, &run.cfg, dump_path, err, errlen);
    } else if (!rc) {
        rc = print_rows(&run, lengths, n_lengths, diag_out, err, errlen);
    }
    if (diag_out) {
        fclose(diag_out);   // diag_text now holds the rows
        if (!rc) rc = write_file_atomic(positions_path, diag_text, diag_len, err, errlen);
        free(diag_text);
    }
    run_close(&run);
    return rc;
}

int main(int argc, char **argv) {
    runtime_init(argc, argv);
    int usage = runtime_usage(argc, argv, USAGE);
    if (usage >= 0) return usage;
    const char *dump_path = NULL, *positions_path = NULL;
    const CliOption opts[] = {{"--dump-grads", &dump_path, NULL},
                              {"--positions", &positions_path, NULL},
                              {"--table", NULL, &as_table},
                              {NULL, NULL, NULL}};
    int n_over;
    // the overrides, compacted in place (each lands at or before where it was read)
    char **over = argv + 2;
    if (cli_read("eval", argc, argv, 2, opts, over, &n_over, argc - 2)) return 2;
    char err[1024];
    if (run(argv[1], n_over, over, dump_path, positions_path, err, sizeof err)) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    return cli_stdout_done();
}
