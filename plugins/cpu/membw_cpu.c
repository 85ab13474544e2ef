/* membw_cpu: sustainable memory bandwidth, STREAM's four kernels on
 * arrays of doubles a, b, c (scalar q = 3):
 *   copy   c = a          2 words per element
 *   scale  b = q c        2 words
 *   add    c = a + b      3 words
 *   triad  a = b + q c    3 words
 * STREAM's rules: each array at least 4x the last-level cache (size, by
 * default "4*LLC", is read from sysfs at run time), bytes counted as above
 * (write-allocate traffic not counted), several trials with the first
 * skipped (the harness's warm-up) and the best one reported: STREAM's rate
 * is bytes / min_ms of the result; the harness's GB/s is at the median.
 * When the three arrays exceed the last-level cache the stores are
 * non-temporal (stores=auto), as STREAM built with streaming stores.
 * Split across `threads` threads, each touching its own part first. No
 * output to check against the reference (operation "none"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_pool.h"
#include "cpu_stream.h"

#define SCALAR 3.0
#define GRAIN 4096 /* elements: 32 KiB, so every thread's part is aligned */

enum kernel { COPY, SCALE, ADD, TRIAD };

struct membw {
  enum kernel kernel;
  int64_t n;
  int stream_bytes; /* non-temporal stores of 16 or 64 bytes; 0: normal stores */
  double *a, *b, *c;
  struct cpu_pool *pool;
};

static void run_range(void *arg, int64_t i0, int64_t i1, int tid) {
  (void)tid;
  const struct membw *s = arg;
  switch (s->kernel) {
  case COPY: cpu_stream_kernel(s->c, s->a, NULL, 1.0, i0, i1, s->stream_bytes); break;
  case SCALE: cpu_stream_kernel(s->b, NULL, s->c, SCALAR, i0, i1, s->stream_bytes); break;
  case ADD: cpu_stream_kernel(s->c, s->a, s->b, 1.0, i0, i1, s->stream_bytes); break;
  case TRIAD: cpu_stream_kernel(s->a, s->b, s->c, SCALAR, i0, i1, s->stream_bytes); break;
  }
}

/* STREAM's initial values, each thread writing its own part first. */
static void init_range(void *arg, int64_t i0, int64_t i1, int tid) {
  (void)tid;
  const struct membw *s = arg;
  for (int64_t i = i0; i < i1; i++) {
    s->a[i] = 2.0;
    s->b[i] = 2.0;
    s->c[i] = 0.0;
  }
}

static const struct bench_param params[] = {
    {.name = "kernel", .type = BENCH_PARAM_STRING, .description = "STREAM kernel",
     .choices = "copy,scale,add,triad",
     .defaults = {"copy,scale,add,triad", "copy,scale,add,triad", "copy,scale,add,triad",
                  "copy,triad"}},
    {.name = "size", .type = BENCH_PARAM_STRING,
     .description = "bytes per array: 64MiB, or relative to this machine's caches: 4*LLC, L2/2",
     .defaults = {"LLC/2", "4*LLC", "4*LLC", "1000KiB"}},
    CPU_THREADS_PARAM("0", "0", "1,0", "0"),
    {.name = "stores", .type = BENCH_PARAM_STRING,
     .description = "auto (non-temporal when the arrays exceed the LLC), normal, nontemporal",
     .choices = "auto,normal,nontemporal", .defaults = {"auto", "auto", "auto", "auto"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct membw *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const char *k = host->param_str(host, "kernel");
  s->kernel = !strcmp(k, "copy") ? COPY : !strcmp(k, "scale") ? SCALE : !strcmp(k, "add") ? ADD : TRIAD;
  int64_t bytes;
  if (bench_param_size(host, "size", cpu_size_caches(), &bytes)) return BENCH_ERROR;
  s->n = bytes / (int64_t)sizeof(double);
  if (s->n < 1) s->n = 1;
  const int64_t llc = cpu_llc_bytes();
  const char *stores = host->param_str(host, "stores");
  const int nontemporal = !strcmp(stores, "nontemporal") ||
                          (!strcmp(stores, "auto") && 3 * s->n * (int64_t)sizeof(double) > llc);
  s->stream_bytes = cpu_stream_store_bytes(nontemporal);

  if (!(s->pool = cpu_pool_from_param(host, s->n, GRAIN))) return BENCH_ERROR;
  const size_t b = (size_t)s->n * sizeof(double);
  s->a = cpu_alloc(b);
  s->b = cpu_alloc(b);
  s->c = cpu_alloc(b);
  if (!s->a || !s->b || !s->c) return host->fail(host, "out of memory for 3 x %zu MiB", b >> 20);
  cpu_parallel_for(s->pool, s->n, GRAIN, init_range, s);

  char text[64];
  snprintf(text, sizeof text, "%lld", (long long)llc);
  host->set_info(host, "llc_bytes", text);
  cpu_caches_note(host);
  snprintf(text, sizeof text, "%lld", (long long)b);
  host->set_info(host, "array_bytes", text);
  host->set_info(host, "stores", s->stream_bytes ? "nontemporal" : "normal");
  if (s->stream_bytes) host->set_info(host, "store_bytes", s->stream_bytes == 64 ? "64" : "16");
  const double words = s->kernel == COPY || s->kernel == SCALE ? 2 : 3;
  const double flops = s->kernel == COPY ? 0 : s->kernel == TRIAD ? 2 : 1;
  host->set_work(host, flops * (double)s->n, words * (double)b);
  /* Its figure is GB/s: scale, add and triad do at most 1/12 FLOP per
   * byte, bound by the memory whatever their FLOPs (the results keep
   * GFLOP/s too). */
  host->set_info(host, "primary", "bytes");
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct membw *s = state;
  cpu_parallel_for(s->pool, s->n, GRAIN, run_range, s);
  return BENCH_OK;
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct membw *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->a);
  cpu_free(s->b);
  cpu_free(s->c);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "membw_cpu",
    .backend = "cpu",
    .operation = "none",
    .description = "STREAM copy/scale/add/triad, arrays 4x the LLC; STREAM's best rate = bytes / min_ms",
    .params = params,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
