// The Markdown tables of results.md (src/stats/pivot.c, ./table): small CSV texts against
// tables worked out by hand: means, sample standard deviations (n - 1), scale and rounding,
// the order of rows and columns, filters, per-seed averages, sums, steps to converge, labels,
// alignment, the aggregates (median, min, max, count, argmax, text), expressions, first-of,
// the plain output, and the errors on bad input.
#include <string.h>

#include "check.h"
#include "io/csv.h"
#include "stats/pivot.h"

// The table of csv under spec into got (rc returned); err holds the message on error.
static int table(const char *csv, const PivotSpec *spec, char *got, int n, char *err) {
    CsvTable t;
    if (csv_parse(csv, strlen(csv), "t.csv", &t, err, 256)) return -2;
    StrBuf b = {0};
    int rc = pivot_markdown(spec, &t, &b, err, 256);
    snprintf(got, n, "%s", b.s ? b.s : "");
    strbuf_free(&b);
    csv_free(&t);
    return rc;
}

#define CHECK_TABLE(csv, spec, want)                                                \
    do {                                                                           \
        char got_[2048], err_[256] = "";                                           \
        int rc_ = table(csv, spec, got_, sizeof got_, err_);                       \
        CHECK(rc_ == 0 && !strcmp(got_, want), "rc %d %s\n--- got\n%s--- want\n%s", \
              rc_, err_, got_, want);                                              \
    } while (0)

// rope at 2: 50, 70, 90 -> 70.0 ± 20.0 (sd with n: 16.3); at 10: 10, 20 -> 15.0 ± 7.1
// (sqrt(50); with n: 5.0); none at 2: 25.0 alone, at 10 nothing (view b is filtered out);
// columns 2 before 10; lstm's only value is empty: no row.
static void test_mean_sd_by_hand(void) {
    const char *csv = "view,scheme,seed,x,acc\n"
                      "a,rope,1,10,0.1\n" "a,rope,1,2,0.5\n" "a,rope,2,2,0.7\n"
                      "a,rope,2,10,0.2\n" "a,rope,3,2,0.9\n" "b,none,1,10,0.99\n"
                      "a,lstm,1,2,\n" "a,none,1,2,0.25\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "scheme";
    s.cols = "x";
    s.values[s.n_values++] = "acc";
    s.filters[s.n_filters++] = "view=a";
    s.scale = 100;
    CHECK_TABLE(csv, &s, "| scheme | 2 | 10 |\n| --- | ---: | ---: |\n"
                         "| rope | 70.0 ± 20.0 | 15.0 ± 7.1 |\n| none | 25.0 | |\n");
}

// %.3f: 1.2345 and 1.2365 -> mean 1.2355, sd 0.0014142 -> "1.236 ± 0.001"; %d truncates as
// awk's does: 3 and 4 -> 3.5 -> "3", sd 0.707 -> "0".
static void test_formats_by_hand(void) {
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "scheme";
    s.cols = "x";
    s.values[s.n_values++] = "v";
    s.format = "%.3f";
    CHECK_TABLE("scheme,x,v\nt5,3,1.2345\nt5,3,1.2365\n", &s,
                "| scheme | 3 |\n| --- | ---: |\n| t5 | 1.236 ± 0.001 |\n");
    s.format = "%d";
    CHECK_TABLE("scheme,x,v\nt5,3,3\nt5,3,4\n", &s,
                "| scheme | 3 |\n| --- | ---: |\n| t5 | 3 ± 0 |\n");
}

// Columns in numeric order, words (0 to awk) first and in the order they came: b, a, 2, 10.
static void test_column_order(void) {
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "k";
    s.cols = "c";
    s.values[s.n_values++] = "v";
    s.format = "%.0f";
    CHECK_TABLE("k,c,v\nr,b,1\nr,10,2\nr,a,3\nr,2,4\n", &s,
                "| k | b | a | 2 | 10 |\n| --- | ---: | ---: | ---: | ---: |\n"
                "| r | 1 | 3 | 4 | 2 |\n");
}

// A converged column: rope's seed 2 stopped at the ceiling (1 of 2, each seed counted once
// over its two lengths), alibi's both: 16 -> 0 and 50 -> 25.0 ± 35.4; 1, 0.5 -> 75.0 ± 35.4.
static void test_converged_by_hand(void) {
    const char *csv = "scheme,seed,length,exact_match,converged\n"
                      "rope,1,16,1,150\n" "rope,1,32,0.5,150\n"
                      "rope,2,16,0.5,not in 300 steps\n" "rope,2,32,0.25,not in 300 steps\n"
                      "alibi,1,16,0,not in 300 steps\n" "alibi,2,16,0.5,not in 300 steps\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "scheme";
    s.cols = "length";
    s.values[s.n_values++] = "exact_match";
    s.scale = 100;
    CHECK_TABLE(csv, &s, "| scheme | 16 | 32 |\n| --- | ---: | ---: |\n"
                         "| rope (1 of 2 seeds not in 300 steps) | 75.0 ± 35.4 | 37.5 ± 17.7 |\n"
                         "| alibi (not in 300 steps) | 25.0 ± 35.4 | |\n");
}

// Steps to converge: each run once (rope copy seed 1 has two rows); CPU (10.0 + 20.6) / 2 =
// 15.3; 1.04 -> 1.0; the ceiling noted.
static void test_steps_by_hand(void) {
    const char *csv = "scheme,task,seed,length,converged,cpu_seconds\n"
                      "rope,copy,1,16,150,10.0\n" "rope,copy,1,32,150,10.0\n"
                      "rope,copy,2,16,not in 300 steps,20.6\n" "rope,reverse,1,16,200,3\n"
                      "none,reverse,1,16,250,1.04\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "scheme";
    s.cols = "task";
    s.cell = PIVOT_STEPS;
    CHECK_TABLE(csv, &s,
                "| scheme | copy: steps | copy: CPU s | reverse: steps | reverse: CPU s |\n"
                "| --- | ---: | ---: | ---: | ---: |\n"
                "| rope | 150 / - | 15.3 | 200 | 3.0 |\n| none | | | 250 | 1.0 |\n"
                "\n\"-\": did not converge (not in 300 steps).\n");
}

// Per seed, then over seeds, two value columns, two row columns, filters != and >, a label.
// plain (rope, alibi beyond 16): exact seed 1 (0.2 + 0.4) / 2 = 30, seed 2 (0.4 + 0.8) / 2 =
// 60 -> 45.0 ± 21.2; tokens 70, 80 -> 75.0 ± 7.1. random: 60, 50 -> 55.0 ± 7.1 and 80, 60 ->
// 70.0 ± 14.1; on 0..n-1: 10, 10 -> 10.0 ± 0.0 and 20, 40 -> 30.0 ± 14.1. none and the length
// 16 are left out (with them plain's seed 1 would be (0.2 + 0.4 + 1) / 3 or (1 + 0.2 + 0.4) / 3).
static void test_per_seed_by_hand(void) {
    const char *csv = "task,scheme,variant,seed,length,exact_match,token_acc\n"
                      "copy,rope,plain,1,32,0.2,0.5\n" "copy,rope,plain,1,16,1,1\n"
                      "copy,alibi,plain,1,32,0.4,0.9\n" "copy,none,plain,1,32,1,1\n"
                      "copy,rope + random,random,1,32,0.6,0.8\n"
                      "copy,rope + random (plain),random (plain),1,32,0.1,0.2\n"
                      "copy,rope,plain,2,32,0.4,0.7\n" "copy,alibi,plain,2,32,0.8,0.9\n"
                      "copy,none,plain,2,32,1,1\n" "copy,rope + random,random,2,32,0.5,0.6\n"
                      "copy,rope + random (plain),random (plain),2,32,0.1,0.4\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "task";
    s.rows[s.n_rows++] = "variant";
    s.values[s.n_values++] = "sequence accuracy=exact_match";
    s.values[s.n_values++] = "token accuracy=token_acc";
    s.filters[s.n_filters++] = "length>16";
    s.filters[s.n_filters++] = "scheme!=none";
    s.labels[s.n_labels++] = "random (plain)=random, on 0..n-1";
    s.per = "seed";
    s.scale = 100;
    CHECK_TABLE(csv, &s, "| task | variant | sequence accuracy | token accuracy |\n"
                         "| --- | --- | ---: | ---: |\n"
                         "| copy | plain | 45.0 ± 21.2 | 75.0 ± 7.1 |\n"
                         "| copy | random | 55.0 ± 7.1 | 70.0 ± 14.1 |\n"
                         "| copy | random, on 0..n-1 | 10.0 ± 0.0 | 30.0 ± 14.1 |\n");
}

// Sums of rope's test rows by clause per variant and length: 3 + 2, 1 + 2, 2 + 2 at 4 and 7 at
// 12; the clauses column holds numbers: right-aligned. Rows by position, alibi's, val: out.
static void test_sum_by_hand(void) {
    const char *csv = "variant,scheme,split,length,by,departures,early_eos,early_end\n"
                      "eos,rope,test,4,clause,3,1,2\n" "eos,rope,test,4,clause,2,2,2\n"
                      "eos,rope,test,4,position,7,7,7\n" "eos,alibi,test,4,clause,9,9,9\n"
                      "eos,rope,val,4,clause,5,5,5\n" "eos,rope,test,12,clause,7,0,1\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "variant";
    s.rows[s.n_rows++] = "clauses=length";
    s.values[s.n_values++] = "wrong=departures";
    s.values[s.n_values++] = "early_eos";
    s.values[s.n_values++] = "early_end";
    s.filters[s.n_filters++] = "scheme=rope";
    s.filters[s.n_filters++] = "by=clause";
    s.filters[s.n_filters++] = "split=test";
    s.agg = "sum";
    s.format = "%d";
    CHECK_TABLE(csv, &s, "| variant | clauses | wrong | early_eos | early_end |\n"
                         "| --- | ---: | ---: | ---: | ---: |\n"
                         "| eos | 4 | 5 | 3 | 4 |\n| eos | 12 | 7 | 0 | 1 |\n");
}

// Shares of each column's total, as percentages: in a, x has 30 + 20 of 60 (83.33 %), y 10
// (16.67 %); in b, x 1 of 4 (25.00 %), y 3 (75.00 %).
static void test_share_by_hand(void) {
    const char *csv = "shape,row,pct\n" "a,x,30\n" "a,y,10\n" "a,x,20\n" "b,x,1\n" "b,y,3\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "row";
    s.cols = "shape";
    s.values[s.n_values++] = "pct:share:%.2f";
    s.scale = 100;
    CHECK_TABLE(csv, &s, "| row | a | b |\n| --- | ---: | ---: |\n"
                         "| x | 83.33 | 25.00 |\n| y | 16.67 | 75.00 |\n");
}

// A row named by a text of columns; two values of one column both kept (any of them), a
// column value relabelled: rope eos 0.5, rope random 1 and 0 -> 50.0 ± 70.7; oracle rows out.
static void test_template_and_any_of(void) {
    const char *csv = "variant,scheme,seed,length,exact_match\n"
                      "eos,rope,1,4,0.5\n" "oracle,rope,1,4,0.9\n"
                      "random,rope,1,4,1\n" "random,rope,2,4,0\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "run={scheme} {variant} at";
    s.cols = "length";
    s.values[s.n_values++] = "exact_match";
    s.filters[s.n_filters++] = "variant=eos";
    s.filters[s.n_filters++] = "variant=random";
    s.labels[s.n_labels++] = "4=four";
    s.scale = 100;
    CHECK_TABLE(csv, &s, "| run | four |\n| --- | ---: |\n"
                         "| rope eos at | 50.0 |\n| rope random at | 50.0 ± 70.7 |\n");
}

// Aggregates of arm a's cpu 4, 1, 3, 8 (sorted 1 3 4 8): median (3 + 4) / 2 = 3.5, mean 4.0
// (bare: no sd; with it 4.0 ± 2.9, sqrt(26 / 3)), sum 16, count 4, min 1, max 8; arm b's
// 10, 30, 20 (the empty cpu is no sample): median 20, mean 20, min 10, max 30, count 3.
// argmax(val): a's lr 0.001 and 0.003 both at 0.9: the first, 0.001; b's best is 0.6 (0.003).
// text, last: the first and the last lr as written (b's last row has no cpu but an lr).
static void test_aggregates_by_hand(void) {
    const char *csv = "arm,lr,val,cpu\n"
                      "a,0.001,0.9,4\n" "a,0.003,0.9,1\n" "a,0.01,0.5,3\n" "a,0.03,0.7,8\n"
                      "b,0.001,0.2,10\n" "b,0.003,0.6,30\n" "b,0.01,0.4,20\n" "b,0.03,0.1,\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "arm";
    s.values[s.n_values++] = "cpu:median";
    s.values[s.n_values++] = "mean=cpu:mean";
    s.values[s.n_values++] = "sum=cpu:sum:%.0f";
    s.values[s.n_values++] = "n=cpu:count:%d";
    s.values[s.n_values++] = "lo=cpu:min";
    s.values[s.n_values++] = "hi=cpu:max";
    s.values[s.n_values++] = "best=lr:argmax(val)";
    s.values[s.n_values++] = "lr:text";
    s.values[s.n_values++] = "final=lr:last";
    CHECK_TABLE(csv, &s, "| arm | cpu | mean | sum | n | lo | hi | best | lr | final |\n"
                         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
                         "| a | 3.5 | 4.0 | 16 | 4 | 1.0 | 8.0 | 0.001 | 0.001 | 0.03 |\n"
                         "| b | 20.0 | 20.0 | 60 | 3 | 10.0 | 30.0 | 0.003 | 0.001 | 0.03 |\n");
    s.n_values = 1;   // --agg for the values that name none; --plain: keys and cells, commas
    s.values[0] = "cpu";
    s.agg = "max";
    s.plain = PIVOT_PLAIN;
    CHECK_TABLE(csv, &s, "a,8.0\nb,30.0\n");
}

// Expressions left to right: (t1 + t2) / alone = 130 / 100 = 1.3 and 220 / 200 = 1.1, their
// median 1.2; several values with --cols: each value's columns in turn.
static void test_expressions_and_cols(void) {
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "shape";
    s.values[s.n_values++] = "ratio=t1+t2/alone:median:%.2f";
    CHECK_TABLE("shape,alone,t1,t2\nx,100,60,70\nx,200,90,130\n", &s,
                "| shape | ratio |\n| --- | ---: |\n| x | 1.20 |\n");
    s = pivot_spec_default();
    s.rows[s.n_rows++] = "model";
    s.cols = "beam";
    s.values[s.n_values++] = "bleu:text";
    s.values[s.n_values++] = "chrf:text";
    CHECK_TABLE("model,beam,bleu,chrf\ntf,2,31.5,55.25\ntf,1,30.0,54\n", &s,
                "| model | 1 | 2 | 1 | 2 |\n| --- | ---: | ---: | ---: | ---: |\n"
                "| tf | 30.0 | 31.5 | 54 | 55.25 |\n");
    // PIVOT_CSV: a header line, columns named by their cols values, for another table to read
    // (the ratio of two runs' parameters: 1010 / 1000 = 1.0100)
    s = pivot_spec_default();
    s.cols = "variant";
    s.values[s.n_values++] = "params:text";
    s.plain = PIVOT_CSV;
    CHECK_TABLE("variant,params\nLSTM,1000\nTransformer,1010\n", &s,
                "LSTM,Transformer\n1000,1010\n");
    s = pivot_spec_default();
    s.values[s.n_values++] = "Transformer/LSTM:sum:%.4f";
    s.plain = PIVOT_PLAIN;
    CHECK_TABLE("LSTM,Transformer\n1000,1010\n", &s, "1.0100\n");
}

// first_of: run r seed 1's CPU (on both its rows) counted once: 5 + 7 + 3 = 15 over every row
// (no row column: one line, empty when no row is kept). Filters >= and <=: the losses at steps
// 50 and 75, mean 1.5.
static void test_first_of_and_bounds(void) {
    PivotSpec s = pivot_spec_default();
    s.first_of = "{run},{seed}";
    s.values[s.n_values++] = "cpu:sum:%.0f";
    s.plain = PIVOT_PLAIN;
    CHECK_TABLE("run,seed,length,cpu\nr,1,16,5\nr,1,32,5\nr,2,16,7\nq,1,16,3\n", &s, "15\n");
    s = pivot_spec_default();
    s.values[s.n_values++] = "loss:mean:%.4f";
    s.filters[s.n_filters++] = "step>=50";
    s.filters[s.n_filters++] = "step<=75";
    s.plain = PIVOT_PLAIN;
    CHECK_TABLE("step,loss\n25,9\n50,1\n75,2\n100,3\n", &s, "1.5000\n");
    s.filters[0] = "step>=500";   // no row kept: one line of empty cells
    CHECK_TABLE("step,loss\n25,9\n50,1\n75,2\n100,3\n", &s, "\n");
}

// Windows of 4 positions (a // b floors): a at 0 and 3 -> w0, mean (2 + 4) / 2 = 3.00 of 2, its
// middle (0 + 0.5) x 4 - 0.5 = 1.5, from 0; a at 4 -> w1 (5.5, from 4); a at 9 -> w2 (9.5, 8);
// b at 5 -> w1. wmean(tokens): a (2 x 100 + 4 x 300) / 400 = 3.500 (unweighted 3.000);
// b's row without a weight is left out: 1.000.
static void test_bins_and_wmean_by_hand(void) {
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "s";
    s.rows[s.n_rows++] = "bin=w{position//4}";
    s.values[s.n_values++] = "mid=position//4+0.5*4-0.5:min:%g";
    s.values[s.n_values++] = "from=position//4*4:min:%d";
    s.values[s.n_values++] = "loss:mean:%.2f";
    s.values[s.n_values++] = "n=loss:count:%d";
    s.plain = PIVOT_CSV;
    CHECK_TABLE("s,position,loss\na,0,2\na,3,4\na,4,6\na,9,1\nb,5,8\n", &s,
                "s,bin,mid,from,loss,n\na,w0,1.5,0,3.00,2\na,w1,5.5,4,6.00,1\n"
                "a,w2,9.5,8,1.00,1\nb,w1,5.5,4,8.00,1\n");
    s = pivot_spec_default();
    s.rows[s.n_rows++] = "s";
    s.values[s.n_values++] = "loss:wmean(tokens):%.3f";
    s.plain = PIVOT_PLAIN;
    CHECK_TABLE("s,loss,tokens\na,2,100\na,4,300\nb,1,10\nb,3,\n", &s, "a,3.500\nb,1.000\n");
    s = pivot_spec_default();
    s.rows[s.n_rows++] = "{position//4}";
    s.values[s.n_values++] = "loss";
    char got[256], err[256] = "";
    int rc = table("position,loss\n1,2\nx,3\n", &s, got, sizeof got, err);
    CHECK(rc == -1 && !strcmp(err, "t.csv:3: column \"position\": \"x\" is not a number"),
          "rc %d err %s", rc, err);
}

// Bad input: a message naming the file (and line), nothing written.
static void test_errors(void) {
    const char *csv = "scheme,x,acc\nrope,2,0.5\nrope,2,abc\n";
    PivotSpec s = pivot_spec_default();
    s.rows[s.n_rows++] = "scheme";
    s.cols = "x";
    s.values[s.n_values++] = "acc";
    char got[512], err[256];
    int rc = table(csv, &s, got, sizeof got, err);
    CHECK(rc == -1 && !strcmp(err, "t.csv:3: column \"acc\": \"abc\" is not a number") && !got[0],
          "rc %d err [%s] got [%s]", rc, err, got);
    const char *fine = "scheme,x,acc\nrope,2,0.5\n";
    s.values[0] = "nope";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "t.csv: no column \"nope\"") && !got[0], "rc %d err [%s]", rc,
          err);
    s.values[0] = "acc";
    const char *bad_formats[] = {"%s", "%.1f %.1f", "%*d", "x", "%ld"};
    for (int i = 0; i < 5; i++) {
        s.format = bad_formats[i];
        rc = table(fine, &s, got, sizeof got, err);
        CHECK(rc == -1 && strstr(err, "one number conversion") && !got[0], "%s: rc %d err [%s]",
              bad_formats[i], rc, err);
    }
    s.format = "%.1f";
    s.filters[s.n_filters++] = "x~2";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "filter \"x~2\""), "rc %d err [%s]", rc, err);
    s.filters[0] = "x>two";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "\"two\" is not a number"), "rc %d err [%s]", rc, err);
    s.n_filters = 0;
    s.values[0] = "acc:mode";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "aggregate \"mode\""), "rc %d err [%s]", rc, err);
    s.values[0] = "acc+x:text";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "take one column"), "rc %d err [%s]", rc, err);
    s.values[0] = "acc/nope";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "no column \"nope\""), "rc %d err [%s]", rc, err);
    s.values[0] = "acc";
    s.rows[0] = "{scheme";
    rc = table(fine, &s, got, sizeof got, err);
    CHECK(rc == -1 && strstr(err, "without its '}'"), "rc %d err [%s]", rc, err);
}

int main(void) {
    RUN(test_mean_sd_by_hand);
    RUN(test_formats_by_hand);
    RUN(test_column_order);
    RUN(test_converged_by_hand);
    RUN(test_steps_by_hand);
    RUN(test_per_seed_by_hand);
    RUN(test_sum_by_hand);
    RUN(test_share_by_hand);
    RUN(test_template_and_any_of);
    RUN(test_aggregates_by_hand);
    RUN(test_expressions_and_cols);
    RUN(test_first_of_and_bounds);
    RUN(test_bins_and_wmean_by_hand);
    RUN(test_errors);
    return check_summary();
}
