/* Result files: golden .txt/.json/rollup.csv of a fixed run, the JSON round
 * trip (file and one-line forms), rejecting corrupt input, status helpers,
 * unique names and atomic writes.
 *
 * Regenerate the golden files after an intended format change with
 *   BENCH_UPDATE_GOLDEN=1 ./test_results
 * and review the diff. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/io.h"
#include "test.h"
#include "test_support.h"

#define GOLDEN_DIR TEST_DATA_DIR "/golden"

/* ---- helpers ---------------------------------------------------------- */

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

static int write_text(const char *path, const char *text) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return -1;
  size_t len = strlen(text);
  int rc = fwrite(text, 1, len, fp) == len ? 0 : -1;
  if (fclose(fp) != 0) rc = -1;
  return rc;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}


/* Entries of dir whose name contains ".tmp." (left-over temporary files). */
static int count_temp_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)))
    if (strstr(de->d_name, ".tmp.")) n++;
  closedir(d);
  return n;
}

/* Line `no` (1-based) of s, into a new string. */
static char *line_of(const char *s, int no) {
  for (int i = 1; i < no && s; i++) {
    s = strchr(s, '\n');
    if (s) s++;
  }
  if (!s || !*s) return xstrdup("(end of file)");
  const char *nl = strchr(s, '\n');
  return nl ? xstrndup(s, (size_t)(nl - s)) : xstrdup(s);
}

/* Compare actual with tests/data/golden/<name>, or (BENCH_UPDATE_GOLDEN=1)
 * write it there. A mismatch prints the first differing line as a diff. */
static void check_golden(const char *name, const char *actual) {
  char *path = xasprintf("%s/%s", GOLDEN_DIR, name);
  const char *update = getenv("BENCH_UPDATE_GOLDEN");
  if (update && strcmp(update, "1") == 0) {
    mkdir(GOLDEN_DIR, 0777);
    CHECK(write_text(path, actual) == 0);
    fprintf(stderr, "updated %s\n", path);
    free(path);
    return;
  }
  char *expected = read_text(path);
  test_checks_++;
  if (!expected) {
    test_failures_++;
    fprintf(stderr, "%s: missing golden file (run with BENCH_UPDATE_GOLDEN=1 to create it)\n",
            path);
  } else if (strcmp(expected, actual) != 0) {
    test_failures_++;
    int line = 1;
    size_t i = 0;
    for (; expected[i] && expected[i] == actual[i]; i++)
      if (expected[i] == '\n') line++;
    char *want = line_of(expected, line), *got = line_of(actual, line);
    fprintf(stderr,
            "%s: golden mismatch (BENCH_UPDATE_GOLDEN=1 regenerates)\n"
            "--- %s\n+++ actual\n@@ -%d +%d @@\n-%s\n+%s\n",
            path, path, line, line, want, got);
    free(want);
    free(got);
  }
  free(expected);
  free(path);
}

/* ---- the fixed run ---------------------------------------------------- */

static double *copy_samples(const double *x, size_t n) {
  double *d = xmalloc(n * sizeof *d);
  memcpy(d, x, n * sizeof *d);
  return d;
}

static struct case_result *new_case(struct run_file *f, int index, const char *variant) {
  f->cases = xrealloc(f->cases, (f->ncases + 1) * sizeof *f->cases);
  struct case_result *r = &f->cases[f->ncases++];
  case_result_init(r);
  r->plugin = xstrdup("cpu_gemm");
  r->backend = xstrdup("cpu");
  r->operation = xstrdup("gemm");
  r->index = index;
  kv_list_add(&r->nparams, &r->params, "m", index == 1 ? "128" : "64");
  kv_list_add(&r->nparams, &r->params, "n", "64");
  kv_list_add(&r->nparams, &r->params, "k", "64");
  kv_list_add(&r->nparams, &r->params, "variant", variant);
  r->exit_code = 0;
  r->flops = 2.0 * 64 * 64 * 64 * (index == 1 ? 2 : 1);
  r->bytes = 4.0 * (64 * 64 * 3) * (index == 1 ? 2 : 1);
  r->batch = 1;
  r->warmup_iters = 10;
  r->target_noise = 0.02;
  snprintf(r->stop_rule, sizeof r->stop_rule, "ci");
  r->wall_s = 1.25;
  return r;
}

static void set_samples(struct case_result *r, const double *host, const double *device,
                        size_t n) {
  r->nsamples = n;
  r->host_clock_ns = copy_samples(host, n);
  stats_compute(r->host_clock_ns, n, &r->host_clock);
  if (device) {
    r->device_ns = copy_samples(device, n);
    stats_compute(r->device_ns, n, &r->device);
  }
}

static void set_check(struct case_result *r, const char *method, int pass, double max_abs,
                      double max_rel, uint64_t compared, uint64_t mismatches) {
  r->check.checked = 1;
  r->check.pass = pass;
  snprintf(r->check.method, sizeof r->check.method, "%s", method);
  r->check.max_abs_err = max_abs;
  r->check.max_rel_err = max_rel;
  r->check.rtol = 1e-5;
  r->check.atol = 1e-6;
  r->check.compared = compared;
  r->check.mismatches = mismatches;
}

static void build_run(struct run_file *f) {
  memset(f, 0, sizeof *f);
  f->env.date = xstrdup("2026-11-21");
  f->env.started = xstrdup("2026-11-21T09:30:00.000Z");
  f->env.hostname = xstrdup("node-7");
  f->env.cpu = xstrdup("Example CPU 9000 64-Core Processor");
  f->env.cpus = 128;
  f->env.caches.level[1] = (struct cache_level){48 << 10, 2, CACHE_SYSFS};
  f->env.caches.level[2] = (struct cache_level){1 << 20, 0, CACHE_SYSCONF};
  f->env.caches.level[3] = (struct cache_level){32 << 20, 16, CACHE_CPUID};
  f->env.caches.llc = 3;
  f->env.os = xstrdup("Linux 6.8.0-45-generic x86_64");
  f->env.bench_version = xstrdup("0.1.0");
  f->env.git_revision = xstrdup("4c524be0a1b2");
  f->env.command = xstrdup("bench run --preset smoke --tag mi300x --results-dir 'out dir' cpu_gemm");
  f->env.preset = xstrdup("smoke");
  f->env.preset_sha256 = xstrdup("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  f->env.tag = xstrdup("mi300x");
  f->env.mode = xstrdup("perf");
  /* the smoke preset with --min-samples 4 --max-time 1s from the command line */
  f->env.sampling = (struct run_sampling){1, 1, 0.0, 4, 20, 0.0, 1.0, 0.1, "ci",
                                          1u << RS_MIN_SAMPLES | 1u << RS_MAX_TIME};
  f->plugin = xstrdup("cpu_gemm");
  f->plugin_path = xstrdup("/opt/bench/lib/bench/plugins/cpu_gemm.so");
  f->plugin_sha256 = xstrdup("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

  /* 0: OK, device time reported, settled, deterministic. */
  struct case_result *r = new_case(f, 0, "tiled");
  static const double h0[] = {12500, 12250, 12750, 12400, 12600, 12500};
  static const double d0[] = {11000, 11100, 10900, 11050, 10950, 11000};
  set_samples(r, h0, d0, 6);
  r->settled = 1;
  set_check(r, "full", 1, 2.384185791015625e-07, 1.1920928955078125e-07, 4096, 0);
  r->determinism = DET_BITWISE_EQUAL;
  snprintf(r->output_hash, sizeof r->output_hash, "%s", "8c3f0a1b2c3d4e5f");
  kv_list_add(&r->ninfo, &r->info, "device", "Example GPU 9000");
  kv_list_add(&r->ninfo, &r->info, "driver", "exdrv 1.2.3");
  /* measured against a roofline of the folder's measured roofs */
  r->roof = xcalloc(1, sizeof *r->roof);
  r->roof->id = xstrdup("fp32+l2");
  r->roof->unit = xstrdup("GFLOP/s");
  r->roof->value = 250;
  r->roof->pct = 19.0625;
  r->roof->source = xstrdup("fp32 measured 2026-11-20 by peak_fma kernel=fma; l2 measured 2026-11-20 by peak_bw "
                            "size=4MiB (l2 binds at 10.67 FLOP/byte)");
  r->memory = (struct case_memory){1, 47u << 20, 5u << 20, "case"};

  /* 1: OK, host time only, did not settle. */
  r = new_case(f, 1, "naive");
  static const double h1[] = {2.5e6, 2.75e6, 2.4e6, 3.1e6, 2.45e6};
  set_samples(r, h1, NULL, 5);
  r->batch = 4;
  r->settled = 0;
  r->settle_note = xstrdup("did not settle: noise (median's 95% CI) 14.00% > target 2.00% after 5 samples in 1.25 s (max_time)");
  set_check(r, "sampled+freivalds", 1, 1.9073486328125e-06, 3.814697265625e-06, 576, 0);
  kv_list_add(&r->ninfo, &r->info, "device", "Example GPU 9000");
  /* its roof is not measured: an id and a note, no share */
  r->roof = xcalloc(1, sizeof *r->roof);
  r->roof->id = xstrdup("fp64");
  r->roof->unit = xstrdup("");
  r->roof->pct = -1;
  r->roof->source = xstrdup("");
  r->roof->note = xstrdup("no fp64 roof for this device");
  r->memory = (struct case_memory){1, 3221225472u, 6u << 20, "process"}; /* 3 GiB, not resettable */

  /* 2: SKIPPED before measuring. */
  r = new_case(f, 2, "fp16");
  r->status = CASE_SKIPPED;
  r->message = xstrdup("needs shaderFloat16");
  r->flops = r->bytes = 0;

  /* 3: WRONG_ANSWER: measured, then the check failed. */
  r = new_case(f, 3, "broken");
  static const double h3[] = {900, 950, 925};
  set_samples(r, h3, NULL, 3);
  r->settled = 1;
  set_check(r, "full", 0, 0.5, 0.25, 4096, 12);
  r->check.first_bad = 17;
  r->check.bad_out = 1.5;
  r->check.bad_ref = 1.0;
  snprintf(r->check.message, sizeof r->check.message, "%s",
           "12 of 4096 elements out of tolerance, first at [17]: got 1.5, expected 1");
  r->message = xstrdup("12 of 4096 elements out of tolerance, first at [17]: got 1.5, expected 1");
  r->status = CASE_WRONG_ANSWER;

  /* 4: CRASH: killed by SIGSEGV, stderr tail with a quote, comma, newline. */
  r = new_case(f, 4, "bad \"tile\", v2");
  r->status = CASE_CRASH;
  r->signal = 11;
  r->exit_code = -1;
  r->wall_s = 0.5;
  r->message = xstrdup("killed by signal 11 (Segmentation fault)");
  r->stderr_tail = xstrdup("tile 3: writing \"C\", row 17\nsegfault, giving up\n");
}

/* ---- golden files ----------------------------------------------------- */

static void test_golden_txt(void) {
  struct run_file f;
  build_run(&f);
  char *text = run_file_to_text(&f);
  check_golden("run.txt", text);
  free(text);
  run_file_release(&f);
}

static void test_golden_json(void) {
  struct run_file f;
  build_run(&f);
  char *json = run_file_to_json(&f);
  REQUIRE(json[strlen(json) - 1] == '\n');
  check_golden("run.json", json);
  free(json);
  run_file_release(&f);
}

static void test_golden_rollup(void) {
  struct run_file f;
  build_run(&f);
  char *dir = make_tmpdir("results");
  REQUIRE(dir);
  char *base = NULL;
  CHECK(results_save(dir, &f, &base) == 0);
  char *want_base = xasprintf("%s/2026-11-21_cpu_gemm_smoke_mi300x", dir);
  CHECK_STR(base, want_base);
  CHECK(rollup_write(dir) == 0);
  char *csv_path = xasprintf("%s/rollup.csv", dir);
  char *csv = read_text(csv_path);
  CHECK(csv != NULL);
  if (csv) check_golden("rollup.csv", csv);

  /* The saved files are the rendered forms. */
  char *json_path = xasprintf("%s.json", base ? base : "?");
  char *txt_path = xasprintf("%s.txt", base ? base : "?");
  char *json = read_text(json_path), *txt = read_text(txt_path);
  char *want_json = run_file_to_json(&f), *want_txt = run_file_to_text(&f);
  CHECK(json && strcmp(json, want_json) == 0);
  CHECK(txt && strcmp(txt, want_txt) == 0);
  free(json), free(txt), free(want_json), free(want_txt);
  free(json_path), free(txt_path), free(csv_path), free(csv);
  free(want_base), free(base);
  rm_tree(dir);
  run_file_release(&f);
}

/* ---- JSON round trip ---------------------------------------------------- */

static int same_double(double a, double b) {
  return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static int same_str(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_kv(size_t na, const struct kv *a, size_t nb, const struct kv *b) {
  if (na != nb) return 0;
  for (size_t i = 0; i < na; i++)
    if (strcmp(a[i].key, b[i].key) != 0 || strcmp(a[i].value, b[i].value) != 0) return 0;
  return 1;
}

static int same_stats(const struct stats *a, const struct stats *b) {
  return a->n == b->n && same_double(a->min, b->min) && same_double(a->q1, b->q1) &&
         same_double(a->median, b->median) && same_double(a->q3, b->q3) &&
         same_double(a->max, b->max) && same_double(a->mean, b->mean) &&
         same_double(a->stddev, b->stddev) && same_double(a->cv, b->cv);
}

static int same_samples(const double *a, const double *b, size_t n) {
  if (!a || !b) return a == b;
  for (size_t i = 0; i < n; i++)
    if (!same_double(a[i], b[i])) return 0;
  return 1;
}

static int same_gv(struct gpu_value a, struct gpu_value b) {
  return a.have == b.have && (!a.have || same_double(a.v, b.v));
}

static void check_same_facts(const struct gpu_facts *a, const struct gpu_facts *b) {
  CHECK(gpu_facts_same(a, b));
  CHECK_STR(a->name, b->name);
  CHECK_STR(a->bus_id, b->bus_id);
  CHECK(same_gv(a->compute_mode, b->compute_mode));
  CHECK(same_gv(a->app_clocks_set, b->app_clocks_set));
}

static void check_same_telemetry(const struct case_telemetry *a, const struct case_telemetry *b) {
  if (!a || !b) {
    CHECK(a == b);
    return;
  }
  CHECK_STR(a->bus_id, b->bus_id);
  CHECK_STR(a->library, b->library);
  CHECK_STR(a->note, b->note);
  check_same_facts(&a->facts, &b->facts);
  CHECK(same_double(a->interval_ms, b->interval_ms));
  CHECK(a->readings == b->readings);
  CHECK(same_gv(a->sm_clock_mean, b->sm_clock_mean) && same_gv(a->sm_clock_min, b->sm_clock_min) &&
        same_gv(a->sm_clock_max, b->sm_clock_max));
  CHECK(same_gv(a->mem_clock_mean, b->mem_clock_mean) && same_gv(a->mem_clock_min, b->mem_clock_min) &&
        same_gv(a->mem_clock_max, b->mem_clock_max));
  REQUIRE(a->nxcd == b->nxcd);
  for (int i = 0; i < a->nxcd; i++)
    CHECK(same_gv(a->xcd_clock_mean[i], b->xcd_clock_mean[i]) && same_gv(a->xcd_clock_min[i], b->xcd_clock_min[i]));
  CHECK(same_gv(a->power_mean, b->power_mean) && same_gv(a->power_max, b->power_max) &&
        same_gv(a->power_limit, b->power_limit));
  CHECK(same_gv(a->temp_max, b->temp_max) && same_gv(a->mem_temp_max, b->mem_temp_max));
  CHECK(a->have_throttle == b->have_throttle);
  CHECK(a->throttle == b->throttle);
  for (int i = 0; i < GPU_THR_TIMES; i++) CHECK(same_gv(a->throttle_ns[i], b->throttle_ns[i]));
  CHECK(same_gv(a->other_procs_max, b->other_procs_max));
  CHECK(same_double(a->default_clock_mhz, b->default_clock_mhz));
  CHECK(a->clock_samples == b->clock_samples);
  CHECK(same_double(a->clock_mean, b->clock_mean) && same_double(a->clock_min, b->clock_min) &&
        same_double(a->clock_max, b->clock_max));
  CHECK(same_double(a->threshold, b->threshold) && same_double(a->reference_mhz, b->reference_mhz));
  CHECK(a->discarded == b->discarded && same_double(a->recovery_s, b->recovery_s));
  CHECK(a->throttled == b->throttled);
  CHECK_STR(a->throttled_by, b->throttled_by);
}

static void check_same_case(const struct case_result *a, const struct case_result *b) {
  CHECK(a->index == b->index);
  CHECK(same_str(a->plugin, b->plugin));
  CHECK(same_str(a->backend, b->backend));
  CHECK(same_str(a->operation, b->operation));
  CHECK(same_kv(a->nparams, a->params, b->nparams, b->params));
  CHECK(a->status == b->status);
  CHECK(same_str(a->message, b->message));
  CHECK(same_str(a->stderr_tail, b->stderr_tail));
  CHECK(a->exit_code == b->exit_code);
  CHECK(a->signal == b->signal);
  CHECK(same_double(a->wall_s, b->wall_s));
  CHECK(same_double(a->flops, b->flops));
  CHECK(a->work_source == b->work_source);
  CHECK(same_double(a->bytes, b->bytes));
  CHECK(a->batch == b->batch);
  CHECK(a->warmup_iters == b->warmup_iters);
  CHECK(a->nsamples == b->nsamples);
  CHECK(same_samples(a->host_clock_ns, b->host_clock_ns, a->nsamples));
  CHECK(same_samples(a->device_ns, b->device_ns, a->nsamples));
  CHECK(same_stats(&a->host_clock, &b->host_clock));
  CHECK(same_stats(&a->device, &b->device));
  CHECK(a->settled == b->settled);
  CHECK(same_double(a->target_noise, b->target_noise));
  CHECK_STR(a->stop_rule, b->stop_rule);
  CHECK(same_str(a->settle_note, b->settle_note));
  const struct check_result *x = &a->check, *y = &b->check;
  CHECK(x->checked == y->checked && x->pass == y->pass);
  CHECK_STR(x->method, y->method);
  CHECK(same_double(x->max_abs_err, y->max_abs_err));
  CHECK(same_double(x->max_rel_err, y->max_rel_err));
  CHECK(same_double(x->rtol, y->rtol) && same_double(x->atol, y->atol));
  CHECK(x->compared == y->compared && x->mismatches == y->mismatches);
  CHECK(x->first_bad == y->first_bad);
  CHECK(same_double(x->bad_out, y->bad_out) && same_double(x->bad_ref, y->bad_ref));
  CHECK_STR(x->message, y->message);
  CHECK(a->determinism == b->determinism);
  CHECK_STR(a->output_hash, b->output_hash);
  CHECK(same_kv(a->ninfo, a->info, b->ninfo, b->info));
  CHECK(same_samples(a->clock_mhz, b->clock_mhz, a->nsamples));
  check_same_telemetry(a->telemetry, b->telemetry);
  CHECK(!a->roof == !b->roof);
  if (a->roof && b->roof) {
    CHECK_STR(a->roof->id, b->roof->id);
    CHECK_STR(a->roof->unit, b->roof->unit);
    CHECK(same_double(a->roof->value, b->roof->value) && same_double(a->roof->pct, b->roof->pct));
    CHECK_STR(a->roof->source, b->roof->source);
    CHECK(same_str(a->roof->note, b->roof->note));
  }
}

static void check_same_run(const struct run_file *a, const struct run_file *b) {
  const struct run_env *x = &a->env, *y = &b->env;
  CHECK(same_str(x->date, y->date) && same_str(x->started, y->started));
  CHECK(same_str(x->hostname, y->hostname) && same_str(x->cpu, y->cpu) && x->cpus == y->cpus);
  CHECK(same_str(x->os, y->os));
  CHECK(memcmp(&x->caches, &y->caches, sizeof x->caches) == 0);
  CHECK(same_str(x->bench_version, y->bench_version));
  CHECK(same_str(x->git_revision, y->git_revision));
  CHECK(same_str(x->command, y->command));
  CHECK(same_str(x->preset, y->preset) && same_str(x->preset_sha256, y->preset_sha256));
  CHECK(same_str(x->tag, y->tag) && same_str(x->mode, y->mode));
  CHECK(same_str(a->plugin, b->plugin));
  CHECK(same_str(a->plugin_path, b->plugin_path));
  CHECK(same_str(a->plugin_sha256, b->plugin_sha256));
  CHECK(same_str(x->label, y->label) && same_str(x->run_id, y->run_id));
  CHECK(same_str(a->plugin_commit, b->plugin_commit) && same_str(a->plugin_describe, b->plugin_describe));
  if (a->plugin_commit) CHECK((a->plugin_dirty > 0) == (b->plugin_dirty > 0));
  REQUIRE(a->ncases == b->ncases);
  for (size_t i = 0; i < a->ncases; i++) check_same_case(&a->cases[i], &b->cases[i]);
}

static void round_trip(const struct run_file *f) {
  char *json = run_file_to_json(f);
  struct run_file back;
  char err[256] = "";
  int rc = run_file_from_json(json, &back, err, sizeof err);
  if (rc) fprintf(stderr, "from_json: %s\n", err);
  REQUIRE(rc == 0);
  check_same_run(f, &back);
  char *again = run_file_to_json(&back);
  CHECK(strcmp(json, again) == 0);
  free(again);
  free(json);
  run_file_release(&back);
  CHECK(back.ncases == 0 && back.cases == NULL && back.plugin == NULL);
}

static void test_round_trip(void) {
  struct run_file f;
  build_run(&f);
  REQUIRE(f.cases[1].device_ns == NULL); /* NULL device samples survive */
  round_trip(&f);
  {
    /* the header's sampling and the cases' memory read back as written */
    char *json = run_file_to_json(&f);
    struct run_file back;
    char err[256] = "";
    REQUIRE(run_file_from_json(json, &back, err, sizeof err) == 0);
    CHECK(back.env.sampling.known && back.env.sampling.min_samples == 4 && back.env.sampling.max_time_s == 1.0 &&
          back.env.sampling.from_cli == (1u << RS_MIN_SAMPLES | 1u << RS_MAX_TIME));
    CHECK(back.cases[0].memory.known && back.cases[0].memory.peak_rss_bytes == 47u << 20 &&
          strcmp(back.cases[0].memory.method, "case") == 0);
    CHECK(back.cases[1].memory.peak_rss_bytes == 3221225472u && strcmp(back.cases[1].memory.method, "process") == 0);
    CHECK(!back.cases[2].memory.known); /* SKIPPED: never measured, no "memory" */
    run_file_release(&back);
    /* a method bench never writes is refused */
    char *bad = xstrdup(json), *at = strstr(bad, "\"method\": \"case\"");
    REQUIRE(at);
    memcpy(at, "\"method\": \"cas?\"", strlen("\"method\": \"cas?\""));
    CHECK(run_file_from_json(bad, &back, err, sizeof err) == -1);
    CHECK(strstr(err, "memory.method") != NULL);
    free(bad);
    free(json);
  }
  /* Files written before the caches were recorded have no "cpu.caches". */
  memset(&f.env.caches, 0, sizeof f.env.caches);
  char *json = run_file_to_json(&f);
  CHECK(strstr(json, "cpu.caches") == NULL);
  free(json);
  round_trip(&f);
  /* The roofs: each case's fields read back (above); a file written
   * before them (or by a run whose folder had no measured roofs) has none
   * and loads with r->roof NULL. */
  json = run_file_to_json(&f);
  CHECK(strstr(json, "\"pct_of_roof\": 19.0625") && strstr(json, "\"roof\": \"fp32+l2\"") &&
        strstr(json, "\"roof_note\": \"no fp64 roof for this device\""));
  free(json);
  for (size_t i = 0; i < f.ncases; i++) case_roof_release(f.cases[i].roof), f.cases[i].roof = NULL;
  json = run_file_to_json(&f);
  CHECK(strstr(json, "pct_of_roof") == NULL && strstr(json, "roof_source") == NULL);
  struct run_file back;
  char err[256] = "";
  REQUIRE(run_file_from_json(json, &back, err, sizeof err) == 0);
  for (size_t i = 0; i < back.ncases; i++) CHECK(back.cases[i].roof == NULL);
  run_file_release(&back);
  free(json);
  round_trip(&f);
  run_file_release(&f);
}

/* The run's label and run id, the plugin's git commit: written where
 * known, read back; a file without them (older, or git unknown) reads
 * with them unknown, and its JSON and .txt lack them. */
static void test_label_commit(void) {
  struct run_file f;
  build_run(&f);
  char *json = run_file_to_json(&f), *text = run_file_to_text(&f);
  CHECK(!strstr(json, "\"label\"") && !strstr(json, "run_id") && !strstr(json, "git_commit"));
  CHECK(!strstr(text, "plugin commit") && !strstr(text, "\nlabel "));
  struct run_file back;
  char err[256] = "";
  REQUIRE(run_file_from_json(json, &back, err, sizeof err) == 0);
  CHECK(!back.env.label && !back.env.run_id && !back.plugin_commit && back.plugin_dirty == -1);
  run_file_release(&back);
  free(json);
  free(text);
  f.env.label = xstrdup("before");
  f.env.run_id = xstrdup("2026-11-21T10:00:00.000Z-4711");
  f.plugin_commit = xstrdup("0123456789abcdef0123456789abcdef01234567");
  f.plugin_dirty = 1;
  f.plugin_describe = xstrdup("v1.2-3-g0123456");
  round_trip(&f);
  json = run_file_to_json(&f);
  CHECK(strstr(json, "\"label\": \"before\"") && strstr(json, "\"run_id\": \"2026-11-21T10:00:00.000Z-4711\""));
  CHECK(strstr(json, "\"git_commit\": \"0123456789abcdef0123456789abcdef01234567\"") &&
        strstr(json, "\"git_dirty\": true") && strstr(json, "\"git_describe\": \"v1.2-3-g0123456\""));
  free(json);
  text = run_file_to_text(&f);
  CHECK(strstr(text, "\nlabel          before\n") != NULL);
  CHECK(strstr(text, "\nplugin commit  0123456789abcdef0123456789abcdef01234567 (dirty), v1.2-3-g0123456\n") != NULL);
  free(text);
  run_file_release(&f);
}

static void test_round_trip_odd_values(void) {
  struct run_file f;
  build_run(&f);
  /* Unset strings are null, not "". */
  free(f.env.tag);
  f.env.tag = NULL;
  free(f.env.git_revision);
  f.env.git_revision = xstrdup("");
  struct case_result *r = &f.cases[3];
  r->check.max_abs_err = INFINITY;
  r->check.max_rel_err = NAN;
  r->check.bad_out = -INFINITY;
  r->check.bad_ref = -0.0;
  r->check.compared = (UINT64_C(1) << 63) + 4096; /* beyond JSON integers: a real */
  r->host_clock_ns[1] = 0.1 + 0.2;      /* needs 17 digits */
  r->host_clock_ns[2] = 5e-324;
  r->wall_s = 1.0 / 3.0;
  r->exit_code = -2147483647 - 1;
  kv_list_add(&r->ninfo, &r->info, "note", "tab\there, \"quotes\", \\ backslash, µ, \x01");
  round_trip(&f);

  /* Not valid UTF-8: written with U+FFFD, still valid JSON. */
  free(f.cases[4].stderr_tail);
  f.cases[4].stderr_tail = xstrdup("bad \xff\xfe bytes \xc3");
  char *json = run_file_to_json(&f);
  struct run_file back;
  char err[256] = "";
  CHECK(run_file_from_json(json, &back, err, sizeof err) == 0);
  CHECK_STR(back.cases[4].stderr_tail, "bad \xef\xbf\xbd\xef\xbf\xbd bytes \xef\xbf\xbd");
  run_file_release(&back);
  free(json);
  run_file_release(&f);
}

static void test_empty_run(void) {
  struct run_file f;
  memset(&f, 0, sizeof f);
  round_trip(&f);
  char *text = run_file_to_text(&f);
  CHECK(strstr(text, "cases          0\n") != NULL);
  free(text);
}

static void test_json_line(void) {
  struct run_file f;
  build_run(&f);
  for (size_t i = 0; i < f.ncases; i++) {
    char *line = case_result_to_json_line(&f.cases[i]);
    CHECK(strchr(line, '\n') == NULL);
    CHECK(line[0] == '{');
    struct case_result back;
    char err[256] = "";
    int rc = case_result_from_json_line(line, &back, err, sizeof err);
    if (rc) fprintf(stderr, "from_json_line: %s\n", err);
    CHECK(rc == 0);
    if (!rc) check_same_case(&f.cases[i], &back);
    case_result_release(&back);
    free(line);
  }
  /* The case object of the file form is the line form's. */
  char *line = case_result_to_json_line(&f.cases[0]);
  CHECK(strstr(line, "\"samples\":{\"host_ns\":[12500.0,12250.0,") != NULL);
  CHECK(strstr(line, "\"gflops\":") != NULL);
  free(line);
  run_file_release(&f);
}

/* ---- rejecting bad input --------------------------------------------- */

static void expect_reject(const char *text, const char *want_in_err) {
  struct run_file f;
  char err[256] = "";
  CHECK(run_file_from_json(text, &f, err, sizeof err) == -1);
  CHECK(f.ncases == 0 && f.cases == NULL && f.plugin == NULL && f.env.date == NULL);
  if (!strstr(err, want_in_err)) {
    test_failures_++;
    fprintf(stderr, "error \"%s\" does not mention \"%s\"\n", err, want_in_err);
  }
}

/* The golden JSON with the first `from` replaced by `to`. */
static char *mutate(const char *json, const char *from, const char *to) {
  const char *at = strstr(json, from);
  if (!at) return xstrdup("(mutation target missing)");
  return xasprintf("%.*s%s%s", (int)(at - json), json, to, at + strlen(from));
}

static void test_reject(void) {
  struct run_file f;
  build_run(&f);
  char *json = run_file_to_json(&f);
  run_file_release(&f);

  char *m = mutate(json, "\"bench-result/1\"", "\"bench-result/2\"");
  expect_reject(m, "unsupported schema \"bench-result/2\" (expected \"bench-result/1\")");
  free(m);
  m = mutate(json, "\"schema\": \"bench-result/1\",", "");
  expect_reject(m, "not a bench result file");
  free(m);
  expect_reject("[1, 2, 3]", "not a bench result file");
  expect_reject("", "invalid json");
  expect_reject("{\"schema\": \"bench-result/1\", ", "invalid json");
  char *half = xstrndup(json, strlen(json) / 2);
  expect_reject(half, "invalid json at line");
  free(half);
  m = mutate(json, "\"status\": \"SKIPPED\"", "\"status\": \"MAYBE\"");
  expect_reject(m, "cases[2].status: unknown status \"MAYBE\"");
  free(m);
  m = mutate(json, "\"status\": \"SKIPPED\"", "\"status\": 3");
  expect_reject(m, "cases[2].status: expected a string");
  free(m);
  m = mutate(json, "\"rtol\": 1.0000000000000001e-5", "\"rtol\": \"tight\"");
  expect_reject(m, "cases[0].check.rtol: expected a number");
  free(m);
  m = mutate(json, "\"nsamples\": 6", "\"nsamples\": 7");
  expect_reject(m, "cases[0].samples.host_ns: has 6 values, nsamples is 7");
  free(m);
  m = mutate(json, "\"index\": 1,", "");
  expect_reject(m, "cases[1].index: missing");
  free(m);
  m = mutate(json, "\"cpus\": 128", "\"cpus\": 1e99");
  expect_reject(m, "env.cpus: expected an integer");
  free(m);
  m = mutate(json, "\"source\": \"cpuid\"", "\"source\": \"guess\"");
  expect_reject(m, "env.cpu.caches[2].source: 'guess' is not sysfs, cpuid, sysconf or default");
  free(m);
  m = mutate(json, "\"level\": 3", "\"level\": 2");
  expect_reject(m, "env.cpu.caches[2].level: L2 twice");
  free(m);
  m = mutate(json, "\"bytes\": 33554432", "\"bytes\": 0");
  expect_reject(m, "env.cpu.caches[2].bytes: 0 out of range");
  free(m);
  m = mutate(json, "\"cases\": [", "\"cases\": {\"x\": [");
  expect_reject(m, "invalid json");
  free(m);
  m = mutate(json, "\"host\": \"node-7\"", "\"host\": \"node-7\", \"host\": \"x\"");
  expect_reject(m, "duplicate");
  free(m);
  free(json);

  struct case_result r;
  char err[256] = "";
  CHECK(case_result_from_json_line("not json", &r, err, sizeof err) == -1);
  CHECK(strstr(err, "invalid json") != NULL);
  CHECK(r.plugin == NULL && r.host_clock_ns == NULL);
  CHECK(case_result_from_json_line("{\"index\": 0}", &r, err, sizeof err) == -1);
  CHECK_STR(err, "plugin: missing");
  CHECK(case_result_from_json_line("[17]", &r, err, sizeof err) == -1);
  CHECK_STR(err, "expected an object");
}

/* ---- status helpers --------------------------------------------------- */

/* work_source: written only when known, read back optional, shown in .txt. */
static void test_work_source(void) {
  struct run_file f;
  build_run(&f);
  f.cases[0].work_source = WORK_OPERATION;
  f.cases[1].work_source = WORK_OPERATION;
  round_trip(&f);
  char *json = run_file_to_json(&f), *text = run_file_to_text(&f);
  CHECK(strstr(json, "\"work_source\": \"operation\"") != NULL);
  CHECK(strstr(text, "\nwork           FLOPs and bytes of the operation table (gemm)\n") != NULL);
  char *m = mutate(json, "\"work_source\": \"operation\"", "\"work_source\": \"guess\"");
  expect_reject(m, "cases[0].work_source: unknown value \"guess\"");
  free(m);
  free(text);
  free(json);
  f.cases[1].work_source = WORK_PLUGIN;
  round_trip(&f);
  text = run_file_to_text(&f);
  CHECK(strstr(text, "\nwork           1 cases from the operation table, 1 stated by the plugin\n"));
  free(text);
  run_file_release(&f);
}

/* The stopping rule: recorded, read back optional (files before it have
 * none, and named the target "target_cv"), and named where the .txt
 * explains an unsettled case. */
static void test_stop_rule(void) {
  struct run_file f;
  build_run(&f);
  struct case_result *r = &f.cases[1]; /* the unsettled one */
  free(r->settle_note);
  r->settle_note = NULL;
  f.env.sampling.known = 0; /* files that named the target "target_cv" did not record the sampling either */
  char *json = run_file_to_json(&f);
  CHECK(strstr(json, "\"sampling\"") == NULL);
  CHECK(strstr(json, "\"stop_rule\": \"ci\"") != NULL);
  CHECK(strstr(json, "\"target_noise\": 0.02") != NULL);
  char *text = run_file_to_text(&f);
  CHECK(strstr(text, "\nstop rule      ci <= 2%: the median's 95% CI, relative half-width\n") != NULL);
  CHECK(strstr(text, "did not settle: noise (median's 95% CI) 14.00% above the target 2.00%") != NULL);
  free(text);
  snprintf(r->stop_rule, sizeof r->stop_rule, "cv");
  text = run_file_to_text(&f);
  CHECK(strstr(text, "did not settle: noise (cv) 10.99% above the target 2.00%") != NULL);
  free(text);

  /* An older file: "target_cv", no "stop_rule". */
  char *old = xstrdup(json), *p;
  while ((p = strstr(old, "\"target_noise\"")) != NULL) {
    char *m = mutate(old, "\"target_noise\"", "\"target_cv\"");
    free(old);
    old = m;
  }
  while ((p = strstr(old, "\"stop_rule\": \"ci\",")) != NULL) {
    char *m = mutate(old, "\"stop_rule\": \"ci\",", "");
    free(old);
    old = m;
  }
  CHECK(strstr(old, "stop_rule") == NULL && strstr(old, "target_cv") != NULL);
  struct run_file back;
  char err[256];
  REQUIRE(run_file_from_json(old, &back, err, sizeof err) == 0);
  CHECK_NEAR(back.cases[1].target_noise, 0.02, 0);
  CHECK_STR(back.cases[1].stop_rule, "");
  text = run_file_to_text(&back);
  CHECK(strstr(text, "did not settle: noise above the target 2.00% (stopping rule not recorded)") != NULL);
  CHECK(strstr(text, "\nstop rule      -\n") != NULL);
  free(text);
  run_file_release(&back);
  free(old);

  char *bad = mutate(json, "\"stop_rule\": \"ci\"", "\"stop_rule\": \"median\"");
  expect_reject(bad, "stop_rule: unknown value \"median\" (expected ci or cv)");
  free(bad);
  free(json);
  run_file_release(&f);
}

static void test_status(void) {
  CHECK_STR(case_status_name(CASE_OK), "OK");
  CHECK_STR(case_status_name(CASE_WRONG_ANSWER), "WRONG_ANSWER");
  CHECK_STR(case_status_name(CASE_INTERRUPTED), "INTERRUPTED");
  for (int s = 0; s < CASE_STATUS_COUNT; s++) {
    enum case_status back;
    CHECK(case_status_parse(case_status_name((enum case_status)s), &back) == 0);
    CHECK(back == (enum case_status)s);
  }
  enum case_status st;
  CHECK(case_status_parse("ok", &st) == -1);
  CHECK(case_status_parse(NULL, &st) == -1);
  CHECK(!case_status_failed(CASE_OK) && !case_status_failed(CASE_SKIPPED));
  CHECK(case_status_failed(CASE_WRONG_ANSWER) && case_status_failed(CASE_CRASH));
  CHECK(case_status_failed(CASE_TIMEOUT) && case_status_failed(CASE_ERROR));
  CHECK(case_status_failed(CASE_INTERRUPTED));

  CHECK_STR(determinism_name(DET_NOT_CHECKED), "not_checked");
  CHECK_STR(determinism_name(DET_BITWISE_EQUAL), "bitwise_equal");
  CHECK_STR(determinism_name(DET_DIFFERS), "differs");
  enum determinism d;
  CHECK(determinism_parse("differs", &d) == 0 && d == DET_DIFFERS);
  CHECK(determinism_parse("same", &d) == -1);
}

/* case_unchecked: OK without a check, and nothing else. */
static void test_unchecked(void) {
  struct run_file f;
  build_run(&f);
  CHECK(f.cases[0].check.checked && !case_unchecked(&f.cases[0]));
  CHECK(f.cases[2].status != CASE_OK && !case_unchecked(&f.cases[2]));
  f.cases[0].check.checked = 0;
  CHECK(case_unchecked(&f.cases[0]));
  f.cases[0].status = CASE_ERROR;
  CHECK(!case_unchecked(&f.cases[0]));
  run_file_release(&f);
}

static void test_throughput(void) {
  struct run_file f;
  build_run(&f);
  struct case_result *r = &f.cases[0];
  CHECK(case_time(r) == &r->device);
  CHECK_STR(case_timer_name(r), "device");
  /* 524288 flop in a median of 11000 ns */
  CHECK_NEAR(case_gflops(r), 524288.0 / 11000.0, 1e-12);
  CHECK_NEAR(case_gbps(r), 49152.0 / 11000.0, 1e-12);
  r = &f.cases[1];
  CHECK(case_time(r) == &r->host_clock);
  CHECK_STR(case_timer_name(r), "host");
  CHECK_NEAR(case_gflops(r), 1048576.0 / 2.5e6, 1e-15);
  r = &f.cases[3]; /* WRONG_ANSWER: measured, but no throughput */
  CHECK(r->host_clock.median > 0);
  CHECK(case_gflops(r) == 0.0 && case_gbps(r) == 0.0);
  CHECK(case_gflops(&f.cases[2]) == 0.0);
  f.cases[0].flops = 0;
  CHECK(case_gflops(&f.cases[0]) == 0.0);
  CHECK(case_gbps(&f.cases[0]) > 0.0);
  run_file_release(&f);

  struct case_result c;
  case_result_init(&c);
  CHECK(c.exit_code == -1 && c.check.first_bad == -1 && c.status == CASE_OK);
  CHECK(case_gflops(&c) == 0.0); /* no samples */
  case_result_release(&c);
  case_result_release(&c); /* twice is harmless */
}

static void test_kv(void) {
  size_t n = 0;
  struct kv *list = NULL;
  kv_list_add(&n, &list, "device", "a");
  kv_list_add(&n, &list, "driver", "b");
  kv_list_add(&n, &list, "device", "c");
  CHECK(n == 2);
  CHECK_STR(list[0].key, "device");
  CHECK_STR(kv_list_get(n, list, "device"), "c");
  CHECK_STR(kv_list_get(n, list, "driver"), "b");
  CHECK(kv_list_get(n, list, "nope") == NULL);
  kv_list_release(&n, &list);
  CHECK(n == 0 && list == NULL);
}

/* ---- names and saving -------------------------------------------------- */

static void test_basename(void) {
  char *s = results_basename("2026-11-21", "cpu_gemm", "smoke", "mi300x");
  CHECK_STR(s, "2026-11-21_cpu_gemm_smoke_mi300x");
  free(s);
  s = results_basename("2026-11-21", "cpu_gemm", "smoke", NULL);
  CHECK_STR(s, "2026-11-21_cpu_gemm_smoke");
  free(s);
  s = results_basename("2026-11-21", "cpu_gemm", "smoke", "");
  CHECK_STR(s, "2026-11-21_cpu_gemm_smoke");
  free(s);
  s = results_basename("2026-11-21", "vk/gemm", "my preset", "run #2: a*b?\xc2\xb5");
  CHECK_STR(s, "2026-11-21_vk-gemm_my-preset_run--2--a-b---");
  free(s);
  s = results_basename("2026-11-21", "a.b+c-d_e", "../up", "v1.2+rc");
  CHECK_STR(s, "2026-11-21_a.b+c-d_e_..-up_v1.2+rc");
  free(s);
}

static char *saved_name(const char *base) {
  const char *slash = strrchr(base, '/');
  return xstrdup(slash ? slash + 1 : base);
}

static void test_save_claims(void) {
  char *root = make_tmpdir("results");
  REQUIRE(root);
  char *dir = xasprintf("%s/a/b/results", root); /* created with its parents */
  struct run_file f;
  build_run(&f);

  char *b1 = NULL, *b2 = NULL, *b3 = NULL, *b4 = NULL, *b5 = NULL;
  CHECK(results_save(dir, &f, &b1) == 0);
  CHECK(results_save(dir, &f, &b2) == 0);
  CHECK(results_save(dir, &f, &b3) == 0);
  REQUIRE(b1 && b2 && b3);
  char *n1 = saved_name(b1), *n2 = saved_name(b2), *n3 = saved_name(b3);
  CHECK_STR(n1, "2026-11-21_cpu_gemm_smoke_mi300x");
  CHECK_STR(n2, "2026-11-21_cpu_gemm_smoke_mi300x.2");
  CHECK_STR(n3, "2026-11-21_cpu_gemm_smoke_mi300x.3");
  char *p = xasprintf("%s/2026-11-21_cpu_gemm_smoke_mi300x.2.json", dir);
  CHECK(file_exists(p));
  free(p);
  p = xasprintf("%s/2026-11-21_cpu_gemm_smoke_mi300x.3.txt", dir);
  CHECK(file_exists(p));
  free(p);

  /* No tag; a preset given as a path names the file by its base name. */
  free(f.env.tag);
  f.env.tag = NULL;
  free(f.env.preset);
  f.env.preset = xstrdup("/home/me/presets/my fast.ini");
  CHECK(results_save(dir, &f, &b4) == 0);
  char *n4 = b4 ? saved_name(b4) : NULL;
  CHECK_STR(n4, "2026-11-21_cpu_gemm_my-fast");

  /* A stale .txt without its .json still holds the name. */
  p = xasprintf("%s/2026-11-21_cpu_gemm_smoke.txt", dir);
  CHECK(write_text(p, "stale\n") == 0);
  free(p);
  free(f.env.preset);
  f.env.preset = xstrdup("smoke");
  CHECK(results_save(dir, &f, &b5) == 0);
  char *n5 = b5 ? saved_name(b5) : NULL;
  CHECK_STR(n5, "2026-11-21_cpu_gemm_smoke.2");

  /* A later call with the same base rewrites both files in place. */
  char *keep = b1 ? xstrdup(b1) : NULL;
  free(f.env.hostname);
  f.env.hostname = xstrdup("node-8");
  CHECK(results_save(dir, &f, &b1) == 0);
  CHECK_STR(b1, keep);
  p = xasprintf("%s.json", b1);
  char *text = read_text(p);
  CHECK(text && strstr(text, "\"host\": \"node-8\""));
  free(text);
  free(p);
  p = xasprintf("%s.txt", b1);
  text = read_text(p);
  CHECK(text && strstr(text, "host           node-8\n"));
  free(text);
  free(p);

  CHECK(count_temp_files(dir) == 0);
  free(keep);
  free(n1), free(n2), free(n3), free(n4), free(n5);
  free(b1), free(b2), free(b3), free(b4), free(b5);
  run_file_release(&f);
  free(dir);
  rm_tree(root);
}

/* Processes saving at once each get their own name. */
static void test_save_concurrent(void) {
  enum { NPROC = 8 };
  char *dir = make_tmpdir("results");
  REQUIRE(dir);
  fflush(NULL);
  pid_t pids[NPROC];
  for (int i = 0; i < NPROC; i++) {
    pids[i] = fork();
    REQUIRE(pids[i] >= 0);
    if (pids[i] == 0) {
      struct run_file f;
      build_run(&f);
      char *base = NULL;
      int rc = results_save(dir, &f, &base);
      free(base);
      run_file_release(&f);
      _exit(rc ? 1 : 0);
    }
  }
  for (int i = 0; i < NPROC; i++) {
    int status = 0;
    CHECK(waitpid(pids[i], &status, 0) == pids[i]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int k = 1; k <= NPROC; k++) {
    char *p = k == 1 ? xasprintf("%s/2026-11-21_cpu_gemm_smoke_mi300x.json", dir)
                     : xasprintf("%s/2026-11-21_cpu_gemm_smoke_mi300x.%d.json", dir, k);
    CHECK(file_exists(p));
    char *text = read_text(p);
    struct run_file back;
    char err[256];
    CHECK(text && run_file_from_json(text, &back, err, sizeof err) == 0);
    if (text) run_file_release(&back);
    free(text);
    free(p);
  }
  char *p = xasprintf("%s/2026-11-21_cpu_gemm_smoke_mi300x.%d.json", dir, NPROC + 1);
  CHECK(!file_exists(p));
  free(p);
  CHECK(count_temp_files(dir) == 0);
  rm_tree(dir);
}

static void test_save_errors(void) {
  char *dir = make_tmpdir("results");
  REQUIRE(dir);
  struct run_file f;
  build_run(&f);
  /* The results folder cannot be created under a file. */
  char *file = xasprintf("%s/plain", dir);
  CHECK(write_text(file, "x") == 0);
  char *under = xasprintf("%s/sub", file);
  char *base = NULL;
  fprintf(stderr, "(an error message is expected here)\n");
  CHECK(results_save(under, &f, &base) == -1);
  CHECK(base == NULL);
  fprintf(stderr, "(an error message is expected here)\n");
  CHECK(results_save(file, &f, &base) == -1);
  CHECK(base == NULL);
  free(under);
  free(file);
  run_file_release(&f);
  rm_tree(dir);
}

/* ---- atomic writes ------------------------------------------------------ */

static void test_atomic_write(void) {
  char *dir = make_tmpdir("results");
  REQUIRE(dir);
  char *path = xasprintf("%s/out.txt", dir);

  CHECK(write_file_atomic(path, "hello\n", 6) == 0);
  char *text = read_text(path);
  CHECK_STR(text, "hello\n");
  free(text);
  CHECK(write_file_atomic(path, "", 0) == 0); /* empty is fine */
  text = read_text(path);
  CHECK_STR(text, "");
  free(text);
  CHECK(write_file_atomic(path, "old content\n", 12) == 0);

  /* The folder does not exist: an error, nothing created. */
  char *missing = xasprintf("%s/no/such/dir/out.txt", dir);
  fprintf(stderr, "(an error message is expected here)\n");
  CHECK(write_file_atomic(missing, "x", 1) == -1);
  CHECK(!file_exists(missing));
  free(missing);

  /* rename() fails (the target is a folder): the temporary file goes. */
  char *sub = xasprintf("%s/sub", dir);
  CHECK(mkdir(sub, 0777) == 0);
  char *inner = xasprintf("%s/keep", sub);
  CHECK(write_text(inner, "k") == 0);
  fprintf(stderr, "(an error message is expected here)\n");
  CHECK(write_file_atomic(sub, "data", 4) == -1);
  CHECK(file_exists(inner));
  CHECK(count_temp_files(dir) == 0);
  free(inner);
  free(sub);

  /* The disk fills up mid-write (a file size limit; works as root too):
   * -1, the old content intact, no temporary file left. */
  struct rlimit old;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  size_t big = 1 << 20;
  char *data = xmalloc(big);
  memset(data, 'x', big);
  if (setrlimit(RLIMIT_FSIZE, &small) == 0) {
    fprintf(stderr, "(an error message is expected here)\n");
    int rc = write_file_atomic(path, data, big);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(rc == -1);
    text = read_text(path);
    CHECK_STR(text, "old content\n");
    free(text);
    CHECK(count_temp_files(dir) == 0);
  } else {
    fprintf(stderr, "note: cannot lower RLIMIT_FSIZE, disk-full case not tested\n");
  }
  signal(SIGXFSZ, prev);
  free(data);

  free(path);
  rm_tree(dir);
}


/* ---- saving as a run goes: journal + periodic rewrite ------------------ */

static size_t cases_in_json_file(const char *path) {
  char *text = read_text(path);
  struct run_file back;
  char err[256] = "";
  size_t n = (size_t)-1;
  if (text && run_file_from_json(text, &back, err, sizeof err) == 0) {
    n = back.ncases;
    run_file_release(&back);
  }
  free(text);
  return n;
}

static void test_save_journal(void) {
  char *dir = make_tmpdir("results");
  REQUIRE(dir);
  struct run_file all, f;
  build_run(&all);
  f = all; /* borrowed: f shows the first f.ncases cases of all */
  struct results_run w;
  results_run_init(&w, dir);
  for (f.ncases = 1; f.ncases <= all.ncases; f.ncases++) CHECK(results_run_add(&w, &f) == 0);
  f.ncases = all.ncases;
  REQUIRE(w.base);
  char *json = xasprintf("%s.json", w.base), *journal = xasprintf("%s.journal", w.base);
  /* Within RESULTS_REWRITE_MIN_S the .json keeps the first case only: a
   * case costs one appended line, not a rewrite of everything. */
  CHECK(cases_in_json_file(json) == 1);
  CHECK(file_exists(journal));
  char *lines = read_text(journal);
  size_t nl = 0;
  for (char *p = lines; p && *p; p++) nl += *p == '\n';
  CHECK(nl == all.ncases - 1);
  free(lines);
  /* What a SIGKILL now leaves is whole: the .json and the journal together. */
  struct run_file back;
  char err[256] = "";
  CHECK(results_read_file(json, &back, err, sizeof err) == 0);
  CHECK(back.ncases == all.ncases);
  if (back.ncases == all.ncases) check_same_run(&all, &back);
  run_file_release(&back);
  /* A torn last line (a crash mid-write) is ignored. */
  FILE *fp = fopen(journal, "ab");
  REQUIRE(fp);
  fputs("{\"index\": 9, \"plu", fp);
  fclose(fp);
  CHECK(results_read_file(json, &back, err, sizeof err) == 0);
  CHECK(back.ncases == all.ncases);
  run_file_release(&back);

  CHECK(results_run_finish(&w, &f) == 0);
  CHECK(cases_in_json_file(json) == all.ncases);
  CHECK(!file_exists(journal));
  char *txt = xasprintf("%s.txt", w.base);
  char *text = read_text(txt), *want = run_file_to_text(&all);
  CHECK(text && strcmp(text, want) == 0);
  free(text), free(want), free(txt);
  CHECK(count_temp_files(dir) == 0);
  results_run_release(&w);
  free(json), free(journal);

  /* Rewrites due at every case (the thresholds at 0): the .json holds
   * every case as it ends and no journal is written. */
  char *d3 = xasprintf("%s/often", dir);
  struct results_run w3;
  results_run_init(&w3, d3);
  w3.rewrite_min_s = w3.rewrite_factor = 0;
  for (f.ncases = 1; f.ncases <= all.ncases; f.ncases++) {
    CHECK(results_run_add(&w3, &f) == 0);
    REQUIRE(w3.base);
    char *j3 = xasprintf("%s.json", w3.base), *l3 = xasprintf("%s.journal", w3.base);
    CHECK(cases_in_json_file(j3) == f.ncases);
    CHECK(!file_exists(l3));
    free(j3), free(l3);
  }
  f.ncases = all.ncases;
  CHECK(results_run_finish(&w3, &f) == 0);
  results_run_release(&w3);
  free(d3);

  /* A journal a killed run left holds its name: the next run takes .2. */
  char *d2 = xasprintf("%s/again", dir);
  REQUIRE(mkdir(d2, 0777) == 0);
  char *name = results_basename("2026-11-21", all.plugin, "smoke", all.env.tag);
  char *stale = xasprintf("%s/%s.journal", d2, name);
  CHECK(write_text(stale, "") == 0);
  char *b = NULL;
  CHECK(results_save(d2, &all, &b) == 0);
  char *got = b ? saved_name(b) : NULL, *want_name = xasprintf("%s.2", name);
  CHECK_STR(got, want_name);
  free(got), free(want_name), free(b), free(stale), free(name), free(d2);
  run_file_release(&all);
  rm_tree(dir);
}

/* ---- telemetry ------------------------------------------------------------ */

static struct gpu_value gv(double v) { return (struct gpu_value){1, v}; }

static void h100_facts(struct gpu_facts *f) {
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "NVIDIA H100 80GB HBM3");
  snprintf(f->driver, sizeof f->driver, "550.54.15");
  snprintf(f->bus_id, sizeof f->bus_id, "0000:3b:00.0");
  f->base_sm_clock_mhz = gv(1755);
  f->max_sm_clock_mhz = gv(1980);
  f->max_mem_clock_mhz = gv(2619);
  f->power_limit_w = gv(700);
  f->persistence = gv(1);
  f->compute_mode = gv(0);
  f->app_clocks_set = gv(0);
}

/* Everything a library and the plugin can give, throttled. */
static void set_full_telemetry(struct case_result *r) {
  struct case_telemetry *t = r->telemetry = xcalloc(1, sizeof *t);
  snprintf(t->bus_id, sizeof t->bus_id, "0000:3b:00.0");
  snprintf(t->library, sizeof t->library, "nvml");
  h100_facts(&t->facts);
  t->interval_ms = 50;
  t->readings = 23;
  t->sm_clock_mean = gv(1980.0 / 3.0 * 2.5); /* needs 17 digits */
  t->sm_clock_min = gv(1500);
  t->sm_clock_max = gv(1980);
  t->mem_clock_mean = gv(2619);
  t->mem_clock_min = gv(2619);
  t->mem_clock_max = gv(2619);
  t->nxcd = 2;
  t->xcd_clock_mean[0] = gv(2100);
  t->xcd_clock_min[0] = gv(2000);
  t->xcd_clock_mean[1] = gv(2050.5); /* min of XCD 1 absent */
  t->power_mean = gv(512.25);
  t->power_max = gv(690);
  t->power_limit = gv(700);
  t->temp_max = gv(61);
  t->mem_temp_max = gv(70);
  t->have_throttle = 1;
  t->throttle = GPU_THR_SW_POWER_CAP | GPU_THR_HW_THERMAL | GPU_THR_OTHER;
  t->throttle_ns[GPU_THR_TIME_POWER] = gv(12e6);
  t->throttle_ns[GPU_THR_TIME_THERMAL] = gv(0);
  t->other_procs_max = gv(0);
  t->default_clock_mhz = 1980;
  t->clock_samples = 6;
  t->clock_mean = 1300.5;
  t->clock_min = 1080;
  t->clock_max = 1975;
  t->threshold = 0.75;
  t->reference_mhz = 1980;
  t->discarded = 3;
  t->recovery_s = 0.35;
  t->throttled = 1;
  snprintf(t->throttled_by, sizeof t->throttled_by, "clock 1080 MHz < 75%% of 1980 MHz (sw_power_cap)");
  static const double clk[] = {1080, 1975, 1100, 1200, 1300, 1148};
  r->clock_mhz = copy_samples(clk, r->nsamples);
  r->clock_mhz[3] = NAN; /* that sample had no in-band clock */
}

/* The same device, a library that gives little: most values absent. */
static void set_partial_telemetry(struct case_result *r) {
  struct case_telemetry *t = r->telemetry = xcalloc(1, sizeof *t);
  snprintf(t->bus_id, sizeof t->bus_id, "3b:00.0");
  snprintf(t->library, sizeof t->library, "rocm_smi");
  h100_facts(&t->facts);
  t->interval_ms = 100;
  t->readings = 2;
  t->sm_clock_mean = gv(1500);
  t->power_max = gv(300);
}

/* A run with full telemetry (case 0), partial (1: the same device), none
 * (2, 4), a note and no readings (3: no library). */
static void build_telemetry_run(struct run_file *f) {
  build_run(f);
  set_full_telemetry(&f->cases[0]);
  set_partial_telemetry(&f->cases[1]);
  struct case_telemetry *t = f->cases[3].telemetry = xcalloc(1, sizeof *t);
  snprintf(t->bus_id, sizeof t->bus_id, "0000:c1:00.0");
  snprintf(t->note, sizeof t->note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open");
  t->default_clock_mhz = 2100;
}

static void test_round_trip_telemetry(void) {
  struct run_file f;
  build_telemetry_run(&f);
  round_trip(&f);
  char *json = run_file_to_json(&f);
  /* the facts are in the header once, the cases name the device */
  CHECK(strstr(json, "\"devices\": [\n      {\n        \"bus_id\": \"0000:3b:00.0\",") != NULL);
  CHECK(strstr(json, "\"device\": \"0000:3b:00.0\"") != NULL);
  CHECK(strstr(json, "\"facts\"") == NULL);
  CHECK(strstr(json, "\"compute_mode\": \"default\"") != NULL);
  CHECK(strstr(json, "\"clocks_locked\": false") != NULL);
  CHECK(strstr(json, "\"throttle_reasons\": [\n          \"sw_power_cap\",\n          \"hw_thermal\",\n          \"other\"\n        ]") != NULL);
  CHECK(strstr(json, "\"sm_clock_mhz\": {\n          \"mean\": 1500.0\n        }") != NULL); /* min/max absent */
  CHECK(strstr(json, "\"clock_mhz\": [\n          1080.0,\n          1975.0,\n          1100.0,\n          null,") != NULL);
  CHECK(strstr(json, "NaN") == NULL);
  /* no throttle reasons read: none written (not "[]") */
  CHECK(strstr(json, "\"throttle_reasons\": []") == NULL);
  free(json);

  /* streamed (the cases read before the header) and through the journal's line */
  char *dir = make_tmpdir("telemetry");
  REQUIRE(dir);
  char *base = NULL;
  REQUIRE(results_save(dir, &f, &base) == 0);
  char *path = xasprintf("%s.json", base);
  for (unsigned flags = 0; flags <= RESULTS_READ_STREAM; flags += RESULTS_READ_STREAM) {
    struct run_file back;
    char err[256] = "";
    int rc = results_read_file_flags(path, flags, &back, err, sizeof err);
    if (rc) fprintf(stderr, "read (flags %u): %s\n", flags, err);
    REQUIRE(rc == 0);
    check_same_run(&f, &back);
    REQUIRE(back.env.ndevices == 1);
    CHECK_STR(back.env.devices[0].name, "NVIDIA H100 80GB HBM3");
    run_file_release(&back);
  }
  free(path);
  free(base);
  rm_tree(dir);

  /* a second device state for the same bus id (the limit changed): inline */
  f.cases[1].telemetry->facts.power_limit_w = gv(600);
  json = run_file_to_json(&f);
  CHECK(strstr(json, "\"facts\": {") != NULL);
  free(json);
  round_trip(&f);
  run_file_release(&f);
}

static void test_telemetry_line(void) {
  struct run_file f;
  build_telemetry_run(&f);
  for (size_t i = 0; i < f.ncases; i++) {
    char *line = case_result_to_json_line(&f.cases[i]);
    CHECK(strstr(line, "NaN") == NULL);
    CHECK(strstr(line, "\"device\":\"0000") == NULL); /* the child's line carries the facts */
    struct case_result back;
    char err[256] = "";
    int rc = case_result_from_json_line(line, &back, err, sizeof err);
    if (rc) fprintf(stderr, "line %zu: %s\n", i, err);
    CHECK(rc == 0);
    if (!rc) check_same_case(&f.cases[i], &back);
    case_result_release(&back);
    free(line);
  }
  char *line = case_result_to_json_line(&f.cases[0]);
  CHECK(strstr(line, "\"facts\":{\"bus_id\":\"0000:3b:00.0\",\"name\":\"NVIDIA H100 80GB HBM3\"") != NULL);
  CHECK(strstr(line, "\"power_w\":{\"mean\":512.25,\"max\":690.0,\"limit\":700.0}") != NULL);
  CHECK(strstr(line, "\"throttle_ns\":{\"power\":12000000.0,\"thermal\":0.0}") != NULL);
  CHECK(strstr(line, "\"in_band\":{\"default_clock_mhz\":1980.0,\"samples\":6,") != NULL);
  CHECK(strstr(line, "\"throttle_rule\":{\"threshold\":0.75,\"reference_mhz\":1980.0,\"discarded\":3,") != NULL);
  CHECK(strstr(line, "\"throttled\":true,\"throttled_by\":\"clock 1080 MHz") != NULL);
  free(line);
  /* a value a buggy reader produced is never written as a number */
  f.cases[1].telemetry->power_mean = gv(NAN);
  f.cases[1].telemetry->interval_ms = INFINITY;
  line = case_result_to_json_line(&f.cases[1]);
  CHECK(strstr(line, "NaN") == NULL && strstr(line, "Infinity") == NULL);
  CHECK(strstr(line, "\"interval_ms\":null") != NULL);
  CHECK(strstr(line, "\"power_w\":{\"max\":300.0}") != NULL);
  free(line);
  run_file_release(&f);
}

static void test_telemetry_reject(void) {
  struct run_file f;
  build_telemetry_run(&f);
  char *json = run_file_to_json(&f);
  char *line = case_result_to_json_line(&f.cases[0]);
  run_file_release(&f);
  char *m = mutate(json, "\"sw_power_cap\"", "\"too_warm\"");
  expect_reject(m, "cases[0].telemetry.throttle_reasons[0]: not a throttle reason");
  free(m);
  m = mutate(json, "\"device\": \"0000:3b:00.0\"", "\"device\": \"0000:99:00.0\"");
  expect_reject(m, "cases[0].telemetry.device: \"0000:99:00.0\" is not in env.devices");
  free(m);
  m = mutate(json, "\"compute_mode\": \"default\"", "\"compute_mode\": \"shared\"");
  expect_reject(m, "env.devices[0].compute_mode: unknown value \"shared\"");
  free(m);
  m = mutate(json, "\"temp_c_max\": 61.0", "\"temp_c_max\": \"hot\"");
  expect_reject(m, "cases[0].telemetry.temp_c_max: expected a number");
  free(m);
  m = mutate(json, "\"readings\": 23", "\"readings\": -1");
  expect_reject(m, "cases[0].telemetry.readings: expected a non-negative integer");
  free(m);
  m = mutate(json, "\"throttled\": true", "\"throttled\": 1");
  expect_reject(m, "cases[0].telemetry.throttled: expected true or false");
  free(m);
  free(json);

  /* the line form cannot refer to a header it does not have */
  struct case_result r;
  char err[256] = "";
  m = mutate(line, "\"facts\":{\"bus_id\":\"0000:3b:00.0\",", "\"device\":\"0000:3b:00.0\",\"x\":{");
  CHECK(case_result_from_json_line(m, &r, err, sizeof err) == -1);
  CHECK(strstr(err, "telemetry.device: a case on its own cannot refer to env.devices") != NULL);
  free(m);
  m = mutate(line, "\"clock_mhz\":[1080.0", "\"clock_mhz\":[\"fast\"");
  CHECK(case_result_from_json_line(m, &r, err, sizeof err) == -1);
  CHECK(strstr(err, "samples.clock_mhz: value 0 is not a number or null") != NULL);
  free(m);
  free(line);
}

/* The .txt: the devices and the telemetry source in the header, the
 * THROTTLED mark in the table, one line per case with telemetry. */
static void test_telemetry_txt(void) {
  struct run_file f;
  build_telemetry_run(&f);
  char *text = run_file_to_text(&f);
  CHECK(strstr(text, "\ngpu            0000:3b:00.0 NVIDIA H100 80GB HBM3, driver 550.54.15, sm base 1755 MHz, "
                     "sm max 1980 MHz, mem max 2619 MHz, power limit 700 W, persistence on, compute mode default, "
                     "clocks not locked\n") != NULL);
  CHECK(strstr(text, "\ngpu telemetry  nvml; rocm_smi; no NVIDIA or AMD management library: "
                     "libnvidia-ml.so.1: cannot open\n") != NULL);
  CHECK(strstr(text, "  OK THROTTLED  ") != NULL);
  CHECK(strstr(text, "THROTTLED") == strstr(text, "  OK THROTTLED  ") + 5); /* case 0 only, in the table */
  CHECK(strstr(text, "    THROTTLED: clock 1080 MHz < 75% of 1980 MHz (sw_power_cap)\n"
                     "    gpu 0000:3b:00.0: sm 1650 MHz (min 1500), xcd 2100/2050 MHz, mem 2619 MHz, 512/700 W (max 690), "
                     "61 C (mem 70 C), throttle: sw_power_cap+hw_thermal+other (power 12 ms); in-band 1300 MHz "
                     "(min 1080, 6 samples); 3 throttled samples discarded (0.35 s recovery)\n") != NULL);
  CHECK(strstr(text, "    gpu 3b:00.0: sm 1500 MHz, power max 300 W\n") != NULL);
  CHECK(strstr(text, "    gpu 0000:c1:00.0: no readings\n") != NULL);
  CHECK(strstr(text, "    skipped: needs shaderFloat16\n  case 3") != NULL); /* no telemetry: no line */
  free(text);
  run_file_release(&f);
  /* a run without telemetry says nothing of GPUs */
  build_run(&f);
  text = run_file_to_text(&f);
  CHECK(strstr(text, "gpu") == NULL);
  free(text);
  run_file_release(&f);
}

/* ---- refusing files no bench wrote ------------------------------------ */

static void expect_invalid(void (*mutate_case)(struct case_result *), const char *want) {
  struct run_file f;
  build_run(&f);
  char err[256] = "";
  CHECK(run_file_validate(&f, err, sizeof err) == 0);
  mutate_case(&f.cases[1]);
  CHECK(run_file_validate(&f, err, sizeof err) == -1);
  if (!strstr(err, want)) {
    test_failures_++;
    fprintf(stderr, "validate: \"%s\" does not mention \"%s\"\n", err, want);
  }
  run_file_release(&f);
}

static void neg_index(struct case_result *r) { r->index = -1; }
static void neg_wall(struct case_result *r) { r->wall_s = -0.5; }
static void nan_wall(struct case_result *r) { r->wall_s = NAN; }
static void neg_flops(struct case_result *r) { r->flops = -1e9; }
static void inf_bytes(struct case_result *r) { r->bytes = INFINITY; }
static void bad_exit(struct case_result *r) { r->exit_code = -7; }
static void ok_failed_check(struct case_result *r) {
  r->status = CASE_OK;
  r->check.checked = 1;
  r->check.pass = 0;
}

static void neg_power(struct case_result *r) {
  set_partial_telemetry(r);
  r->telemetry->power_max = gv(-3);
}
static void nan_interval(struct case_result *r) {
  set_partial_telemetry(r);
  r->telemetry->interval_ms = NAN;
}
static void inf_in_band(struct case_result *r) {
  set_partial_telemetry(r);
  r->telemetry->clock_max = INFINITY;
}
static void neg_limit_fact(struct case_result *r) {
  set_partial_telemetry(r);
  r->telemetry->facts.power_limit_w = gv(-700);
}
static void cold_gpu(struct case_result *r) {
  set_partial_telemetry(r);
  r->telemetry->temp_max = gv(-80);
}
static void neg_clock_sample(struct case_result *r) {
  set_partial_telemetry(r);
  r->clock_mhz = xcalloc(r->nsamples, sizeof *r->clock_mhz);
  r->clock_mhz[2] = -1;
}
static void pending_device(struct case_result *r) {
  set_partial_telemetry(r);
  r->telemetry->facts.persistence.have = GPU_FACTS_PENDING;
}

static void test_validate(void) {
  expect_invalid(neg_power, "cases[1]: telemetry holds a negative or non-finite number");
  expect_invalid(nan_interval, "cases[1]: telemetry holds a negative or non-finite number");
  expect_invalid(inf_in_band, "cases[1]: telemetry holds a negative or non-finite number");
  expect_invalid(neg_limit_fact, "cases[1]: telemetry holds a negative or non-finite number");
  expect_invalid(cold_gpu, "cases[1]: telemetry holds a negative or non-finite number");
  expect_invalid(neg_clock_sample, "cases[1]: samples.clock_mhz holds a negative or infinite value");
  expect_invalid(pending_device, "cases[1]: telemetry.device names no device of env.devices");
  {
    struct run_file f;
    build_telemetry_run(&f);
    char err[256] = "";
    CHECK(run_file_validate(&f, err, sizeof err) == 0); /* a NaN clock sample: none that sample */
    run_file_release(&f);
  }
  expect_invalid(neg_index, "cases[1]: negative index");
  expect_invalid(neg_wall, "cases[1]: wall_s");
  expect_invalid(nan_wall, "cases[1]: wall_s");
  expect_invalid(neg_flops, "cases[1]: flops");
  expect_invalid(inf_bytes, "cases[1]: bytes");
  expect_invalid(bad_exit, "cases[1]: exit_code");
  expect_invalid(ok_failed_check, "cases[1]: status OK with a failed check");

  /* A whole document followed by a NUL and garbage is no result file. */
  struct run_file f;
  build_run(&f);
  char *json = run_file_to_json(&f);
  run_file_release(&f);
  size_t len = strlen(json);
  char *buf = xmalloc(len + 8);
  memcpy(buf, json, len);
  memcpy(buf + len, "\0garbag", 8);
  char err[256] = "";
  CHECK(run_file_from_json_buf(buf, len, &f, err, sizeof err) == 0);
  run_file_release(&f);
  CHECK(run_file_from_json_buf(buf, len + 7, &f, err, sizeof err) == -1);
  CHECK(strstr(err, "nul byte at offset") != NULL);
  CHECK(f.ncases == 0 && f.cases == NULL);
  free(buf);
  free(json);
}

TEST_MAIN(TEST_ENTRY(test_golden_txt), TEST_ENTRY(test_golden_json), TEST_ENTRY(test_label_commit),
          TEST_ENTRY(test_golden_rollup), TEST_ENTRY(test_round_trip), TEST_ENTRY(test_stop_rule),
          TEST_ENTRY(test_round_trip_odd_values), TEST_ENTRY(test_empty_run),
          TEST_ENTRY(test_json_line), TEST_ENTRY(test_reject), TEST_ENTRY(test_status),
          TEST_ENTRY(test_throughput), TEST_ENTRY(test_kv), TEST_ENTRY(test_basename),
          TEST_ENTRY(test_save_claims), TEST_ENTRY(test_save_concurrent),
          TEST_ENTRY(test_save_errors), TEST_ENTRY(test_atomic_write),
          TEST_ENTRY(test_save_journal), TEST_ENTRY(test_validate),
          TEST_ENTRY(test_work_source), TEST_ENTRY(test_unchecked),
          TEST_ENTRY(test_round_trip_telemetry), TEST_ENTRY(test_telemetry_line),
          TEST_ENTRY(test_telemetry_reject), TEST_ENTRY(test_telemetry_txt))
