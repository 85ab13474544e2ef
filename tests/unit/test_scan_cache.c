/* The scan cache's records round-trip every field a plugin declares (odd
 * bytes, NULL vs empty strings, exact doubles, negative zip groups), and
 * anything this build would not write is refused; cache files are refused
 * when truncated, edited or of another header. */
/* Parameters here are declared positionally, as 1.3 laid them out: the
 * 1.4 tunable fields they leave out are 0 (not tunable). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/scan_cache.h"
#include "test.h"

static int init_fn(const struct bench_host *h, void **c) { (void)h; (void)c; return 0; }
static int setup_fn(const struct bench_host *h, void *c, void **s) { (void)h; (void)c; (void)s; return 0; }
static int run_fn(const struct bench_host *h, void *s) { (void)h; (void)s; return 0; }

static const struct bench_param params[] = {
    {"m", BENCH_PARAM_INT, "rows\twith a tab", NULL, 1, 65536, -3, {"64", "256,512", NULL, "8"}},
    {"mode", BENCH_PARAM_STRING, "", "a,b\\c\n", 0, 0, 0, {"a", "b", "a", "a"}},
    {"eps", BENCH_PARAM_FLOAT, "tiny", NULL, 1e-300, 0.1, 2, {"1e-5", "1e-6", "0.1", "3"}},
    {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}}};
static const struct bench_plugin entry = {
    .abi_version = BENCH_ABI_VERSION, .name = "x_gemm", .backend = "cpu", .operation = "gemm",
    .description = "caf\xc3\xa9 \x7f bytes", .params = params, .init = init_fn, .setup = setup_fn,
    .run = run_fn, .verify = run_fn, .param_size = sizeof(struct bench_param)};
static const char sha[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static void test_round_trip(void) {
  char *rec = scan_record_plugin(&entry, sha);
  REQUIRE(rec && !strchr(rec, '\n'));
  struct bench_plugin *d;
  char got[65], *problem;
  REQUIRE(scan_record_parse(rec, &d, got, &problem) == 0 && d && !problem);
  CHECK_STR(got, sha);
  CHECK_STR(d->name, "x_gemm");
  CHECK_STR(d->description, entry.description);
  CHECK(d->abi_version == BENCH_ABI_VERSION && d->param_size == sizeof(struct bench_param));
  CHECK(d->init && !d->deinit && d->setup && d->run && d->verify && !d->teardown && !d->run_batch);
  CHECK(d->init != init_fn); /* stand-ins, never the plugin's own */
  for (int i = 0; i < 3; i++) {
    const struct bench_param *a = &params[i], *b = &d->params[i];
    CHECK_STR(b->name, a->name);
    CHECK(b->type == a->type && b->min == a->min && b->max == a->max && b->zip == a->zip);
    CHECK_STR(b->description, a->description);
    CHECK(a->choices ? b->choices && strcmp(a->choices, b->choices) == 0 : !b->choices);
    for (int t = 0; t < BENCH_TIER_COUNT; t++)
      CHECK(a->defaults[t] ? b->defaults[t] && strcmp(a->defaults[t], b->defaults[t]) == 0
                           : !b->defaults[t]);
  }
  CHECK(d->params[3].name == NULL);
  char *again = scan_record_plugin(d, got);
  CHECK_STR(again, rec);
  free(again);
  scan_desc_free(d);
  free(rec);

  rec = scan_record_broken("missing entry symbol\tx");
  REQUIRE(scan_record_parse(rec, &d, got, &problem) == 0);
  CHECK(!d);
  CHECK_STR(problem, "missing entry symbol\tx");
  free(problem);
  free(rec);
}

/* Replace the first occurrence of `from` in rec by `to`, then parse. */
static int parse_edited(const char *rec, const char *from, const char *to) {
  const char *at = strstr(rec, from);
  if (!at) return 99;
  char *e = xasprintf("%.*s%s%s", (int)(at - rec), rec, to, at + strlen(from));
  struct bench_plugin *d;
  char got[65], *problem;
  int rc = scan_record_parse(e, &d, got, &problem);
  scan_desc_free(d);
  free(problem);
  free(e);
  return rc;
}

static void test_strict(void) {
  char *rec = scan_record_plugin(&entry, sha);
  CHECK(parse_edited(rec, "ok\t", "OK\t") == -1);
  CHECK(parse_edited(rec, "\t3\t", "\t4\t") == -1);            /* param count */
  CHECK(parse_edited(rec, "\t3\t", "\t+3\t") == -1);           /* a sign */
  CHECK(parse_edited(rec, "\t3\t", "\t03\t") == -1);           /* a leading zero */
  CHECK(parse_edited(rec, "0x1p+0", "1") == -1);               /* a double not as %a */
  CHECK(parse_edited(rec, "\\x09", "\\x41") == -1);            /* an escape never written */
  CHECK(parse_edited(rec, "\\x09", "\\t") == -1);
  CHECK(parse_edited(rec, "rows", "ro\x01ws") == -1);          /* a raw control byte */
  CHECK(parse_edited(rec, sha, "0123") == -1);                 /* not a SHA-256 */
  CHECK(parse_edited(rec, "\tx_gemm\t", "\tx_gemm\textra\t") == -1); /* a field too many */
  CHECK(parse_edited(rec, "\tmode\t2\t", "\tmode\t3\t") == -1); /* no such type */
  CHECK(parse_edited(rec, "\tmode\t", "\tmode\t") == 0);       /* the unedited record */
  struct bench_plugin *d;
  char got[65], *problem;
  CHECK(scan_record_parse("", &d, got, &problem) == -1);
  CHECK(scan_record_parse("broken", &d, got, &problem) == -1);
  CHECK(scan_record_parse("broken\t\\N", &d, got, &problem) == -1);
  free(rec);
}

static void test_files(void) {
  char dir[] = "/tmp/test_scan_cache.XXXXXX";
  REQUIRE(mkdtemp(dir));
  setenv("XDG_CACHE_HOME", dir, 1);
  char *lines[] = {"one\tfield", "two"};
  char why[256];
  REQUIRE(cache_file_write("t.cache", "head", lines, 2, why, sizeof why) == 0);
  char **got;
  size_t n;
  REQUIRE(cache_file_read("t.cache", "head", &got, &n, why, sizeof why) == 0);
  CHECK(n == 2);
  if (n == 2) {
    CHECK_STR(got[0], "one\tfield");
    CHECK_STR(got[1], "two");
  }
  cache_lines_free(got, n);
  CHECK(cache_file_read("t.cache", "other head", &got, &n, why, sizeof why) == -1 && n == 0);
  char *path = xasprintf("%s/bench/t.cache", dir);
  struct strbuf sb = STRBUF_INIT;
  REQUIRE(read_file(path, &sb) == 0);
  /* every shorter prefix, and a one-byte edit, is refused */
  for (size_t cut = 0; cut < sb.len; cut++) {
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fwrite(sb.buf, 1, cut, f);
    fclose(f);
    CHECK(cache_file_read("t.cache", "head", &got, &n, why, sizeof why) == -1);
  }
  sb.buf[6] = 'X';
  FILE *f = fopen(path, "w");
  REQUIRE(f);
  fwrite(sb.buf, 1, sb.len, f);
  fclose(f);
  CHECK(cache_file_read("t.cache", "head", &got, &n, why, sizeof why) == -1);
  strbuf_release(&sb);
  unlink(path);
  free(path);
  path = xasprintf("%s/bench", dir);
  rmdir(path);
  free(path);
  rmdir(dir);
}

TEST_MAIN(TEST_ENTRY(test_round_trip), TEST_ENTRY(test_strict), TEST_ENTRY(test_files))
