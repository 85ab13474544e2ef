/* cpu_spin: a calibration plugin. One iteration is a dependent chain of
 * `iters` 64-bit multiply-adds (cpu_spin_chain.c, about 4 cycles each on
 * x86: imul 3 + add 1), so its time is known independently of bench: the
 * anchors script times the same function with Google Benchmark. Its figure
 * is the time per step (items "steps", primary latency): integer steps
 * that wait on each other are no FLOPs and move no bytes. */
#include <stdlib.h>

#include "bench/plugin.h"
#include "cpu_spin_chain.h"

struct spin {
  uint64_t iters, x;
};

static const struct bench_param params[] = {
    {.name = "iters", .type = BENCH_PARAM_INT, .description = "dependent steps per iteration",
     .min = 1, .max = 1e12, .defaults = {"10000", "1000000", "10000000", "1,1000"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct spin *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  s->iters = (uint64_t)host->param_int(host, "iters");
  s->x = 1;
  const struct bench_ext_items *items = bench_host_extension(host, BENCH_EXT_ITEMS);
  if (items) {
    items->set_items(host, (double)s->iters, "steps");
    host->set_info(host, "primary", "latency");
  }
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct spin *s = state;
  s->x = cpu_spin_chain(s->iters, s->x);
  return BENCH_OK;
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  free(state);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_spin",
    .backend = "cpu",
    .operation = "none",
    .description = "calibration: a dependent chain of `iters` multiply-adds (~4 cycles each)",
    .params = params,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
