/* The rollup: every result .json of a folder, sorted by file name then case
 * index; corrupt files, other schemas and temporary files skipped. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "results/io.h"
#include "test.h"
#include "test_support.h"

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  struct strbuf sb = STRBUF_INIT;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, fp)) > 0) strbuf_add(&sb, buf, n);
  fclose(fp);
  return strbuf_detach(&sb);
}

static void put_file(const char *dir, const char *name, const char *text) {
  char *path = xasprintf("%s/%s", dir, name);
  FILE *fp = fopen(path, "wb");
  CHECK(fp != NULL);
  if (fp) {
    fputs(text, fp);
    fclose(fp);
  }
  free(path);
}


/* A small run file: cases with the given indexes (in that order). */
static char *run_json(const char *plugin, const char *host, const char *tag, const int *index,
                      size_t n) {
  struct run_file f;
  memset(&f, 0, sizeof f);
  f.env.date = xstrdup("2026-11-21");
  f.env.hostname = xstrdup(host);
  f.env.tag = tag ? xstrdup(tag) : NULL;
  f.env.preset = xstrdup("smoke");
  f.plugin = xstrdup(plugin);
  f.cases = xcalloc(n, sizeof *f.cases);
  for (size_t i = 0; i < n; i++) {
    struct case_result *r = &f.cases[f.ncases++];
    case_result_init(r);
    r->plugin = xstrdup(plugin);
    r->backend = xstrdup("cpu");
    r->operation = xstrdup("gemm");
    r->index = index[i];
    char v[16];
    snprintf(v, sizeof v, "%d", 16 << index[i]);
    kv_list_add(&r->nparams, &r->params, "m", v);
    kv_list_add(&r->nparams, &r->params, "variant", "a \"b\", c");
    static const double host_clock_ns[] = {2e6, 1e6, 3e6};
    r->nsamples = 3;
    r->host_clock_ns = xmalloc(sizeof host_clock_ns);
    memcpy(r->host_clock_ns, host_clock_ns, sizeof host_clock_ns);
    stats_compute(r->host_clock_ns, 3, &r->host_clock);
    r->flops = 4e9;
    r->settled = 1;
    if (index[i] == 1) r->status = CASE_TIMEOUT;
  }
  char *json = run_file_to_json(&f);
  run_file_release(&f);
  return json;
}

/* Rows of the CSV (lines; no field in these tests holds a newline). */
static size_t split_lines(char *text, char **line, size_t max) {
  size_t n = 0;
  for (char *p = text; *p && n < max;) {
    char *nl = strchr(p, '\n');
    line[n++] = p;
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  return n;
}

static void test_header(void) {
  struct strbuf want = STRBUF_INIT;
  size_t n = 0;
  for (; rollup_columns[n]; n++) strbuf_addf(&want, "%s%s", n ? "," : "", rollup_columns[n]);
  CHECK(n == 55);
  CHECK_STR(want.buf,
            "date,host,tag,plugin,backend,operation,preset,params,status,samples,timer,"
            "median_ms,mean_ms,min_ms,stddev_ms,cv,gflops,gbps,max_abs_err,max_rel_err,"
            "rtol,atol,settled,source,items_per_s,ns_per_item,item_unit,ci_lo_ms,ci_hi_ms,outliers,batch,check,"
            "tuning,sm_clock_mhz_mean,sm_clock_mhz_min,mem_clock_mhz_mean,power_w_mean,power_w_max,"
            "power_limit_w,temp_c_max,throttle,throttled,throttle_discarded,roof,pct_of_roof,roof_source,roof_note,max_ms,peak_rss_bytes,peak_rss_method,label,commit,primary,throughput,throughput_unit");

  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  CHECK(rollup_write(dir) == 0); /* empty folder: the header only */
  char *path = xasprintf("%s/rollup.csv", dir);
  char *csv = read_text(path);
  strbuf_adds(&want, "\n");
  CHECK_STR(csv, want.buf);
  free(csv);
  free(path);
  strbuf_release(&want);
  rm_tree(dir);
}

static void test_skip_and_sort(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  static const int idx_b[] = {2, 0, 1};
  static const int idx_a[] = {0};
  char *b = run_json("zeta", "host-b", NULL, idx_b, 3);
  char *a = run_json("alpha", "host-a", "t1", idx_a, 1);
  /* Written out of name order. */
  put_file(dir, "2026-11-21_zeta_smoke.json", b);
  put_file(dir, "2026-11-21_alpha_smoke_t1.json", a);
  put_file(dir, "2026-11-21_alpha_smoke_t1.2.json", a);
  /* Files to skip: corrupt, another schema, truncated, temporary, other. */
  put_file(dir, "2026-11-21_broken.json", "{\"schema\": \"bench-result/1\", \"env\": ");
  put_file(dir, "other.json", "{\"schema\": \"something-else/3\"}");
  put_file(dir, "empty.json", "");
  put_file(dir, ".2026-11-21_zeta_smoke.json.tmp.123", b);
  put_file(dir, ".hidden.json", b);
  put_file(dir, "notes.txt", "hello");
  put_file(dir, "rollup.csv", "stale,rollup\n");
  char *sub = xasprintf("%s/dir.json", dir);
  CHECK(mkdir(sub, 0777) == 0);
  free(sub);

  fprintf(stderr, "(four warnings are expected here)\n");
  CHECK(rollup_write(dir) == 0);
  char *path = xasprintf("%s/rollup.csv", dir);
  char *csv = read_text(path);
  REQUIRE(csv);
  char *line[16];
  size_t n = split_lines(csv, line, 16);
  /* header + alpha once (its two copies are the same case) + zeta's 3 */
  CHECK(n == 5);
  if (n == 5) {
    CHECK(strncmp(line[0], "date,host,", strlen("date,host,")) == 0);
    CHECK(strstr(line[0], ",source,items_per_s,ns_per_item,item_unit,ci_lo_ms,ci_hi_ms,outliers,batch,check,tuning,sm_clock_mhz_mean,sm_clock_mhz_min,mem_clock_mhz_mean,power_w_mean,power_w_max,power_limit_w,temp_c_max,throttle,throttled,throttle_discarded,roof,pct_of_roof,roof_source,roof_note,max_ms,peak_rss_bytes,peak_rss_method,label,commit,primary,throughput,throughput_unit,param.m,param.variant") != NULL);
    CHECK_STR(line[1],
              "2026-11-21,host-a,t1,alpha,cpu,gemm,smoke,\"m=16 variant=a \"\"b\"\", c\",OK,3,"
              "host,2,2,1,1,0.5,2000,,,,,,yes,2026-11-21_alpha_smoke_t1.2.json,,,,1,3,0,0,unchecked,,,,,,,,,,,,,,,,3,,,,,flops,2000,GFLOP/s,16,\"a \"\"b\"\", c\"");
    const char *zeta0 = "2026-11-21,host-b,,zeta,cpu,gemm,smoke,\"m=16 ";
    CHECK(strncmp(line[2], zeta0, strlen(zeta0)) == 0);
    /* TIMEOUT: measured but no throughput */
    CHECK(strstr(line[3], "\"m=32 variant=a \"\"b\"\", c\",TIMEOUT,3,host,2,2,1,1,0.5,,,,,,,yes,") !=
          NULL);
    CHECK(strstr(line[4], "\"m=64 ") != NULL);
    const char *src = strstr(line[4], ",2026-11-21_zeta_smoke.json,");
    CHECK(src != NULL && strstr(src, ",64,") != NULL); /* param.m after the fixed columns */
  }
  free(csv);
  free(path);
  free(a);
  free(b);
  rm_tree(dir);
}

static void test_missing_dir(void) {
  fprintf(stderr, "(an error message is expected here)\n");
  CHECK(rollup_write("/nonexistent/bench/results") == -1);
}

/* util.c's capped reader (the rollup reads result files with it): only
 * regular files, never blocking on a FIFO, never reading a device. */
static int try_read(const char *path, size_t cap, struct strbuf *sb, char *why) {
  strbuf_reset(sb);
  why[0] = '\0';
  return read_regular_file(path, cap, sb, why, 128);
}

static void test_read_regular_file(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  struct strbuf sb = STRBUF_INIT;
  char why[128];
  char *path = xasprintf("%s/a.json", dir);
  put_file(dir, "a.json", "0123456789");
  CHECK(try_read(path, 10, &sb, why) == 0); /* exactly the cap */
  CHECK(sb.len == 10 && strcmp(sb.buf, "0123456789") == 0);
  CHECK(try_read(path, 9, &sb, why) == -1 && sb.len == 0);
  CHECK(strstr(why, "larger than 9 bytes") != NULL);
  free(path);

  path = xasprintf("%s/empty.json", dir);
  put_file(dir, "empty.json", "");
  CHECK(try_read(path, 10, &sb, why) == 0 && sb.len == 0 && sb.buf && sb.buf[0] == '\0');
  free(path);

  path = xasprintf("%s/fifo.json", dir); /* no writer: a blocking open would hang */
  CHECK(mkfifo(path, 0666) == 0);
  CHECK(try_read(path, 1 << 20, &sb, why) == -1);
  CHECK_STR(why, "not a regular file");
  free(path);

  path = xasprintf("%s/zero.json", dir);
  CHECK(symlink("/dev/zero", path) == 0);
  CHECK(try_read(path, 1 << 20, &sb, why) == -1);
  CHECK_STR(why, "not a regular file");
  free(path);

  CHECK(try_read(dir, 1 << 20, &sb, why) == -1 && why[0]);
  path = xasprintf("%s/missing.json", dir);
  CHECK(try_read(path, 1 << 20, &sb, why) == -1);
  CHECK_STR(why, strerror(ENOENT));
  free(path);
  strbuf_release(&sb);
  rm_tree(dir);
}

/* A run file with one case per (m, status); host, started and tag given. */
struct case_spec {
  int index;
  const char *m;
  enum case_status status;
};

static char *run_json2(const char *host, const char *started, const char *plugin,
                       const struct case_spec *spec, size_t n) {
  struct run_file f;
  memset(&f, 0, sizeof f);
  f.env.date = xstrdup("2026-11-21");
  f.env.started = xstrdup(started);
  f.env.hostname = xstrdup(host);
  f.env.preset = xstrdup("smoke");
  f.env.mode = xstrdup("perf");
  f.plugin = xstrdup(plugin);
  f.cases = xcalloc(n ? n : 1, sizeof *f.cases);
  for (size_t i = 0; i < n; i++) {
    struct case_result *r = &f.cases[f.ncases++];
    case_result_init(r);
    r->plugin = xstrdup(plugin);
    r->index = spec[i].index;
    r->status = spec[i].status;
    kv_list_add(&r->nparams, &r->params, "m", spec[i].m);
  }
  char *json = run_file_to_json(&f);
  run_file_release(&f);
  return json;
}

static char *rollup_of(const char *dir) {
  if (rollup_write(dir) != 0) return NULL;
  char *path = xasprintf("%s/rollup.csv", dir);
  char *csv = read_text(path);
  free(path);
  return csv;
}

static size_t count_str(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* Each case once: the latest complete result wins; other hosts are other
 * cases. */
static void test_each_case_once(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  /* An interrupted run: m=1 OK, m=2 INTERRUPTED. */
  const struct case_spec partial[] = {{0, "1", CASE_OK}, {1, "2", CASE_INTERRUPTED}};
  /* Its rerun (--resume): m=2 only, OK. */
  const struct case_spec rerun[] = {{1, "2", CASE_OK}};
  char *a = run_json2("h1", "2026-11-21T10:00:00.000Z", "p", partial, 2);
  char *b = run_json2("h1", "2026-11-21T11:00:00.000Z", "p", rerun, 1);
  /* The rerun sorts first by name, but started later. */
  put_file(dir, "2026-11-21_p_smoke.2.json", b);
  put_file(dir, "2026-11-21_p_smoke.json", a);
  /* The same run fetched twice. */
  put_file(dir, "2026-11-21_p_smoke.3.json", b);
  /* The same case on another host is another case. */
  char *c = run_json2("h2", "2026-11-21T09:00:00.000Z", "p", partial, 2);
  put_file(dir, "2026-11-21_p_smoke_h2.json", c);
  char *csv = rollup_of(dir);
  REQUIRE(csv);
  CHECK(count_str(csv, "\n") == 1 + 2 + 2);
  CHECK(count_str(csv, ",h1,") == 2);
  CHECK(count_str(csv, ",h2,") == 2);
  CHECK(count_str(csv, "INTERRUPTED") == 1); /* h2's: nothing replaced it */
  CHECK(strstr(csv, ",p,,,smoke,m=1,OK,0,,,,,,,,,,,,,,2026-11-21_p_smoke.json,,,,,,,,,,,,,,,,,,,,,,,,,,,,,none,,,1\n") != NULL);
  CHECK(strstr(csv, ",m=2,OK,0,,,,,,,,,,,,,,2026-11-21_p_smoke.3.json,,,,,,,,,,,,,,,,,,,,,,,,,,,,,none,,,2\n") != NULL);
  free(csv);
  /* A complete result beats a later interrupted one. */
  const struct case_spec cut[] = {{1, "2", CASE_INTERRUPTED}};
  char *d = run_json2("h1", "2026-11-21T12:00:00.000Z", "p", cut, 1);
  put_file(dir, "2026-11-21_p_smoke.4.json", d);
  csv = rollup_of(dir);
  REQUIRE(csv);
  CHECK(strstr(csv, ",m=2,OK,0,,,,,,,,,,,,,,2026-11-21_p_smoke.3.json,,,,,,,,,,,,,,,,,,,,,,,,,,,,,none,,,2\n") != NULL);
  CHECK(count_str(csv, "\n") == 5);
  free(csv);
  free(a), free(b), free(c), free(d);
  rm_tree(dir);
}

/* One column per parameter name; values with spaces, '=' and formula
 * starts stay unambiguous and harmless. */
static void test_param_columns(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  const struct case_spec one[] = {{0, "a b=c", CASE_OK}, {1, "=1+2", CASE_OK}, {2, "-3", CASE_OK}};
  char *a = run_json2("h", "2026-11-21T10:00:00.000Z", "p", one, 3);
  put_file(dir, "2026-11-21_p_smoke.json", a);
  /* Another plugin with another parameter. */
  struct run_file f;
  char err[256];
  REQUIRE(run_file_from_json(a, &f, err, sizeof err) == 0);
  free(f.plugin);
  f.plugin = xstrdup("q");
  f.ncases = 1;
  free(f.cases[0].plugin);
  f.cases[0].plugin = xstrdup("q");
  kv_list_add(&f.cases[0].nparams, &f.cases[0].params, "dtype", "@f16");
  char *b = run_file_to_json(&f);
  f.ncases = 3;
  run_file_release(&f);
  put_file(dir, "2026-11-21_q_smoke.json", b);
  char *csv = rollup_of(dir);
  REQUIRE(csv);
  char *line[8];
  size_t n = split_lines(csv, line, 8);
  CHECK(n == 5);
  if (n == 5) {
    CHECK(strstr(line[0], ",source,items_per_s,ns_per_item,item_unit,ci_lo_ms,ci_hi_ms,outliers,batch,check,tuning,sm_clock_mhz_mean,sm_clock_mhz_min,mem_clock_mhz_mean,power_w_mean,power_w_max,power_limit_w,temp_c_max,throttle,throttled,throttle_discarded,roof,pct_of_roof,roof_source,roof_note,max_ms,peak_rss_bytes,peak_rss_method,label,commit,primary,throughput,throughput_unit,param.m,param.dtype") != NULL);
    CHECK(strstr(line[1], ",m=a b=c,OK,") && strstr(line[1], ".json,a b=c,\n") == NULL);
    size_t l1 = strlen(line[1]);
    CHECK(l1 > 6 && strcmp(line[1] + l1 - 7, ",a b=c,") == 0);
    CHECK(strstr(line[2], ",\"'=1+2\",") != NULL); /* neutralised, both columns */
    CHECK(strstr(line[2], ",\"m='=1+2\",") == NULL);
    CHECK(strstr(line[2], ",m==1+2,") != NULL); /* the label starts with m: harmless */
    CHECK(strstr(line[3], ",-3,") != NULL);     /* a plain number stays a number */
    CHECK(strstr(line[4], ",q,") && strstr(line[4], ",\"'@f16\"") != NULL);
  }
  free(csv);
  free(a), free(b);
  rm_tree(dir);
}

/* Field `col` (named in the header line) of a CSV line without quotes,
 * into buf. */
static const char *field_of(const char *header, const char *line, const char *col, char *buf, size_t len) {
  size_t want = 0, at = 0;
  const char *h = header;
  for (; *h; want++) {
    size_t w = strcspn(h, ",");
    if (w == strlen(col) && strncmp(h, col, w) == 0) break;
    h += w;
    if (*h) h++;
  }
  const char *p = line;
  for (; at < want && p; at++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  snprintf(buf, len, "%.*s", p ? (int)strcspn(p, ",") : 0, p ? p : "");
  return buf;
}

static struct gpu_value gv(double v) { return (struct gpu_value){1, v}; }

/* The telemetry columns: a throttled case read by NVML, one a library told
 * little (the limit from the device's facts), one without telemetry; and a
 * file with a negative power is refused. */
static void test_telemetry_columns(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  const struct case_spec spec[] = {{0, "1", CASE_OK}, {1, "2", CASE_OK}, {2, "3", CASE_OK}};
  char *json = run_json2("h", "2026-11-21T10:00:00.000Z", "gpu", spec, 3);
  struct run_file f;
  char err[256];
  REQUIRE(run_file_from_json(json, &f, err, sizeof err) == 0);
  free(json);
  struct case_telemetry *t = f.cases[0].telemetry = xcalloc(1, sizeof *t);
  snprintf(t->bus_id, sizeof t->bus_id, "0000:3b:00.0");
  t->sm_clock_mean = gv(1612.5);
  t->sm_clock_min = gv(1080);
  t->mem_clock_mean = gv(2619);
  t->power_mean = gv(512.25);
  t->power_max = gv(690);
  t->power_limit = gv(700);
  t->temp_max = gv(61);
  t->have_throttle = 1;
  t->throttle = GPU_THR_SW_POWER_CAP | GPU_THR_HW_SLOWDOWN;
  t->throttled = 1;
  t->discarded = 3;
  t = f.cases[1].telemetry = xcalloc(1, sizeof *t);
  snprintf(t->facts.bus_id, sizeof t->facts.bus_id, "0000:3b:00.0");
  t->facts.power_limit_w = gv(650);
  t->sm_clock_mean = gv(1980);
  t->have_throttle = 1; /* read, none seen */
  json = run_file_to_json(&f);
  run_file_release(&f);
  put_file(dir, "2026-11-21_gpu_smoke.json", json);
  char *neg = xstrdup(json);
  char *at = strstr(neg, "\"mean\": 512.25");
  REQUIRE(at);
  memcpy(at, "\"mean\": -12.25", 14);
  put_file(dir, "2026-11-21_neg_smoke.json", neg);

  struct capture cap;
  capture_begin(&cap);
  char *csv = rollup_of(dir);
  char *said = capture_end(&cap);
  REQUIRE(csv);
  CHECK(strstr(said, "2026-11-21_neg_smoke.json: cases[0]: telemetry holds a negative or non-finite number") != NULL);
  char *line[8];
  size_t n = split_lines(csv, line, 8);
  REQUIRE(n == 4);
  static const struct {
    const char *col, *want[3];
  } cols[] = {
      {"sm_clock_mhz_mean", {"1612.5", "1980", ""}},
      {"sm_clock_mhz_min", {"1080", "", ""}},
      {"mem_clock_mhz_mean", {"2619", "", ""}},
      {"power_w_mean", {"512.25", "", ""}},
      {"power_w_max", {"690", "", ""}},
      {"power_limit_w", {"700", "650", ""}},
      {"temp_c_max", {"61", "", ""}},
      {"throttle", {"sw_power_cap+hw_slowdown", "", ""}},
      {"throttled", {"1", "0", ""}},
      {"throttle_discarded", {"3", "0", ""}},
      {"param.m", {"1", "2", "3"}},
  };
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
    for (int r = 0; r < 3; r++) {
      char buf[64];
      const char *got = field_of(line[0], line[1 + r], cols[c].col, buf, sizeof buf);
      if (strcmp(got, cols[c].want[r]) != 0) {
        test_failures_++;
        fprintf(stderr, "row %d %s: \"%s\", want \"%s\"\n", r, cols[c].col, got, cols[c].want[r]);
      }
      test_checks_++;
    }
  free(said);
  free(csv);
  free(json);
  free(neg);
  rm_tree(dir);
}

/* The roof columns: a case measured against a roof, one over 100% with
 * its note, one whose roof is not measured (no share), and one without a
 * roof (a folder without measured roofs): empty. Read back from the JSON
 * the run wrote. */
static void test_roof_columns(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  const struct case_spec spec[] = {{0, "1", CASE_OK}, {1, "2", CASE_OK}, {2, "3", CASE_OK}, {3, "4", CASE_OK}};
  char *json = run_json2("h", "2026-11-21T10:00:00.000Z", "roofed", spec, 4);
  struct run_file f;
  char err[256];
  REQUIRE(run_file_from_json(json, &f, err, sizeof err) == 0);
  free(json);
  static const struct {
    const char *id;
    double value, pct;
    const char *source, *note;
  } roofs[3] = {
      {"fp32+dram", 100, 38.5, "fp32 measured 2026-12-01 by peak_cpu_fma; dram measured 2026-12-01 by peak_cpu_bw", NULL},
      {"dram", 10, 104.25, "measured 2026-12-01 by peak_cpu_bw kernel=copy",
       "above the measured dram roof: the working set (256 KiB) fits in l2 (not measured)"},
      {"fp64", 0, -1, "", "no fp64 roof for this device"},
  };
  for (int i = 0; i < 3; i++) {
    struct case_roof *x = f.cases[i].roof = xcalloc(1, sizeof *x);
    x->id = xstrdup(roofs[i].id);
    x->unit = xstrdup(roofs[i].value > 0 ? "GB/s" : "");
    x->value = roofs[i].value;
    x->pct = roofs[i].pct;
    x->source = xstrdup(roofs[i].source);
    x->note = roofs[i].note ? xstrdup(roofs[i].note) : NULL;
  }
  json = run_file_to_json(&f);
  run_file_release(&f);
  put_file(dir, "2026-11-21_roofed_smoke.json", json);
  char *csv = rollup_of(dir);
  REQUIRE(csv);
  char *line[8];
  size_t n = split_lines(csv, line, 8);
  REQUIRE(n == 5);
  static const struct {
    const char *col, *want[4];
  } cols[] = {
      {"roof", {"fp32+dram", "dram", "fp64", ""}},
      {"pct_of_roof", {"38.5", "104.25", "", ""}},
      {"roof_note", {"", "above the measured dram roof: the working set (256 KiB) fits in l2 (not measured)",
                     "no fp64 roof for this device", ""}},
      {"param.m", {"1", "2", "3", "4"}},
  };
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
    for (int r = 0; r < 4; r++) {
      char buf[128];
      const char *got = field_of(line[0], line[1 + r], cols[c].col, buf, sizeof buf);
      if (strcmp(got, cols[c].want[r]) != 0) {
        test_failures_++;
        fprintf(stderr, "row %d %s: \"%s\", want \"%s\"\n", r, cols[c].col, got, cols[c].want[r]);
      }
      test_checks_++;
    }
  /* the source: "fp32 measured ...; dram ..." holds no comma, so field_of sees it whole */
  char buf[256];
  CHECK_STR(field_of(line[0], line[1], "roof_source", buf, sizeof buf), roofs[0].source);
  free(csv);
  free(json);
  rm_tree(dir);
}

/* Files no bench wrote are refused with one line naming them; the rest of
 * the rollup goes on. */
static void test_refuse_contradictions(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  const struct case_spec ok[] = {{0, "1", CASE_OK}};
  char *good = run_json2("h", "2026-11-21T10:00:00.000Z", "good", ok, 1);
  put_file(dir, "2026-11-21_good_smoke.json", good);
  static const struct {
    const char *from, *to, *name, *why;
  } bad[] = {
      {"\"index\": 0", "\"index\": -4", "neg-index", "negative index"},
      {"\"wall_s\": 0.0", "\"wall_s\": -1.0", "neg-wall", "wall_s"},
      {"\"flops\": 0.0", "\"flops\": -2.0", "neg-flops", "flops"},
      {"\"exit_code\": -1", "\"exit_code\": -9", "neg-exit", "exit_code"},
      {"\"pass\": false", "\"pass\": false", "failed-check", "status OK with a failed check"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *text = xstrdup(good);
    char *at = strstr(text, bad[i].from);
    CHECK(at != NULL);
    if (!at) continue;
    char *m = xasprintf("%.*s%s%s", (int)(at - text), text, bad[i].to, at + strlen(bad[i].from));
    if (i == 4) { /* checked: the check ran and failed, yet status OK */
      char *c = strstr(m, "\"checked\": false");
      CHECK(c != NULL);
      if (c) memcpy(c, "\"checked\": true ", 16);
    }
    char *name = xasprintf("2026-11-21_%s_smoke.json", bad[i].name);
    put_file(dir, name, m);
    free(name), free(m), free(text);
  }
  /* A whole document, then a NUL and garbage. */
  char *path = xasprintf("%s/2026-11-21_nul_smoke.json", dir);
  FILE *fp = fopen(path, "wb");
  REQUIRE(fp);
  fwrite(good, 1, strlen(good), fp);
  fwrite("\0garbage", 1, 8, fp);
  fclose(fp);
  free(path);

  struct capture cap;
  capture_begin(&cap);
  char *csv = rollup_of(dir);
  char *said = capture_end(&cap);
  REQUIRE(csv);
  CHECK(count_str(csv, "\n") == 2); /* header + the good file's case */
  CHECK(strstr(csv, "2026-11-21_good_smoke.json") != NULL);
  CHECK(count_str(said, "\n") == 6); /* one line per refused file */
  CHECK(strstr(said, "2026-11-21_neg-index_smoke.json: cases[0]: negative index\n") != NULL);
  CHECK(strstr(said, "2026-11-21_neg-wall_smoke.json: cases[0]: wall_s") != NULL);
  CHECK(strstr(said, "2026-11-21_neg-flops_smoke.json: cases[0]: flops") != NULL);
  CHECK(strstr(said, "2026-11-21_neg-exit_smoke.json: cases[0]: exit_code") != NULL);
  CHECK(strstr(said, "2026-11-21_failed-check_smoke.json: cases[0]: status OK with a failed check") !=
        NULL);
  CHECK(strstr(said, "2026-11-21_nul_smoke.json: holds a nul byte at offset") != NULL);
  fputs(said, stderr);
  free(said);
  free(csv);
  free(good);
  rm_tree(dir);
}

/* A FIFO and a link to /dev/zero named *.json neither hang nor abort the
 * rollup. */
static void test_special_files(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  const struct case_spec ok[] = {{0, "1", CASE_OK}};
  char *good = run_json2("h", "2026-11-21T10:00:00.000Z", "good", ok, 1);
  put_file(dir, "2026-11-21_good_smoke.json", good);
  char *fifo = xasprintf("%s/fifo.json", dir), *zero = xasprintf("%s/zero.json", dir);
  CHECK(mkfifo(fifo, 0666) == 0);
  CHECK(symlink("/dev/zero", zero) == 0);
  fflush(NULL);
  pid_t pid = fork(); /* a hang must fail the test, not stall it */
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(20);
    _exit(rollup_write(dir) == 0 ? 0 : 1);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char *path = xasprintf("%s/rollup.csv", dir);
  char *csv = read_text(path);
  CHECK(csv && count_str(csv, "\n") == 2);
  free(csv), free(path), free(fifo), free(zero), free(good);
  rm_tree(dir);
}

/* The journal a killed run left beside its .json counts. */
static void test_journal(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  const struct case_spec first[] = {{0, "1", CASE_OK}};
  char *json = run_json2("h", "2026-11-21T10:00:00.000Z", "p", first, 1);
  put_file(dir, "2026-11-21_p_smoke.json", json);
  const struct case_spec more[] = {{0, "1", CASE_OK}, {1, "2", CASE_OK}, {2, "3", CASE_TIMEOUT}};
  char *all = run_json2("h", "2026-11-21T10:00:00.000Z", "p", more, 3);
  struct run_file f;
  char err[256];
  REQUIRE(run_file_from_json(all, &f, err, sizeof err) == 0);
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < f.ncases; i++) {
    char *line = case_result_to_json_line(&f.cases[i]);
    strbuf_addf(&sb, "%s\n", line);
    free(line);
  }
  strbuf_adds(&sb, "{\"index\": 3, \"pl"); /* cut by the kill */
  run_file_release(&f);
  put_file(dir, "2026-11-21_p_smoke.journal", sb.buf);
  strbuf_release(&sb);
  char *csv = rollup_of(dir);
  REQUIRE(csv);
  CHECK(count_str(csv, "\n") == 4);
  CHECK(strstr(csv, ",m=3,TIMEOUT,") != NULL);
  free(csv), free(json), free(all);
  rm_tree(dir);
}

static void put_temp(const char *dir, const char *name, time_t age) {
  put_file(dir, name, "partial");
  char *path = xasprintf("%s/%s", dir, name);
  struct timespec ts[2];
  ts[0].tv_sec = ts[1].tv_sec = time(NULL) - age;
  ts[0].tv_nsec = ts[1].tv_nsec = 0;
  CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
  free(path);
}

static int present(const char *dir, const char *name) {
  char *path = xasprintf("%s/%s", dir, name);
  struct stat st;
  int yes = lstat(path, &st) == 0;
  free(path);
  return yes;
}

/* Temporary files a SIGKILL left are removed by the next rollup; live ones
 * stay. */
static void test_stale_temp_files(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  /* A pid that is surely dead: a child we reaped. */
  fflush(NULL);
  pid_t dead = fork();
  REQUIRE(dead >= 0);
  if (dead == 0) _exit(0);
  waitpid(dead, NULL, 0);
  char *dead_old = xasprintf(".2026-11-21_p_smoke.json.tmp.%ld", (long)dead);
  char *dead_new = xasprintf(".2026-11-21_q_smoke.json.tmp.%ld", (long)dead);
  char *live_new = xasprintf(".2026-11-21_r_smoke.json.tmp.%ld", (long)getpid());
  char *live_old = xasprintf(".rollup.csv.tmp.%ld", (long)getppid());
  put_temp(dir, dead_old, RESULTS_STALE_DEAD_S + 30);
  put_temp(dir, dead_new, 0);  /* maybe another host's, being written */
  put_temp(dir, live_new, 0);
  put_temp(dir, live_old, RESULTS_STALE_S + 30);
  put_temp(dir, ".notes.tmp.x", RESULTS_STALE_S + 30); /* not ours */
  CHECK(rollup_write(dir) == 0);
  CHECK(!present(dir, dead_old));
  CHECK(present(dir, dead_new));
  CHECK(present(dir, live_new));
  CHECK(!present(dir, live_old));
  CHECK(present(dir, ".notes.tmp.x"));
  free(dead_old), free(dead_new), free(live_new), free(live_old);
  rm_tree(dir);
}

/* 1 when the file at path holds text. */
static int file_has(const char *path, const char *text) {
  struct strbuf sb = STRBUF_INIT;
  int has = read_file(path, &sb) == 0 && strstr(sb.buf, text) != NULL;
  strbuf_release(&sb);
  return has;
}

/* Rebuilds wait for each other: while another holds the lock on the
 * folder, no rollup.csv is written. */
static void test_lock(void) {
  char *dir = make_tmpdir("rollup");
  REQUIRE(dir);
  char *csv = xasprintf("%s/rollup.csv", dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  REQUIRE(flock(fd, LOCK_EX) == 0);
  fflush(NULL);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  char *log = xasprintf("%s/wait.log", dir);
  if (pid == 0) {
    alarm(20);
    if (!freopen(log, "w", stderr)) _exit(2);
    _exit(rollup_write(dir) == 0 ? 0 : 1);
  }
  /* until the child says it waits for the lock, naming the holder (us) */
  char *holder = xasprintf("(held by pid %ld (", (long)getpid());
  int waiting = 0;
  for (int i = 0; i < 2000 && !(waiting = file_has(log, "waiting for the lock on results folder")); i++)
    usleep(10 * 1000);
  CHECK(waiting);
  CHECK(file_has(log, holder));
  free(holder);
  CHECK(!present(dir, "rollup.csv"));
  int status = 0;
  CHECK(waitpid(pid, &status, WNOHANG) == 0); /* still waiting */
  flock(fd, LOCK_UN);
  close(fd);
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(present(dir, "rollup.csv"));
  CHECK(!present(dir, ".rollup.lock")); /* no lock file left behind */
  free(log);
  free(csv);
  rm_tree(dir);
}

/* The reproducers kept in tests/data/results (fuzz seeds) are refused, the
 * golden run file they come from is not. */
static void test_refused_corpus(void) {
  static const struct {
    const char *file, *why;
  } refused[] = {
      {"nul_garbage.json", "holds a nul byte at offset"},
      {"negative_index.json", "cases[0]: negative index"},
      {"negative_wall_s.json", "cases[0]: wall_s is negative"},
      {"negative_flops.json", "cases[0]: flops is negative"},
      {"bad_exit_code.json", "cases[0]: exit_code"},
      {"ok_failed_check.json", "cases[0]: status OK with a failed check"},
  };
  struct run_file f;
  char err[512] = "";
  CHECK(results_read_file(TEST_DATA_DIR "/golden/run.json", &f, err, sizeof err) == 0);
  CHECK(f.ncases == 5);
  run_file_release(&f);
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    char *path = xasprintf("%s/results/%s", TEST_DATA_DIR, refused[i].file);
    err[0] = '\0';
    CHECK(results_read_file(path, &f, err, sizeof err) == -1);
    CHECK(f.ncases == 0 && f.cases == NULL);
    if (!strstr(err, refused[i].why)) {
      test_failures_++;
      fprintf(stderr, "%s: \"%s\" does not mention \"%s\"\n", path, err, refused[i].why);
    }
    free(path);
  }
}

TEST_MAIN(TEST_ENTRY(test_header), TEST_ENTRY(test_skip_and_sort), TEST_ENTRY(test_missing_dir),
          TEST_ENTRY(test_read_regular_file), TEST_ENTRY(test_each_case_once),
          TEST_ENTRY(test_param_columns), TEST_ENTRY(test_refuse_contradictions),
          TEST_ENTRY(test_special_files), TEST_ENTRY(test_journal), TEST_ENTRY(test_stale_temp_files),
          TEST_ENTRY(test_lock), TEST_ENTRY(test_refused_corpus), TEST_ENTRY(test_telemetry_columns),
          TEST_ENTRY(test_roof_columns))
