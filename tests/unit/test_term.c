/* term.h: what reaches the terminal from plugins, presets and files. */
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"
#include "test.h"

static void expect_escape(const char *in, const char *want) {
  char *got = term_escape(in);
  if (strcmp(got, want) != 0) fprintf(stderr, "term_escape: expected \"%s\", got \"%s\"\n", want, got);
  CHECK_STR(got, want);
  free(got);
}

static void test_escape(void) {
  expect_escape("plain text, 64x64", "plain text, 64x64");
  expect_escape("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
  expect_escape("\x1b]0;title\x07", "\\x1b]0;title\\x07");
  expect_escape("a\nb\rc\td", "a\\nb\\rc\\td");
  expect_escape("\x7f", "\\x7f");
  expect_escape("caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93"); /* UTF-8 is kept */
  expect_escape("\xc2\x9b" "2J", "\\u009b2J");                           /* C1 CSI */
  expect_escape("\x9b" "2J", "\\x9b2J");                                 /* raw 8-bit CSI */
  expect_escape("\xff\xc3", "\\xff\\xc3");                               /* not UTF-8 */
  expect_escape("\xed\xa0\x80", "\\xed\\xa0\\x80");                       /* a surrogate */
  expect_escape("back\\slash", "back\\slash");
  expect_escape(NULL, "(null)");
  CHECK(!term_needs_escape("ok"));
  CHECK(term_needs_escape("\x1b"));
}

/* term_str's buffers live for 8 more calls. */
static void test_ring(void) {
  const char *a = term_str("\x01");
  const char *b = term_str("b");
  CHECK_STR(a, "\\x01");
  CHECK_STR(b, "b");
  for (int i = 0; i < 6; i++) term_str("x");
  CHECK_STR(a, "\\x01");
}

/* issue 15 item 1: ETAs of any size, infinity and NaN included. */
static void test_format_eta(void) {
  static const struct {
    double s;
    const char *want;
  } t[] = {
    {-1, "-"}, {0, "0s"}, {12.4, "12s"}, {59.4, "59s"}, {59.6, "1m"}, {125, "2m"},
    {3599, "1h00m"}, {3900, "1h05m"}, {7200, "2h00m"}, {99999 * 3600.0, "99999h00m"},
    {2147483648.0, ">99999h"}, {1e10, ">99999h"}, {1e300, ">99999h"},
  };
  char out[32];
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    format_eta(t[i].s, out, sizeof out);
    if (strcmp(out, t[i].want) != 0) fprintf(stderr, "format_eta(%g): \"%s\"\n", t[i].s, out);
    CHECK_STR(out, t[i].want);
  }
  format_eta(INFINITY, out, sizeof out);
  CHECK_STR(out, ">99999h");
  format_eta(NAN, out, sizeof out);
  CHECK_STR(out, "-");
}

static void expect_md(const char *in, const char *want) {
  struct strbuf sb = STRBUF_INIT;
  table_md_escape_add(&sb, in);
  if (strcmp(sb.buf ? sb.buf : "", want) != 0) fprintf(stderr, "md: expected \"%s\", got \"%s\"\n", want, sb.buf);
  CHECK_STR(sb.buf ? sb.buf : "", want);
  strbuf_release(&sb);
}

/* Markdown cells: shown literally, on one line, with no link, emphasis,
 * HTML or control byte left. */
static void test_markdown(void) {
  expect_md("m=64", "m=64");
  expect_md("a|b", "a\\|b");
  expect_md("[x](javascript:alert(1))", "\\[x\\]\\(javascript:alert\\(1\\)\\)");
  expect_md("<!--*b*_i_`c`", "\\<\\!--\\*b\\*\\_i\\_\\`c\\`");
  expect_md("a\rb\nc", "a\\\\rb\\\\nc"); /* CR, LF as the text \r, \n, the backslash escaped */
  expect_md("\033]0;t\a\xc2\x9b", "\\\\x1b\\]0;t\\\\x07\\\\u009b");
}

/* issue 39: the width lines are fitted to. Not a terminal here (stdin of
 * the test is no tty; fd -1 never is): $COLUMNS, else 120, never under 60. */
static void test_columns(void) {
  setenv("COLUMNS", "200", 1);
  CHECK(term_columns(-1) == 200);
  setenv("COLUMNS", "10", 1);
  CHECK(term_columns(-1) == TERM_MIN_COLUMNS);
  setenv("COLUMNS", "80x", 1);
  CHECK(term_columns(-1) == TERM_DEFAULT_COLUMNS);
  unsetenv("COLUMNS");
  CHECK(term_columns(-1) == TERM_DEFAULT_COLUMNS);
}

static void expect_fit(const char *in, int columns, int indent, const char *want) {
  struct strbuf sb = STRBUF_INIT;
  term_fit_add(&sb, in, columns, indent);
  if (strcmp(sb.buf ? sb.buf : "", want) != 0) fprintf(stderr, "fit: expected \"%s\", got \"%s\"\n", want, sb.buf);
  CHECK_STR(sb.buf ? sb.buf : "", want);
  strbuf_release(&sb);
}

/* Lines fitted at word boundaries (never inside "12.35 us"), between
 * columns (two spaces) where that keeps half the room, colour sequences
 * counted as nothing and never split, a word longer than the room cut. */
static void test_fit(void) {
  const char *sixty = "123456789 123456789 123456789 123456789 123456789 123456789";
  expect_fit("short", 60, 4, "short");
  expect_fit(sixty, 60, 4, sixty);
  char *in = xasprintf("%s tail words", sixty);
  expect_fit(in, 60, 4, "123456789 123456789 123456789 123456789 123456789 123456789\n    tail words");
  free(in);
  /* between columns first: "12.35 us" stays whole */
  expect_fit("[ 1/2] a_label_of_forty_characters_xxxxxxxxx  OK  12.35 us  +-0.91%  47.66 GFLOP/s", 60, 8,
             "[ 1/2] a_label_of_forty_characters_xxxxxxxxx  OK  12.35 us\n        +-0.91%  47.66 GFLOP/s");
  /* colour sequences take no columns */
  in = xasprintf("\033[32mOK\033[0m %s", sixty);
  expect_fit(in, 63, 2, "\033[32mOK\033[0m 123456789 123456789 123456789 123456789 123456789 123456789");
  free(in);
  char *word = xasprintf("%s %s", sixty, sixty);
  expect_fit(word, 60, 0, "123456789 123456789 123456789 123456789 123456789 123456789\n"
                          "123456789 123456789 123456789 123456789 123456789 123456789");
  free(word);
  expect_fit("x", 0, 0, "x"); /* no width: the default, and no endless loop */
  struct strbuf sb = STRBUF_INIT;
  for (int i = 0; i < 100; i++) strbuf_adds(&sb, "abcdefghij");
  struct strbuf out = STRBUF_INIT;
  term_fit_add(&out, sb.buf, 60, 30); /* one long word: cut, every piece at most 60 */
  for (char *l = out.buf, *nl; l; l = nl ? nl + 1 : NULL) {
    nl = strchr(l, '\n');
    CHECK((nl ? (size_t)(nl - l) : strlen(l)) <= 60);
  }
  strbuf_release(&sb);
  strbuf_release(&out);
  CHECK(term_visible_width("\033[1;33m+-565%\033[0m") == 6);
}

TEST_MAIN(TEST_ENTRY(test_escape), TEST_ENTRY(test_ring), TEST_ENTRY(test_format_eta), TEST_ENTRY(test_markdown), TEST_ENTRY(test_columns),
          TEST_ENTRY(test_fit))
