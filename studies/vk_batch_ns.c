/* vk_batch_ns: the cost per iteration of a small GPU kernel with a host
 * sync per iteration (run) against n iterations per sync (run_batch), at
 * the level of one plugin, without the harness:
 *   vk_batch_ns PLUGIN.so N [name=value ...]
 * Parameters not given take the first value of their smoke default. Times
 * 2000 iterations each way after a warm-up and prints, for each, the median
 * over 15 repetitions of host ns per iteration and device ns per iteration
 * (the plugin's timestamps). Built by studies/CMakeLists.txt, run by
 * studies/vk_batch_ns.sh. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/plugin.h"

#ifndef ITERS
#define ITERS 2000 /* iterations per repetition */
#endif
#ifndef REPS
#define REPS 15
#endif
#ifndef WARMUP
#define WARMUP 200
#endif

static const struct bench_plugin *P;
static char **Over;
static int NOver;
static double Device_ns;
static char Value[256];

static const char *param_text(const struct bench_host *h, const char *name) {
  (void)h;
  size_t len = strlen(name);
  for (int i = 0; i < NOver; i++)
    if (strncmp(Over[i], name, len) == 0 && Over[i][len] == '=') return Over[i] + len + 1;
  for (const struct bench_param *q = P->params; q->name; q++)
    if (strcmp(q->name, name) == 0) {
      snprintf(Value, sizeof Value, "%.*s", (int)strcspn(q->defaults[0], ","), q->defaults[0]);
      return Value;
    }
  fprintf(stderr, "vk_batch_ns: unknown parameter %s\n", name);
  exit(2);
}
static int64_t param_int(const struct bench_host *h, const char *n) { return strtoll(param_text(h, n), NULL, 10); }
static double param_float(const struct bench_host *h, const char *n) { return strtod(param_text(h, n), NULL); }
static const char *param_str(const struct bench_host *h, const char *n) { return param_text(h, n); }
static int say(int rc, const char *fmt, va_list ap) {
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return rc;
}
static int skip(const struct bench_host *h, const char *fmt, ...) {
  (void)h;
  va_list ap;
  va_start(ap, fmt);
  int rc = say(BENCH_SKIP, fmt, ap);
  va_end(ap);
  return rc;
}
static int fail(const struct bench_host *h, const char *fmt, ...) {
  (void)h;
  va_list ap;
  va_start(ap, fmt);
  int rc = say(BENCH_ERROR, fmt, ap);
  va_end(ap);
  return rc;
}
static void logf_(const struct bench_host *h, const char *fmt, ...) {
  (void)h;
  va_list ap;
  va_start(ap, fmt);
  say(0, fmt, ap);
  va_end(ap);
}
static void set_info(const struct bench_host *h, const char *k, const char *v) { (void)h, (void)k, (void)v; }
static void set_work(const struct bench_host *h, double f, double b) { (void)h, (void)f, (void)b; }
static void set_device_time(const struct bench_host *h, double ns) { (void)h, Device_ns += ns; }
static void fill_random(const struct bench_host *h, void *dst, size_t count, enum bench_dtype t,
                        uint64_t seed) {
  (void)h, (void)t, (void)seed;
  memset(dst, 0, count * 4); /* f32 and f16 only here: 4 bytes is enough for both */
}
static int check(const struct bench_host *h, const struct bench_check *c) { (void)h, (void)c; return BENCH_OK; }

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: vk_batch_ns PLUGIN.so N [name=value ...]\n");
    return 2;
  }
  void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!so || !(P = dlsym(so, BENCH_PLUGIN_SYMBOL))) {
    fprintf(stderr, "vk_batch_ns: %s\n", dlerror());
    return 2;
  }
  const int64_t n = strtoll(argv[2], NULL, 10);
  Over = argv + 3;
  NOver = argc - 3;
  if (n < 1 || P->abi_version < BENCH_ABI_1_1 || !P->run_batch) {
    fprintf(stderr, "vk_batch_ns: %s has no run_batch (or N < 1)\n", P->name);
    return 2;
  }
  struct bench_host h = {BENCH_ABI_1_0, NULL, param_int, param_float, param_str, skip, fail,
                         logf_, set_info, set_work, set_device_time, fill_random, check, NULL};
  void *ctx = NULL, *state = NULL;
  if ((P->init && P->init(&h, &ctx)) || P->setup(&h, ctx, &state)) return 1;
  double host[2][REPS], dev[2][REPS];
  for (int i = 0; i < WARMUP; i++) /* warm-up, the JIT included */
    if (P->run(&h, state) || P->run_batch(&h, state, n)) return 1;
  for (int r = 0; r < REPS; r++)
    for (int mode = 0; mode < 2; mode++) {
      Device_ns = 0;
      const double t0 = now_ns();
      for (int64_t i = 0; i < ITERS; i += mode ? n : 1)
        if (mode ? P->run_batch(&h, state, n) : P->run(&h, state)) return 1;
      const double iters = mode ? (double)((ITERS + n - 1) / n * n) : ITERS;
      host[mode][r] = (now_ns() - t0) / iters;
      dev[mode][r] = Device_ns / iters;
    }
  for (int mode = 0; mode < 2; mode++) {
    qsort(host[mode], REPS, sizeof(double), cmp);
    qsort(dev[mode], REPS, sizeof(double), cmp);
    printf("%-12s %-10s host %9.1f ns/iter  device %9.1f ns/iter  (medians of %d x %d iterations)\n",
           P->name, mode ? "run_batch" : "run", host[mode][REPS / 2], dev[mode][REPS / 2], REPS,
           ITERS);
  }
  if (P->teardown) P->teardown(&h, state);
  if (P->deinit) P->deinit(&h, ctx);
  return 0;
}
