/* hip_vec_add: c[i] = a[i] + b[i] over n = size/4 fp32 elements, device memory
 * bandwidth (GB/s = 12n bytes per iteration: two reads, one write; STREAM's
 * "add"). 16-byte accesses in a grid-stride loop sized to fill every
 * compute unit. Verified against the harness's "add" reference. */
#include <stdlib.h>

#include "hipb.h"

static const struct bench_param params[] = {
    HIPB_PARAM_SIZE("vector"),
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

__global__ __launch_bounds__(256) void hip_vec_add_kernel(
    const float4 *__restrict__ a4, const float4 *__restrict__ b4, float4 *__restrict__ c4,
    size_t n4, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
    size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (size_t i = gid; i < n4; i += stride) {
    const float4 x = a4[i], y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (size_t i = n4 * 4 + gid; i < n; i += stride) c[i] = a[i] + b[i]; /* the last n % 4 */
}

struct vec_add {
  struct hipb_ctx *ctx;
  size_t n;
  unsigned blocks;
  struct hipb_buf a, b, c;
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct vec_add *s = (struct vec_add *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  int64_t bytes = 0;
  HIPB_TRY(bench_param_size(h, "size", NULL, &bytes));
  s->n = ((size_t)bytes + sizeof(float) - 1) / sizeof(float);
  HIPB_TRY(hipb_input(h, &s->a, s->n, BENCH_F32, 1));
  HIPB_TRY(hipb_input(h, &s->b, s->n, BENCH_F32, 2));
  HIPB_TRY(hipb_output(h, &s->c, s->n, BENCH_F32));
  s->blocks = hipb_grid_fill(s->ctx, (s->n / 4 + 255) / 256, 32);
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct vec_add *s = (struct vec_add *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++)
    HIPB_LAUNCH(h, hip_vec_add_kernel, dim3(s->blocks), dim3(256), 0, s->ctx->stream,
                (const float4 *)s->a.dev, (const float4 *)s->b.dev, (float4 *)s->c.dev, s->n / 4,
                (const float *)s->a.dev, (const float *)s->b.dev, (float *)s->c.dev, s->n);
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct vec_add *s = (struct vec_add *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->c));
  struct bench_check c = {};
  c.op = "add";
  c.dtype = c.out_dtype = BENCH_F32;
  c.n = (int64_t)s->n;
  c.in[0] = s->a.host;
  c.in[1] = s->b.host;
  c.out = s->c.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct vec_add *s = (struct vec_add *)state;
  hipb_free(&s->a);
  hipb_free(&s->b);
  hipb_free(&s->c);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("vec_add"),
    .backend = HIPB_BACKEND,
    .operation = "add",
    .description = "fp32 c = a + b, device memory bandwidth (STREAM add, 16-byte accesses)",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
