/* cpu_layernorm: y = (x - mean) / sqrt(var + eps) * w + b over each row of
 * a rows x cols fp32 matrix, biased variance; rows split across `threads`
 * threads. Per row: its first two moments about the mean of its first 16
 * elements (one pass), from which its mean and variance follow; where
 * those would cancel (a mean far from that estimate against the spread),
 * the centred sum of squares is taken again, so the variance is as exact
 * as two passes give it; then y from the row in cache (y larger than the
 * last-level cache with non-temporal stores) while the next row is
 * prefetched into L2 (cpu_rowops.c: AVX-512, AVX2 or vectorised loops).
 * The row is read from memory once. Work is the harness's layernorm figure
 * (operation.h: x + w + b + y bytes, 8 FLOPs per element). Verified
 * against the harness's reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_pool.h"
#include "cpu_rowops.h"

struct layernorm {
  int64_t rows, cols;
  float eps;
  float *x, *w, *b, *y;
  int stream;     /* non-temporal y */
  struct cpu_pool *pool;
};

/* The shift the moments of a row are taken about: the mean of its first
 * 16 elements, an estimate of the row's mean (close enough that the
 * difference below seldom cancels). */
static float row_shift(const float *x, int64_t n) {
  const int64_t k = n < 16 ? n : 16;
  float s = 0;
  for (int64_t j = 0; j < k; j++) s += x[j];
  return s / (float)k;
}

/* A row's mean and 1/std from its moments about c: mean = c + d, var =
 * s2/n - d^2 with d = s1/n. Where d^2 > s2/(2n), the difference would
 * cancel more than a bit, and the centred sum of squares is taken again
 * about the mean, from the row in cache (two passes). */
static void row_stats(const float *x, int64_t n, float c, float s1, float s2, float eps,
                      float *mean, float *rstd) {
  const float d = s1 / (float)n, msq = s2 / (float)n;
  *mean = c + d;
  const float var = d * d > 0.5f * msq ? cpu_row_sqdev(x, n, *mean, NULL) / (float)n : msq - d * d;
  *rstd = 1.0f / sqrtf(var + eps);
}

static void layernorm_rows(void *arg, int64_t r0, int64_t r1, int tid) {
  (void)tid;
  const struct layernorm *s = arg;
  const int64_t cols = s->cols;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = s->x + r * cols; /* prefetched into L2 by the row before */
    const float c = row_shift(x, cols);
    float s2;
    const float s1 = cpu_row_moments(x, cols, c, &s2);
    float mean, rstd;
    row_stats(x, cols, c, s1, s2, s->eps, &mean, &rstd);
    cpu_row_affine(s->y + r * cols, x, cols, mean, rstd, s->w, s->b, s->stream,
                   r + 1 < r1 ? x + cols : NULL);
  }
  if (s->stream) cpu_stream_fence();
}

static const struct bench_param params[] = {
    BENCH_PARAM_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    BENCH_PARAM_LAYERNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = "stores", .type = BENCH_PARAM_STRING,
     .description = "y's stores: auto (non-temporal when y exceeds the LLC), normal, nontemporal",
     .choices = "auto,normal,nontemporal", .defaults = {"auto", "auto", "auto", "auto,nontemporal"}},
    CPU_ROWOPS_ISA_PARAM,
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct layernorm *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const int rc = cpu_rowops_setup(host); /* isa */
  if (rc != BENCH_OK) return rc;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  s->eps = (float)host->param_float(host, "eps");
  if (!(s->pool = cpu_pool_from_param(host, s->rows, cpu_row_grain(s->cols)))) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  s->x = cpu_alloc(n * sizeof(float));
  s->y = cpu_alloc(n * sizeof(float));
  s->w = cpu_alloc((size_t)s->cols * sizeof(float));
  s->b = cpu_alloc((size_t)s->cols * sizeof(float));
  const char *stores = host->param_str(host, "stores");
  s->stream = !strcmp(stores, "nontemporal") ||
              (!strcmp(stores, "auto") && cpu_stream_output(host, (int64_t)(n * sizeof(float))));
  if (!s->x || !s->y || !s->w || !s->b) return host->fail(host, "out of memory");
  host->set_info(host, "stores", s->stream ? "nontemporal" : "normal");
  host->fill_random(host, s->x, n, BENCH_F32, 1);
  host->fill_random(host, s->w, (size_t)s->cols, BENCH_F32, 2);
  host->fill_random(host, s->b, (size_t)s->cols, BENCH_F32, 3);
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct layernorm *s = state;
  cpu_parallel_for(s->pool, s->rows, cpu_row_grain(s->cols), layernorm_rows, s);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct layernorm *s = state;
  struct bench_check c = {.op = "layernorm", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .rows = s->rows, .cols = s->cols, .eps = s->eps,
                          .in = {s->x, s->w, s->b}, .out = s->y};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct layernorm *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->x);
  cpu_free(s->y);
  cpu_free(s->w);
  cpu_free(s->b);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_layernorm",
    .backend = "cpu",
    .operation = "layernorm",
    .description = "fp32 LayerNorm over rows (two-pass variance), vectorised and threaded; GB/s of x + w + b + y",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
