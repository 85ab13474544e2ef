/* The CPU kernels of studies/ab_coverage.sh, built once per planted ratio:
 * AB_SCALE (e.g. 1.02) scales each kernel's work at build time, so two
 * builds differ by a known ratio of time. One case a kind:
 *   chain    compute-bound: a dependent 64-bit LCG chain of n steps
 *   stream   memory-bound: the sum of a float buffer of n elements (the
 *            script sizes it at 4x the last-level cache or more)
 *   chase    latency-bound: n dependent loads of a random cycle over a
 *            buffer of `nodes` 64-byte nodes (larger than the caches)
 *   threads  a 2-thread kernel: two LCG chains of n/2 steps, one a thread,
 *            started and joined every run
 * Each kernel's work is linear in n, so the time ratio of two builds is the
 * ratio of their scales (the per-call cost outside the loop is well under
 * 1% of a call). verify() checks every kernel's result exactly. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"

#ifndef AB_SCALE
#define AB_SCALE 1.0
#endif

enum kind { CHAIN, STREAM, CHASE, THREADS };

struct st {
  enum kind kind;
  int64_t n;
  uint64_t x, expect;       /* chain, threads: the last result, the known one */
  float *buf;               /* stream */
  double sum, expect_sum;
  uint32_t *next, *order;   /* chase: next[] a cycle, order[] the cycle's visiting order */
  size_t nodes, stride, pos;
  uint64_t hops;
};

static uint64_t lcg(uint64_t x, int64_t n) {
  for (int64_t i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

struct half { uint64_t seed, out; int64_t n; };

static void *half_run(void *arg) {
  struct half *h = arg;
  h->out = lcg(h->seed, h->n);
  return NULL;
}

static uint64_t two_threads(int64_t n, int *err) {
  struct half h[2] = {{1, 0, n / 2}, {2, 0, n - n / 2}};
  pthread_t t;
  *err = pthread_create(&t, NULL, half_run, &h[1]) != 0;
  if (*err) return 0;
  half_run(&h[0]);
  pthread_join(t, NULL);
  return h[0].out ^ h[1].out;
}

/* The sum in blocks of 8 partial sums (vectorisable at -O2, exact for
 * the buffer's small integers). */
static double stream_sum(const float *b, int64_t n) {
  float acc[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) acc[k] += b[i + k];
  double s = 0;
  for (int k = 0; k < 8; k++) s += acc[k];
  for (; i < n; i++) s += b[i];
  return s;
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct st *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const char *kind = host->param_str(host, "kind");
  s->kind = !strcmp(kind, "stream") ? STREAM : !strcmp(kind, "chase") ? CHASE : !strcmp(kind, "threads") ? THREADS : CHAIN;
  s->n = (int64_t)((double)host->param_int(host, "n") * AB_SCALE + 0.5);
  switch (s->kind) {
  case CHAIN: s->expect = lcg(1, s->n); break;
  case THREADS: s->expect = lcg(1, s->n / 2) ^ lcg(2, s->n - s->n / 2); break;
  case STREAM:
    s->buf = malloc((size_t)s->n * sizeof *s->buf);
    if (!s->buf) return host->fail(host, "out of memory for %lld floats", (long long)s->n);
    /* values 0..3: every partial sum stays an exact float below 2^24 */
    for (int64_t i = 0; i < s->n; i++) s->buf[i] = (float)(i & 3);
    s->expect_sum = stream_sum(s->buf, s->n);
    break;
  case CHASE: {
    s->nodes = (size_t)host->param_int(host, "nodes");
    s->stride = 16; /* uint32 words a node: 64 bytes, one line */
    s->next = malloc(s->nodes * s->stride * sizeof *s->next);
    s->order = malloc(s->nodes * sizeof *s->order);
    if (!s->next || !s->order) return host->fail(host, "out of memory for %zu nodes", s->nodes);
    for (size_t i = 0; i < s->nodes; i++) s->order[i] = (uint32_t)i;
    uint64_t r = 0x9e3779b97f4a7c15ull; /* the same cycle in every build */
    for (size_t i = s->nodes - 1; i > 0; i--) {
      size_t j = (size_t)(xorshift(&r) % (i + 1));
      uint32_t t = s->order[i];
      s->order[i] = s->order[j];
      s->order[j] = t;
    }
    for (size_t i = 0; i < s->nodes; i++)
      s->next[(size_t)s->order[i] * s->stride] = s->order[(i + 1) % s->nodes];
    s->pos = s->order[0];
    break;
  }
  }
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  struct st *s = state;
  int err = 0;
  switch (s->kind) {
  case CHAIN: s->x = lcg(1, s->n); break;
  case THREADS:
    s->x = two_threads(s->n, &err);
    if (err) return host->fail(host, "pthread_create failed");
    break;
  case STREAM: s->sum = stream_sum(s->buf, s->n); break;
  case CHASE: {
    size_t p = s->pos;
    for (int64_t i = 0; i < s->n; i++) p = s->next[p * s->stride];
    s->pos = p;
    s->hops += (uint64_t)s->n;
    break;
  }
  }
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  struct st *s = state;
  switch (s->kind) {
  case CHAIN:
  case THREADS:
    if (s->x != s->expect) return host->fail(host, "chain result %llx, expected %llx", (unsigned long long)s->x, (unsigned long long)s->expect);
    break;
  case STREAM:
    if (s->sum != s->expect_sum) return host->fail(host, "sum %.17g, expected %.17g", s->sum, s->expect_sum);
    break;
  case CHASE:
    if (s->pos != s->order[s->hops % s->nodes])
      return host->fail(host, "after %llu hops at node %zu, expected %u", (unsigned long long)s->hops, s->pos,
                        s->order[s->hops % s->nodes]);
    break;
  }
  return BENCH_OK;
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct st *s = state;
  if (!s) return;
  free(s->buf);
  free(s->next);
  free(s->order);
  free(s);
}

static const struct bench_param params[] = {
    {.name = "kind", .type = BENCH_PARAM_STRING, .description = "which kernel", .choices = "chain,stream,chase,threads",
     .defaults = {"chain", "chain", "chain", "chain"}},
    {.name = "n", .type = BENCH_PARAM_INT, .description = "the kernel's work (steps, floats or hops)", .min = 1,
     .max = 4000000000, .defaults = {"2000000", "2000000", "2000000", "2000000"}},
    {.name = "nodes", .type = BENCH_PARAM_INT, .description = "chase: nodes of 64 bytes", .min = 2,
     .max = 100000000, .defaults = {"1048576", "1048576", "1048576", "1048576"}},
    {.name = NULL},
};

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ab_kinds",
    .backend = "cpu",
    .operation = "none",
    .description = "studies/ab_coverage.sh: four kinds of CPU kernel, work scaled at build time",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
