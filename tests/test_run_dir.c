// Opening a run for inference (run/run_dir.h): a generated task's training split is made only
// when the run needs it, to learn the length it trained on (model.attn_train_length unrecorded);
// the held-out sets are the same either way.
#include <string.h>
#include "check.h"
#include "run/run_dir.h"

// Opens configs/algorithmic/copy.ini (300 training examples) with one more override, or none.
static void open_copy(Run *r, const char *extra) {
    char *over[3] = {"task.train_size=300", "run.max_memory=1G", (char *)extra};
    char err[512] = "";
    CHECK(run_read_config(r, "configs/algorithmic/copy.ini", 1, extra ? 3 : 2, over, err, sizeof err) == 0,
          "config: %s", err);
    CHECK(run_open(r, err, sizeof err) == 0, "run_open: %s", err);
}

static void test_training_split_only_when_needed(void) {
    Run told, untold;
    open_copy(&told, "model.attn_train_length=17");
    CHECK(told.task.train.n == 0, "attn_train_length recorded: %d training examples made, expected 0",
          told.task.train.n);
    CHECK(told.cfg.attn_train_length == 17, "the recorded length kept: %d", told.cfg.attn_train_length);
    open_copy(&untold, NULL);
    CHECK(untold.task.train.n == 300, "unrecorded: %d training examples, expected 300", untold.task.train.n);
    // copy of 1..16 symbols: the longest side 16, + <eos>
    CHECK(untold.cfg.attn_train_length == 17, "the length read from the data: %d, expected 17",
          untold.cfg.attn_train_length);
    CHECK(told.task.val.n == 200 && untold.task.val.n == 200, "val sizes %d, %d", told.task.val.n, untold.task.val.n);
    int same = told.task.val.n == untold.task.val.n;
    for (int i = 0; same && i < told.task.val.n; i++) {
        const Example *a = &told.task.val.ex[i], *b = &untold.task.val.ex[i];
        same = a->n_src == b->n_src && a->n_tgt == b->n_tgt &&
               !memcmp(a->src, b->src, sizeof(int) * (size_t)a->n_src) &&
               !memcmp(a->tgt, b->tgt, sizeof(int) * (size_t)a->n_tgt);
    }
    CHECK(same, "the validation split does not depend on the training split being made");
    run_close(&told);
    run_close(&untold);
}

int main(void) {
    RUN(test_training_split_only_when_needed);
    return check_summary();
}
