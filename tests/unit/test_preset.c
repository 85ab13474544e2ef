/* Presets: the shipped ones, the good and bad corpora in tests/data/presets,
 * value syntax, preset_resolve. A bad corpus file starts with one or more
 * lines "; expect: LINE: SUBSTRING": loading it must fail and print, for each,
 * a line "PATH:LINE: ..." holding SUBSTRING. */
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preset/preset.h"
#include "test.h"
#include "test_support.h"

#define CORPUS_DIR TEST_DATA_DIR "/presets"

/* Load path with stderr captured into *err. */
static int load_quiet(const char *path, struct preset *p, char **err) {
  struct capture c;
  capture_begin(&c);
  int rc = preset_load(path, p);
  *err = capture_end(&c);
  return rc;
}

static int parse_quiet(const char *text, struct preset *p, char **err) {
  struct capture c;
  capture_begin(&c);
  int rc = preset_parse("mem/test.ini", text, strlen(text), p);
  *err = capture_end(&c);
  return rc;
}

/* Does some line of text start with prefix and contain sub? */
static int has_line(const char *text, const char *prefix, const char *sub) {
  const char *s = text;
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    char *line = xstrndup(s, n);
    int ok = strncmp(line, prefix, strlen(prefix)) == 0 && strstr(line, sub) != NULL;
    free(line);
    if (ok) return 1;
    s += n + (nl ? 1 : 0);
  }
  return 0;
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.ini files of dir, sorted, as full paths; returns the count. */
static size_t list_ini(const char *dir, char ***out) {
  DIR *d = opendir(dir);
  char **names = NULL;
  size_t n = 0;
  if (!d) {
    *out = NULL;
    return 0;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0) continue;
    names = xrealloc(names, (n + 1) * sizeof *names);
    names[n++] = xasprintf("%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, str_cmp);
  *out = names;
  return n;
}

static void free_list(char **l, size_t n) {
  for (size_t i = 0; i < n; i++) free(l[i]);
  free(l);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  struct strbuf sb = STRBUF_INIT;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) strbuf_add(&sb, buf, n);
  fclose(f);
  return strbuf_detach(&sb);
}

/* ---- tests ------------------------------------------------------------ */

static void test_defaults(void) {
  struct run_policy p;
  run_policy_defaults(&p);
  CHECK(p.tier == BENCH_TIER_STANDARD);
  CHECK(p.warmup_iters == 2);
  CHECK_NEAR(p.warmup_s, 0.1, 1e-12);
  CHECK(p.min_samples == 5);
  CHECK(p.max_samples == 1000);
  CHECK_NEAR(p.min_time_s, 0.2, 1e-12);
  CHECK_NEAR(p.max_time_s, 5.0, 1e-12);
  CHECK_NEAR(p.target_noise, 0.02, 1e-12);
  CHECK_NEAR(p.batch_min_s, 1e-3, 1e-15);
  CHECK(p.verify == VERIFY_FAST);
  CHECK(p.determinism == 0);
  CHECK_NEAR(p.timeout_s, 120.0, 1e-9);
  CHECK_NEAR(p.heartbeat_s, 60.0, 1e-12);
  CHECK_NEAR(p.throttle_threshold, 0.75, 1e-15);
  CHECK_NEAR(p.throttle_recovery_s, 0.05, 1e-15);
  CHECK(p.telemetry == 1);
  CHECK(p.telemetry_interval_ms == 50);
  CHECK(p.validation == 0);
}

/* The GPU keys: the throttle rule and the telemetry sampler. */
static void test_gpu_keys(void) {
  struct preset p;
  char *err = NULL;
  CHECK(parse_quiet("[run]\nthrottle_threshold = 80%\nthrottle_recovery_s = 100ms\ntelemetry = off\n"
                    "telemetry_interval_ms = 20\n", &p, &err) == 0);
  CHECK_NEAR(p.policy.throttle_threshold, 0.8, 1e-15);
  CHECK_NEAR(p.policy.throttle_recovery_s, 0.1, 1e-15);
  CHECK(p.policy.telemetry == 0 && p.policy.telemetry_interval_ms == 20);
  preset_release(&p);
  free(err);
  CHECK(parse_quiet("[run]\nvalidation = yes\n", &p, &err) == 0);
  CHECK(p.policy.validation == 1);
  preset_release(&p);
  free(err);
  CHECK(parse_quiet("[run]\nthrottle_threshold = 0\nthrottle_recovery_s = 0\n", &p, &err) == 0);
  CHECK(p.policy.throttle_threshold == 0 && p.policy.throttle_recovery_s == 0);
  preset_release(&p);
  free(err);
  static const char *const bad[][2] = {
      {"throttle_threshold = 1.5", "bad value '1.5' for throttle_threshold: must be from 0% to 100%"},
      {"throttle_threshold = -0.1", "throttle_threshold"},
      {"throttle_recovery_s = 20s", "bad value '20s' for throttle_recovery_s: must be 0 or from 1ms to 10s"},
      {"telemetry = maybe", "bad value 'maybe' for telemetry: expected true or false"},
      {"validation = debug", "bad value 'debug' for validation: expected true or false"},
      {"telemetry_interval_ms = 5", "bad value '5' for telemetry_interval_ms: expected an integer from 10 to 1000"},
      {"telemetry_interval_ms = 1001", "telemetry_interval_ms"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *text = xasprintf("[run]\n%s\n", bad[i][0]);
    CHECK(parse_quiet(text, &p, &err) == -1);
    if (!has_line(err, "mem/test.ini:2: ", bad[i][1])) fprintf(stderr, "%s: got %s", bad[i][0], err);
    CHECK(has_line(err, "mem/test.ini:2: ", bad[i][1]));
    free(err);
    free(text);
  }
}

static int load_shipped(const char *name, struct preset *p) {
  const char *dirs[] = {TEST_PRESET_DIR};
  char *err = NULL;
  char *path = preset_resolve(name, dirs, 1);
  if (!path) return -1;
  int rc = load_quiet(path, p, &err);
  if (rc == 0 && *err) rc = -1;
  if (*err) fprintf(stderr, "%s", err);
  free(err);
  free(path);
  return rc;
}

static void check_sha_hex(const char *sha) {
  CHECK(strlen(sha) == 64);
  CHECK(strspn(sha, "0123456789abcdef") == 64);
}

static void test_shipped_smoke(void) {
  struct preset p;
  REQUIRE(load_shipped("smoke", &p) == 0);
  CHECK_STR(p.name, "smoke");
  check_sha_hex(p.sha256);
  CHECK(p.nsections == 0);
  CHECK(p.policy.tier == BENCH_TIER_SMOKE);
  CHECK(p.policy.warmup_iters == 1);
  CHECK(p.policy.warmup_s == 0);
  CHECK(p.policy.min_samples == 3);
  CHECK(p.policy.max_samples == 20);
  CHECK(p.policy.min_time_s == 0);
  CHECK_NEAR(p.policy.max_time_s, 0.2, 1e-12);
  CHECK_NEAR(p.policy.target_noise, 0.10, 1e-12);
  CHECK(p.policy.batch_min_s == 0);
  CHECK(p.policy.verify == VERIFY_FULL);
  CHECK(p.policy.determinism == 0);
  CHECK_NEAR(p.policy.timeout_s, 60, 1e-9);
  CHECK_NEAR(p.policy.heartbeat_s, 1, 1e-12);
  preset_release(&p);
}

static void test_shipped_standard(void) {
  struct preset p;
  struct run_policy d;
  run_policy_defaults(&d);
  REQUIRE(load_shipped("standard", &p) == 0);
  CHECK_STR(p.name, "standard");
  check_sha_hex(p.sha256);
  CHECK(p.nsections == 0);
  /* standard.ini spells out the defaults */
  CHECK(p.policy.tier == d.tier);
  CHECK(p.policy.warmup_iters == d.warmup_iters);
  CHECK_NEAR(p.policy.warmup_s, d.warmup_s, 1e-12);
  CHECK(p.policy.min_samples == d.min_samples);
  CHECK(p.policy.max_samples == d.max_samples);
  CHECK_NEAR(p.policy.min_time_s, d.min_time_s, 1e-12);
  CHECK_NEAR(p.policy.max_time_s, d.max_time_s, 1e-12);
  CHECK_NEAR(p.policy.target_noise, d.target_noise, 1e-12);
  CHECK_NEAR(p.policy.batch_min_s, d.batch_min_s, 1e-15);
  CHECK(p.policy.verify == d.verify);
  CHECK(p.policy.determinism == d.determinism);
  CHECK_NEAR(p.policy.timeout_s, d.timeout_s, 1e-9);
  CHECK_NEAR(p.policy.heartbeat_s, d.heartbeat_s, 1e-12);
  CHECK_NEAR(p.policy.timeout_s, 120, 1e-9);
  preset_release(&p);
}

static void test_shipped_perf(void) {
  struct preset p;
  REQUIRE(load_shipped("perf", &p) == 0);
  CHECK_STR(p.name, "perf");
  CHECK(p.nsections == 0);
  CHECK(p.policy.tier == BENCH_TIER_PERF);
  CHECK(p.policy.warmup_iters == 3);
  CHECK_NEAR(p.policy.warmup_s, 0.5, 1e-12);
  CHECK(p.policy.min_samples == 10);
  CHECK(p.policy.max_samples == 100000);
  CHECK_NEAR(p.policy.min_time_s, 0.5, 1e-12);
  CHECK_NEAR(p.policy.max_time_s, 15, 1e-12);
  CHECK_NEAR(p.policy.target_noise, 0.005, 1e-12);
  CHECK_NEAR(p.policy.batch_min_s, 1e-3, 1e-15);
  CHECK(p.policy.verify == VERIFY_FAST);
  CHECK(p.policy.determinism == 0);
  CHECK_NEAR(p.policy.timeout_s, 300, 1e-9);
  preset_release(&p);
}

static void test_shipped_verify(void) {
  struct preset p;
  REQUIRE(load_shipped("verify", &p) == 0);
  CHECK_STR(p.name, "verify");
  CHECK(p.nsections == 0);
  CHECK(p.policy.tier == BENCH_TIER_VERIFY);
  CHECK(p.policy.warmup_iters == 1);
  CHECK(p.policy.min_samples == 2);
  CHECK(p.policy.max_samples == 3);
  CHECK_NEAR(p.policy.max_time_s, 1, 1e-12);
  CHECK_NEAR(p.policy.target_noise, 1.0, 1e-12);
  CHECK(p.policy.verify == VERIFY_FULL);
  CHECK(p.policy.determinism == 1);
  CHECK(p.policy.validation == 1); /* the Vulkan validation layer (issue 39) */
  CHECK_NEAR(p.policy.timeout_s, 120, 1e-9);
  preset_release(&p);
}

static void test_good_corpus(void) {
  char **files;
  size_t n = list_ini(CORPUS_DIR "/good", &files);
  CHECK(n >= 5);
  for (size_t i = 0; i < n; i++) {
    struct preset p;
    char *err;
    int rc = load_quiet(files[i], &p, &err);
    if (rc != 0 || *err) fprintf(stderr, "good corpus %s:\n%s", files[i], err);
    CHECK(rc == 0);
    CHECK(*err == '\0');
    if (rc == 0) preset_release(&p);
    free(err);
  }
  free_list(files, n);
}

static void test_good_details(void) {
  struct preset p;
  char *err;

  REQUIRE(load_quiet(CORPUS_DIR "/good/full.ini", &p, &err) == 0);
  free(err);
  CHECK_STR(p.name, "full");
  CHECK(p.policy.tier == BENCH_TIER_PERF);
  CHECK(p.policy.warmup_iters == 0);
  CHECK_NEAR(p.policy.warmup_s, 0.25, 1e-12);
  CHECK(p.policy.min_samples == 1 && p.policy.max_samples == 1);
  CHECK_NEAR(p.policy.max_time_s, 120, 1e-9);
  CHECK_NEAR(p.policy.target_noise, 0.005, 1e-12);
  CHECK(p.policy.batch_min_s == 0);
  CHECK(p.policy.verify == VERIFY_NONE);
  CHECK(p.policy.determinism == 1);
  CHECK_NEAR(p.policy.timeout_s, 1500, 1e-9);
  CHECK_NEAR(p.policy.heartbeat_s, 0.5, 1e-12);
  preset_release(&p);

  REQUIRE(load_quiet(CORPUS_DIR "/good/plugin_sections.ini", &p, &err) == 0);
  free(err);
  CHECK(p.policy.tier == BENCH_TIER_SMOKE);
  REQUIRE(p.nsections == 2);
  const struct preset_section *s = preset_find_section(&p, "cpu_gemm");
  REQUIRE(s != NULL);
  CHECK(s->line == 2);
  REQUIRE(s->nentries == 3);
  CHECK_STR(s->entries[0].key, "m");
  CHECK_STR(s->entries[0].value, "256, 512");
  CHECK(s->entries[0].line == 3);
  CHECK_STR(s->entries[1].key, "n");
  CHECK_STR(s->entries[1].value, "128");
  CHECK_STR(s->entries[2].value, "naive,tiled");
  s = preset_find_section(&p, "vk_gemm");
  REQUIRE(s != NULL);
  CHECK(s->line == 11);
  CHECK(s->nentries == 1 && s->entries[0].line == 12);
  CHECK(preset_find_section(&p, "run") == NULL);
  CHECK(preset_find_section(&p, "nope") == NULL);
  CHECK(preset_find_section(NULL, "cpu_gemm") == NULL);
  preset_release(&p);

  REQUIRE(load_quiet(CORPUS_DIR "/good/bom_crlf_indent.ini", &p, &err) == 0);
  free(err);
  CHECK(p.policy.tier == BENCH_TIER_VERIFY);
  CHECK(p.policy.verify == VERIFY_FULL);
  CHECK(p.policy.min_samples == 2);
  preset_release(&p);

  REQUIRE(load_quiet(CORPUS_DIR "/good/line_199.ini", &p, &err) == 0);
  free(err);
  CHECK(p.policy.tier == BENCH_TIER_SMOKE);
  CHECK(p.policy.verify == VERIFY_FULL);
  preset_release(&p);

  REQUIRE(load_quiet(CORPUS_DIR "/good/no_final_newline.ini", &p, &err) == 0);
  free(err);
  CHECK_NEAR(p.policy.timeout_s, 90, 1e-9);
  preset_release(&p);
}

/* The "; expect: LINE: TEXT" lines at the top of a bad corpus file. */
static size_t read_expects(const char *text, int *lines, char **subs, size_t max) {
  size_t n = 0;
  const char *s = text;
  while (n < max && strncmp(s, "; expect: ", 10) == 0) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    char *line = xstrndup(s + 10, len - 10);
    char *colon = strstr(line, ": ");
    if (!colon) {
      free(line);
      break;
    }
    *colon = '\0';
    lines[n] = atoi(line);
    subs[n] = xstrdup(colon + 2);
    free(line);
    n++;
    if (!nl) break;
    s = nl + 1;
  }
  return n;
}

static void test_bad_corpus(void) {
  char **files;
  size_t n = list_ini(CORPUS_DIR "/bad", &files);
  CHECK(n >= 15);
  for (size_t i = 0; i < n; i++) {
    char *text = slurp(files[i]);
    int lines[8];
    char *subs[8];
    size_t ne = text ? read_expects(text, lines, subs, 8) : 0;
    if (ne == 0) fprintf(stderr, "bad corpus %s: no '; expect: LINE: TEXT' first line\n", files[i]);
    CHECK(ne > 0);

    struct preset p;
    char *err;
    int rc = load_quiet(files[i], &p, &err);
    if (rc != -1) fprintf(stderr, "bad corpus %s: loaded\n", files[i]);
    CHECK(rc == -1);
    CHECK(p.path == NULL && p.sections == NULL); /* nothing left behind */
    for (size_t k = 0; k < ne; k++) {
      char *prefix = xasprintf("%s:%d: ", files[i], lines[k]);
      if (!has_line(err, prefix, subs[k]))
        fprintf(stderr, "bad corpus %s: expected \"%s...%s\", got:\n%s", files[i], prefix, subs[k],
                err);
      CHECK(has_line(err, prefix, subs[k]));
      free(prefix);
      free(subs[k]);
    }
    if (rc == 0) preset_release(&p);
    free(err);
    free(text);
  }
  free_list(files, n);
}

static void test_durations(void) {
  static const struct {
    const char *s;
    double v;
  } good[] = {{"15s", 15},       {"500ms", 0.5},  {"0.5", 0.5},  {"2min", 120},  {"10us", 1e-5},
              {"3ns", 3e-9},     {"1e-3s", 1e-3}, {"1 s", 1},    {"0", 0},       {"+2", 2},
              {"1.5e3", 1500},   {".25s", 0.25},  {"7.", 7},     {"-1s", -1},    {"250 ms", 0.25}};
  static const char *const bad[] = {"",    "s",   "5parsecs", "1h",  "inf", "nan",  "0x10", "1m",
                                    "--1", "1.2.3", " 5",     "5 s s", "e3", "1e", "ms", "1S"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    double v = -99;
    CHECK(preset_parse_duration(good[i].s, &v) == 0);
    CHECK_NEAR(v, good[i].v, 1e-12 * (1 + good[i].v));
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    double v;
    if (preset_parse_duration(bad[i], &v) == 0) fprintf(stderr, "duration '%s' parsed\n", bad[i]);
    CHECK(preset_parse_duration(bad[i], &v) == -1);
  }
  double v;
  CHECK(preset_parse_duration(NULL, &v) == -1);
}

static void test_fractions(void) {
  double v = 0;
  CHECK(preset_parse_fraction("2%", &v) == 0);
  CHECK_NEAR(v, 0.02, 1e-15);
  CHECK(preset_parse_fraction("0.02", &v) == 0);
  CHECK_NEAR(v, 0.02, 1e-15);
  CHECK(preset_parse_fraction("100%", &v) == 0);
  CHECK_NEAR(v, 1, 1e-15);
  CHECK(preset_parse_fraction("0.5 %", &v) == 0);
  CHECK_NEAR(v, 0.005, 1e-15);
  CHECK(preset_parse_fraction("0", &v) == 0 && v == 0); /* range is the caller's */
  CHECK(preset_parse_fraction("2%%", &v) == -1);
  CHECK(preset_parse_fraction("%", &v) == -1);
  CHECK(preset_parse_fraction("abc", &v) == -1);
  CHECK(preset_parse_fraction("2 percent", &v) == -1);
  CHECK(preset_parse_fraction("", &v) == -1);
}

static void test_words(void) {
  int b = -1;
  static const char *const yes[] = {"true", "TRUE", "yes", "on", "1", "On"};
  static const char *const no[] = {"false", "no", "off", "0", "False"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    CHECK(preset_parse_bool(yes[i], &b) == 0);
    CHECK(b == 1);
  }
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    CHECK(preset_parse_bool(no[i], &b) == 0);
    CHECK(b == 0);
  }
  CHECK(preset_parse_bool("perhaps", &b) == -1);
  CHECK(preset_parse_bool("", &b) == -1);
  CHECK(preset_parse_bool("2", &b) == -1);

  enum verify_level v;
  CHECK(preset_parse_verify("full", &v) == 0 && v == VERIFY_FULL);
  CHECK(preset_parse_verify("fast", &v) == 0 && v == VERIFY_FAST);
  CHECK(preset_parse_verify("None", &v) == 0 && v == VERIFY_NONE);
  CHECK(preset_parse_verify("maybe", &v) == -1);
  CHECK_STR(preset_verify_name(VERIFY_FULL), "full");
  CHECK_STR(preset_verify_name(VERIFY_FAST), "fast");
  CHECK_STR(preset_verify_name(VERIFY_NONE), "none");

  enum bench_tier t;
  for (int i = 0; i < BENCH_TIER_COUNT; i++) {
    CHECK(tier_parse(tier_name((enum bench_tier)i), &t) == 0);
    CHECK(t == (enum bench_tier)i);
  }
  CHECK_STR(tier_name(BENCH_TIER_PERF), "perf");
  CHECK_STR(tier_name(BENCH_TIER_COUNT), "unknown");
  CHECK(tier_parse("huge", &t) == -1);
}

static void test_sha256_and_name(void) {
  struct preset p;
  char *err;
  REQUIRE(parse_quiet("", &p, &err) == 0);
  free(err);
  CHECK_STR(p.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK_STR(p.name, "test");
  CHECK_STR(p.path, "mem/test.ini");
  preset_release(&p);

  REQUIRE(preset_parse("dir/abc", "; abc\n", 6, &p) == 0);
  CHECK_STR(p.sha256, "7d81fca1d0744839efa9d1eabd549a67efc96ecfa460b6238e4d00016443288f");
  CHECK_STR(p.name, "abc");
  preset_release(&p);

  /* The file's bytes, comments and all. */
  REQUIRE(load_quiet(CORPUS_DIR "/good/empty.ini", &p, &err) == 0);
  free(err);
  CHECK_STR(p.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK_STR(p.name, "empty");
  preset_release(&p);
  preset_release(&p); /* twice is harmless */
}

static void test_missing_file(void) {
  struct preset p;
  char *err;
  CHECK(load_quiet(CORPUS_DIR "/no/such.ini", &p, &err) == -1);
  CHECK(strstr(err, "cannot read preset '" CORPUS_DIR "/no/such.ini': No such file") != NULL);
  free(err);
  CHECK(load_quiet(CORPUS_DIR, &p, &err) == -1); /* a folder */
  CHECK(strstr(err, "cannot read preset '") != NULL);
  free(err);
}

static void test_resolve(void) {
  const char *dirs[] = {TEST_PRESET_DIR};
  struct capture c;
  char *path = preset_resolve("smoke", dirs, 1);
  CHECK_STR(path, TEST_PRESET_DIR "/smoke.ini");
  free(path);

  /* A path is taken as it is, and must exist. */
  path = preset_resolve(CORPUS_DIR "/good/full.ini", dirs, 1);
  CHECK_STR(path, CORPUS_DIR "/good/full.ini");
  free(path);
  capture_begin(&c);
  path = preset_resolve("missing.ini", dirs, 1);
  char *err = capture_end(&c);
  CHECK(path == NULL);
  CHECK(strstr(err, "cannot read preset 'missing.ini': No such file") != NULL);
  free(err);

  /* Unknown names list what there is, once each, sorted. */
  const char *two[] = {CORPUS_DIR "/nowhere", TEST_PRESET_DIR, TEST_PRESET_DIR};
  capture_begin(&c);
  path = preset_resolve("nosuch", two, 3);
  err = capture_end(&c);
  CHECK(path == NULL);
  CHECK(strstr(err, "unknown preset 'nosuch' (available: peak, perf, smoke, standard, verify;") != NULL);
  free(err);

  /* Later folders are searched too; the first hit wins. */
  const char *more[] = {CORPUS_DIR "/nowhere", CORPUS_DIR "/good", TEST_PRESET_DIR};
  path = preset_resolve("full", more, 3);
  CHECK_STR(path, CORPUS_DIR "/good/full.ini");
  free(path);
  path = preset_resolve("verify", more, 3);
  CHECK_STR(path, TEST_PRESET_DIR "/verify.ini");
  free(path);

  const char *none[] = {CORPUS_DIR "/nowhere"};
  capture_begin(&c);
  path = preset_resolve("smoke", none, 1);
  err = capture_end(&c);
  CHECK(path == NULL);
  CHECK(strstr(err, "unknown preset 'smoke' (no presets found in " CORPUS_DIR "/nowhere)") != NULL);
  free(err);
}

static void test_long_lines(void) {
  struct preset p;
  char *err;
  struct strbuf sb = STRBUF_INIT;

  /* 199 characters are read whole; the key after it is still on line 3. */
  strbuf_adds(&sb, "[run]\n;");
  for (int i = 0; i < 198; i++) strbuf_adds(&sb, "x");
  strbuf_adds(&sb, "\nverify = none\n");
  REQUIRE(parse_quiet(sb.buf, &p, &err) == 0);
  CHECK(*err == '\0');
  CHECK(p.policy.verify == VERIFY_NONE);
  free(err);
  preset_release(&p);

  /* A value 199 characters long is read whole: the line counts stay right. */
  strbuf_reset(&sb);
  strbuf_adds(&sb, "[big]\nv = ");
  for (int i = 0; i < 195; i++) strbuf_adds(&sb, "1");
  strbuf_adds(&sb, "\nw = 2\n[run]\nverify = maybe\n");
  REQUIRE(parse_quiet(sb.buf, &p, &err) == -1);
  CHECK(has_line(err, "mem/test.ini:5: ", "bad value 'maybe'"));
  CHECK(strstr(err, ":2:") == NULL && strstr(err, ":3:") == NULL);
  free(err);
  REQUIRE(preset_parse("mem/test.ini", sb.buf, strlen(sb.buf) - 21, &p) == 0);
  REQUIRE(p.nsections == 1 && p.sections[0].nentries == 2);
  CHECK(strlen(p.sections[0].entries[0].value) == 195);
  CHECK(p.sections[0].entries[1].line == 3);
  preset_release(&p);

  /* 200 are refused, and the next lines keep their numbers. */
  strbuf_reset(&sb);
  strbuf_adds(&sb, "[run]\n;");
  for (int i = 0; i < 199; i++) strbuf_adds(&sb, "x");
  strbuf_adds(&sb, "\r\nverify = maybe\n");
  REQUIRE(parse_quiet(sb.buf, &p, &err) == -1);
  CHECK(has_line(err, "mem/test.ini:2: ", "line longer than 199 characters (200)"));
  CHECK(has_line(err, "mem/test.ini:3: ", "bad value 'maybe' for verify"));
  free(err);

  /* A long section header does not let its keys fall into the one before. */
  strbuf_reset(&sb);
  strbuf_adds(&sb, "[run]\n[");
  for (int i = 0; i < 300; i++) strbuf_adds(&sb, "y");
  strbuf_adds(&sb, "]\nbogus = 1\n");
  REQUIRE(parse_quiet(sb.buf, &p, &err) == -1);
  CHECK(has_line(err, "mem/test.ini:2: ", "line longer than 199 characters (302)"));
  CHECK(strstr(err, "bogus") == NULL);
  free(err);
  strbuf_release(&sb);
}

static void test_odd_bytes(void) {
  struct preset p;
  char *err;
  static const char text[] = "[run]\nverify = fu\0ll\ntier = smoke\n";
  struct capture c;
  capture_begin(&c);
  int rc = preset_parse("nul.ini", text, sizeof text - 1, &p);
  err = capture_end(&c);
  CHECK(rc == -1);
  CHECK(has_line(err, "nul.ini:2: ", "line contains a NUL byte"));
  free(err);

  /* Indented keys are keys (never continuations of the previous value). */
  REQUIRE(parse_quiet("[run]\ntier = smoke\n  verify = none\n", &p, &err) == 0);
  CHECK(p.policy.tier == BENCH_TIER_SMOKE && p.policy.verify == VERIFY_NONE);
  free(err);
  preset_release(&p);

  /* An indented line without '=' is not glued to the value before it. */
  REQUIRE(parse_quiet("[cpu_gemm]\nm = 64\n   128\n", &p, &err) == -1);
  CHECK(has_line(err, "mem/test.ini:3: ", "syntax error"));
  free(err);
}

static void test_all_problems_reported(void) {
  struct preset p;
  char *err;
  REQUIRE(parse_quiet("[run]\ntier = huge\nverify = maybe\nwat = 1\n[run\nx\n", &p, &err) == -1);
  CHECK(has_line(err, "mem/test.ini:2: ", "'huge'"));
  CHECK(has_line(err, "mem/test.ini:3: ", "'maybe'"));
  CHECK(has_line(err, "mem/test.ini:4: ", "unknown key 'wat'"));
  CHECK(has_line(err, "mem/test.ini:5: ", "no closing ']'"));
  CHECK(has_line(err, "mem/test.ini:6: ", "syntax error"));
  /* in line order */
  const char *a = strstr(err, ":2:"), *b = strstr(err, ":6:");
  CHECK(a && b && a < b);
  free(err);
}

/* ---- issue 12 item 7: only regular files, with a size cap ------------- */

/* A preset that is not a regular file is refused at once: nothing is read
 * from /dev/zero, a FIFO with no writer does not block (the alarm fails
 * the test if it does), a symlink is followed to what it names. */
static void test_special_files(void) {
  char *dir = make_tmpdir("preset-special");
  REQUIRE(dir);
  char *fifo = xasprintf("%s/fifo.ini", dir);
  char *link = xasprintf("%s/zero.ini", dir);
  REQUIRE(mkfifo(fifo, 0600) == 0);
  REQUIRE(symlink("/dev/zero", link) == 0);
  const char *paths[] = {"/dev/zero", fifo, link, dir};
  alarm(20);
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
    struct preset p;
    char *err;
    CHECK(load_quiet(paths[i], &p, &err) == -1);
    CHECK(strstr(err, "cannot read preset") != NULL);
    CHECK(strstr(err, i == 3 ? "is a folder" : "not a regular file") != NULL);
    CHECK(p.path == NULL);
    free(err);
  }
  alarm(0);
  rm_tree(dir);
  free(fifo);
  free(link);
}

/* A file over the cap is refused whole, naming the cap. */
static void test_size_cap(void) {
  char *dir = make_tmpdir("preset-big");
  REQUIRE(dir);
  char *path = xasprintf("%s/big.ini", dir);
  FILE *f = fopen(path, "w");
  REQUIRE(f);
  fputs("[run]\n", f);
  for (int i = 0; i < 150000; i++) fputs("; a comment line\n", f); /* 2.5 MB */
  fclose(f);
  struct preset p;
  char *err;
  CHECK(load_quiet(path, &p, &err) == -1);
  CHECK(strstr(err, "larger than 1048576 bytes") != NULL);
  free(err);

  struct strbuf sb = STRBUF_INIT;
  char why[128];
  CHECK(read_regular_file(path, 100, &sb, why, sizeof why) == -1);
  CHECK(strstr(why, "larger than 100 bytes") != NULL);
  CHECK(sb.len == 0);
  CHECK(read_regular_file(path, 1u << 22, &sb, why, sizeof why) == 0);
  CHECK(sb.len == 6 + 150000 * 17);
  strbuf_release(&sb);
  rm_tree(dir);
  free(path);
}

/* ---- issue 12 item 8: linear, and a bounded number of messages -------- */

/* 200k sections (70 s before: duplicates were found by a linear search per
 * header) and 200k keys in one section load in well under the alarm. */
static void test_many_sections(void) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, "[run]\n");
  for (int i = 0; i < 200000; i++) strbuf_addf(&sb, "[plugin_%d]\nm = %d\n", i, i);
  strbuf_adds(&sb, "[one]\n");
  for (int i = 0; i < 200000; i++) strbuf_addf(&sb, "k%d = 1\n", i);
  struct preset p;
  char *err;
  alarm(30);
  struct capture c;
  capture_begin(&c);
  int rc = preset_parse("mem/many.ini", sb.buf, sb.len, &p);
  err = capture_end(&c);
  alarm(0);
  CHECK(rc == 0);
  CHECK(*err == '\0');
  CHECK(p.nsections == 200001);
  CHECK(p.nsections == 200001 && p.sections[200000].nentries == 200000);
  if (rc == 0) preset_release(&p);
  free(err);

  /* the same again with every header twice: the duplicates are found, and
   * only the first 20 problems are printed before reading stops */
  strbuf_reset(&sb);
  for (int i = 0; i < 100000; i++) strbuf_addf(&sb, "[p%d]\n[p%d]\n", i, i);
  alarm(30);
  capture_begin(&c);
  rc = preset_parse("mem/dup.ini", sb.buf, sb.len, &p);
  err = capture_end(&c);
  alarm(0);
  CHECK(rc == -1);
  CHECK(has_line(err, "mem/dup.ini:2: ", "section [p0] appears twice (first on line 1)"));
  CHECK(has_line(err, "mem/dup.ini:40: ", "too many problems (20)"));
  size_t lines = 0;
  for (const char *q = err; *q; q++) lines += *q == '\n';
  CHECK(lines == 21);
  free(err);
  strbuf_release(&sb);
}

/* ---- issue 12 item 10: preset text never reaches the terminal raw ----- */

static void test_escaped_messages(void) {
  struct preset p;
  char *err;
  CHECK(parse_quiet("[run]\ntier = \x1b]0;owned\x07\n[bad\x1b[2J]\n", &p, &err) == -1);
  CHECK(strchr(err, '\x1b') == NULL);
  CHECK(strchr(err, '\x07') == NULL);
  CHECK(strstr(err, "bad value '\\x1b]0;owned\\x07' for tier") != NULL);
  free(err);
}

TEST_MAIN(TEST_ENTRY(test_defaults), TEST_ENTRY(test_gpu_keys), TEST_ENTRY(test_shipped_smoke),
          TEST_ENTRY(test_shipped_standard), TEST_ENTRY(test_shipped_perf),
          TEST_ENTRY(test_shipped_verify), TEST_ENTRY(test_good_corpus),
          TEST_ENTRY(test_good_details), TEST_ENTRY(test_bad_corpus), TEST_ENTRY(test_durations),
          TEST_ENTRY(test_fractions), TEST_ENTRY(test_words), TEST_ENTRY(test_sha256_and_name),
          TEST_ENTRY(test_missing_file), TEST_ENTRY(test_resolve), TEST_ENTRY(test_long_lines),
          TEST_ENTRY(test_odd_bytes), TEST_ENTRY(test_all_problems_reported),
          TEST_ENTRY(test_special_files), TEST_ENTRY(test_size_cap), TEST_ENTRY(test_many_sections),
          TEST_ENTRY(test_escaped_messages))
