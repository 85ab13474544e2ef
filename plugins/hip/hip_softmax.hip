/* hip_softmax: y = exp(x - max) / sum(exp(x - max)) for each row,
 * f32/f16/bf16 in and out, fp32 arithmetic in base 2 (exp2 of x*log2(e)).
 * Short rows: a wave per row, max then sum by __shfl_xor with the row in
 * registers. Long rows: a block per row, one pass for a running (max, sum)
 * per thread (online softmax), merged across the block, and a second pass
 * that writes (see hipb_rows.h). GB/s counts x read and y written.
 * Verified against the harness's softmax reference. */
#include <stdlib.h>

#include "hipb_rows.h"

static const struct bench_param params[] = {
    ROWS_PARAM(BENCH_PARAM_SOFTMAX_ROWS, ROWS_DEFAULTS_ROWS),
    ROWS_PARAM(BENCH_PARAM_SOFTMAX_COLS, ROWS_DEFAULTS_COLS),
    ROWS_PARAM_DTYPE,
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

/* A wave of W lanes per row, VALS values per lane kept in registers. */
template <typename T, int W, int VALS>
__global__ __launch_bounds__(ROWS_THREADS) void softmax_wave(const T *__restrict__ x,
                                                              T *__restrict__ y, int64_t rows,
                                                              int cols) {
  HIPB_WAVE_ONLY(W);
  const int lane = threadIdx.x % W;
  const int64_t row = rows_wave_row<W>();
  const bool live = row < rows; /* a dead wave still joins the shuffles */
  const T *xr = x + (live ? row : 0) * cols;
  float v[VALS];
  float mx = -INFINITY;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    v[i] = live && j < cols ? hipb_to_f32(xr[j]) : -INFINITY;
    mx = fmaxf(mx, v[i]);
  }
  const float m2 = hipb_wave_max<W>(mx) * HIPB_LOG2E;
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    v[i] = j < cols && live ? exp2f(fmaf(v[i], HIPB_LOG2E, -m2)) : 0.0f;
    sum += v[i];
  }
  const float inv = 1.0f / hipb_wave_sum<W>(sum);
  if (!live) return;
  T *yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < VALS; i++) {
    const int j = lane + i * W;
    if (j < cols) yr[j] = hipb_from_f32<T>(v[i] * inv);
  }
}

/* Merge running (max, sum) pairs, max in log2 units, sum of exp2(a - max).
 * A sum of 0 is an empty pair (its max may be -inf). */
__device__ inline void online_merge(float &m, float &s, float m2, float s2) {
  const float mm = fmaxf(m, m2);
  s = (s > 0.0f ? s * exp2f(m - mm) : 0.0f) + (s2 > 0.0f ? s2 * exp2f(m2 - mm) : 0.0f);
  m = mm;
}

/* A block per row: one pass for the online (max, sum), one that writes. */
template <typename T, int W>
__global__ __launch_bounds__(ROWS_THREADS) void softmax_block(const T *__restrict__ x,
                                                               T *__restrict__ y, int cols) {
  HIPB_WAVE_ONLY(W);
  __shared__ float scratch_m[ROWS_THREADS / W], scratch_s[ROWS_THREADS / W];
  const int64_t row = blockIdx.x;
  const T *xr = x + row * cols;
  float m = -INFINITY, s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += ROWS_THREADS)
    online_merge(m, s, hipb_to_f32(xr[j]) * HIPB_LOG2E, 1.0f);
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) {
    const float m2 = hipb_shfl_xor(m, o, W), s2 = hipb_shfl_xor(s, o, W);
    online_merge(m, s, m2, s2);
  }
  const int lane = threadIdx.x % W, wave = threadIdx.x / W;
  if (lane == 0) {
    scratch_m[wave] = m;
    scratch_s[wave] = s;
  }
  __syncthreads();
  m = -INFINITY;
  s = 0.0f;
#pragma unroll
  for (int i = 0; i < ROWS_THREADS / W; i++) online_merge(m, s, scratch_m[i], scratch_s[i]);
  const float inv = 1.0f / s;
  T *yr = y + row * cols;
  for (int j = threadIdx.x; j < cols; j += ROWS_THREADS)
    yr[j] = hipb_from_f32<T>(exp2f(fmaf(hipb_to_f32(xr[j]), HIPB_LOG2E, -m)) * inv);
}

struct softmax {
  struct hipb_ctx *ctx;
  int64_t rows, cols;
  enum bench_dtype dtype;
  enum rows_shape shape;
  struct hipb_buf x, y;
};

template <typename T, int W> static int launch_w(const struct bench_host *h, struct softmax *s) {
  const T *x = (const T *)s->x.dev;
  T *y = (T *)s->y.dev;
  const dim3 grid = rows_grid(s->shape, s->rows, W), block(ROWS_THREADS);
  const int cols = (int)s->cols;
  if (s->shape == ROWS_WAVE256)
    HIPB_LAUNCH(h, (softmax_wave<T, W, 256 / W>), grid, block, 0, s->ctx->stream, x, y, s->rows, cols);
  else if (s->shape == ROWS_WAVE1024)
    HIPB_LAUNCH(h, (softmax_wave<T, W, 1024 / W>), grid, block, 0, s->ctx->stream, x, y, s->rows, cols);
  else
    HIPB_LAUNCH(h, (softmax_block<T, W>), grid, block, 0, s->ctx->stream, x, y, cols);
  return BENCH_OK;
}

template <typename T> static int launch(const struct bench_host *h, struct softmax *s) {
  return s->ctx->wave == 32 ? launch_w<T, 32>(h, s) : launch_w<T, 64>(h, s);
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct softmax *s = (struct softmax *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  s->rows = h->param_int(h, "rows");
  s->cols = h->param_int(h, "cols");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
  s->shape = rows_shape_of(s->cols);
  char kernel[64];
  h->set_info(h, "kernel", rows_shape_name(s->shape, s->ctx->wave, kernel, sizeof kernel));
  const size_t n = (size_t)(s->rows * s->cols);
  HIPB_TRY(hipb_input(h, &s->x, n, s->dtype, 1));
  HIPB_TRY(hipb_output(h, &s->y, n, s->dtype));
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct softmax *s = (struct softmax *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(ROWS_DISPATCH(s->dtype, launch, h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct softmax *s = (struct softmax *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  struct bench_check c = {};
  c.op = "softmax";
  c.dtype = c.out_dtype = s->dtype;
  c.rows = s->rows;
  c.cols = s->cols;
  c.in[0] = s->x.host;
  c.out = s->y.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct softmax *s = (struct softmax *)state;
  hipb_free(&s->x);
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("softmax"),
    .backend = HIPB_BACKEND,
    .operation = "softmax",
    .description = "softmax rows (f32/f16/bf16), wave __shfl_xor reductions, online max/sum for long rows",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
