/* <bench/params.h>: the one size grammar (every suffix, fractions, range,
 * garbage, cache-relative sizes with and without a resolver), its
 * messages, dtype names, and the shared parameter declarations. */
/* Parameters here are declared positionally, as 1.3 laid them out: the
 * 1.4 tunable fields they leave out are 0 (not tunable). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stdlib.h>

#include "bench/params.h"
#include "test.h"

static int64_t size_of(const char *text, const struct bench_caches *c) {
  int64_t b = -7;
  return bench_size_parse(text, c, &b) == BENCH_SIZE_OK ? b : -1;
}

static void test_plain_sizes(void) {
  static const struct {
    const char *text;
    int64_t bytes;
  } ok[] = {
      {"1", 1},
      {"4096", 4096},
      {"4096B", 4096},
      {"64K", 65536},
      {"64KiB", 65536},
      {"64KB", 64000},
      {"1M", 1 << 20},
      {"1MiB", 1 << 20},
      {"1MB", 1000000},
      {"1G", (int64_t)1 << 30},
      {"1GiB", (int64_t)1 << 30},
      {"1GB", 1000000000},
      {"2T", (int64_t)2 << 40},
      {"2TiB", (int64_t)2 << 40},
      {"2TB", 2000000000000},
      {"1.5MiB", 1572864},
      {"1.5M", 1572864},
      {".5K", 512},
      {"0.5KB", 500},
      {"1.0001K", 1024}, /* 1024.1: rounded down */
      {"2.", 2},
      {"007", 7},
      {"1024T", (int64_t)1 << 50},
      {"1048576T", BENCH_SIZE_MAX}, /* 2^60: the largest */
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    const int64_t got = size_of(ok[i].text, NULL);
    if (got != ok[i].bytes)
      fprintf(stderr, "size '%s': %lld, expected %lld\n", ok[i].text, (long long)got,
              (long long)ok[i].bytes);
    CHECK(got == ok[i].bytes);
  }
}

static void test_refused(void) {
  static const struct {
    const char *text;
    enum bench_size_status st;
  } bad[] = {
      {"", BENCH_SIZE_MALFORMED},      {"bogus", BENCH_SIZE_MALFORMED},
      {"K", BENCH_SIZE_MALFORMED},     {"1k", BENCH_SIZE_MALFORMED},
      {"1kb", BENCH_SIZE_MALFORMED},   {"1Mb", BENCH_SIZE_MALFORMED},
      {"1KIB", BENCH_SIZE_MALFORMED},  {"1 KiB", BENCH_SIZE_MALFORMED},
      {" 1", BENCH_SIZE_MALFORMED},    {"1 ", BENCH_SIZE_MALFORMED},
      {"-1", BENCH_SIZE_MALFORMED},    {"+1", BENCH_SIZE_MALFORMED},
      {"1e6", BENCH_SIZE_MALFORMED},   {"0x10", BENCH_SIZE_MALFORMED},
      {"inf", BENCH_SIZE_MALFORMED},   {"nan", BENCH_SIZE_MALFORMED},
      {"1.2.3", BENCH_SIZE_MALFORMED}, {".", BENCH_SIZE_MALFORMED},
      {"1KiBB", BENCH_SIZE_MALFORMED}, {"1P", BENCH_SIZE_MALFORMED},
      {"64MiB*2", BENCH_SIZE_MALFORMED},
      {"0", BENCH_SIZE_RANGE},         {"0B", BENCH_SIZE_RANGE},
      {"0.5", BENCH_SIZE_RANGE},       {"0.0001K", BENCH_SIZE_RANGE},
      {"1048577T", BENCH_SIZE_RANGE},  {"2000000TB", BENCH_SIZE_RANGE},
      /* overflow of the digits themselves saturates: still out of range */
      {"99999999999999999999999999999999", BENCH_SIZE_RANGE},
      {"99999999999999999999999999999999G", BENCH_SIZE_RANGE},
      /* 2^64 + 4: a parser that wraps reads 4 */
      {"18446744073709551620", BENCH_SIZE_RANGE},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int64_t b = -7;
    const enum bench_size_status st = bench_size_parse(bad[i].text, NULL, &b);
    if (st != bad[i].st) fprintf(stderr, "size '%s': status %d, expected %d\n", bad[i].text, st, bad[i].st);
    CHECK(st == bad[i].st);
    CHECK(b == -7); /* untouched */
  }
  int64_t b = 0;
  CHECK(bench_size_parse(NULL, NULL, &b) == BENCH_SIZE_MALFORMED);
}

/* A machine with L1 32 KiB, L2 1 MiB, L3 (the last) 32 MiB. */
static int64_t fake_bytes(void *user, int level) {
  (*(int *)user)++;
  switch (level) {
  case 1: return 32 << 10;
  case 2: return 1 << 20;
  case 3:
  case BENCH_CACHE_LLC: return 32 << 20;
  }
  return 0;
}

static void fake_describe(void *user, char *buf, size_t size) {
  (void)user;
  snprintf(buf, size, "L1d 32 KiB, L2 1 MiB, L3 32 MiB");
}

static void test_cache_relative(void) {
  int calls = 0;
  const struct bench_caches c = {fake_bytes, fake_describe, &calls};
  CHECK(size_of("L1", &c) == 32 << 10);
  CHECK(size_of("l1", &c) == 32 << 10);
  CHECK(size_of("L2/2", &c) == 512 << 10);
  CHECK(size_of("4*LLC", &c) == 128 << 20);
  CHECK(size_of("llc", &c) == 32 << 20);
  CHECK(size_of("0.5*L3/4", &c) == 4 << 20);
  CHECK(size_of("1.5*L2", &c) == 1572864);
  CHECK(size_of("L1/3", &c) == 10922); /* rounded down */
  CHECK(calls == 8);
  /* plain sizes never ask the resolver */
  CHECK(size_of("64KiB", &c) == 65536 && calls == 8);

  int64_t b = -7;
  CHECK(bench_size_parse("L4", &c, &b) == BENCH_SIZE_NO_CACHE && b == -7);
  CHECK(bench_size_parse("3*L9", &c, &b) == BENCH_SIZE_NO_CACHE);
  CHECK(bench_size_parse("L1/0", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("L1/", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("L1*2", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("L0", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("LL", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("2*", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("*L2", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("2KiB*L2", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("L2KiB", &c, &b) == BENCH_SIZE_MALFORMED);
  CHECK(bench_size_parse("0*L2", &c, &b) == BENCH_SIZE_RANGE);
  CHECK(bench_size_parse("L1/100000", &c, &b) == BENCH_SIZE_RANGE);
  CHECK(bench_size_parse("100000000000*LLC", &c, &b) == BENCH_SIZE_RANGE);
  CHECK(bench_size_parse("18446744073709551620*L1", &c, &b) == BENCH_SIZE_RANGE);
  CHECK(b == -7);

  /* Without a resolver (GPU plugins): refused, the resolver's absence named. */
  CHECK(bench_size_parse("L2/2", NULL, &b) == BENCH_SIZE_NO_RESOLVER);
  CHECK(bench_size_parse("4*LLC", NULL, &b) == BENCH_SIZE_NO_RESOLVER);
  const struct bench_caches none = {NULL, NULL, NULL};
  CHECK(bench_size_parse("LLC", &none, &b) == BENCH_SIZE_NO_RESOLVER);
  /* malformed stays malformed without one */
  CHECK(bench_size_parse("L2/x", NULL, &b) == BENCH_SIZE_MALFORMED);
  CHECK(b == -7);
}

static int one_line(const char *s) { return strchr(s, '\n') == NULL && s[0]; }

static void test_messages(void) {
  int calls = 0;
  const struct bench_caches c = {fake_bytes, fake_describe, &calls};
  char m[512];
  bench_size_message(m, sizeof m, "size", "bogus", BENCH_SIZE_MALFORMED, &c);
  CHECK(one_line(m) && strstr(m, "size 'bogus': not a size (4096, 64KiB") && strstr(m, "4*LLC"));
  bench_size_message(m, sizeof m, "size", "bogus", BENCH_SIZE_MALFORMED, NULL);
  CHECK(one_line(m) && strstr(m, "not a size") && !strstr(m, "LLC"));
  bench_size_message(m, sizeof m, "size", "3*L9", BENCH_SIZE_NO_CACHE, &c);
  CHECK_STR(m, "size '3*L9': this machine has no L9 cache (L1d 32 KiB, L2 1 MiB, L3 32 MiB); "
               "LLC names its last level");
  const struct bench_caches quiet = {fake_bytes, NULL, &calls};
  bench_size_message(m, sizeof m, "bytes", "L4/2", BENCH_SIZE_NO_CACHE, &quiet);
  CHECK_STR(m, "bytes 'L4/2': this machine has no L4 cache; LLC names its last level");
  bench_size_message(m, sizeof m, "size", "L2/2", BENCH_SIZE_NO_RESOLVER, NULL);
  CHECK(one_line(m) && strstr(m, "size 'L2/2': sizes relative to the caches") &&
        strstr(m, "CPU plugins"));
  bench_size_message(m, sizeof m, "size", "0", BENCH_SIZE_RANGE, NULL);
  CHECK_STR(m, "size '0': out of range (1 byte to 2^60 bytes)");
  /* a long text is cut, never overrun */
  char big[600];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  char small[32];
  bench_size_message(small, sizeof small, "size", big, BENCH_SIZE_MALFORMED, NULL);
  CHECK(strlen(small) == sizeof small - 1);
}

static void test_dtype_names(void) {
  static const char *const names[] = {"f32", "f16", "bf16", "i8", "u8", "i32", "f64"};
  for (int t = BENCH_F32; t <= BENCH_F64; t++) {
    enum bench_dtype got = (enum bench_dtype)99;
    CHECK_STR(bench_dtype_name((enum bench_dtype)t), names[t]);
    CHECK(bench_dtype_parse(names[t], &got) == 0 && got == (enum bench_dtype)t);
    CHECK(bench_dtype_size((enum bench_dtype)t) > 0);
  }
  enum bench_dtype got = BENCH_F32;
  CHECK(bench_dtype_parse("BF16", &got) == 0 && got == BENCH_BF16);
  CHECK(bench_dtype_parse("half", &got) == 0 && got == BENCH_F16);
  CHECK(bench_dtype_parse("f3", &got) == -1 && got == BENCH_F16);
  CHECK(bench_dtype_parse("f322", &got) == -1);
  CHECK(bench_dtype_parse("", &got) == -1);
  CHECK(bench_dtype_parse(NULL, &got) == -1);
  CHECK(bench_dtype_parse("f16", NULL) == 0);
  CHECK_STR(bench_dtype_name((enum bench_dtype)42), "?");
}

/* The shared declarations: what every backend's table now agrees on. */
static void test_declarations(void) {
  static const struct bench_param p[] = {
      BENCH_PARAM_ROWS("7", "8", "9", "10"),
      BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-6"),
      BENCH_PARAM_DTYPE("element type", "f32,f16", "f32", "f16", "f32", "f32,f16"),
      BENCH_PARAM_ATTN_HEAD_DIM(256, "64", "64", "128", "2"),
      BENCH_PARAM_SIZE("bytes", "1MiB", "64MiB", "1GB", "4096"),
      {NULL, BENCH_PARAM_INT, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
  };
  CHECK_STR(p[0].name, "rows");
  CHECK(p[0].type == BENCH_PARAM_INT && p[0].min == 1 && p[0].max == BENCH_ROWS_MAX && p[0].zip == 1);
  CHECK_STR(p[0].defaults[BENCH_TIER_VERIFY], "10");
  CHECK_STR(p[1].name, "eps");
  CHECK(p[1].type == BENCH_PARAM_FLOAT && p[1].min > 0 && p[1].max == 1 && p[1].zip == 0);
  CHECK_STR(p[2].choices, "f32,f16");
  CHECK(p[2].type == BENCH_PARAM_STRING && p[2].zip == 0);
  CHECK(p[3].max == 256 && p[3].zip == 1);
  CHECK(p[4].type == BENCH_PARAM_STRING && !p[4].choices);
  CHECK_STR(p[4].defaults[BENCH_TIER_PERF], "1GB");
  /* every default of a size declaration is a size */
  for (int t = 0; t < BENCH_TIER_COUNT; t++) CHECK(size_of(p[4].defaults[t], NULL) > 0);
  CHECK(p[5].name == NULL);
}

TEST_MAIN(TEST_ENTRY(test_plain_sizes), TEST_ENTRY(test_refused), TEST_ENTRY(test_cache_relative),
          TEST_ENTRY(test_messages), TEST_ENTRY(test_dtype_names),
          TEST_ENTRY(test_declarations))
