/* hip_fill: y[i] = value over n = size/4 fp32 elements, device memory write
 * bandwidth (GB/s = 4n bytes per iteration). 16-byte stores in a
 * grid-stride loop sized to fill every compute unit. Verified against the
 * harness's "fill" reference (exact). */
#include <stdlib.h>

#include "hipb.h"

#define FILL_VALUE 0.75f

static const struct bench_param params[] = {
    HIPB_PARAM_SIZE("buffer"),
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

__global__ __launch_bounds__(256) void hip_fill_kernel(float4 *__restrict__ y4, size_t n4,
                                                       float *__restrict__ y, size_t n, float v) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (size_t i = gid; i < n4; i += stride) y4[i] = make_float4(v, v, v, v);
  for (size_t i = n4 * 4 + gid; i < n; i += stride) y[i] = v; /* the last n % 4 */
}

struct fill {
  struct hipb_ctx *ctx;
  size_t n;
  unsigned blocks;
  struct hipb_buf y;
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct fill *s = (struct fill *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  int64_t bytes = 0;
  HIPB_TRY(bench_param_size(h, "size", NULL, &bytes));
  s->n = ((size_t)bytes + sizeof(float) - 1) / sizeof(float);
  HIPB_TRY(hipb_output(h, &s->y, s->n, BENCH_F32));
  s->blocks = hipb_grid_fill(s->ctx, (s->n / 4 + 255) / 256, 32);
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct fill *s = (struct fill *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++)
    HIPB_LAUNCH(h, hip_fill_kernel, dim3(s->blocks), dim3(256), 0, s->ctx->stream,
                (float4 *)s->y.dev, s->n / 4, (float *)s->y.dev, s->n, FILL_VALUE);
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct fill *s = (struct fill *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  const float value = FILL_VALUE;
  struct bench_check c = {};
  c.op = "fill";
  c.dtype = c.out_dtype = BENCH_F32;
  c.n = (int64_t)s->n;
  c.in[0] = &value;
  c.out = s->y.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct fill *s = (struct fill *)state;
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("fill"),
    .backend = HIPB_BACKEND,
    .operation = "fill",
    .description = "fp32 fill, device memory write bandwidth (16-byte stores)",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
