// SVG line plots: well-formed XML, tick generation, number formatting, legend, colours,
// NaN gaps, log axes, bands, marker line, atomic writes; an x range, whole-number ticks, dashes
// for repeated colours, dodged series and stacked panels, by hand.
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hash.h"
#include "check.h"
#include "plot/forest.h"
#include "plot/svg.h"

// ---------------------------------------------------------------- a minimal XML checker

// Checks the XML subset an SVG file uses: an optional <?xml ...?> prolog, one root element,
// tags that nest and close, quoted attributes without duplicates, no raw '<' in text or
// attribute values, and '&' only as a known entity or character reference. Returns 0, or -1
// with a message in msg.
static int entity_ok(const char *p) {
    static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (int i = 0; i < 5; i++)
        if (strncmp(p, named[i], strlen(named[i])) == 0) return 1;
    if (p[1] != '#') return 0;
    p += 2;
    int hex = *p == 'x' && p++, digits = 0;
    while (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)) p++, digits++;
    return digits > 0 && *p == ';';
}

static int name_char(char c) { return isalnum((unsigned char)c) || strchr("-_:.", c); }

static const char *read_name(const char *p, char *name, int n) {
    int k = 0;
    if (!(isalpha((unsigned char)*p) || *p == '_' || *p == ':')) return NULL;
    while (name_char(*p) && k < n - 1) name[k++] = *p++;
    name[k] = '\0';
    return p;
}

#define XML_FAIL(...) do { snprintf(msg, (size_t)msglen, __VA_ARGS__); return -1; } while (0)

static int xml_check(const char *doc, char *msg, int msglen) {
    char stack[64][64];
    int depth = 0, roots = 0;
    const char *p = doc;
    while (isspace((unsigned char)*p)) p++;
    if (strncmp(p, "<?xml", 5) == 0) {
        p = strstr(p, "?>");
        if (!p) XML_FAIL("unterminated prolog");
        p += 2;
    }
    while (*p) {
        if (*p == '&') {
            if (!entity_ok(p)) XML_FAIL("raw '&' in text at offset %ld", (long)(p - doc));
            p++;
            continue;
        }
        if (*p != '<') {
            if (depth == 0 && !isspace((unsigned char)*p)) XML_FAIL("text outside the root element");
            p++;
            continue;
        }
        if (strncmp(p, "<!--", 4) == 0) {
            p = strstr(p, "-->");
            if (!p) XML_FAIL("unterminated comment");
            p += 3;
            continue;
        }
        char name[64];
        if (p[1] == '/') {
            p = read_name(p + 2, name, sizeof name);
            if (!p) XML_FAIL("bad closing tag");
            while (isspace((unsigned char)*p)) p++;
            if (*p != '>') XML_FAIL("closing tag </%s> not closed by '>'", name);
            if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
                XML_FAIL("</%s> closes <%s>", name, depth ? stack[depth - 1] : "(nothing)");
            depth--, p++;
            continue;
        }
        p = read_name(p + 1, name, sizeof name);
        if (!p) XML_FAIL("'<' not starting a tag");
        if (depth == 0 && roots++) XML_FAIL("second root element <%s>", name);
        char attrs[32][64];
        int n_attrs = 0, self_closed = 0;
        for (;;) {
            int space = isspace((unsigned char)*p);
            while (isspace((unsigned char)*p)) p++;
            if (p[0] == '/' && p[1] == '>') { self_closed = 1, p += 2; break; }
            if (*p == '>') { p++; break; }
            if (!space) XML_FAIL("<%s>: attributes must be separated by spaces", name);
            char attr[64];
            p = read_name(p, attr, sizeof attr);
            if (!p) XML_FAIL("<%s>: bad attribute name", name);
            for (int i = 0; i < n_attrs; i++)
                if (!strcmp(attrs[i], attr)) XML_FAIL("<%s>: duplicate attribute %s", name, attr);
            if (n_attrs < 32) strcpy(attrs[n_attrs++], attr);
            if (*p != '=') XML_FAIL("<%s>: attribute %s has no value", name, attr);
            p++;
            char q = *p;
            if (q != '"' && q != '\'') XML_FAIL("<%s>: attribute %s is not quoted", name, attr);
            for (p++; *p != q; p++) {
                if (!*p || *p == '<') XML_FAIL("<%s>: bad value of %s", name, attr);
                if (*p == '&' && !entity_ok(p)) XML_FAIL("<%s>: raw '&' in %s", name, attr);
            }
            p++;
        }
        if (!self_closed) {
            if (depth == 64) XML_FAIL("nesting too deep");
            strcpy(stack[depth++], name);
        }
    }
    if (depth) XML_FAIL("<%s> never closed", stack[depth - 1]);
    if (!roots) XML_FAIL("no root element");
    return 0;
}

static void test_xml_checker_can_fail(void) {
    char msg[256];
    CHECK(xml_check("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; &#60;</a>\n", msg, sizeof msg) == 0,
          "good doc rejected: %s", msg);
    const char *bad[] = {"<a><b></a></b>", "<a x=1/>", "<a>&</a>", "<a>x < y</a>", "<a>",
                         "<a/><b/>", "<a x=\"1\" x=\"2\"/>", "<a x=\"<\"/>", "<a/>text", "<a x=\"1\"y=\"2\"/>"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        CHECK(xml_check(bad[i], msg, sizeof msg) == -1, "accepted bad doc %s", bad[i]);
}

// ---------------------------------------------------------------- helpers

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

// The d attribute of the line path of series `name` (copied into buf), or NULL.
static const char *line_path(const char *svg, const char *name, char *buf, int n) {
    char key[256];
    snprintf(key, sizeof key, "data-name=\"%.200s\"", name);
    const char *g = strstr(svg, key);
    if (!g) return NULL;
    const char *d = strstr(g, " d=\"");
    if (!d) return NULL;
    d += 4;
    const char *end = strchr(d, '"');
    int len = (int)(end - d) < n - 1 ? (int)(end - d) : n - 1;
    memcpy(buf, d, (size_t)len);
    buf[len] = '\0';
    return buf;
}

static int has_bad_number(const char *svg) {
    return strstr(svg, "nan") || strstr(svg, "NaN") || strstr(svg, "inf") || strstr(svg, "INF");
}

// ---------------------------------------------------------------- ticks and numbers

static void expect_ticks(double dmin, double dmax, int log, const double *want, int n_want, int majors_only) {
    PlotAxis a;
    plot_axis(dmin, dmax, log, &a);
    int k = 0;
    for (int i = 0; i < a.n_ticks; i++) {
        if (majors_only && !a.ticks[i].major) continue;
        if (k < n_want) CHECK(fabs(a.ticks[i].v - want[k]) <= 1e-12 * fmax(1, fabs(want[k])),
                              "[%g, %g]: tick %d = %.17g, want %g", dmin, dmax, k, a.ticks[i].v, want[k]);
        k++;
    }
    CHECK(k == n_want, "[%g, %g]: %d ticks, want %d", dmin, dmax, k, n_want);
}

static void test_linear_ticks_known_ranges(void) {
    expect_ticks(0, 1, 0, (double[]){0, 0.2, 0.4, 0.6, 0.8, 1}, 6, 0);
    expect_ticks(0, 10, 0, (double[]){0, 2, 4, 6, 8, 10}, 6, 0);
    expect_ticks(0.12, 0.97, 0, (double[]){0, 0.2, 0.4, 0.6, 0.8, 1}, 6, 0);
    expect_ticks(-3, 7, 0, (double[]){-4, -2, 0, 2, 4, 6, 8}, 7, 0);
    expect_ticks(0, 2000, 0, (double[]){0, 500, 1000, 1500, 2000}, 5, 0);
    expect_ticks(0.31, 0.33, 0, (double[]){0.31, 0.315, 0.32, 0.325, 0.33}, 5, 0);
    PlotAxis a;
    plot_axis(5, 5, 0, &a);  // one value: the axis still has room around it
    CHECK(a.lo < 5 && a.hi > 5 && a.n_ticks >= 3, "single value: [%g, %g], %d ticks", a.lo, a.hi, a.n_ticks);
    plot_axis(-1e308, 1e308, 0, &a);  // a span that overflows: ends still covered, no hang
    CHECK(a.lo <= -1e308 && a.hi >= 1e308 && a.n_ticks >= 2, "huge: [%g, %g]", a.lo, a.hi);
    plot_axis(1, 0, 0, &a);  // no data
    CHECK(a.lo == 0 && a.hi == 1, "no data: [%g, %g]", a.lo, a.hi);
}

// Any range: ticks evenly spaced by 1, 2 or 5 times a power of ten, 3..11 of them, covering it.
static void test_linear_ticks_properties(void) {
    double ranges[][2] = {{0, 1}, {-1e-6, 3e-6}, {123, 4567}, {-50, -49.5}, {0.001, 0.0035},
                          {1e6, 5e6}, {-2.5, 2.5}, {99.9, 100.1}, {0, 1e-9}, {7, 7.001}};
    for (int r = 0; r < 10; r++) {
        PlotAxis a;
        plot_axis(ranges[r][0], ranges[r][1], 0, &a);
        CHECK(a.n_ticks >= 3 && a.n_ticks <= 11, "[%g, %g]: %d ticks", ranges[r][0], ranges[r][1], a.n_ticks);
        CHECK(a.lo <= ranges[r][0] && a.hi >= ranges[r][1], "[%g, %g] not covered by [%g, %g]",
              ranges[r][0], ranges[r][1], a.lo, a.hi);
        CHECK(a.ticks[0].v == a.lo && a.ticks[a.n_ticks - 1].v == a.hi, "axis does not end on ticks");
        double step = a.ticks[1].v - a.ticks[0].v;
        double m = step / pow(10, floor(log10(step) + 1e-9));
        CHECK(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6, "step %g", step);
        for (int i = 1; i < a.n_ticks; i++)
            CHECK(fabs(a.ticks[i].v - a.ticks[i - 1].v - step) < 1e-6 * step, "uneven ticks at %d", i);
    }
}

static void test_log_ticks_known_ranges(void) {
    expect_ticks(1, 1000, 1, (double[]){1, 10, 100, 1000}, 4, 1);
    PlotAxis a;
    plot_axis(1, 1000, 1, &a);
    int labelled = 0;
    for (int i = 0; i < a.n_ticks; i++) labelled += a.ticks[i].label;
    CHECK(labelled == 10, "1..1000: %d labels, want 1 2 5 10 20 50 100 200 500 1000", labelled);
    CHECK(a.n_ticks == 28, "1..1000: %d ticks, want 28 (9 per decade + 1000)", a.n_ticks);

    // 8..128 (lengths): the axis spans the data; labelled ticks 10, 20, 50, 100.
    plot_axis(8, 128, 1, &a);
    CHECK(a.lo == 8 && a.hi == 128, "8..128: axis [%g, %g]", a.lo, a.hi);
    double want[] = {10, 20, 50, 100};
    int k = 0;
    for (int i = 0; i < a.n_ticks; i++)
        if (a.ticks[i].label) {
            if (k < 4) CHECK(fabs(a.ticks[i].v - want[k]) < 1e-9, "label %d = %g", k, a.ticks[i].v);
            k++;
        }
    CHECK(k == 4, "8..128: %d labels", k);

    // Too narrow for two labels inside: widened to 1-2-5 values.
    plot_axis(12, 18, 1, &a);
    CHECK(a.lo == 10 && a.hi == 20, "12..18: axis [%g, %g]", a.lo, a.hi);

    // Twelve decades: majors only, no more than about a dozen ticks.
    plot_axis(1e-3, 1e9, 1, &a);
    CHECK(a.n_ticks >= 4 && a.n_ticks <= 13, "1e-3..1e9: %d ticks", a.n_ticks);
    for (int i = 0; i < a.n_ticks; i++) CHECK(a.ticks[i].major, "minor tick %g on a long axis", a.ticks[i].v);

    plot_axis(0, 0, 1, &a);  // no positive data
    CHECK(a.lo == 1 && a.hi == 10, "no data: [%g, %g]", a.lo, a.hi);
}

static void test_format_number(void) {
    struct { double v; const char *want; } cases[] = {
        {0, "0"}, {-0.0, "0"}, {0.2, "0.2"}, {0.30000000000000004, "0.3"}, {1, "1"}, {1000, "1000"},
        {2.5, "2.5"}, {-4, "-4"}, {0.315, "0.315"}, {123456, "123456"}, {1e6, "1e6"}, {2.5e6, "2.5e6"},
        {1e-4, "0.0001"}, {5e-5, "5e-5"}, {-2.5e-7, "-2.5e-7"}, {NAN, "?"}, {INFINITY, "?"},
    };
    char buf[32];
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        plot_format_number(cases[i].v, buf, sizeof buf);
        CHECK(strcmp(buf, cases[i].want) == 0, "%.17g -> '%s', want '%s'", cases[i].v, buf, cases[i].want);
    }
}

static void test_xml_escape(void) {
    char buf[64];
    plot_xml_escape("a<b & \"c\" 'd'>", buf, sizeof buf);
    CHECK(strcmp(buf, "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;") == 0, "'%s'", buf);
    plot_xml_escape("bad\xff\x01 ok \xc3\xa9", buf, sizeof buf);
    CHECK(strcmp(buf, "bad?? ok \xc3\xa9") == 0, "'%s'", buf);
    plot_xml_escape("ab&cd", buf, 5);  // no room for "&amp;": stop before it
    CHECK(strcmp(buf, "ab") == 0, "'%s'", buf);
}

// ---------------------------------------------------------------- rendering

static void test_fixed_styles_keep_their_colour(void) {
    CHECK(plot_color_slot("val") == plot_color_slot("val"), "hash not stable");
    // FNV-1a's published 32-bit vectors: every byte counts.
    CHECK(fnv1a("", 0) == 0x811c9dc5u && fnv1a("a", 1) == 0xe40c292cu && fnv1a("foobar", 6) == 0xbf9cf968u,
          "fnv1a: %08x %08x %08x", fnv1a("", 0), fnv1a("a", 1), fnv1a("foobar", 6));
    CHECK(strcmp(plot_color(0), "#0072B2") == 0, "slot 0 is %s", plot_color(0));
    Plot q;
    plot_init(&q, "", "", "");
    int s0 = plot_add_series(&q, "a", 0, NULL, NULL);
    CHECK(plot_set_style(&q, s0, PLOT_N_COLORS) == -1 && plot_set_style(&q, s0 + 1, 0) == -1 &&
          plot_set_style(&q, s0, -2) == -1 && plot_set_style(&q, s0, 3) == 0, "bad style accepted or good refused");
    plot_free(&q);

    // "rope", fixed to slot 0, keeps its colour whatever else is plotted (even a name that
    // hashes to slot 0); names without a style that collide move aside.
    const double x[] = {1, 2}, y[] = {1, 2};
    const char *sets[2][4] = {{"rope", "alibi", "a", "b"}, {"zzz", "q", "rope", "c"}};
    for (int s = 0; s < 2; s++) {
        Plot p;
        plot_init(&p, "", "", "");
        for (int i = 0; i < 4; i++) {
            int k = plot_add_series(&p, sets[s][i], 2, x, y);
            if (!strcmp(sets[s][i], "rope")) plot_set_style(&p, k, 0);
        }
        char *svg = plot_svg(&p), d[64];
        CHECK(svg != NULL, "render failed");
        const char *g = strstr(svg, "data-name=\"rope\"");
        CHECK(g && strstr(g, "stroke=\"#0072B2\"") && strstr(g, "stroke=\"#0072B2\"") < strstr(g, "</g>"),
              "set %d: rope not drawn in #0072B2", s);
        for (int i = 0; i < 4; i++) {  // four series, four different stroke colours
            CHECK(line_path(svg, sets[s][i], d, sizeof d) != NULL, "no line for %s", sets[s][i]);
        }
        int distinct = 0;
        for (int c = 0; c < PLOT_N_COLORS; c++) {
            char stroke[64];
            snprintf(stroke, sizeof stroke, "class=\"line\" fill=\"none\" stroke=\"%s\"", plot_color(c));
            distinct += count(svg, stroke) == 1;
        }
        CHECK(distinct == 4, "set %d: %d distinct line colours, want 4", s, distinct);
        free(svg);
        plot_free(&p);
    }
}

static void test_plot_is_well_formed_with_legend_and_escapes(void) {
    Plot p;
    plot_init(&p, "Loss & accuracy <test>", "length \"L\"", "loss");
    snprintf(p.legend_title, sizeof p.legend_title, "scheme");
    const char *names[] = {"base", "sine", "table", "slope", "rotary", "bucket", "a<b & \"c\"", "x", "y", "z", "u", "v"};
    double x[5] = {8, 16, 32, 64, 128}, y[5];
    for (int s = 0; s < 12; s++) {
        for (int i = 0; i < 5; i++) y[i] = 0.1 * s + 0.01 * i;
        y[2] = s == 3 ? NAN : y[2];
        plot_add_series(&p, names[s], 5, x, y);
    }
    double lo[5] = {0, 0, 0, 0, 0}, hi[5] = {1, 1, NAN, 1, 1};
    plot_set_band(&p, 4, lo, hi);
    plot_set_vline(&p, 32, "training length");
    char *svg = plot_svg(&p), msg[256];
    CHECK(svg != NULL, "render failed");
    if (!svg) { plot_free(&p); return; }
    CHECK(xml_check(svg, msg, sizeof msg) == 0, "not well-formed: %s", msg);
    CHECK(!has_bad_number(svg), "nan/inf printed");
    CHECK(strstr(svg, "Loss &amp; accuracy &lt;test&gt;") != NULL, "title not escaped");
    CHECK(strstr(svg, "length &quot;L&quot;") != NULL, "x label not escaped");
    const char *legend = strstr(svg, "class=\"legend\"");
    CHECK(legend != NULL, "no legend");
    for (int s = 0; s < 12 && legend; s++) {
        char esc[64], key[80];
        snprintf(key, sizeof key, ">%s</text>", plot_xml_escape(names[s], esc, sizeof esc));
        CHECK(strstr(legend, key) != NULL, "legend lacks %s", key);
    }
    CHECK(legend && strstr(legend, ">scheme</text>"), "legend title missing");
    CHECK(count(svg, "class=\"series\"") == 12, "%d series groups", count(svg, "class=\"series\""));
    CHECK(count(svg, "class=\"band\"") == 1, "%d bands", count(svg, "class=\"band\""));
    CHECK(strstr(svg, "stroke-dasharray=\"6 4\"") && strstr(svg, ">training length</text>"), "no marker line");
    // Twelve series, ten colours: the last two are dashed.
    CHECK(count(svg, "stroke-dasharray=\"7 3\"") == 4, "%d dashed (2 lines + 2 legend swatches)",
          count(svg, "stroke-dasharray=\"7 3\""));
    free(svg);
    plot_free(&p);
}

// The legend must sit right of the plot frame, not on the data.
static void test_legend_outside_plot_area(void) {
    Plot p;
    plot_init(&p, "t", "x", "y");
    double x[] = {0, 1}, y[] = {0, 1};
    plot_add_series(&p, "a fairly long series name", 2, x, y);
    char *svg = plot_svg(&p);
    double fx = 0, fw = 0, lx = 0, width = 0;
    const char *frame = strstr(svg, "class=\"frame\"");
    const char *legend = strstr(svg, "class=\"legend\"");
    CHECK(frame && legend, "frame or legend missing");
    if (frame && legend) {
        sscanf(strstr(frame, " x=\""), " x=\"%lf", &fx);
        sscanf(strstr(frame, "width=\""), "width=\"%lf", &fw);
        sscanf(strstr(legend, "<line x1=\""), "<line x1=\"%lf", &lx);
        sscanf(strstr(svg, "<svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lf", &width);
        CHECK(lx > fx + fw, "legend at x=%g inside frame ending at %g", lx, fx + fw);
        // 25 characters at ~7 px fit inside the picture.
        CHECK(width >= lx + 30 + 25 * 7, "picture %g px wide, legend starts at %g", width, lx);
    }
    free(svg);
    plot_free(&p);
}

static void test_nan_breaks_the_line(void) {
    Plot p;
    plot_init(&p, "", "", "");
    double x[] = {1, 2, 3, 4, 5, 6}, y[] = {1, 2, NAN, 4, 5, INFINITY};
    plot_add_series(&p, "s", 6, x, y);
    char *svg = plot_svg(&p), d[512], msg[256];
    CHECK(line_path(svg, "s", d, sizeof d) != NULL, "no line");
    CHECK(count(d, "M") == 2 && count(d, "L") == 2, "path '%s': want M L M L", d);
    CHECK(count(svg, "class=\"pt\"") == 4, "%d markers, want 4", count(svg, "class=\"pt\""));
    CHECK(!has_bad_number(svg), "nan/inf printed");
    CHECK(xml_check(svg, msg, sizeof msg) == 0, "not well-formed: %s", msg);
    free(svg);
    plot_free(&p);
}

static void test_log_axes_skip_non_positive(void) {
    Plot p;
    plot_init(&p, "", "", "");
    p.logx = p.logy = 1;
    double x[] = {1, 2, 3, 4, 5, 0, 7}, y[] = {1, 0, -1, 10, 100, 5, 1000};
    plot_add_series(&p, "s", 7, x, y);
    char *svg = plot_svg(&p), d[512], msg[256];
    CHECK(line_path(svg, "s", d, sizeof d) != NULL, "no line");
    // Points 0 | 3 4 | 6: three runs, one line segment between 3 and 4.
    CHECK(count(d, "M") == 3 && count(d, "L") == 1, "path '%s'", d);
    CHECK(count(svg, "class=\"pt\"") == 4, "%d markers, want 4", count(svg, "class=\"pt\""));
    CHECK(!has_bad_number(svg), "nan/inf printed");
    CHECK(xml_check(svg, msg, sizeof msg) == 0, "not well-formed: %s", msg);
    // The y axis spans 1..1000 with decade labels, not 0 or negatives.
    CHECK(strstr(svg, "text-anchor=\"end\">1000</text>") != NULL, "no 1000 label");
    CHECK(strstr(svg, "text-anchor=\"end\">0</text>") == NULL, "a 0 label on a log axis");
    CHECK(strstr(svg, "text-anchor=\"end\">-") == NULL, "a negative label on a log axis");
    free(svg);
    plot_free(&p);
}

static void test_dense_series_marks_only_isolated_points(void) {
    enum { N = 200 };
    double x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = i, y[i] = i == 100 || i == 102 ? NAN : sin(i * 0.1);
    Plot p;
    plot_init(&p, "", "", "");
    plot_add_series(&p, "dense", N, x, y);
    char *svg = plot_svg(&p);
    CHECK(count(svg, "class=\"pt\"") == 1, "%d markers, want only the isolated point 101",
          count(svg, "class=\"pt\""));
    CHECK(strstr(svg, "x=101 y=") != NULL, "isolated point not marked");
    free(svg);
    plot_free(&p);
}

static void test_empty_plot_still_renders(void) {
    Plot p;
    plot_init(&p, "nothing", "", "");
    double x[] = {NAN}, y[] = {1};
    plot_add_series(&p, "s", 1, x, y);
    char *svg = plot_svg(&p), msg[256];
    CHECK(svg && strstr(svg, ">no data</text>"), "no 'no data' note");
    CHECK(xml_check(svg, msg, sizeof msg) == 0, "not well-formed: %s", msg);
    CHECK(!has_bad_number(svg), "nan/inf printed");
    free(svg);
    plot_free(&p);
}

static void test_write_is_atomic_and_reports_errors(void) {
    char dir[] = "/tmp/test_svg_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    Plot p;
    plot_init(&p, "t", "x", "y");
    double x[] = {1, 2, 3}, y[] = {3, 1, 2};
    plot_add_series(&p, "s", 3, x, y);
    char path[128], err[256] = "";
    snprintf(path, sizeof path, "%s/out.svg", dir);
    CHECK(plot_write_svg(&p, path, err, sizeof err) == 0, "write failed: %s", err);
    char *want = plot_svg(&p);
    FILE *f = fopen(path, "rb");
    static char got[1 << 16];
    size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    got[n] = '\0';
    if (f) fclose(f);
    CHECK(want && strcmp(got, want) == 0, "file differs from plot_svg()");
    free(want);
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));) entries += e->d_name[0] != '.';
    if (d) closedir(d);
    CHECK(entries == 1, "%d files in the folder, want only out.svg", entries);
    remove(path);
    rmdir(dir);

    CHECK(plot_write_svg(&p, "/nonexistent_dir_xyz/out.svg", err, sizeof err) == -1, "bad path accepted");
    CHECK(strstr(err, "/nonexistent_dir_xyz/out.svg: ") && strstr(err, "No such file or directory"), "error '%s'", err);
    plot_free(&p);
}

// ---------------------------------------------------------------- x range, ticks, dashes, dodge, panels
// The layouts below have no title and no axis titles, y ticks 0 0.2 .. 1 (widest label "0.2",
// 3 x 0.6 x 12 = 21.6 px): the frame's left edge at 14 + 21.6 + 8 = 43.6, the plot area 640 x
// 400 from y 20, points 8 px inside it: x from 51.6 to 675.6, y from 412 (bottom) to 28 (top).

static void test_x_range_by_hand(void) {
    Plot p;
    plot_init(&p, "", "", "");
    double x[] = {1, 2, 6, 12}, y[] = {0, 1, 0.5, 1};
    plot_add_series(&p, "s", 4, x, y);
    p.xmin = 1, p.xmax = 6;
    char *svg = plot_svg(&p), d[256];
    // x 1..6 over 624 px: 2 at 51.6 + 624 / 5 = 176.4; 12 is left out
    CHECK(line_path(svg, "s", d, sizeof d) && !strcmp(d, "M51.6 412.0L176.4 28.0L675.6 220.0"),
          "path '%s'", d);
    CHECK(!strstr(svg, ">12</text>") && strstr(svg, ">6</text>"), "x axis not cut at 6");
    CHECK(count(svg, "class=\"pt\"") == 3, "%d markers, want 3", count(svg, "class=\"pt\""));
    free(svg);
    plot_free(&p);
}

// Clauses 0, 1, 2: ticks 0 1 2, not 0 0.5 1 1.5 2 (the 1-2-5 rule alone gives 0.5 steps).
static void test_whole_number_x_ticks(void) {
    double y[] = {0, 1, 0.5};
    for (int whole = 1; whole >= 0; whole--) {
        double x[] = {0, whole ? 1 : 0.5, 2};
        Plot p;
        plot_init(&p, "", "", "");
        plot_add_series(&p, "s", 3, x, y);
        char *svg = plot_svg(&p);
        CHECK((strstr(svg, ">0.5</text>") == NULL) == whole &&
              (strstr(svg, ">1.5</text>") == NULL) == whole,
              "x %g: half ticks %s", x[1], whole ? "on a whole-number axis" : "missing");
        CHECK(strstr(svg, "text-anchor=\"middle\">2</text>") != NULL, "no tick 2");
        free(svg);
        plot_free(&p);
    }
    PlotAxis a;
    plot_axis_step(0, 2, 0, 1, &a);
    CHECK(a.n_ticks == 3 && a.ticks[1].v == 1, "0..2 by 1: %d ticks", a.n_ticks);
    plot_axis_step(0, 40, 0, 1, &a);  // a wide axis keeps its own coarser step
    CHECK(a.n_ticks == 5 && a.ticks[1].v == 10, "0..40: %d ticks, second %g", a.n_ticks,
          a.ticks[1].v);
}

static void test_repeated_colours_get_distinct_dashes(void) {
    CHECK(!strcmp(plot_dash(0), "") && !strcmp(plot_dash(1), "7 3") && !strcmp(plot_dash(2), "2 3")
          && !strcmp(plot_dash(3), "10 3 2 3") && !strcmp(plot_dash(4), ""), "dash cycle");
    Plot p;
    plot_init(&p, "", "", "");
    double x[] = {0, 1}, y[] = {0, 1};
    for (int i = 0; i < 3; i++) plot_set_style(&p, plot_add_series(&p, i ? i > 1 ? "c" : "b" : "a",
                                                                    2, x, y), 0);
    char *svg = plot_svg(&p);
    // each once on its line and once on its legend swatch; the first series solid
    CHECK(count(svg, "stroke-dasharray=\"7 3\"") == 2 && count(svg, "stroke-dasharray=\"2 3\"") == 2,
          "dashes: %d '7 3', %d '2 3'", count(svg, "stroke-dasharray=\"7 3\""),
          count(svg, "stroke-dasharray=\"2 3\""));
    const char *a = strstr(svg, "data-name=\"a\"");
    CHECK(a && strstr(a, "stroke-linejoin=\"round\" d=") , "series a not solid");
    free(svg);
    plot_free(&p);
}

// Two series, dodge 10: offsets -5 and +5; the frame inset grows by 5 so that a's first point
// sits where an undodged one would: the x scale runs 56.6..670.6, a at 51.6 and 665.6, b at
// 61.6 and 675.6. The legend starts 20 px right of the frame: 43.6 + 640 + 20 = 703.6.
static void test_dodge_by_hand(void) {
    Plot p;
    plot_init(&p, "", "", "");
    double x[] = {0, 1}, y[] = {0, 1};
    plot_set_style(&p, plot_add_series(&p, "a", 2, x, y), 0);  // filled circle
    plot_set_style(&p, plot_add_series(&p, "b", 2, x, y), 5);  // hollow circle
    p.dodge = 10;
    char *svg = plot_svg(&p), d[256];
    CHECK(line_path(svg, "a", d, sizeof d) && !strcmp(d, "M51.6 412.0L665.6 28.0"), "a: '%s'", d);
    CHECK(line_path(svg, "b", d, sizeof d) && !strcmp(d, "M61.6 412.0L675.6 28.0"), "b: '%s'", d);
    CHECK(strstr(svg, "<circle cx=\"51.6\" cy=\"412.0\"") && strstr(svg, "<circle cx=\"675.6\" cy=\"28.0\""),
          "markers not dodged with their lines");
    const char *legend = strstr(svg, "class=\"legend\"");
    CHECK(legend && strstr(legend, "<line x1=\"703.6\""), "legend not at x 703.6");
    free(svg);
    plot_free(&p);
}

// Panel 1 holds y 0..1, panel 2 y 0..3: both get the y axis 0..3 (0.5 steps, widest label
// "0.5" as wide as "0.2"), so panel 1's y 1 sits at 412 - 384 / 3 = 284. Each panel is 20 + 400
// + 38 (tick labels, no x title) = 458 px tall, under a 40 px title: 956 px in all.
static void test_panels_share_ranges_by_hand(void) {
    Plot p[2];
    double x[] = {0, 1}, y1[] = {0, 1}, y2[] = {0, 3};
    plot_init(&p[0], "", "", "");
    plot_init(&p[1], "", "", "");
    plot_add_series(&p[0], "a", 2, x, y1);
    plot_add_series(&p[1], "b", 2, x, y2);
    char *svg = plot_panels_svg(p, 2, "T"), d[256], msg[256];
    CHECK(svg && xml_check(svg, msg, sizeof msg) == 0, "not well-formed: %s", msg);
    CHECK(line_path(svg, "a", d, sizeof d) && !strcmp(d, "M51.6 412.0L675.6 284.0"), "a: '%s'", d);
    CHECK(line_path(svg, "b", d, sizeof d) && !strcmp(d, "M51.6 412.0L675.6 28.0"), "b: '%s'", d);
    CHECK(strstr(svg, "height=\"956\"") && strstr(svg, "<svg class=\"panel\" x=\"0\" y=\"498\""),
          "panels not stacked at 40 and 498 in 956 px");
    CHECK(count(svg, ">T</text>") == 1, "title drawn %d times", count(svg, ">T</text>"));
    free(svg);
    plot_free(&p[0]);
    plot_free(&p[1]);
}

// A forest row on its own scale: point -0.385690 in [-0.771379, 0]: the farthest from zero is
// 0.771379, so the bar runs from 400 - 150 = 250 to 400 and the dot sits at 400 - 75 = 325; a
// row of zeros is drawn at zero; labels are escaped and the document is well formed.
static void test_forest_row_by_hand(void) {
    ForestRow rows[] = {{"none <vs> alibi", -0.385690, -0.771379, 0, "-0.386 & so on", "#c8c8c8"},
                        {"floor", 0, 0, 0, "0.0 [0.0, 0.0]", "#6e7781"}};
    Forest f = {"Effects", "each row on its own scale", rows, 2};
    char *svg = forest_svg(&f), msg[256];
    CHECK(svg != NULL, "no svg");
    if (!svg) return;
    CHECK(strstr(svg, "<line x1=\"250.00\" y1=\"66\" x2=\"400.00\" y2=\"66\" stroke=\"#c8c8c8\"")
          != NULL, "first row's bar:\n%s", svg);
    CHECK(strstr(svg, "<circle cx=\"325.00\" cy=\"66\"") != NULL, "first row's dot");
    CHECK(strstr(svg, "<line x1=\"400.00\" y1=\"94\" x2=\"400.00\"") != NULL, "the zero row");
    CHECK(strstr(svg, "none &lt;vs&gt; alibi") && strstr(svg, "-0.386 &amp; so on"), "escapes");
    CHECK(xml_check(svg, msg, sizeof msg) == 0, "not well formed: %s", msg);
    free(svg);
}

int main(void) {
    RUN(test_xml_checker_can_fail);
    RUN(test_forest_row_by_hand);
    RUN(test_linear_ticks_known_ranges);
    RUN(test_linear_ticks_properties);
    RUN(test_log_ticks_known_ranges);
    RUN(test_format_number);
    RUN(test_xml_escape);
    RUN(test_fixed_styles_keep_their_colour);
    RUN(test_plot_is_well_formed_with_legend_and_escapes);
    RUN(test_legend_outside_plot_area);
    RUN(test_nan_breaks_the_line);
    RUN(test_log_axes_skip_non_positive);
    RUN(test_dense_series_marks_only_isolated_points);
    RUN(test_empty_plot_still_renders);
    RUN(test_write_is_atomic_and_reports_errors);
    RUN(test_x_range_by_hand);
    RUN(test_whole_number_x_ticks);
    RUN(test_repeated_colours_get_distinct_dashes);
    RUN(test_dodge_by_hand);
    RUN(test_panels_share_ranges_by_hand);
    return check_summary();
}
