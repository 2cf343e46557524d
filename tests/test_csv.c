// CSV reader and writer: quoting, line ends, line numbers in errors, round trips.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/csv.h"

static int parse(const char *text, CsvTable *t, char *err, int errlen) {
    return csv_parse(text, strlen(text), "t.csv", t, err, errlen);
}

static void test_basic_table_and_lookup(void) {
    CsvTable t;
    char err[256] = "";
    int rc = parse("step,split,loss\n10,train,2.5\n20,val,1.25\n", &t, err, sizeof err);
    CHECK(rc == 0, "parse failed: %s", err);
    if (rc) return;
    CHECK(t.n_cols == 3 && t.n_rows == 2, "%d cols, %d rows", t.n_cols, t.n_rows);
    CHECK(csv_col(&t, "split") == 1, "split at %d", csv_col(&t, "split"));
    CHECK(csv_col(&t, "loss") == 2, "loss at %d", csv_col(&t, "loss"));
    CHECK(csv_col(&t, "nope") == -1, "missing column found");
    CHECK(strcmp(t.rows[1][1], "val") == 0, "rows[1][1] = '%s'", t.rows[1][1]);
    CHECK(strcmp(t.rows[1][2], "1.25") == 0, "rows[1][2] = '%s'", t.rows[1][2]);
    CHECK(t.line[0] == 2 && t.line[1] == 3, "lines %d %d", t.line[0], t.line[1]);
    char cols[64];
    csv_columns(&t, cols, sizeof cols);
    CHECK(strcmp(cols, "step, split, loss") == 0, "columns '%s'", cols);
    csv_columns(&t, cols, 8);
    CHECK(strlen(cols) == 7, "truncated columns '%s'", cols);
    csv_free(&t);
}

static void test_quoted_fields(void) {
    CsvTable t;
    char err[256] = "";
    const char *text = "name,note,n\n"
                       "\"a,b\",\"he said \"\"hi\"\"\",1\n"
                       "\"two\nlines\",\"\",2\n"
                       "plain,x,3\n";
    int rc = parse(text, &t, err, sizeof err);
    CHECK(rc == 0, "parse failed: %s", err);
    if (rc) return;
    CHECK(t.n_rows == 3, "%d rows", t.n_rows);
    CHECK(strcmp(t.rows[0][0], "a,b") == 0, "'%s'", t.rows[0][0]);
    CHECK(strcmp(t.rows[0][1], "he said \"hi\"") == 0, "'%s'", t.rows[0][1]);
    CHECK(strcmp(t.rows[1][0], "two\nlines") == 0, "'%s'", t.rows[1][0]);
    CHECK(strcmp(t.rows[1][1], "") == 0, "'%s'", t.rows[1][1]);
    // The multi-line field starts on line 3, so the next row is on line 5.
    CHECK(t.line[1] == 3 && t.line[2] == 5, "lines %d %d", t.line[1], t.line[2]);
    csv_free(&t);
}

static void test_crlf_bom_blank_lines_no_final_newline(void) {
    CsvTable t;
    char err[256] = "";
    int rc = parse("\xEF\xBB\xBF" "a,b\r\n1,2\r\n\r\n\n3,\"4\"\r\n5,", &t, err, sizeof err);
    CHECK(rc == 0, "parse failed: %s", err);
    if (rc) return;
    CHECK(strcmp(t.header[0], "a") == 0, "BOM kept in '%s'", t.header[0]);
    CHECK(strcmp(t.header[1], "b") == 0, "CR kept in '%s'", t.header[1]);
    CHECK(t.n_rows == 3, "%d rows", t.n_rows);
    CHECK(strcmp(t.rows[0][1], "2") == 0 && strcmp(t.rows[1][1], "4") == 0, "'%s' '%s'",
          t.rows[0][1], t.rows[1][1]);
    CHECK(strcmp(t.rows[2][0], "5") == 0 && strcmp(t.rows[2][1], "") == 0, "last row '%s' '%s'",
          t.rows[2][0], t.rows[2][1]);
    CHECK(t.line[1] == 5 && t.line[2] == 6, "lines %d %d", t.line[1], t.line[2]);
    csv_free(&t);
}

static void test_header_only_is_empty_table(void) {
    CsvTable t;
    char err[256] = "";
    int rc = parse("x,y\n", &t, err, sizeof err);
    CHECK(rc == 0 && t.n_rows == 0 && t.n_cols == 2, "rc %d rows %d cols %d", rc, t.n_rows, t.n_cols);
    if (rc == 0) csv_free(&t);
}

static void expect_error(const char *text, const char *want) {
    CsvTable t;
    char err[256] = "";
    int rc = parse(text, &t, err, sizeof err);
    CHECK(rc == -1, "accepted bad input (want '%s')", want);
    CHECK(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
    if (rc == 0) csv_free(&t);
}

static void test_errors_name_file_and_line(void) {
    expect_error("a,b,c\n1,2,3\n\n4,5\n", "t.csv:4: row has 2 fields but the header has 3");
    expect_error("a,b\n1,2,3\n", "t.csv:2: row has 3 fields but the header has 2");
    expect_error("a,b\n1,\"open\n2,3\n", "t.csv:2: unterminated quoted field");
    expect_error("a,b\n1,\"x\"y\n", "t.csv:2: unexpected 'y' after a closing quote");
    expect_error("a,b,a\n1,2,3\n", "t.csv:1: duplicate column name 'a'");
    expect_error("", "t.csv: empty file");
    expect_error("\n\r\n\n", "t.csv: empty file");
}

static void test_read_file_and_missing_file(void) {
    char dir[] = "/tmp/test_csv_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    char path[128], err[256] = "";
    snprintf(path, sizeof path, "%s/empty.csv", dir);
    FILE *f = fopen(path, "w");
    fclose(f);
    CsvTable t;
    CHECK(csv_read(path, &t, err, sizeof err) == -1, "empty file accepted");
    CHECK(strstr(err, "empty.csv: empty file") != NULL, "error '%s'", err);
    remove(path);

    snprintf(path, sizeof path, "%s/missing.csv", dir);
    CHECK(csv_read(path, &t, err, sizeof err) == -1, "missing file accepted");
    CHECK(strstr(err, path) && strstr(err, "cannot open"), "error '%s'", err);

    // A file larger than the reader's first buffer.
    snprintf(path, sizeof path, "%s/big.csv", dir);
    f = fopen(path, "w");
    fprintf(f, "i,sq\n");
    for (int i = 0; i < 20000; i++) fprintf(f, "%d,%d\n", i, i * i);
    fclose(f);
    int rc = csv_read(path, &t, err, sizeof err);
    CHECK(rc == 0, "big file: %s", err);
    if (rc == 0) {
        CHECK(t.n_rows == 20000, "%d rows", t.n_rows);
        CHECK(strcmp(t.rows[19999][1], "399960001") == 0, "last '%s'", t.rows[19999][1]);
        CHECK(t.line[19999] == 20001, "line %d", t.line[19999]);
        csv_free(&t);
    }
    remove(path);
    rmdir(dir);
}

static void test_write_row_quotes_only_when_needed(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *plain[] = {"rope", "0", "0.25"};
    const char *odd[] = {"a,b", "say \"x\"", "two\nlines", " pad", "", NULL};
    CHECK(csv_write_row(f, 3, plain) == 0, "write failed");
    CHECK(csv_write_row(f, 6, odd) == 0, "write failed");
    fclose(f);
    const char *want = "rope,0,0.25\n\"a,b\",\"say \"\"x\"\"\",\"two\nlines\",\" pad\",,\n";
    CHECK(strcmp(buf, want) == 0, "wrote:\n%s", buf);
    free(buf);

    // Round trip through the reader.
    CsvTable t;
    char err[256] = "";
    f = open_memstream(&buf, &len);
    const char *hdr[] = {"f1", "f2", "f3", "f4", "f5", "f6"};
    csv_write_row(f, 6, hdr);
    csv_write_row(f, 6, odd);
    fclose(f);
    int rc = csv_parse(buf, len, "mem", &t, err, sizeof err);
    CHECK(rc == 0, "reparse: %s", err);
    if (rc == 0) {
        CHECK(t.n_rows == 1, "%d rows", t.n_rows);
        for (int i = 0; i < 6; i++)
            CHECK(strcmp(t.rows[0][i], odd[i] ? odd[i] : "") == 0, "field %d: '%s'", i, t.rows[0][i]);
        csv_free(&t);
    }
    free(buf);
}

// Found by tests/fuzz/fuzz_csv.c: the bytes 00 00 00 04 parsed as a header of one field cut
// at the NUL (""), which wrote back as a blank line and did not parse again. A NUL byte is
// now an error naming its line.
static void test_fuzz_nul_byte_is_an_error(void) {
    CsvTable t;
    char err[256] = "";
    CHECK(csv_parse("\0\0\0\x04", 4, "t.csv", &t, err, sizeof err) == -1, "NUL accepted");
    CHECK(strcmp(err, "t.csv:1: NUL byte (a CSV file is text)") == 0, "error '%s'", err);
    CHECK(csv_parse("a,b\n1,2\n3,x\0y\n", 14, "t.csv", &t, err, sizeof err) == -1,
          "NUL in a field accepted");
    CHECK(strcmp(err, "t.csv:3: NUL byte (a CSV file is text)") == 0, "error '%s'", err);
}

// Found by tests/fuzz/fuzz_csv.c: what the writer wrote had to parse back to the same table,
// but a lone empty field was written as a blank line (skipped by the reader) and a first
// field starting with '#' or a byte-order mark as a comment or a mark (dropped). They are
// quoted now.
static void test_fuzz_write_row_keeps_what_the_reader_drops(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *hdr[] = {"#n"}, *empty[] = {""}, *bom[] = {"\xEF\xBB\xBFx"}, *pair[] = {"#a", ""};
    csv_write_row(f, 1, hdr);
    csv_write_row(f, 1, empty);
    csv_write_row(f, 1, bom);
    csv_write_row(f, 2, pair);
    fclose(f);
    CHECK(strcmp(buf, "\"#n\"\n\"\"\n\"\xEF\xBB\xBFx\"\n\"#a\",\n") == 0, "wrote:\n%s", buf);
    CsvTable t;
    char err[256] = "";
    int rc = csv_parse(buf, len - 6, "mem", &t, err, sizeof err);   // without the last row
    CHECK(rc == 0, "reparse: %s", err);
    if (rc == 0) {
        CHECK(t.n_cols == 1 && !strcmp(t.header[0], "#n"), "header '%s'", t.header[0]);
        CHECK(t.n_rows == 2 && !strcmp(t.rows[0][0], "") && !strcmp(t.rows[1][0], "\xEF\xBB\xBFx"),
              "%d rows", t.n_rows);
        csv_free(&t);
    }
    free(buf);
}

int main(void) {
    RUN(test_basic_table_and_lookup);
    RUN(test_quoted_fields);
    RUN(test_crlf_bom_blank_lines_no_final_newline);
    RUN(test_header_only_is_empty_table);
    RUN(test_errors_name_file_and_line);
    RUN(test_read_file_and_missing_file);
    RUN(test_write_row_quotes_only_when_needed);
    RUN(test_fuzz_nul_byte_is_an_error);
    RUN(test_fuzz_write_row_keeps_what_the_reader_drops);
    return check_summary();
}
