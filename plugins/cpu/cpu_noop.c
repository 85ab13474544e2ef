/* cpu_noop: a calibration plugin whose iteration does nothing. Its median
 * is the harness's own floor per iteration (the call through the plugin
 * ABI and the timing loop, spread over a batch), to read next to the
 * times of short kernels. */
#include <stddef.h>

#include "bench/plugin.h"

static const struct bench_param params[] = {{.name = NULL}};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)host;
  (void)ctx;
  *state = NULL;
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  (void)state;
  return BENCH_OK;
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_noop",
    .backend = "cpu",
    .operation = "none",
    .description = "calibration: an empty iteration, the harness's floor per iteration",
    .params = params,
    .setup = setup,
    .run = run,
};
