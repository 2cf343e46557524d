// The scheme registry is the only list of schemes: every scheme it holds is accepted by the
// config, suggested for a near-miss, named in the error for an unknown one and has a plot
// style of its own. (tests/test_registry.sh checks the tools, scripts and sources.)
#include <string.h>
#include "check.h"
#include "config/config.h"
#include "plot/svg.h"
#include "pos/pos.h"

static void test_names_unique_and_found(void) {
    int n = pos_scheme_count();
    CHECK(n >= 1, "%d schemes", n);
    for (int i = 0; i < n; i++) {
        const PosScheme *s = pos_scheme_at(i);
        CHECK(s && s->name && s->name[0], "scheme %d has no name", i);
        if (!s) continue;
        CHECK(pos_scheme_find(s->name) == s, "find('%s') is not scheme %d", s->name, i);
        for (int j = 0; j < i; j++) CHECK(strcmp(pos_scheme_at(j)->name, s->name), "'%s' listed twice", s->name);
    }
    CHECK(pos_scheme_at(-1) == NULL && pos_scheme_at(n) == NULL, "out-of-range index gives a scheme");
    CHECK(pos_scheme_find("no_such_scheme") == NULL, "unknown name found");
}

static void test_every_scheme_accepted_by_config(void) {
    for (int i = 0; i < pos_scheme_count(); i++) {
        const char *name = pos_scheme_at(i)->name;
        Config c;
        char set[64], err[512] = "";
        config_defaults(&c);
        snprintf(set, sizeof set, "model.pos=%s", name);
        CHECK(config_set(&c, &pos_config_checks, set, err, sizeof err) == 0 && !strcmp(c.pos, name), "%s: %s", set, err);
        CHECK(config_validate(&c, &pos_config_checks, err, sizeof err) == 0, "%s with defaults: %s", set, err);
        config_free(&c);
    }
}

// A near-miss ("Rope" for "rope") gets "did you mean"; an unknown word gets every name.
static void test_errors_name_the_registry(void) {
    for (int i = 0; i < pos_scheme_count(); i++) {
        const char *name = pos_scheme_at(i)->name;
        Config c;
        char set[64], want[96], err[512] = "";
        config_defaults(&c);
        snprintf(set, sizeof set, "model.pos=%c%s", name[0] ^ 0x20, name + 1);   // flip the case
        CHECK(config_set(&c, &pos_config_checks, set, err, sizeof err) != 0, "%s accepted", set);
        snprintf(want, sizeof want, "did you mean '%s'?", name);
        CHECK(strstr(err, want) != NULL, "%s: '%s' lacks \"%s\"", set, err, want);
        CHECK(config_set(&c, &pos_config_checks, "model.pos=zzzzzzzzzzzz", err, sizeof err) != 0, "zzzz accepted");
        char listed[64];
        snprintf(listed, sizeof listed, "%s", name);
        const char *expected = strstr(err, "expected ");
        CHECK(expected && strstr(expected, listed), "'%s' does not list %s", err, name);
        CHECK(!strstr(err, "did you mean"), "'%s' suggests for a far word", err);
        config_free(&c);
    }
}

static void test_every_scheme_has_its_own_plot_style(void) {
    for (int i = 0; i < pos_scheme_count(); i++) {
        const char *name = pos_scheme_at(i)->name;
        int style = pos_scheme_plot_style(name);
        CHECK(style >= 0 && style < PLOT_N_COLORS, "%s: plot style %d", name, style);
        for (int j = 0; j < i; j++)
            CHECK(pos_scheme_plot_style(pos_scheme_at(j)->name) != style, "%s and %s share plot style %d",
                  pos_scheme_at(j)->name, name, style);
        char upper[64];
        snprintf(upper, sizeof upper, "%s", name);
        for (char *p = upper; *p; p++) *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        CHECK(pos_scheme_plot_style(upper) == style, "%s: style depends on case", upper);
    }
    CHECK(pos_scheme_plot_style("val") == -1, "'val' has a scheme style");
}

int main(void) {
    RUN(test_names_unique_and_found);
    RUN(test_every_scheme_accepted_by_config);
    RUN(test_errors_name_the_registry);
    RUN(test_every_scheme_has_its_own_plot_style);
    return check_summary();
}
