/* hip_layernorm: y = (x - mean) / sqrt(var + eps) * w + b for each row
 * (biased variance, two passes: mean, then the mean square of x - mean),
 * f32/f16/bf16 in and out, fp32 arithmetic. Row reductions by wave
 * (__shfl_xor) or block (see hipb_rows.h). GB/s counts x read and y
 * written. Verified against the harness's layernorm reference. */
#include <stdlib.h>

#include "hipb_rows.h"

static const struct bench_param params[] = {
    ROWS_PARAM(BENCH_PARAM_ROWS, ROWS_DEFAULTS_ROWS),
    ROWS_PARAM(BENCH_PARAM_COLS, ROWS_DEFAULTS_COLS),
    ROWS_PARAM_DTYPE,
    ROWS_PARAM(BENCH_PARAM_LAYERNORM_EPS, ROWS_DEFAULTS_EPS),
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

/* A wave of W lanes per row, VALS values per lane kept in registers. */
template <typename T, int W, int VALS>
__global__ __launch_bounds__(ROWS_THREADS) void layernorm_wave(
    const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b, T *__restrict__ y,
    int64_t rows, int cols, float eps) {
  HIPB_WAVE_ONLY(W);
  const int lane = threadIdx.x % W;
  const int64_t row = rows_wave_row<W>();
  const bool live = row < rows; /* a dead wave still joins the shuffles */
  const T *xr = x + (live ? row : 0) * cols;
  float v[VALS];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    v[i] = live && j < cols ? hipb_to_f32(xr[j]) : 0.0f;
    sum += v[i];
  }
  const float mean = hipb_wave_sum<W>(sum) / (float)cols;
  float sq = 0.0f;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    const float d = j < cols ? v[i] - mean : 0.0f;
    sq += d * d;
  }
  const float rstd = rsqrtf(hipb_wave_sum<W>(sq) / (float)cols + eps);
  if (!live) return;
  T *yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    if (j < cols)
      yr[j] = hipb_from_f32<T>((v[i] - mean) * rstd * hipb_to_f32(w[j]) + hipb_to_f32(b[j]));
  }
}

/* A block per row: three passes over the row (mean, variance, write). */
template <typename T, int W>
__global__ __launch_bounds__(ROWS_THREADS) void layernorm_block(
    const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b, T *__restrict__ y,
    int cols, float eps) {
  HIPB_WAVE_ONLY(W);
  __shared__ float scratch[ROWS_THREADS / W];
  const int64_t row = blockIdx.x;
  const T *xr = x + row * cols;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += ROWS_THREADS) sum += hipb_to_f32(xr[j]);
  const float mean = hipb_block_sum<ROWS_THREADS, W>(sum, scratch) / (float)cols;
  float sq = 0.0f;
  for (int j = threadIdx.x; j < cols; j += ROWS_THREADS) {
    const float d = hipb_to_f32(xr[j]) - mean;
    sq += d * d;
  }
  const float rstd = rsqrtf(hipb_block_sum<ROWS_THREADS, W>(sq, scratch) / (float)cols + eps);
  T *yr = y + row * cols;
  for (int j = threadIdx.x; j < cols; j += ROWS_THREADS)
    yr[j] = hipb_from_f32<T>((hipb_to_f32(xr[j]) - mean) * rstd * hipb_to_f32(w[j]) +
                             hipb_to_f32(b[j]));
}

struct layernorm {
  struct hipb_ctx *ctx;
  int64_t rows, cols;
  double eps;
  enum bench_dtype dtype;
  enum rows_shape shape;
  struct hipb_buf x, w, b, y;
};

template <typename T, int W> static int launch_w(const struct bench_host *h, struct layernorm *s) {
  const T *x = (const T *)s->x.dev, *w = (const T *)s->w.dev, *b = (const T *)s->b.dev;
  T *y = (T *)s->y.dev;
  const dim3 grid = rows_grid(s->shape, s->rows, W), block(ROWS_THREADS);
  const int cols = (int)s->cols;
  const float eps = (float)s->eps;
  if (s->shape == ROWS_WAVE256)
    HIPB_LAUNCH(h, (layernorm_wave<T, W, 256 / W>), grid, block, 0, s->ctx->stream, x, w, b, y, s->rows, cols, eps);
  else if (s->shape == ROWS_WAVE1024)
    HIPB_LAUNCH(h, (layernorm_wave<T, W, 1024 / W>), grid, block, 0, s->ctx->stream, x, w, b, y, s->rows, cols, eps);
  else
    HIPB_LAUNCH(h, (layernorm_block<T, W>), grid, block, 0, s->ctx->stream, x, w, b, y, cols, eps);
  return BENCH_OK;
}

template <typename T> static int launch(const struct bench_host *h, struct layernorm *s) {
  return s->ctx->wave == 32 ? launch_w<T, 32>(h, s) : launch_w<T, 64>(h, s);
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct layernorm *s = (struct layernorm *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  s->rows = h->param_int(h, "rows");
  s->cols = h->param_int(h, "cols");
  s->eps = h->param_float(h, "eps");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
  s->shape = rows_shape_of(s->cols);
  char kernel[64];
  h->set_info(h, "kernel", rows_shape_name(s->shape, s->ctx->wave, kernel, sizeof kernel));
  const size_t n = (size_t)(s->rows * s->cols);
  HIPB_TRY(hipb_input(h, &s->x, n, s->dtype, 1));
  HIPB_TRY(hipb_input(h, &s->w, (size_t)s->cols, s->dtype, 2));
  HIPB_TRY(hipb_input(h, &s->b, (size_t)s->cols, s->dtype, 3));
  HIPB_TRY(hipb_output(h, &s->y, n, s->dtype));
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct layernorm *s = (struct layernorm *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(ROWS_DISPATCH(s->dtype, launch, h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct layernorm *s = (struct layernorm *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  struct bench_check c = {};
  c.op = "layernorm";
  c.dtype = c.out_dtype = s->dtype;
  c.rows = s->rows;
  c.cols = s->cols;
  c.eps = s->eps;
  c.in[0] = s->x.host;
  c.in[1] = s->w.host;
  c.in[2] = s->b.host;
  c.out = s->y.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct layernorm *s = (struct layernorm *)state;
  hipb_free(&s->x);
  hipb_free(&s->w);
  hipb_free(&s->b);
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("layernorm"),
    .backend = HIPB_BACKEND,
    .operation = "layernorm",
    .description = "LayerNorm rows (f32/f16/bf16), two-pass, wave-level __shfl_xor reductions",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
