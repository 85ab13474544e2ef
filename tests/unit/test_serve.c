/* bench serve's pieces without a socket: files beneath the folder and
 * nothing else (serve/serve_path.c), the token and loopback rules
 * (serve/serve_auth.c), and the feed (serve/serve_feed.c): lines taken as
 * they are completed, ids that depend only on the file, a superseded
 * heartbeat, resuming by a known and by an unknown id. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/serve_auth.h"
#include "serve/serve_feed.h"
#include "serve/serve_path.h"
#include "test.h"

static char root[256], outside[300];

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void append_text(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static int opens(const char *rel) {
  int fd;
  struct stat st;
  if (serve_path_open(root, rel, &fd, &st) != 0) return 0;
  char buf[64] = "";
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return strstr(buf, "SECRET") ? -1 : 1; /* -1: it read the file outside */
}

static void setup_tree(void) {
  snprintf(root, sizeof root, "/tmp/bench_test_serve_XXXXXX");
  if (!mkdtemp(root)) return;
  snprintf(outside, sizeof outside, "%s.outside.json", root);
  write_text(outside, "SECRET\n");
  char p[512];
  snprintf(p, sizeof p, "%s/a.json", root);
  write_text(p, "{}\n");
  snprintf(p, sizeof p, "%s/events", root);
  mkdir(p, 0777);
  snprintf(p, sizeof p, "%s/events/r.jsonl", root);
  write_text(p, "");
  snprintf(p, sizeof p, "%s/link.json", root);
  if (symlink(outside, p) != 0) perror("symlink");
  snprintf(p, sizeof p, "%s/up", root);
  if (symlink("..", p) != 0) perror("symlink");
  snprintf(p, sizeof p, "%s/.hidden.json", root);
  write_text(p, "{}\n");
  snprintf(p, sizeof p, "%s/binary.so", root);
  write_text(p, "x");
}

static void test_paths(void) {
  CHECK(opens("a.json") == 1);
  CHECK(opens("events/r.jsonl") == 1);
  static const char *const refused[] = {
      "../a.json", "..", ".", "", "/etc/passwd", "events/../a.json", "events//r.jsonl", "a.json/",
      "link.json", /* a symlink out */
      "up/a.json", /* a symlinked folder */
      ".hidden.json", "binary.so", "events", "a\\..\\a.json", "a.json\x01", "nothere.json",
      "a/b/c/d/e.json", /* deeper than SERVE_PATH_DEPTH */
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    int got = opens(refused[i]);
    if (got != 0) fprintf(stderr, "opened '%s'\n", refused[i]);
    CHECK(got == 0);
  }
  char longp[SERVE_PATH_MAX + 8];
  memset(longp, 'a', sizeof longp - 1);
  longp[sizeof longp - 1] = '\0';
  CHECK(opens(longp) == 0);
  CHECK_STR(serve_path_type("x.json"), "application/json; charset=utf-8");
  CHECK(serve_path_type("x.html") == NULL);
}

static void test_auth(void) {
  char t[33];
  serve_token_new(t);
  CHECK(strlen(t) == 32 && serve_token_valid(t));
  char t2[33];
  serve_token_new(t2);
  CHECK(strcmp(t, t2) != 0);
  CHECK(serve_token_equal(t, t));
  CHECK(!serve_token_equal(t, t2));
  CHECK(!serve_token_equal(t, NULL));
  CHECK(!serve_token_equal("abcdefghijklmnop", "abcdefghijklmno"));
  CHECK(!serve_token_equal("abcdefghijklmnop", "abcdefghijklmnopq"));
  CHECK(!serve_token_valid("short"));
  CHECK(!serve_token_valid("has space in it 123"));
  char v[64];
  CHECK(serve_cookie_value("a=1; bench_token=xyz; b=2", "bench_token", v, sizeof v) && strcmp(v, "xyz") == 0);
  CHECK(!serve_cookie_value("xbench_token=1", "bench_token", v, sizeof v));
  CHECK(!serve_cookie_value(NULL, "bench_token", v, sizeof v));
  CHECK_STR(serve_bearer("Bearer abc"), "abc");
  CHECK(serve_bearer("Basic abc") == NULL);
  CHECK(serve_addr_is_loopback("127.0.0.1") && serve_addr_is_loopback("127.3.4.5") && serve_addr_is_loopback("::1"));
  CHECK(serve_addr_is_loopback("localhost"));
  CHECK(!serve_addr_is_loopback("0.0.0.0") && !serve_addr_is_loopback("::") && !serve_addr_is_loopback("10.0.0.1"));
  CHECK(serve_host_is_loopback("127.0.0.1:8765") && serve_host_is_loopback("localhost") &&
        serve_host_is_loopback("[::1]:80") && serve_host_is_loopback("LOCALHOST:1"));
  CHECK(!serve_host_is_loopback("evil.example") && !serve_host_is_loopback("evil.example:8765") &&
        !serve_host_is_loopback("127.0.0.1.evil.example") && !serve_host_is_loopback(NULL) &&
        !serve_host_is_loopback("[::1]x") && !serve_host_is_loopback(""));
  char p[512], tok[SERVE_TOKEN_MAX + 1];
  snprintf(p, sizeof p, "%s/token", root);
  write_text(p, "abcdefghijklmnop-123\nsecond line\n");
  CHECK(serve_token_load(p, tok) == 0 && strcmp(tok, "abcdefghijklmnop-123") == 0);
  write_text(p, "bad token\n");
  CHECK(serve_token_load(p, tok) != 0);
}

static size_t live_count(const struct serve_feed *f, const char *kind) {
  size_t n = 0;
  for (size_t i = 0; i < f->nlog; i++)
    if (f->log[i].text && strstr(f->log[i].text, kind)) n++;
  return n;
}

static void test_feed(void) {
  char ev[512];
  snprintf(ev, sizeof ev, "%s/events/r.jsonl", root);
  struct serve_feed f;
  feed_init(&f, root, NULL);
  feed_poll(&f);
  REQUIRE(f.nstreams == 1);
  CHECK(f.nlog == 0);
  CHECK(f.report_html != NULL && f.report_version == 1); /* a.json is no result file: the empty page */
  append_text(ev, "{\"event\":\"SUITE_START\",\"ts\":1000.5,\"total_cases\":2}\nnot json\n{\"event\":\"TEST_START\",");
  feed_poll(&f);
  CHECK(f.nlog == 1); /* the half line waits */
  append_text(ev, "\"ts\":1001,\"index\":0}\n{\"event\":\"HEARTBEAT\",\"ts\":1002,\"index\":0}\n");
  feed_poll(&f);
  REQUIRE(f.nlog == 3);
  append_text(ev, "{\"event\":\"HEARTBEAT\",\"ts\":1003,\"index\":0}\n{\"event\":\"TEST_END\",\"ts\":1010,\"index\":0,"
                  "\"plugin\":\"</script><img src=x>\\u2028\"}\n");
  feed_poll(&f);
  REQUIRE(f.nlog == 5);
  CHECK(live_count(&f, "HEARTBEAT") == 1); /* the older one is superseded */
  CHECK(f.log[2].text == NULL);
  /* ids: TS_US-HASH-OFFSET, from the file alone */
  char want[64];
  feed_event_id(want, sizeof want, 1000.5, feed_hash("events/r.jsonl"), 52);
  CHECK_STR(f.log[0].id, want);
  CHECK(strncmp(f.log[0].id, "1000500000-", 11) == 0);
  CHECK(strstr(f.log[0].text, "\"stream\":\"events/r.jsonl\"") != NULL);
  CHECK(strstr(f.log[4].text, "event: run\ndata: {") != NULL);
  CHECK(strchr(strstr(f.log[4].text, "data: "), '\n') == strstr(f.log[4].text, "\n\n")); /* one data line */
  int known;
  CHECK(feed_resume_index(&f, f.log[1].id, &known) == 2 && known);
  CHECK(feed_resume_index(&f, NULL, &known) == 0 && !known);
  /* a second feed (the server restarted) names the same events the same */
  struct serve_feed g;
  feed_init(&g, root, NULL);
  feed_poll(&g);
  REQUIRE(g.nlog == 5);
  for (size_t i = 0; i < 5; i++) CHECK_STR(g.log[i].id, f.log[i].id);
  CHECK(feed_resume_index(&g, f.log[3].id, &known) == 4 && known);
  /* an id of no file: from its ts less the window */
  char unknown[64];
  feed_event_id(unknown, sizeof unknown, 1006.0, 0xdeadbeef, 1);
  CHECK(feed_resume_index(&g, unknown, &known) == 1 && !known); /* the first with ts >= 1006 - 5 */
  CHECK(feed_resume_index(&g, "garbage", &known) == 0 && !known);
  feed_release(&g);
  /* the folder goes away: a notice, and what was read stays */
  char moved[300];
  snprintf(moved, sizeof moved, "%s.moved", root);
  REQUIRE(rename(root, moved) == 0);
  unsigned nv = f.notice_version;
  feed_poll(&f);
  CHECK(f.notice_version == nv + 1 && strstr(f.notice, "cannot read the results folder") != NULL);
  CHECK(f.nlog == 5);
  REQUIRE(rename(moved, root) == 0);
  feed_poll(&f);
  CHECK(f.notice_version == nv + 2 && strstr(f.notice, "readable again") != NULL);
  feed_release(&f);
}

static void cleanup(void) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
  if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
}

static void test_all(void) {
  setup_tree();
  REQUIRE(root[0] && access(root, F_OK) == 0);
  test_paths();
  test_auth();
  test_feed();
  cleanup();
}

TEST_MAIN(TEST_ENTRY(test_all))
