/* hip_noop_launch: the cost of launching an empty kernel (one block of 64
 * threads), the floor under every other HIP measurement.
 *   mode=async  `launches` launches back to back, one wait at the end: the
 *               launch rate (host time / launches = enqueue cost; device time
 *               / launches = the GPU's dispatch interval)
 *   mode=sync   each launch waited for before the next: launch latency
 * One iteration is all `launches`; divide the median by it. Nothing to
 * verify (operation "none"). */
#include <stdlib.h>
#include <string.h>

#include "hipb.h"

static const struct bench_param params[] = {
    {.name = "mode", .type = BENCH_PARAM_STRING,
     .description = "async: launches back to back, one wait; sync: wait after each launch",
     .choices = "async,sync", .min = 0, .max = 0, .zip = 0,
     .defaults = {"async,sync", "async,sync", "async,sync", "async,sync"}},
    {.name = "launches", .type = BENCH_PARAM_INT, .description = "kernel launches per iteration",
     .choices = NULL, .min = 1, .max = 1000000, .zip = 0,
     .defaults = {"10", "100", "1000", "1"}},
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

extern "C" __global__ void hip_noop_kernel(void) {}

struct noop {
  struct hipb_ctx *ctx;
  int sync;
  int64_t launches;
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct noop *s = (struct noop *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  s->sync = strcmp(h->param_str(h, "mode"), "sync") == 0;
  s->launches = h->param_int(h, "launches");
  h->set_work(h, 0, 0);
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct noop *s = (struct noop *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n * s->launches; i++) {
    HIPB_LAUNCH(h, hip_noop_kernel, dim3(1), dim3(64), 0, s->ctx->stream, );
    if (s->sync) HIPB_CHECK(h, hipStreamSynchronize(s->ctx->stream));
  }
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  free(state);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("noop_launch"),
    .backend = HIPB_BACKEND,
    .operation = "none",
    .description = "empty-kernel launch cost: async launch rate and launch+sync latency",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = NULL,
    .teardown = teardown,
    .run_batch = run_batch,
};
