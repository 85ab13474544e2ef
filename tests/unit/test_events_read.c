/* events_read.h: the reproducers of issue 15 item 1 and issue 12 item 10
 * (numbers out of range, linear in cases, bounded on endless input). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/events_read.h"
#include "test.h"

static void feed_text(struct ev_log *l, const char *text) {
  ev_log_feed(l, text, strlen(text));
  ev_log_feed_end(l);
}

/* Numbers that do not fit an int are ignored, never cast. */
static void test_out_of_range(void) {
  struct ev_log l;
  memset(&l, 0, sizeof l);
  feed_text(&l, "{\"event\":\"SUITE_START\",\"total_cases\":3e9}\n"
                "{\"event\":\"TEST_START\",\"index\":1e10,\"total\":4.5e9}\n"
                "{\"event\":\"TEST_START\",\"index\":2147483647}\n"
                "{\"event\":\"TEST_START\",\"index\":-1}\n"
                "{\"event\":\"TEST_START\",\"index\":1.5}\n"
                "{\"event\":\"TEST_START\",\"index\":1e300}\n"
                "{\"event\":\"SUITE_END\",\"total\":42E8}\n");
  REQUIRE(l.n == 1);
  CHECK(l.suites[0].total == 0);
  CHECK(l.suites[0].ncases == 0);
  CHECK(l.suites[0].ended);
  ev_log_release(&l);

  /* the largest index kept still has a row number: index + 1 fits */
  memset(&l, 0, sizeof l);
  feed_text(&l, "{\"event\":\"TEST_START\",\"index\":2147483646,\"total\":2147483646}\n"
                "{\"event\":\"HEARTBEAT\",\"suite_percent\":1,\"suite_eta_s\":1e10}\n");
  REQUIRE(l.n == 1 && l.suites[0].ncases == 1);
  CHECK(l.suites[0].cases[0].index == INT_MAX - 1);
  CHECK(l.suites[0].total == INT_MAX - 1);
  CHECK(l.suites[0].have_hb && l.suites[0].hb_eta == 1e10);
  ev_log_release(&l);
}

/* 300k cases, each started and ended: linear (the old lookup was a linear
 * search per event, 359 s for 430k cases); the alarm fails a slow one. */
static void test_many_cases(void) {
  struct ev_log l;
  memset(&l, 0, sizeof l);
  struct strbuf sb = STRBUF_INIT;
  const int n = 300000;
  for (int i = 0; i < n; i++)
    strbuf_addf(&sb, "{\"event\":\"TEST_START\",\"index\":%d,\"plugin\":\"p\",\"case\":\"m=%d\"}\n", i, i);
  for (int i = n; i-- > 0;)
    strbuf_addf(&sb, "{\"event\":\"TEST_END\",\"index\":%d,\"status\":\"OK\",\"wall_s\":1}\n", i);
  alarm(60);
  ev_log_feed(&l, sb.buf, sb.len);
  ev_log_feed_end(&l);
  REQUIRE(l.n == 1);
  REQUIRE(l.suites[0].ncases == (size_t)n);
  ev_suite_sort(&l.suites[0]);
  alarm(0);
  int ok = 1;
  for (int i = 0; i < n; i++)
    ok &= l.suites[0].cases[i].index == i && strcmp(l.suites[0].cases[i].status, "OK") == 0;
  CHECK(ok);
  ev_log_release(&l);
  strbuf_release(&sb);
}

/* An endless line (/dev/zero) holds at most EVENTS_LINE_MAX bytes; the
 * next line reads as usual. */
static void test_bounded(void) {
  struct ev_log l;
  memset(&l, 0, sizeof l);
  char *zeros = calloc(1, 65536);
  REQUIRE(zeros);
  size_t most = 0;
  for (int i = 0; i < 1600; i++) { /* 100 MiB */
    ev_log_feed(&l, zeros, 65536);
    if (l.partial.alloc > most) most = l.partial.alloc;
  }
  CHECK(most <= 2 * (size_t)EVENTS_LINE_MAX + 64);
  ev_log_feed(&l, "\n{\"event\":\"TEST_START\",\"index\":3}\n", 34);
  ev_log_feed_end(&l);
  REQUIRE(l.n == 1);
  CHECK(l.suites[0].ncases == 1 && l.suites[0].cases[0].index == 3);
  ev_log_release(&l);
  free(zeros);
}

/* A line split across reads, and a last line without a newline. */
static void test_split_lines(void) {
  struct ev_log l;
  memset(&l, 0, sizeof l);
  const char *text = "noise\n{\"event\":\"TEST_START\",\"index\":0}\n{\"event\":\"TEST_END\",\"index\":0,\"status\":\"OK\"}";
  for (const char *p = text; *p; p++) ev_log_feed(&l, p, 1);
  CHECK(l.n == 1 && l.suites[0].ncases == 1 && strcmp(l.suites[0].cases[0].status, "RUNNING") == 0);
  ev_log_feed_end(&l);
  CHECK(strcmp(l.suites[0].cases[0].status, "OK") == 0);
  ev_log_release(&l);
}

TEST_MAIN(TEST_ENTRY(test_out_of_range), TEST_ENTRY(test_many_cases), TEST_ENTRY(test_bounded),
          TEST_ENTRY(test_split_lines))
