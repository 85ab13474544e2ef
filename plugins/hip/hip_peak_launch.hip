/* hip_peak_launch: the launch roof (latency: ns per launch), the least a
 * kernel costs in a stream of kernels. One iteration is `launches`
 * launches of a one-thread kernel back to back on the plugin's stream
 * between two events, one wait (hip_noop_launch's mode=async, whose
 * mode=sync gives the launch+sync round trip); bench.items/1 counts the
 * launches, so the result is ns per launch and launches/s. Each launch adds
 * one to a counter in device memory that setup zeroes, and verify compares
 * it with the launches the plugin made since: the output is their ratio,
 * exactly 1 (the same after every run, as the determinism check wants; a
 * launch that did not run, or ran twice, is a wrong answer). No datasheet
 * figure. */
#include <stdlib.h>

#include "hipb_peak.h"

static const struct bench_param params[] = {
    {.name = "launches", .type = BENCH_PARAM_INT,
     .description = "kernel launches per iteration, back to back",
     .choices = NULL, .min = 1, .max = 1000000, .zip = 0,
     .defaults = {"100", "1000", "10000", "1,7"}},
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

__global__ void peak_launch_count(unsigned long long *counter) { counter[0] += 1; }

struct peak {
  struct hipb_ctx *ctx;
  int64_t launches;
  double made; /* launches since the counter was zeroed */
  unsigned long long *counter, seen;
};

static int ref_fn(const struct bench_host *h, void *user, int64_t start, int64_t n, double *dst) {
  (void)h, (void)user, (void)start, (void)n;
  dst[0] = 1;
  return BENCH_OK;
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct peak *s = (struct peak *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_peak_require(h));
  HIPB_TRY(hipb_setup(h, s->ctx));
  s->launches = h->param_int(h, "launches");
  HIPB_CHECK(h, hipMalloc(&s->counter, sizeof *s->counter));
  HIPB_CHECK(h, hipMemset(s->counter, 0, sizeof *s->counter));
  HIPB_CHECK(h, hipDeviceSynchronize());
  h->set_work(h, 0, 0);
  const struct bench_ext_items *items =
      (const struct bench_ext_items *)bench_host_extension(h, BENCH_EXT_ITEMS);
  if (items) {
    items->set_items(h, (double)s->launches, "launches");
    h->set_info(h, "primary", "latency"); /* its figure is time per launch, its roof's unit */
  }
  return hipb_peak_roof(h, BENCH_ROOF_LATENCY, "launch", "one-thread kernels back to back on a stream",
                        0, 0, NULL);
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct peak *s = (struct peak *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n * s->launches; i++) {
    HIPB_LAUNCH(h, peak_launch_count, dim3(1), dim3(1), 0, s->ctx->stream, s->counter);
    s->made++;
  }
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct peak *s = (struct peak *)state;
  HIPB_CHECK(h, hipStreamSynchronize(s->ctx->stream));
  HIPB_CHECK(h, hipMemcpy(&s->seen, s->counter, sizeof s->seen, hipMemcpyDeviceToHost));
  if (s->made < 1) return h->fail(h, "verify before any launch");
  /* exact when equal: both stay far below 2^53 */
  const double ratio = (double)s->seen / s->made;
  return hipb_peak_compare(h, "launches counted per launch made", BENCH_F64, &ratio, 1, ref_fn, s);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct peak *s = (struct peak *)state;
  if (s->counter) (void)hipFree(s->counter);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("peak_launch"),
    .backend = HIPB_BACKEND,
    .operation = "peak",
    .description = "launch roof: one-thread kernels back to back, ns per launch; each counts "
                   "itself, verify checks the count",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
