/* RFC 4180 fields: quoting only where needed, quotes doubled; numbers in
 * their shortest exact form. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/io.h"
#include "test.h"

static char *field(const char *s) {
  struct strbuf sb = STRBUF_INIT;
  csv_add_field(&sb, s);
  return strbuf_detach(&sb);
}

#define CHECK_FIELD(in, want)  \
  do {                         \
    char *got_ = field(in);    \
    CHECK_STR(got_, want);     \
    free(got_);                \
  } while (0)

static void test_plain(void) {
  CHECK_FIELD("abc", "abc");
  CHECK_FIELD("m=64 n=64 k=64", "m=64 n=64 k=64"); /* spaces need no quotes */
  CHECK_FIELD(" lead and trail ", " lead and trail ");
  CHECK_FIELD("", "");
  CHECK_FIELD(NULL, "");
  CHECK_FIELD("1.5e-07", "1.5e-07");
  CHECK_FIELD("µs \xe2\x9c\x93", "µs \xe2\x9c\x93"); /* UTF-8 untouched */
  CHECK_FIELD("semi;colon\ttab", "semi;colon\ttab");
}

static void test_quoted(void) {
  CHECK_FIELD("a,b", "\"a,b\"");
  CHECK_FIELD(",", "\",\"");
  CHECK_FIELD("say \"hi\"", "\"say \"\"hi\"\"\"");
  CHECK_FIELD("\"", "\"\"\"\"");
  CHECK_FIELD("\"\"", "\"\"\"\"\"\"");
  CHECK_FIELD("line1\nline2", "\"line1\nline2\"");
  CHECK_FIELD("cr\rhere", "\"cr\rhere\"");
  CHECK_FIELD("crlf\r\n", "\"crlf\r\n\"");
  CHECK_FIELD("all, \"of\"\nthem\r", "\"all, \"\"of\"\"\nthem\r\"");
}

/* A control byte a terminal would act on never reaches the file raw. */
static void test_controls_escaped(void) {
  char *got = field("a\x1b]0;pwned\x07" "b");
  CHECK(strchr(got, 0x1b) == NULL && strchr(got, 0x07) == NULL);
  free(got);
  got = field("c1 \xc2\x9b" "2J raw \x9b");
  CHECK(strstr(got, "\xc2\x9b") == NULL && strchr(got, (char)0x9b) == NULL);
  free(got);
}

static void test_row(void) {
  struct strbuf sb = STRBUF_INIT;
  const char *fields[] = {"a", "b,c", "", "d\"e", NULL};
  for (int i = 0; fields[i]; i++) {
    if (i) strbuf_adds(&sb, ",");
    csv_add_field(&sb, fields[i]);
  }
  CHECK_STR(sb.buf, "a,\"b,c\",,\"d\"\"e\"");
  strbuf_release(&sb);
}

/* Spreadsheet formula injection (OWASP): a field a spreadsheet would
 * evaluate gets a leading ' and quotes; a plain number stays a number. */
static void test_formula_neutralised(void) {
  CHECK_FIELD("=1+1", "\"'=1+1\"");
  CHECK_FIELD("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK_FIELD("+cmd", "\"'+cmd\"");
  CHECK_FIELD("-2+3+cmd|' /C calc'!A0", "\"'-2+3+cmd|' /C calc'!A0\"");
  CHECK_FIELD("@SUM(A1:A9)", "\"'@SUM(A1:A9)\"");
  CHECK_FIELD("\t=1", "\"'\t=1\"");
  CHECK_FIELD("\r=1", "\"'\r=1\"");
  CHECK_FIELD("-", "\"'-\"");
  CHECK_FIELD("=a,b", "\"'=a,b\"");
  /* Plain numbers, as text from a plugin, stay numbers. */
  CHECK_FIELD("-1", "-1");
  CHECK_FIELD("-1.5", "-1.5");
  CHECK_FIELD("+3", "+3");
  CHECK_FIELD("-2.5e-07", "-2.5e-07");
  CHECK_FIELD("-.5", "-.5");
  /* Only the first character counts. */
  CHECK_FIELD("a=b", "a=b");
  CHECK_FIELD("m=-1", "m=-1");
  /* Numbers written as numbers are untouched. */
  struct strbuf sb = STRBUF_INIT;
  csv_add_number(&sb, -3.25);
  CHECK_STR(sb.buf, "-3.25");
  strbuf_release(&sb);
}

static char *number(double v) {
  struct strbuf sb = STRBUF_INIT;
  csv_add_number(&sb, v);
  return strbuf_detach(&sb);
}

#define CHECK_NUMBER(v, want)  \
  do {                         \
    char *got_ = number(v);    \
    CHECK_STR(got_, want);     \
    free(got_);                \
  } while (0)

static void test_numbers(void) {
  CHECK_NUMBER(0.0, "0");
  CHECK_NUMBER(1.0, "1");
  CHECK_NUMBER(0.1, "0.1");
  CHECK_NUMBER(1234.5, "1234.5");
  CHECK_NUMBER(-2.25, "-2.25");
  CHECK_NUMBER(1e-7, "1e-07");
  CHECK_NUMBER(2000.0, "2000");
  CHECK_NUMBER(-3e5, "-300000");
  CHECK_NUMBER(1.5e16, "15000000000000000");
  CHECK_NUMBER(1e17, "1e+17");
  CHECK_NUMBER(0.0001, "0.0001");
  CHECK_NUMBER(4e-5, "4e-05");
  CHECK_NUMBER(0.1 + 0.2, "0.30000000000000004");
  CHECK_NUMBER(12345.678 / 1e6, "0.012345678");
  CHECK_NUMBER(NAN, "nan");
  CHECK_NUMBER(INFINITY, "inf");
  CHECK_NUMBER(-INFINITY, "-inf");
  /* Every value reads back exactly. */
  double vals[] = {1.0 / 3.0, 2.0 / 3.0, 1e300, 5e-324, 123456789.123456789, 0.7};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    char *s = number(vals[i]);
    CHECK(strtod(s, NULL) == vals[i]);
    free(s);
  }
}

TEST_MAIN(TEST_ENTRY(test_plain), TEST_ENTRY(test_quoted), TEST_ENTRY(test_controls_escaped), TEST_ENTRY(test_row),
          TEST_ENTRY(test_numbers), TEST_ENTRY(test_formula_neutralised))
