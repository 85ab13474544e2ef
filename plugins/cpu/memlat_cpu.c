/* memlat_cpu: load-to-use latency, lmbench lat_mem_rd style. The working
 * set is a ring of 64-byte nodes (one cache line each) linked in a random
 * cyclic order (Sattolo's shuffle), so every load depends on the one before
 * and no prefetcher can guess the next line. One iteration follows `loads`
 * links; ns per load = median time / loads. With the default loads =
 * 1000000 the median in ms IS the latency in ns. Its figure is that time
 * per load (info "primary" latency, the loads counted as items); the
 * results still hold GB/s at 64 B per load.
 * One case per working-set size (size: "32KiB", or relative to this
 * machine's caches, "L2/2", "4*LLC"), so the L1, L2, L3 and DRAM plateaus
 * show as rows of the results. Rings from 4 MiB up ask for transparent huge
 * pages, so large sizes measure the memory, not page walks. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/plugin.h"
#include "cpu_common.h"

#define LINE CPU_RING_LINE

struct memlat {
  struct cpu_ring_node *ring;
  const struct cpu_ring_node *cursor; /* where the chase stopped: the next one goes on */
  int64_t loads;
};

static const struct bench_param params[] = {
    {.name = "size", .type = BENCH_PARAM_STRING,
     .description = "working set: 32KiB, 256MiB, or relative to this machine's caches: L2/2, 4*LLC",
     .defaults = {"16KiB,L2/2,LLC/2,2*LLC",
                  "4KiB,8KiB,16KiB,32KiB,64KiB,128KiB,256KiB,512KiB,1MiB,2MiB,4MiB,8MiB,"
                  "16MiB,32MiB,64MiB,128MiB,256MiB,512MiB,8*LLC",
                  "4KiB,8KiB,16KiB,32KiB,64KiB,128KiB,256KiB,512KiB,1MiB,2MiB,4MiB,8MiB,"
                  "16MiB,32MiB,64MiB,128MiB,256MiB,512MiB,1GiB,8*LLC",
                  "4KiB,L1,1000000"}},
    {.name = "loads", .type = BENCH_PARAM_INT,
     .description = "dependent loads per iteration (1000000: median ms = ns per load)", .min = 1,
     .max = 1e12, .defaults = {"100000", "1000000", "1000000", "1000"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct memlat *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const char *size = host->param_str(host, "size");
  int64_t bytes;
  if (bench_param_size(host, "size", cpu_size_caches(), &bytes)) return BENCH_ERROR;
  const int64_t n = bytes / LINE < 2 ? 2 : bytes / LINE;
  if (n > (int64_t)UINT32_MAX) return host->fail(host, "size '%s': too large", size);
  s->loads = host->param_int(host, "loads");
  s->ring = cpu_alloc((size_t)n * sizeof *s->ring);
  uint32_t *order = malloc((size_t)n * sizeof *order);
  if (!s->ring || !order) {
    free(order);
    return host->fail(host, "out of memory for a %lld-node ring", (long long)n);
  }
  cpu_ring_link(s->ring, order, n, 0x5eed);
  free(order);
  s->cursor = s->ring;

  char text[64];
  snprintf(text, sizeof text, "%lld", (long long)(n * LINE));
  host->set_info(host, "working_set_bytes", text);
  snprintf(text, sizeof text, "%lld", (long long)cpu_llc_bytes());
  host->set_info(host, "llc_bytes", text);
  if (strpbrk(size, "Ll")) cpu_caches_note(host); /* sized by a cache */
  host->set_work(host, 0, (double)s->loads * LINE);
  /* A chase is bound by latency: its figure is ns per load (without the
   * items extension, a harness older than 1.1 shows GB/s). */
  const struct bench_ext_items *items = bench_host_extension(host, BENCH_EXT_ITEMS);
  if (items) {
    items->set_items(host, (double)s->loads, "loads");
    host->set_info(host, "primary", "latency");
  }
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct memlat *s = state;
  s->cursor = cpu_ring_chase(s->cursor, s->loads);
  return BENCH_OK;
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct memlat *s = state;
  cpu_free(s->ring);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "memlat_cpu",
    .backend = "cpu",
    .operation = "none",
    .description = "load-to-use latency by a random pointer chase; ns per load = median / loads "
                   "(median ms at loads=1000000)",
    .params = params,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
