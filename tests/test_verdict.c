// The verdicts (src/verdict): hand-made results and claims files small enough to work every
// row by hand: the gate on both arms (a loss on itself), floor rows, the direction of an interval, the pairing,
// one seed, the headline row, a seed's mean over combinations, ranks with ties, bad files, a
// replaced study (out of the rows, its failed arm listed) and a bad successor.
#include <string.h>

#include "check.h"
#include "fs_helpers.h"
#include "verdict/claims.h"
#include "verdict/compare.h"
#include "verdict/rank.h"
#include "verdict/report.h"

// Seeds 1-3 unless said. Length 3 is "in distribution" (the gate), length 4 the test.
static const char *results_csv =
    "variant,seed,length,exact_match,token_acc\n"
    "a,1,4,0.6,0.6\na,2,4,0.7,0.7\na,3,4,0.8,0.8\na,1,3,1,1\na,2,3,1,1\na,3,3,1,1\n"
    "b,1,4,0.1,0.1\nb,2,4,0.2,0.2\nb,3,4,0.3,0.3\nb,1,3,0.5,0.5\nb,2,3,0.5,0.5\nb,3,3,0.5,0.5\n"
    "d,1,4,0.1,0.1\nd,2,4,0.3,0.3\nd,3,4,0.2,0.2\nd,1,3,1,1\nd,2,3,1,1\nd,3,3,1,1\n"
    "f,1,4,0.4,0.4\nf,2,4,0.6,0.6\nf,3,4,0.8,0.8\nf,1,3,1,1\nf,2,3,1,1\nf,3,3,1,1\n"
    "z,1,4,0,0\nz,2,4,0,0\nz,3,4,0,0\nz,1,3,1,1\nz,2,3,1,1\nz,3,3,1,1\n"
    "y,1,4,0,0\ny,2,4,0,0\ny,3,4,0,0\ny,1,3,1,1\ny,2,3,1,1\ny,3,3,1,1\n"
    "h,1,4,1,1\nh,2,4,1,1\nh,3,4,1,1\nh,1,3,1,1\nh,2,3,1,1\nh,3,3,1,1\n"
    "t,1,4,0,0.9\nt,2,4,0,0.8\nt,3,4,0,0.85\nt,1,3,0.5,0.95\nt,2,3,0.5,0.95\nt,3,3,0.5,0.95\n"
    "o,1,4,0.2,0.2\no,1,3,1,1\n"
    "g,1,4,0.45,0.45\ng,2,4,0.55,0.55\ng,3,4,0.65,0.65\ng,1,3,1,1\ng,2,3,1,1\ng,3,3,1,1\n"
    "m,1,17,0.2,0.2\nm,1,20,0.4,0.4\nm,2,17,0.6,0.6\nm,2,20,0.8,0.8\nm,3,17,0.5,0.5\n"
    "p,1,4,0.4,0.4\np,2,4,0.5,0.5\np,3,4,0.6,0.6\np,4,4,0.5,0.5\np,5,4,0.5,0.5\n"
    "p,1,3,1,1\np,2,3,1,1\np,3,3,1,1\np,4,3,1,1\np,5,3,1,1\n"
    "q,1,4,0.45,0.45\nq,2,4,0.55,0.55\nq,3,4,0.65,0.65\nq,4,4,0.55,0.55\nq,5,4,0.55,0.55\n"
    "q,1,3,1,1\nq,2,3,1,1\nq,3,3,1,1\nq,4,3,1,1\nq,5,3,1,1\n";

static const char *claims_header =
    "key,paper,claim,model,task,steps,evaluation,metric,direction,pairing,row_a,file_a,"
    "select_a,row_b,file_b,select_b,gate,quote,note\n";

static Claims claims;
static Results results;
static char claims_path[256];

static void write_text(const char *name, const char *text) {
    char path[256];
    path_in_tmp(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

// Reads claims.csv made of the header and `lines`; 0, or -1 with err.
static int read_claims(const char *lines, char *err, int errlen) {
    static char text[8192];
    snprintf(text, sizeof text, "%s%s", claims_header, lines);
    write_text("claims.csv", text);
    claims_free(&claims);
    return claims_read(claims_path, &claims, err, errlen);
}

// The row of "A against B" on `metric` at length 4, gated at length 3.
static int compare(const char *a, const char *b, const char *metric, const char *dir,
                   const char *pairing, VerdictRow *v) {
    char line[512], err[512];
    snprintf(line, sizeof line, "k,,c,m,t,s,4,%s,%s,%s,A,r.csv,variant=%s;length=4,B,r.csv,"
             "variant=%s;length=4,length=3,headline,\n", metric, dir, pairing, a, b);
    int bad = read_claims(line, err, sizeof err) ||
              compare_claim(&results, &claims.rows[0], claims_path, v, err, sizeof err);
    CHECK(!bad, "%s", err);
    return bad;
}

static void verdict_is(const VerdictRow *v, const char *want) {
    char got[128];
    verdict_text(v, got, sizeof got);
    CHECK(!strcmp(got, want), "verdict '%s', expected '%s'", got, want);
}

// A at 100 % in distribution, B at 50 %: untested, whichever arm is low.
static void test_gate_on_both_arms(void) {
    VerdictRow v;
    if (compare("a", "b", "exact_match", "A>B", "unpaired", &v)) return;
    CHECK_NEAR(v.gate_a, 1.0, 1e-12);
    CHECK_NEAR(v.gate_b, 0.5, 1e-12);
    CHECK(v.label.kind == VERDICT_UNTESTED && v.label.why == UNTESTED_NOT_LEARNED, "untested");
    verdict_is(&v, "untested (not learned: 50.0% in distribution)");
    CHECK(strstr(v.note, "interval alone: reproduced") != NULL, "note '%s'", v.note);
    if (compare("b", "a", "exact_match", "A<B", "unpaired", &v)) return;
    verdict_is(&v, "untested (not learned: 50.0% in distribution)");
}

// A token-accuracy row is gated on exact match: t has 95 % tokens but 50 % exact at length 3.
static void test_gate_scores_exact_match(void) {
    VerdictRow v;
    if (compare("t", "a", "token_acc", "A>B", "unpaired", &v)) return;
    CHECK_NEAR(v.gate_a, 0.5, 1e-12);
    verdict_is(&v, "untested (not learned: 50.0% in distribution)");
}

// Compares every line of `lines` into v[]; 0, or -1 after a failed CHECK.
static int compare_lines(const char *lines, VerdictRow *v) {
    char err[512];
    int bad = read_claims(lines, err, sizeof err);
    for (int i = 0; !bad && i < claims.n; i++)
        bad = compare_claim(&results, &claims.rows[i], claims_path, &v[i], err, sizeof err);
    CHECK(!bad, "%s", err);
    return bad;
}

// A loss row on a language model's file, whose exact_match column is empty: gated on the loss
// itself (reported, not a percentage). Five seeds, A 2.0..2.4 at 1024 (mean 2.2, sd 0.158),
// B 2.8..3.2 (mean 3.0): Welch se = sqrt(2 * 0.025 / 5) = 0.1, df 4, t = 2.776445, so
// -0.800 +- 0.278; in distribution (x = 32) A 2.1, B 2.0.
static void test_loss_gated_on_itself(void) {
    write_text("lm.csv", "scheme,seed,x,exact_match,loss_last\n"
               "p,1,32,,2.1\np,2,32,,2.1\np,3,32,,2.1\np,4,32,,2.1\np,5,32,,2.1\n"
               "p,1,1024,,2.0\np,2,1024,,2.1\np,3,1024,,2.2\np,4,1024,,2.3\np,5,1024,,2.4\n"
               "q,1,32,,2.0\nq,2,32,,2.0\nq,3,32,,2.0\nq,4,32,,2.0\nq,5,32,,2.0\n"
               "q,1,1024,,2.8\nq,2,1024,,2.9\nq,3,1024,,3.0\nq,4,1024,,3.1\nq,5,1024,,3.2\n");
    VerdictRow v;
    if (compare_lines("k,,c,m,t,s,1024,loss_last,A<B,unpaired,A,lm.csv,scheme=p;x=1024,B,lm.csv,"
                      "scheme=q;x=1024,x=32,headline,\n", &v)) return;
    CHECK(!v.gate_percent, "a loss gated as a percentage");
    CHECK_NEAR(v.gate_a, 2.1, 1e-9);
    CHECK_NEAR(v.gate_b, 2.0, 1e-9);
    verdict_is(&v, "reproduced: -0.800 [-1.078, -0.522]");
}

// 0 % against 0 %, 100 % against 100 %: floor, left out of the tally.
static void test_floor_rows(void) {
    VerdictRow v[3];
    const char *lines =
        "k,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,variant=z;length=4,B,r.csv,"
        "variant=y;length=4,length=3,,\n"
        "k,,c,m,t,s,4,exact_match,A>B,paired,A,r.csv,variant=h;length=4,B,r.csv,"
        "variant=h;length=4,length=3,,\n"
        "k,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,variant=a;length=4,B,r.csv,"
        "variant=d;length=4,length=3,headline,\n";
    if (compare_lines(lines, v)) return;
    verdict_is(&v[0], "floor (both arms at 0%)");
    verdict_is(&v[1], "floor (both arms at 100%)");
    Remedies none = {0};
    Report r = {v, 3, &none, "x", NULL, 0, NULL, 0};
    char tally[128];
    report_tally(&r, "k", tally, sizeof tally);
    CHECK(!strcmp(tally, "1 rows: 1 reproduced (and 2 floor, left out)"), "tally '%s'", tally);
}

// a = 0.6, 0.7, 0.8 and d = 0.1, 0.3, 0.2: differences 0.5, 0.4, 0.6.
//   unpaired: sd 0.1 each, se = sqrt(0.01/3 + 0.01/3) = 0.0816497, df 2 (Hsu),
//             t_{0.975,2} = 4.3026527: 0.5 +- 0.351310 = [0.148690, 0.851310]
//   paired:   sd of the differences 0.1, se 0.0577350: 0.5 +- 0.248414 = [0.251586, 0.748414]
static void test_direction_by_hand(void) {
    VerdictRow v;
    if (compare("a", "d", "exact_match", "A>B", "unpaired", &v)) return;
    CHECK_NEAR(v.iv.lo, 0.148690, 1e-6);
    CHECK_NEAR(v.iv.hi, 0.851310, 1e-6);
    CHECK_NEAR(v.iv.df, 2, 0);
    verdict_is(&v, "reproduced: +50.0 [+14.9, +85.1]");
    if (compare("a", "d", "exact_match", "A<B", "unpaired", &v)) return;
    verdict_is(&v, "opposite: +50.0 [+14.9, +85.1]");
    if (compare("a", "d", "exact_match", "any", "unpaired", &v)) return;
    verdict_is(&v, "effect: +50.0 [+14.9, +85.1]");
    if (compare("a", "d", "exact_match", "A>B", "paired", &v)) return;
    CHECK_NEAR(v.iv.lo, 0.251586, 1e-6);
    CHECK_NEAR(v.iv.hi, 0.748414, 1e-6);
    verdict_is(&v, "reproduced: +50.0 [+25.2, +74.8]");
    CHECK(strstr(v.note, "A-B per seed: +50.0, +40.0, +60.0") != NULL, "note '%s'", v.note);
}

// a = 0.6, 0.7, 0.8 against f = 0.4, 0.6, 0.8: +0.1, se = sqrt(0.01/3 + 0.04/3) = 0.1290994,
// half-width 4.3026527 * 0.1290994 = 0.555470: [-0.455470, 0.655470] holds 0.
static void test_within_by_hand(void) {
    VerdictRow v;
    if (compare("a", "f", "exact_match", "A>B", "unpaired", &v)) return;
    CHECK_NEAR(v.iv.lo, -0.455470, 1e-6);
    verdict_is(&v, "within the spread");
}

// Three seeds whose means lie within twice the larger sd want five: a (0.7 +- 0.1) against
// g (0.55 +- 0.1) is 0.15 apart, within 2 x 0.1 (not within 1 x 0.1); a against d (0.5 apart)
// is not.
static void test_wants_five_seeds(void) {
    VerdictRow v;
    if (compare("a", "g", "exact_match", "A>B", "unpaired", &v)) return;
    CHECK(v.wants_5 && strstr(v.note, "wants 5 seeds, has 3") != NULL, "note '%s'", v.note);
    if (compare("a", "d", "exact_match", "A>B", "unpaired", &v)) return;
    CHECK(!v.wants_5, "a against d wants 5 seeds");
    // Seeds 1-5 (p and q): 0.55 against 0.5, sds 0.0707, within two sds but with 5 seeds each.
    if (compare("q", "p", "exact_match", "A>B", "unpaired", &v)) return;
    CHECK(!v.wants_5 && !strstr(v.note, "wants 5"), "q against p (5 seeds each): note '%s'",
          v.note);
}

static void test_one_seed(void) {
    VerdictRow v;
    if (compare("a", "o", "exact_match", "A>B", "unpaired", &v)) return;
    verdict_is(&v, "untested (one seed: no interval)");
}

// Two rows of one key: summary.md quotes the headline one, not the second.
static void test_headline_row(void) {
    const char *lines =
        "k,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,variant=a;length=4,B,r.csv,"
        "variant=f;length=4,length=3,second,\n"
        "k,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,variant=a;length=4,B,r.csv,"
        "variant=d;length=4,length=3,headline,\n";
    VerdictRow v[2];
    if (compare_lines(lines, v)) return;
    Remedy m = {2, "k", "the remedy", "a paper", "claim", "setting", "", "intro", 1, ""};
    Remedies rem = {.n = 1, .rows = &m};
    Report r = {v, 2, &rem, "x", NULL, 0, NULL, 0};
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    report_summary(f, &r);
    fclose(f);
    CHECK(strstr(text, "| the remedy | a paper | reproduced | +50.0 [+14.9, +85.1] | setting |")
          != NULL, "summary:\n%s", text);
    free(text);
}

// m: seed 1 0.2 and 0.4, seed 2 0.6 and 0.8 at lengths 17 and 20; seed 3 lacks length 20.
static void test_series_mean_of_combinations(void) {
    char err[256];
    Selection s;
    Series out;
    const CsvTable *t = results_table(&results, "r.csv", err, sizeof err);
    CHECK(t && !selection_parse("variant=m;length=17|20", &s, err, sizeof err), "%s", err);
    if (!t || series_select(t, &s, "exact_match", &out, err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    CHECK(out.n == 2 && out.seed[0] == 1 && out.seed[1] == 2, "seeds: %d", out.n);
    CHECK_NEAR(out.value[0], 0.3, 1e-12);
    CHECK_NEAR(out.value[1], 0.7, 1e-12);
}

// 0.9, 0.5, 0.5, 0.1: the tie shares places 2 and 3, (1/2 + 1/3) / 2 = 5/12.
static void test_reciprocal_rank_ties(void) {
    double s[] = {0.9, 0.5, 0.5, 0.1};
    CHECK_NEAR(reciprocal_rank(s, 4, 0), 1.0, 1e-12);
    CHECK_NEAR(reciprocal_rank(s, 4, 1), 5.0 / 12, 1e-12);
    CHECK_NEAR(reciprocal_rank(s, 4, 3), 0.25, 1e-12);
}

// A bad claims line names its file and line; a missing column names the results file.
static void test_bad_files(void) {
    char err[512];
    int bad = read_claims("k,,c,m,t,s,4,exact_match,up,unpaired,A,r.csv,variant=a,B,r.csv,"
                          "variant=d,,,\n", err, sizeof err);
    CHECK(bad && strstr(err, "claims.csv:2: direction 'up'"), "err '%s'", err);
    bad = read_claims("k,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,colour=a,B,r.csv,"
                      "variant=d,,,\n", err, sizeof err);
    CHECK(!bad, "%s", err);
    VerdictRow v;
    bad = !bad && compare_claim(&results, &claims.rows[0], claims_path, &v, err, sizeof err);
    CHECK(bad && strstr(err, "claims.csv:2: ") && strstr(err, "no column 'colour'"), "'%s'", err);
    bad = read_claims("k,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,variant,B,r.csv,"
                      "variant=d,,,\n", err, sizeof err);
    CHECK(bad && strstr(err, "claims.csv:2: 'variant' is not col=value"), "err '%s'", err);
}

static const char *remedies_header =
    "key,remedy,paper,claim,setting,glance,note,intro,replaced_by\n";

// Reads remedies.csv made of the header and `lines`; 0, or -1 with err.
static int read_remedies(const char *lines, Remedies *m, char *err, int errlen) {
    char text[1024], path[256];
    snprintf(text, sizeof text, "%s%s", remedies_header, lines);
    write_text("remedies.csv", text);
    path_in_tmp(path, sizeof path, "remedies.csv");
    return remedies_read(path, m, err, errlen);
}

// fn's text of r (malloc'ed).
static char *report_text(int (*fn)(FILE *, const Report *), const Report *r) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    fn(f, r);
    fclose(f);
    return text;
}

// Key "old" (a against b: B at 50 % in distribution) is replaced by "new" (a against d). Its
// row leaves the rows, the tallies and verdicts.csv; verdicts.md's last section lists it with
// B's 50.0 % (A, at 100 %, learned), the steps of both, and variant b, which "new" never
// selects (a, d and length 4 it does).
static void test_replaced_study(void) {
    const char *lines =
        "old,,c,m,t,s,4,exact_match,A>B,unpaired,A,r.csv,variant=a;length=4,B,r.csv,"
        "variant=b;length=4,length=3,headline,\n"
        "new,,c,m,t,s2,4,exact_match,A>B,unpaired,A,r.csv,variant=a;length=4,B,r.csv,"
        "variant=d;length=4,length=3,headline,\n";
    VerdictRow v[2], gone[2];
    Remedies m;
    char err[512];
    if (compare_lines(lines, v)) return;
    if (read_remedies("old,,,,,,,,new\nnew,the remedy,a paper,claim,setting,1,,intro,\n", &m,
                      err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    int n_gone = -1, n = report_set_aside(v, 2, &m, gone, &n_gone);
    CHECK(n == 1 && n_gone == 1, "kept %d, replaced %d", n, n_gone);
    CHECK(!strcmp(v[0].claim->key, "new") && !strcmp(gone[0].claim->key, "old"), "the keys");
    Report r = {v, n, &m, "x", NULL, 0, gone, n_gone};
    char tally[256];
    report_tally(&r, "old", tally, sizeof tally);
    CHECK(!strcmp(tally, "0 rows: "), "tally of old '%s'", tally);
    report_tally(&r, "new", tally, sizeof tally);
    CHECK(!strcmp(tally, "1 rows: 1 reproduced"), "tally of new '%s'", tally);
    char *md = report_text(report_md, &r), *csv = report_text(report_csv, &r);
    CHECK(md && !strstr(md, "\n## old\n") && strstr(md, "\n## new\n"), "key sections");
    CHECK(md && strstr(md, "\n| old | new | 1 rows: 1 untested | B (t) 50.0% | s; s2 "
                           "| variant b |\n"), "verdicts.md:\n%s", md ? strstr(md, "## Repl") : "");
    CHECK(csv && !strstr(csv, "\nold,") && strstr(csv, "\nnew,"), "verdicts.csv:\n%s", csv);
    free(md), free(csv);
    remedies_free(&m);
}

// A successor that is no key, and a replaced key placed at a glance: `file:line: ...`.
static void test_replaced_study_bad_successor(void) {
    Remedies m;
    char err[512];
    int bad = read_remedies("new,,,,,,,,\nold,,,,,,,,nwe\n", &m, err, sizeof err);
    CHECK(bad && strstr(err, "remedies.csv:3: replaced_by 'nwe' is not a key of the file"),
          "err '%s'", bad ? err : "none");
    if (!bad) remedies_free(&m);
    bad = read_remedies("new,,,,,,,,\nold,,,,,2,,,new\n", &m, err, sizeof err);
    CHECK(bad && strstr(err, "remedies.csv:3: replaced_by 'new' is given, but the key has a "
                             "glance place"), "err '%s'", bad ? err : "none");
    if (!bad) remedies_free(&m);
}

int main(void) {
    if (tmpdir_create("test_verdict")) return 1;
    write_text("r.csv", results_csv);
    path_in_tmp(claims_path, sizeof claims_path, "claims.csv");
    results.root = tmpdir;
    RUN(test_gate_on_both_arms);
    RUN(test_gate_scores_exact_match);
    RUN(test_floor_rows);
    RUN(test_direction_by_hand);
    RUN(test_within_by_hand);
    RUN(test_wants_five_seeds);
    RUN(test_one_seed);
    RUN(test_headline_row);
    RUN(test_series_mean_of_combinations);
    RUN(test_reciprocal_rank_ties);
    RUN(test_bad_files);
    RUN(test_loss_gated_on_itself);
    RUN(test_replaced_study);
    RUN(test_replaced_study_bad_successor);
    claims_free(&claims);
    results_free(&results);
    tmpdir_remove();
    return check_summary();
}
