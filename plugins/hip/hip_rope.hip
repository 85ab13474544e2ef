/* hip_rope: rotary position embedding of x [seq][heads][head_dim] (for the
 * check: rows = seq * heads, cols = head_dim; the position of a row is
 * row / heads): each pair (a, b) of a row turns by the angle
 * pos * theta^(-2i/head_dim),
 *   layout=interleaved  pairs (2i, 2i+1)      (Meta / LLaMA)
 *   layout=halves       pairs (i, i + d/2)    (GPT-NeoX)
 * f32/f16/bf16 in and out, fp32 angles and sincos. One thread per pair,
 * out of place. GB/s counts x read and y written. Verified against the
 * harness's rope reference. */
#include <stdlib.h>
#include <string.h>

#include "hipb_rows.h"

static const struct bench_param params[] = {
    BENCH_PARAM_ROPE_SEQ("16,5,256", "4096", "1024,8192", "1,7,33,3"),
    BENCH_PARAM_ROPE_HEADS("4,3,8", "32", "32,32", "1,3,2,5"),
    BENCH_PARAM_ROPE_HEAD_DIM("64,6,128", "128", "128,128", "2,6,130,64"),
    BENCH_PARAM_ROPE_LAYOUT("interleaved,halves", "interleaved,halves", "interleaved,halves",
                            "interleaved,halves"),
    BENCH_PARAM_ROPE_THETA("10000", "10000", "10000", "10000,500000"),
    ROWS_PARAM_DTYPE,
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

/* One thread per (row, pair). */
template <typename T>
__global__ __launch_bounds__(256) void rope_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                   int64_t rows, int heads, int cols,
                                                   int halves, float log2_theta) {
  const int half = cols / 2;
  const int64_t pair = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (pair >= rows * half) return;
  const int64_t row = pair / half;
  const int i = (int)(pair - row * half);
  const float pos = (float)(row / heads);
  /* theta^(-2i/d) = exp2(-(2i/d) * log2(theta)) */
  const float inv_freq = exp2f(-(float)(2 * i) / (float)cols * log2_theta);
  float sn, cs;
  sincosf(pos * inv_freq, &sn, &cs);
  const int64_t a = row * cols + (halves ? i : 2 * i);
  const int64_t b = a + (halves ? half : 1);
  const float xa = hipb_to_f32(x[a]), xb = hipb_to_f32(x[b]);
  y[a] = hipb_from_f32<T>(xa * cs - xb * sn);
  y[b] = hipb_from_f32<T>(xa * sn + xb * cs);
}

struct rope {
  struct hipb_ctx *ctx;
  int64_t rows, heads, cols;
  int halves;
  double theta;
  enum bench_dtype dtype;
  struct hipb_buf x, y;
};

template <typename T> static int launch(const struct bench_host *h, struct rope *s) {
  const int64_t pairs = s->rows * (s->cols / 2);
  HIPB_LAUNCH(h, (rope_kernel<T>), dim3((unsigned)((pairs + 255) / 256)), dim3(256), 0,
              s->ctx->stream, (const T *)s->x.dev, (T *)s->y.dev, s->rows, (int)s->heads,
              (int)s->cols, s->halves, (float)log2(s->theta));
  return BENCH_OK;
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct rope *s = (struct rope *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  s->heads = h->param_int(h, "heads");
  s->rows = h->param_int(h, "seq") * s->heads;
  s->cols = h->param_int(h, "head_dim");
  s->halves = strcmp(h->param_str(h, "layout"), "halves") == 0;
  s->theta = h->param_float(h, "theta");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
  if (s->cols % 2) return h->skip(h, "head_dim (%lld) is odd", (long long)s->cols);
  HIPB_TRY(hipb_setup(h, s->ctx));
  const size_t n = (size_t)(s->rows * s->cols);
  HIPB_TRY(hipb_input(h, &s->x, n, s->dtype, 1));
  HIPB_TRY(hipb_output(h, &s->y, n, s->dtype));
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct rope *s = (struct rope *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(ROWS_DISPATCH(s->dtype, launch, h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct rope *s = (struct rope *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  struct bench_check c = {};
  c.op = "rope";
  c.dtype = c.out_dtype = s->dtype;
  c.rows = s->rows;
  c.cols = s->cols;
  c.heads = s->heads;
  c.seq = s->rows / s->heads;
  c.head_dim = s->cols;
  c.theta = s->theta;
  c.flags = s->halves ? BENCH_ROPE_HALVES : BENCH_ROPE_INTERLEAVED;
  c.in[0] = s->x.host;
  c.out = s->y.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct rope *s = (struct rope *)state;
  hipb_free(&s->x);
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("rope"),
    .backend = HIPB_BACKEND,
    .operation = "rope",
    .description = "RoPE over [seq][heads][head_dim] (f32/f16/bf16), interleaved or halves pairs",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
