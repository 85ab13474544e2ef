/* peak_cpu_lat: load-to-use latency per cache level and of memory, by
 * memlat_cpu's pointer chase: a ring of 64-byte nodes linked in a random
 * cyclic order (cpu_ring_link), so every load depends on the one before
 * and no prefetcher can guess the next line; one iteration follows `loads`
 * links, going on where the last one stopped. One case per working set
 * (`size`, e.g. "L1/2", "LLC/2", "8*LLC"), its roof lat_l1 .. lat_dram
 * for the level the ring lives in (cpu_peak_level_of on one thread), in
 * ns per load (bench.items/1: `loads` items named "loads"); a ring less
 * than 4x the level below names no roof (it mixes in that level's hits).
 * Correctness-gated: the ring's order is known from its construction, so
 * the node an iteration reached is `loads` places after the one it started
 * from; verify hands over how many places the chase actually went
 * (through the ring's ranks, without walking it) and compares it exactly
 * with loads mod ring length: a chase cut short or skipped is
 * WRONG_ANSWER. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_peak.h"

#define MIXED_BELOW 4 /* a level's roof needs a ring this many times the level below */

struct lat {
  struct cpu_ring_node *ring;
  uint32_t *rank;                            /* a node's place in the ring's order */
  int64_t n, loads;
  const struct cpu_ring_node *start, *cursor; /* where the last iteration started and stopped */
  int32_t went;                               /* verify: places from start to cursor */
};

static const struct bench_param params[] = {
    {.name = "size", .type = BENCH_PARAM_STRING,
     .description = "working set: 32KiB, 256MiB, or relative to this machine's caches: L1/2, "
                    "LLC/2, 8*LLC",
     .defaults = {"L1/2,L2/2,LLC/2,4*LLC", "L1/2,L2/2,LLC/2,8*LLC", "L1/2,L2/2,LLC/2,16*LLC",
                  "128,4KiB,L1,1000000"}},
    {.name = "loads", .type = BENCH_PARAM_INT,
     .description = "dependent loads per iteration", .min = 1, .max = 1e12,
     .defaults = {"100000", "1000000", "1000000", "1,999"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct lat *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  int64_t bytes;
  if (bench_param_size(host, "size", cpu_size_caches(), &bytes)) return BENCH_ERROR;
  s->n = bytes / CPU_RING_LINE < 2 ? 2 : bytes / CPU_RING_LINE;
  if (s->n > INT32_MAX)
    return host->fail(host, "size '%s': too large (2^31 nodes at most)", host->param_str(host, "size"));
  s->loads = host->param_int(host, "loads");
  s->ring = cpu_alloc((size_t)s->n * sizeof *s->ring);
  s->rank = malloc((size_t)s->n * sizeof *s->rank);
  uint32_t *order = malloc((size_t)s->n * sizeof *order);
  if (!s->ring || !s->rank || !order) {
    free(order);
    return host->fail(host, "out of memory for a %lld-node ring", (long long)s->n);
  }
  cpu_ring_link(s->ring, order, s->n, 0x5eed);
  for (int64_t i = 0; i < s->n; i++) s->rank[order[i]] = (uint32_t)i;
  free(order);
  s->start = s->cursor = s->ring;

  struct cpu_peak_level level;
  cpu_peak_level_of(s->n * CPU_RING_LINE, 1, &level);
  char text[128], id[16];
  snprintf(text, sizeof text, "%lld", (long long)(s->n * CPU_RING_LINE));
  host->set_info(host, "working_set_bytes", text);
  host->set_info(host, "level", level.id);
  cpu_caches_note(host);
  host->set_work(host, 0, (double)s->loads * CPU_RING_LINE);
  const struct bench_ext_items *items = bench_host_extension(host, BENCH_EXT_ITEMS);
  if (!items) {
    host->set_info(host, "no_roof", "a latency roof is ns per load: needs bench.items/1");
    return BENCH_OK;
  }
  items->set_items(host, (double)s->loads, "loads");
  host->set_info(host, "primary", "latency"); /* its figure is ns per load, its roof's unit */
  /* A ring within MIXED_BELOW times the level below finds many of its
   * lines there (a random 2 MiB ring over a 1 MiB L2: half), and the
   * lowest latency of an id must be its own level's: such a ring names no
   * roof. */
  const int below = level.level ? level.level - 1 : cpu_caches()->llc;
  const int64_t below_bytes = below >= 1 ? cpu_cache_bytes(below) : 0;
  if (s->n * CPU_RING_LINE < MIXED_BELOW * below_bytes) {
    snprintf(text, sizeof text, "the ring is within %dx the L%d: it mixes in that level's hits",
             MIXED_BELOW, below);
    host->set_info(host, "no_roof", text);
    return BENCH_OK;
  }
  snprintf(id, sizeof id, "lat_%s", level.id);
  const struct bench_roof roof = {.kind = BENCH_ROOF_LATENCY, .id = id,
                                  .method = "random pointer chase, 64-byte nodes",
                                  .capacity_bytes = (double)level.bytes};
  return cpu_peak_roof(host, &roof, "", 1);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct lat *s = state;
  s->start = s->cursor;
#ifdef CPU_PEAK_BROKEN
  s->cursor = cpu_ring_chase(s->cursor, s->loads - 1); /* the planted bug: one load short */
#else
  s->cursor = cpu_ring_chase(s->cursor, s->loads);
#endif
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  struct lat *s = state;
  const int64_t from = s->rank[s->start - s->ring], to = s->rank[s->cursor - s->ring];
  s->went = (int32_t)((to - from + s->n) % s->n);
  const int32_t want = (int32_t)(s->loads % s->n);
  const struct bench_compare c = {.name = "places gone", .dtype = BENCH_I32, .ref_dtype = BENCH_I32,
                                  .count = 1, .out = &s->went, .ref = &want, .tol = BENCH_TOL_EXACT};
  return cpu_peak_compare(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct lat *s = state;
  cpu_free(s->ring);
  free(s->rank);
  free(s);
}

CPU_PEAK_PLUGIN("peak_cpu_lat",
                "load-to-use latency per cache level and memory by a random pointer chase, "
                "the places gone compared exactly (roofs lat_l1 .. lat_dram)");
