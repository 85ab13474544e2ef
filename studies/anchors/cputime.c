/* One case of a bench plugin timed by the thread's CPU time, for
 * studies/anchors.sh --cputime: on a machine shared with other work, the
 * CPU time of a one-thread case leaves out the time it waited for a CPU,
 * which wall-clock medians and even minima of long samples do not.
 *   cputime PLUGIN.so REPS [param=value ...]
 * Unnamed parameters take the plugin's perf-tier default (its first value).
 * A fake host runs setup, one warm-up run and REPS timed runs (threads=1:
 * all on this thread), and prints "gflops=G gbps=B" from the best run plus
 * the plugin's info as "info key=value" lines. The work is the plugin's
 * set_work figure, else the harness's operation table's for the checks its
 * verify() hands over (as bench counts it; linked from harness/src/check).
 * Inputs are pseudo-random in [-1, 1) (not the harness's sequence); outputs
 * are not verified (bench does that). */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/plugin.h"
#include "check/check.h"

static int nparams;
static char *keys[64], *vals[64];
static const struct bench_plugin *plugin;
static double work_flops, work_bytes;
static int plugin_work; /* set_work was called: its figure stands */

static const char *value(const char *name) {
  for (int i = 0; i < nparams; i++)
    if (!strcmp(keys[i], name)) return vals[i];
  static char buf[512];
  for (const struct bench_param *p = plugin->params; p && p->name; p++)
    if (!strcmp(p->name, name)) {
      snprintf(buf, sizeof buf, "%s", p->defaults[2] ? p->defaults[2] : "0");
      char *comma = strchr(buf, ',');
      if (comma) *comma = 0;
      return buf;
    }
  return "0";
}

static int64_t param_int(const struct bench_host *h, const char *n) { (void)h; return atoll(value(n)); }
static double param_float(const struct bench_host *h, const char *n) { (void)h; return atof(value(n)); }
static const char *param_str(const struct bench_host *h, const char *n) { (void)h; return value(n); }

static int report(const char *what, const char *fmt, va_list ap) {
  fprintf(stderr, "cputime: %s: ", what);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return 0;
}
static int skip(const struct bench_host *h, const char *fmt, ...) {
  (void)h;
  va_list ap;
  va_start(ap, fmt);
  report("skipped", fmt, ap);
  va_end(ap);
  return BENCH_SKIP;
}
static int fail(const struct bench_host *h, const char *fmt, ...) {
  (void)h;
  va_list ap;
  va_start(ap, fmt);
  report("failed", fmt, ap);
  va_end(ap);
  return BENCH_ERROR;
}
static void log_(const struct bench_host *h, const char *fmt, ...) { (void)h; (void)fmt; }
static void set_info(const struct bench_host *h, const char *k, const char *v) {
  (void)h;
  printf("info %s=%s\n", k, v);
}
static void set_work(const struct bench_host *h, double flops, double bytes) {
  (void)h;
  work_flops = flops;
  work_bytes = bytes;
  plugin_work = 1;
}
static void set_device_time(const struct bench_host *h, double ns) { (void)h; (void)ns; }
static void fill_random(const struct bench_host *h, void *dst, size_t count, enum bench_dtype t,
                        uint64_t seed) {
  (void)h;
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < count; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const float f = (float)((double)(s >> 40) / 8388608.0 - 1.0);
    if (t == BENCH_F32) {
      ((float *)dst)[i] = f;
    } else { /* f16 and bf16: 0 is fine for timing */
      ((uint16_t *)dst)[i] = 0;
    }
  }
}
/* Counts the work of a check of the plugin's operation, as bench does. */
static int check(const struct bench_host *h, const struct bench_check *c) {
  (void)h;
  struct check_problem p;
  if (plugin_work || check_prepare(c, &p, NULL, 0) != 0 || !plugin->operation ||
      strcmp(plugin->operation, p.op->name) != 0)
    return BENCH_OK;
  const struct op_work w = check_problem_work(&p);
  work_flops += w.flops;
  work_bytes += w.bytes;
  return BENCH_OK;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cputime PLUGIN.so REPS [param=value ...]\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cputime: %s\n", dlerror());
    return 1;
  }
  plugin = dlsym(lib, "bench_plugin_entry");
  if (!plugin) {
    fprintf(stderr, "cputime: %s is not a bench plugin\n", argv[1]);
    return 1;
  }
  const int reps = atoi(argv[2]);
  for (int i = 3; i < argc && nparams < 64; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) {
      fprintf(stderr, "cputime: '%s' is not param=value\n", argv[i]);
      return 2;
    }
    *eq = 0;
    keys[nparams] = argv[i];
    vals[nparams++] = eq + 1;
  }
  struct bench_host host = {
      .abi_version = BENCH_ABI_VERSION, .param_int = param_int, .param_float = param_float,
      .param_str = param_str, .skip = skip, .fail = fail, .log = log_, .set_info = set_info,
      .set_work = set_work, .set_device_time = set_device_time, .fill_random = fill_random,
      .check = check};
  void *ctx = NULL, *state = NULL;
  if (plugin->init && plugin->init(&host, &ctx) != BENCH_OK) return 1;
  if (plugin->setup(&host, ctx, &state) != BENCH_OK) return 1;
  double best = 1e30;
  plugin->run(&host, state); /* warm-up */
  for (int r = 0; r < reps; r++) {
    const double t0 = cpu_seconds();
    plugin->run(&host, state);
    const double t = cpu_seconds() - t0;
    if (t < best) best = t;
  }
  if (plugin->verify && plugin->verify(&host, state) != BENCH_OK) return 1; /* the work */
  printf("gflops=%.2f gbps=%.2f\n", work_flops / best * 1e-9, work_bytes / best * 1e-9);
  if (plugin->teardown) plugin->teardown(&host, state);
  if (plugin->deinit) plugin->deinit(&host, ctx);
  return 0;
}
