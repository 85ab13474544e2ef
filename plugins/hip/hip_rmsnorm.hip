/* hip_rmsnorm: y = x / sqrt(mean(x^2) + eps) * w for each row, f32/f16/bf16
 * in and out, fp32 arithmetic. Row reductions by wave (__shfl_xor) or block
 * (see hipb_rows.h). GB/s counts x read and y written. Verified against the
 * harness's rmsnorm reference. */
#include <stdlib.h>

#include "hipb_rows.h"

static const struct bench_param params[] = {
    ROWS_PARAM(BENCH_PARAM_ROWS, ROWS_DEFAULTS_ROWS),
    ROWS_PARAM(BENCH_PARAM_COLS, ROWS_DEFAULTS_COLS),
    ROWS_PARAM_DTYPE,
    ROWS_PARAM(BENCH_PARAM_RMSNORM_EPS, ROWS_DEFAULTS_EPS),
    HIPB_PARAM_FLUSH_L2,
    /* ABI 1.4: a tunable (bench tune); auto takes the cached winner */
    {.name = "block", .type = BENCH_PARAM_INT,
     .description = "threads per block of the block-per-row kernel (rows over 1024 values; a "
                    "tunable: auto takes bench tune's winner)",
     .min = 128, .max = 1024, .defaults = {"256", "256", "256", "256"}, .tunable = 1,
     .candidates = "256,128,512,1024"},
    {.name = NULL},
};

/* A wave of W lanes per row, VALS values per lane kept in registers. */
template <typename T, int W, int VALS>
__global__ __launch_bounds__(ROWS_THREADS) void rmsnorm_wave(const T *__restrict__ x,
                                                              const T *__restrict__ w,
                                                              T *__restrict__ y, int64_t rows,
                                                              int cols, float eps) {
  HIPB_WAVE_ONLY(W);
  const int lane = threadIdx.x % W;
  const int64_t row = rows_wave_row<W>();
  const bool live = row < rows; /* a dead wave still joins the shuffles */
  const T *xr = x + (live ? row : 0) * cols;
  float v[VALS];
  float ss = 0.0f;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    v[i] = live && j < cols ? hipb_to_f32(xr[j]) : 0.0f;
    ss += v[i] * v[i];
  }
  ss = hipb_wave_sum<W>(ss);
  const float r = rsqrtf(ss / (float)cols + eps);
  if (!live) return;
  T *yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    if (j < cols) yr[j] = hipb_from_f32<T>(v[i] * r * hipb_to_f32(w[j]));
  }
}

/* A block of NT threads per row: sum of squares, then a second pass that
 * writes. */
template <typename T, int W, int NT>
__global__ __launch_bounds__(NT) void rmsnorm_block(const T *__restrict__ x, const T *__restrict__ w,
                                                    T *__restrict__ y, int cols, float eps) {
  HIPB_WAVE_ONLY(W);
  __shared__ float scratch[NT / W];
  const int64_t row = blockIdx.x;
  const T *xr = x + row * cols;
  float ss = 0.0f;
  for (int j = threadIdx.x; j < cols; j += NT) {
    const float a = hipb_to_f32(xr[j]);
    ss += a * a;
  }
  ss = hipb_block_sum<NT, W>(ss, scratch);
  const float r = rsqrtf(ss / (float)cols + eps);
  T *yr = y + row * cols;
  for (int j = threadIdx.x; j < cols; j += NT)
    yr[j] = hipb_from_f32<T>(hipb_to_f32(xr[j]) * r * hipb_to_f32(w[j]));
}

struct rmsnorm {
  struct hipb_ctx *ctx;
  int64_t rows, cols;
  double eps;
  enum bench_dtype dtype;
  enum rows_shape shape;
  int block; /* threads per block of rmsnorm_block */
  struct hipb_buf x, w, y;
};

template <typename T, int W> static int launch_w(const struct bench_host *h, struct rmsnorm *s) {
  const T *x = (const T *)s->x.dev, *w = (const T *)s->w.dev;
  T *y = (T *)s->y.dev;
  const dim3 grid = rows_grid(s->shape, s->rows, W), block(ROWS_THREADS);
  const int cols = (int)s->cols;
  const float eps = (float)s->eps;
  if (s->shape == ROWS_WAVE256)
    HIPB_LAUNCH(h, (rmsnorm_wave<T, W, 256 / W>), grid, block, 0, s->ctx->stream, x, w, y, s->rows, cols, eps);
  else if (s->shape == ROWS_WAVE1024)
    HIPB_LAUNCH(h, (rmsnorm_wave<T, W, 1024 / W>), grid, block, 0, s->ctx->stream, x, w, y, s->rows, cols, eps);
  else if (s->block == 128)
    HIPB_LAUNCH(h, (rmsnorm_block<T, W, 128>), grid, dim3(128), 0, s->ctx->stream, x, w, y, cols, eps);
  else if (s->block == 512)
    HIPB_LAUNCH(h, (rmsnorm_block<T, W, 512>), grid, dim3(512), 0, s->ctx->stream, x, w, y, cols, eps);
  else if (s->block == 1024)
    HIPB_LAUNCH(h, (rmsnorm_block<T, W, 1024>), grid, dim3(1024), 0, s->ctx->stream, x, w, y, cols, eps);
  else
    HIPB_LAUNCH(h, (rmsnorm_block<T, W, ROWS_THREADS>), grid, block, 0, s->ctx->stream, x, w, y, cols, eps);
  return BENCH_OK;
}

template <typename T> static int launch(const struct bench_host *h, struct rmsnorm *s) {
  return s->ctx->wave == 32 ? launch_w<T, 32>(h, s) : launch_w<T, 64>(h, s);
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct rmsnorm *s = (struct rmsnorm *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  s->rows = h->param_int(h, "rows");
  s->cols = h->param_int(h, "cols");
  s->eps = h->param_float(h, "eps");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
  s->shape = rows_shape_of(s->cols);
  s->block = (int)h->param_int(h, "block");
  if (s->block != 128 && s->block != 256 && s->block != 512 && s->block != 1024)
    return h->skip(h, "block %d: the kernel is built for 128, 256, 512 and 1024 threads", s->block);
  if (s->shape != ROWS_BLOCK && s->block != ROWS_THREADS)
    return h->skip(h, "block applies to rows over 1024 values (a block per row); %lld values run "
                      "a wave per row (block %d runs it)", (long long)s->cols, ROWS_THREADS);
  if (s->block > s->ctx->prop.maxThreadsPerBlock)
    return h->skip(h, "block %d is over %s's %d threads per block", s->block, s->ctx->prop.name,
                   s->ctx->prop.maxThreadsPerBlock);
  char kernel[64];
  h->set_info(h, "kernel", rows_shape_name(s->shape, s->ctx->wave, kernel, sizeof kernel));
  const size_t n = (size_t)(s->rows * s->cols);
  HIPB_TRY(hipb_input(h, &s->x, n, s->dtype, 1));
  HIPB_TRY(hipb_input(h, &s->w, (size_t)s->cols, s->dtype, 2));
  HIPB_TRY(hipb_output(h, &s->y, n, s->dtype));
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct rmsnorm *s = (struct rmsnorm *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(ROWS_DISPATCH(s->dtype, launch, h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct rmsnorm *s = (struct rmsnorm *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  struct bench_check c = {};
  c.op = "rmsnorm";
  c.dtype = c.out_dtype = s->dtype;
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
  struct rmsnorm *s = (struct rmsnorm *)state;
  hipb_free(&s->x);
  hipb_free(&s->w);
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("rmsnorm"),
    .backend = HIPB_BACKEND,
    .operation = "rmsnorm",
    .description = "RMSNorm rows (f32/f16/bf16), wave-level __shfl_xor reductions",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .abi_needed = BENCH_ABI_1_4,
    .run_batch = run_batch,
    BENCH_PLUGIN_SIZES,
};
