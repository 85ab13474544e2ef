/* ex_hip_rmsnorm: an example HIP plugin, RMSNorm with one block of 256
 * threads per row, on the installed helpers <bench/hipb.h> (pkg-config
 * bench-hip): error checks, device choice, events, staging. Checked against
 * the harness's rmsnorm. Without a GPU every case is SKIPPED. */
#include <stdlib.h>

#include <bench/hipb.h>

#define BLOCK 256

/* The kernel: each thread sums the squares of every BLOCK-th element of the
 * row, the block adds those sums up, then every thread scales its elements.
 * W is the wave size (64 on CDNA, 32 on RDNA): run_batch launches the one of
 * the device (ctx->wave); each target compiles only its own. */
template <int W>
__global__ __launch_bounds__(BLOCK) void rmsnorm(const float *x, const float *w, float *y,
                                                 int cols, float eps) {
  HIPB_WAVE_ONLY(W);
  __shared__ float scratch[BLOCK / W];
  const float *xr = x + (size_t)blockIdx.x * cols;
  float *yr = y + (size_t)blockIdx.x * cols;
  float ss = 0.0f;
  for (int j = threadIdx.x; j < cols; j += BLOCK) ss += xr[j] * xr[j];
  const float rstd = rsqrtf(hipb_block_sum<BLOCK, W>(ss, scratch) / (float)cols + eps);
  for (int j = threadIdx.x; j < cols; j += BLOCK) yr[j] = xr[j] * rstd * w[j];
}

static const struct bench_param params[] = {
    /* <bench/params.h>'s declarations of rmsnorm's parameters, the same in
     * every backend's plugins; the defaults per tier (smoke, standard, perf,
     * verify) are ours. rows and cols advance together (zip 1): smoke runs
     * 7x1000 and 64x4096. */
    BENCH_PARAM_ROWS("7,64", "4096", "16384", "1,3,17"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096", "1,7,4099"),
    BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    HIPB_PARAM_FLUSH_L2, /* hipb_setup reads it: 1 = cold caches */
    {.name = NULL},
};

struct state {
  struct hipb_ctx *ctx;
  int64_t rows, cols;
  float eps;
  struct hipb_buf x, w, y;
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct state *s = (struct state *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s; /* teardown frees it, whatever happens next */
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx)); /* stream and events */
  s->rows = h->param_int(h, "rows");
  s->cols = h->param_int(h, "cols");
  s->eps = (float)h->param_float(h, "eps");
  const size_t n = (size_t)(s->rows * s->cols);
  HIPB_TRY(hipb_input(h, &s->x, n, BENCH_F32, 1)); /* host->fill_random, copied to the device */
  HIPB_TRY(hipb_input(h, &s->w, (size_t)s->cols, BENCH_F32, 2));
  HIPB_TRY(hipb_output(h, &s->y, n, BENCH_F32));
  h->set_work(h, 4.0 * (double)n, 2.0 * (double)n * sizeof(float)); /* read x, write y */
  return BENCH_OK;
}

/* n iterations between two events, one wait; their interval is the device
 * time of the batch. run is a batch of one. */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct state *s = (struct state *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) {
    if (s->ctx->wave == 32)
      HIPB_LAUNCH(h, rmsnorm<32>, dim3((unsigned)s->rows), dim3(BLOCK), 0, s->ctx->stream,
                  (const float *)s->x.dev, (const float *)s->w.dev, (float *)s->y.dev,
                  (int)s->cols, s->eps);
    else
      HIPB_LAUNCH(h, rmsnorm<64>, dim3((unsigned)s->rows), dim3(BLOCK), 0, s->ctx->stream,
                  (const float *)s->x.dev, (const float *)s->w.dev, (float *)s->y.dev,
                  (int)s->cols, s->eps);
  }
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct state *s = (struct state *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  struct bench_check c = {};
  c.op = "rmsnorm";
  c.dtype = c.out_dtype = BENCH_F32;
  c.rows = s->rows;
  c.cols = s->cols;
  c.eps = s->eps;
  c.in[0] = s->x.host;
  c.in[1] = s->w.host;
  c.out = s->y.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = (struct state *)state;
  hipb_free(&s->x);
  hipb_free(&s->w);
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ex_hip_rmsnorm",
    .backend = "hip",
    .operation = "rmsnorm",
    .description = "example: RMSNorm in HIP, one block per row",
    .params = params,
    .init = hipb_init, /* no device: SKIPPED with the reason */
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
