/* peak_cpu_bw: bandwidth per cache level and of memory, from a sweep of
 * working sets, with four kernels on doubles:
 *   read   the sum of x                     1 array
 *   write  dst = v (a fill)                 1 array
 *   copy   dst = x                          2 arrays
 *   triad  dst = x + 3 y                    3 arrays
 * on one thread (roofs l1.1t .. dram.1t) and on every CPU (l1 .. dram).
 * `size` is one thread's working set, all its arrays together; a
 * cache-relative size is that thread's share of the cache (cpu_peak.h:
 * "LLC/2" on 8 threads sharing an L3 is LLC/16 each, half the L3 in all).
 * Each thread has its own part of every array and sweeps it, `passes`
 * times per iteration (as many as make 64 MiB, at most 2^16, so that an
 * iteration on a part in L1 lasts far longer than waking the threads); it takes its own part first, then what
 * is left of the others' (a part in pieces where it is in memory), so a
 * part stays in its thread's caches. The case's roof is the level its
 * working set lives in (cpu_peak_level_of), capacity that level's size;
 * bytes as STREAM counts them (no write-allocate traffic). In memory the
 * stores are non-temporal (stores=auto), with membw_cpu's kernels
 * (cpu_stream.c).
 * Correctness-gated: the inputs are small integers, so the sums are exact;
 * every part's sum, and every element of a written array (its padding to
 * a whole cache line too, which nothing may write), is compared exactly
 * with the known values: a thread that did not run, a part left out, a
 * store past its part is WRONG_ANSWER. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_peak.h"
#include "cpu_pool.h"
#include "cpu_stream.h"

#define PASS_BYTES ((int64_t)64 << 20) /* a thread's bytes per iteration, at least */
#define PASSES_MAX (1 << 16)
#define PIECES 8                        /* pieces of a part in memory */
#define LINE_ELEMS 8                    /* doubles in a cache line */
#define TRIAD_Q 3.0
#define UNSET -1.0                      /* what an output holds before any run */

enum kernel { READ, WRITE, COPY, TRIAD };
static const char *const kernel_names[] = {"read", "write", "copy", "triad"};
static const int kernel_arrays[] = {1, 1, 2, 3};

struct next {
  _Alignas(64) atomic_llong units; /* units of a part claimed this iteration */
};

struct bw {
  enum kernel kernel;
  int threads, units, passes, stream_bytes, initialising;
  int64_t m, stride;     /* elements per array per thread; m rounded up to a line */
  double *x, *y, *dst;   /* [threads][stride]: the inputs and the output */
  double *sums;          /* read: [threads][units] */
  struct next *next;     /* [threads] */
  struct cpu_pool *pool;
};

/* The inputs, by element: small integers. */
static double x_value(int64_t i) { return (double)(1 + i % 7); }
static double y_value(int64_t i) { return (double)(1 + i % 5); }

/* Unit u of thread part b: piece u of it (whole lines), `passes` times. */
static void bw_unit(struct bw *s, int b, int u) {
  int64_t i0, i1;
  cpu_split(s->initialising ? s->stride : s->m, LINE_ELEMS, u, s->units, &i0, &i1);
  i0 += b * s->stride;
  i1 += b * s->stride;
  if (s->initialising) {
    for (int64_t i = i0; i < i1; i++) {
      if (s->x) s->x[i] = x_value(i);
      if (s->y) s->y[i] = y_value(i);
      if (s->dst) s->dst[i] = UNSET;
    }
    return;
  }
  double sum = 0;
  for (int p = 0; p < s->passes; p++) {
    switch (s->kernel) {
    case READ: sum += cpu_stream_sum(s->x + i0, i1 - i0); break;
    case WRITE: cpu_stream_kernel(s->dst, NULL, NULL, 1.0 + b, i0, i1, s->stream_bytes); break;
    case COPY: cpu_stream_kernel(s->dst, s->x, NULL, 1.0, i0, i1, s->stream_bytes); break;
    case TRIAD: cpu_stream_kernel(s->dst, s->x, s->y, TRIAD_Q, i0, i1, s->stream_bytes); break;
    }
    __asm__ __volatile__("" ::: "memory"); /* every pass is made: none is hoisted */
  }
  if (s->kernel == READ) s->sums[b * s->units + u] = sum;
}

/* A thread's own part first (its index in the pool), then what is left of
 * the others'. */
static void bw_task(void *arg, int slot, int slots) {
  (void)slot;
  (void)slots;
  struct bw *s = arg;
  const int first = cpu_pool_thread() % s->threads;
  for (int i = 0; i < s->threads; i++) {
    const int b = (first + i) % s->threads;
#ifdef CPU_PEAK_BROKEN
    if (!s->initialising && b == s->threads - 1) continue; /* the planted bug: a part left out */
#endif
    for (long long u; (u = atomic_fetch_add_explicit(&s->next[b].units, 1, memory_order_relaxed)) <
                      s->units;)
      bw_unit(s, b, (int)u);
  }
}

static void sweep(struct bw *s) {
  for (int b = 0; b < s->threads; b++)
    atomic_store_explicit(&s->next[b].units, 0, memory_order_relaxed);
  cpu_pool_run_slots(s->pool, s->threads, bw_task, s);
}

static const struct bench_param params[] = {
    {.name = "kernel", .type = BENCH_PARAM_STRING,
     .description = "read (a sum), write (a fill), copy, triad (x + 3 y)",
     .choices = "read,write,copy,triad",
     .defaults = {"read,write,copy,triad", "read,write,copy,triad", "read,write,copy,triad",
                  "read,write,copy,triad"}},
    {.name = "size", .type = BENCH_PARAM_STRING,
     .description = "one thread's working set, all its arrays: 64KiB, or its share of a cache: "
                    "L1/2, L2/2, LLC/2, 8*LLC",
     .defaults = {"L1/2,L2/2,2*LLC", "L1/2,L2/2,LLC/2,8*LLC",
                  "L1/2,L2/2,LLC/4,LLC/2,8*LLC", "8,1000,L2/2"}},
    CPU_THREADS_PARAM("1,0", "1,0", "1,0", "1,3,0"),
    {.name = "stores", .type = BENCH_PARAM_STRING,
     .description = "auto (non-temporal when the working set is in memory), normal, nontemporal",
     .choices = "auto,normal,nontemporal", .defaults = {"auto", "auto", "auto", "auto"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct bw *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const char *k = host->param_str(host, "kernel");
  while (strcmp(kernel_names[s->kernel], k) != 0 && s->kernel < TRIAD) s->kernel++;
  const int64_t param = host->param_int(host, "threads");
  s->threads = cpu_threads_resolve(param);
  struct bench_caches shares;
  cpu_peak_share_caches(&shares, &s->threads);
  int64_t bytes;
  if (bench_param_size(host, "size", &shares, &bytes)) return BENCH_ERROR;
  const int arrays = kernel_arrays[s->kernel];
  s->m = bytes / (arrays * (int64_t)sizeof(double));
  if (s->m < 1) s->m = 1;
  s->stride = (s->m + LINE_ELEMS - 1) / LINE_ELEMS * LINE_ELEMS;
  const int64_t ws = arrays * s->m * (int64_t)sizeof(double);
  struct cpu_peak_level level;
  cpu_peak_level_of(ws, s->threads, &level);
  const char *stores = host->param_str(host, "stores");
  const int nontemporal = !strcmp(stores, "nontemporal") || (!strcmp(stores, "auto") && !level.level);
  s->stream_bytes = s->kernel == READ ? 0 : cpu_stream_store_bytes(nontemporal);
  s->passes = ws >= PASS_BYTES ? 1 : (int)((PASS_BYTES + ws - 1) / ws);
  if (s->passes > PASSES_MAX) s->passes = PASSES_MAX;
  s->units = s->passes == 1 ? PIECES : 1;

  const size_t n = (size_t)s->threads * (size_t)s->stride;
  s->next = cpu_alloc((size_t)s->threads * sizeof *s->next);
  if (s->kernel == READ) s->sums = cpu_alloc((size_t)s->threads * (size_t)s->units * sizeof *s->sums);
  else s->dst = cpu_alloc(n * sizeof *s->dst);
  if (s->kernel != WRITE) s->x = cpu_alloc(n * sizeof *s->x);
  if (s->kernel == TRIAD) s->y = cpu_alloc(n * sizeof *s->y);
  if (!s->next || (s->kernel == READ ? !s->sums : !s->dst) || (s->kernel != WRITE && !s->x) ||
      (s->kernel == TRIAD && !s->y))
    return host->fail(host, "out of memory for %d x %d x %lld bytes", arrays, s->threads,
                      (long long)(s->stride * (int64_t)sizeof(double)));
  for (int64_t i = 0; s->sums && i < (int64_t)s->threads * s->units; i++) s->sums[i] = UNSET;
  if (!(s->pool = cpu_pool_for_case(host, s->threads, s->threads))) return BENCH_ERROR;
  s->initialising = 1; /* each part first touched by its own thread */
  sweep(s);
  s->initialising = 0;

  char text[64];
  snprintf(text, sizeof text, "%lld", (long long)ws);
  host->set_info(host, "working_set_bytes", text);
  host->set_info(host, "level", level.id);
  snprintf(text, sizeof text, "%d", s->passes);
  host->set_info(host, "passes", text);
  if (s->kernel != READ) host->set_info(host, "stores", s->stream_bytes ? "nontemporal" : "normal");
  if (s->stream_bytes) host->set_info(host, "store_bytes", s->stream_bytes == 64 ? "64" : "16");
  cpu_caches_note(host);
  const double per_run = (double)s->threads * s->passes;
  host->set_work(host, s->kernel == TRIAD ? 2.0 * (double)s->m * per_run : 0, (double)ws * per_run);
  host->set_info(host, "primary", "bytes"); /* a bandwidth roof: GB/s, triad's FLOPs too */

  char method[64];
  snprintf(method, sizeof method, "%s%s", s->kernel == READ ? "read (sum)" : kernel_names[s->kernel],
           s->stream_bytes ? ", non-temporal stores" : "");
  const struct bench_roof roof = {.kind = BENCH_ROOF_BANDWIDTH, .id = level.id, .method = method,
                                  .capacity_bytes = (double)level.bytes};
  return cpu_peak_roof(host, &roof, cpu_peak_scope(param, s->threads), s->threads);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  sweep(state);
  return BENCH_OK;
}

/* The references, by element: read's sum of a unit over its passes; a
 * written array's value, UNSET in the padding. */
static int sum_reference(const struct bench_host *host, void *user, int64_t start, int64_t n,
                         double *dst) {
  (void)host;
  const struct bw *s = user;
  for (int64_t e = 0; e < n; e++) {
    const int64_t b = (start + e) / s->units, u = (start + e) % s->units;
    int64_t i0, i1;
    cpu_split(s->m, LINE_ELEMS, (int)u, s->units, &i0, &i1);
    double sum = 0;
    for (int64_t i = i0; i < i1; i++) sum += x_value(b * s->stride + i);
    dst[e] = sum * s->passes;
  }
  return BENCH_OK;
}

static int array_reference(const struct bench_host *host, void *user, int64_t start, int64_t n,
                           double *dst) {
  (void)host;
  const struct bw *s = user;
  for (int64_t e = 0; e < n; e++) {
    const int64_t i = start + e, b = i / s->stride;
    dst[e] = i % s->stride >= s->m ? UNSET
             : s->kernel == WRITE  ? 1.0 + (double)b
             : s->kernel == COPY   ? x_value(i)
                                   : x_value(i) + TRIAD_Q * y_value(i);
  }
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  struct bw *s = state;
  const int read = s->kernel == READ;
  const struct bench_compare c = {
      .name = read ? "sums" : "dst", .dtype = BENCH_F64, .ref_dtype = BENCH_F64,
      .count = (int64_t)s->threads * (read ? s->units : s->stride), .cols = read ? s->units : s->stride,
      .out = read ? s->sums : s->dst, .ref_fn = read ? sum_reference : array_reference, .user = s,
      .tol = BENCH_TOL_EXACT};
  return cpu_peak_compare(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct bw *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->x);
  cpu_free(s->y);
  cpu_free(s->dst);
  cpu_free(s->sums);
  cpu_free(s->next);
  free(s);
}

CPU_PEAK_PLUGIN("peak_cpu_bw",
                "bandwidth per cache level and memory: read, write, copy, triad over a "
                "working-set sweep, compared exactly (roofs l1 l2 l3 dram, .1t)");
