/* The rollup: every result .json of a folder, sorted by file name then case
 * index; corrupt files, other schemas and temporary files skipped. */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results_io.h"
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
  f.env.host = xstrdup(host);
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
    static const double host_ns[] = {2e6, 1e6, 3e6};
    r->nsamples = 3;
    r->host_ns = xmalloc(sizeof host_ns);
    memcpy(r->host_ns, host_ns, sizeof host_ns);
    stats_compute(r->host_ns, 3, &r->host);
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
  CHECK(n == 28);
  CHECK_STR(want.buf,
            "date,host,tag,plugin,backend,operation,preset,params,status,samples,timer,"
            "median_ms,mean_ms,min_ms,stddev_ms,cv,gflops,gbps,max_abs_err,max_rel_err,"
            "rtol,atol,settled,source,ci_lo_ms,ci_hi_ms,outliers,batch");

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
  CHECK(n == 6); /* header + 1 + 1 + 3 */
  if (n == 6) {
    CHECK(strncmp(line[0], "date,host,", strlen("date,host,")) == 0);
    CHECK_STR(line[1],
              "2026-11-21,host-a,t1,alpha,cpu,gemm,smoke,\"m=16 variant=a \"\"b\"\", c\",OK,3,"
              "host,2,2,1,1,0.5,2000,,,,,,yes,2026-11-21_alpha_smoke_t1.2.json,1,3,0,0");
    CHECK(strstr(line[2], ",2026-11-21_alpha_smoke_t1.json") != NULL);
    const char *zeta0 = "2026-11-21,host-b,,zeta,cpu,gemm,smoke,\"m=16 ";
    CHECK(strncmp(line[3], zeta0, strlen(zeta0)) == 0);
    /* TIMEOUT: measured but no throughput */
    CHECK(strstr(line[4], "\"m=32 variant=a \"\"b\"\", c\",TIMEOUT,3,host,2,2,1,1,0.5,,,,,,,yes,") !=
          NULL);
    CHECK(strstr(line[5], "\"m=64 ") != NULL);
    CHECK(strstr(line[5], ",2026-11-21_zeta_smoke.json") != NULL);
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

TEST_MAIN(TEST_ENTRY(test_header), TEST_ENTRY(test_skip_and_sort), TEST_ENTRY(test_missing_dir))
