/* cpu_softmax: y = exp(x - max) / sum exp(x - max) over each row of a
 * rows x cols fp32 matrix (numerically stable: the row max is subtracted
 * first). Three vectorised passes per row while it stays in cache (max;
 * exp and sum, with a branch-free polynomial expf that vectorises; scale),
 * rows split across `threads` threads; y larger than the last-level cache
 * is written with non-temporal stores. GB/s counts 2 * rows * cols * 4
 * bytes. Verified against the harness's softmax reference. */
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_rowops.h"

struct softmax {
  int64_t rows, cols;
  float *x, *y;
  int stream;     /* non-temporal y */
  float *rowbuf;  /* per thread: one row of e^(x - max) before y */
  int64_t rowpad; /* its stride: cols rounded up to a line */
  struct cpu_pool *pool;
};

static void softmax_rows(void *arg, int64_t r0, int64_t r1, int tid) {
  const struct softmax *s = arg;
  const int64_t cols = s->cols;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = s->x + r * cols;
    float *y = s->y + r * cols;
    float *e = s->stream ? s->rowbuf + tid * s->rowpad : y; /* e^(x - max), in L1 */
    const float mx = cpu_row_max(x, cols);                 /* x from memory */
    const float sum = cpu_row_exp_sum(e, x, cols, mx, r + 1 < r1 ? x + cols : NULL); /* L1 */
    cpu_row_affine(y, e, cols, 0.0f, 1.0f / sum, NULL, NULL, s->stream, NULL);
  }
  if (s->stream) cpu_stream_fence();
}

static const struct bench_param params[] = {
    {.name = "rows", .type = BENCH_PARAM_INT, .description = "rows", .min = 1, .max = 1 << 24,
     .zip = 1, .defaults = {"7,64", "4096", "1024,16384", "1,3,17,5"}},
    {.name = "cols", .type = BENCH_PARAM_INT, .description = "row length (e.g. vocabulary, keys)",
     .min = 1, .max = 1 << 24, .zip = 1, .defaults = {"1000,4096", "4096", "4096,4096", "1,7,1000,4099"}},
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = "stores", .type = BENCH_PARAM_STRING,
     .description = "y's stores: auto (non-temporal when y exceeds the LLC), normal, nontemporal",
     .choices = "auto,normal,nontemporal", .defaults = {"auto", "auto", "auto", "auto,nontemporal"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct softmax *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  if (!(s->pool = cpu_pool_from_param(host))) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  s->x = cpu_alloc(n * sizeof(float));
  s->y = cpu_alloc(n * sizeof(float));
  const char *stores = host->param_str(host, "stores");
  s->stream = !strcmp(stores, "nontemporal") ||
              (!strcmp(stores, "auto") && cpu_stream_output((int64_t)(n * sizeof(float))));
  s->rowpad = (s->cols + 15) / 16 * 16;
  s->rowbuf = cpu_alloc((size_t)(cpu_pool_size(s->pool) * s->rowpad) * sizeof(float));
  if (!s->x || !s->y || !s->rowbuf) return host->fail(host, "out of memory");
  host->set_info(host, "stores", s->stream ? "nontemporal" : "normal");
  host->set_info(host, "isa", cpu_rowops_isa());
  host->fill_random(host, s->x, n, BENCH_F32, 1);
  host->set_work(host, 0, 2.0 * (double)n * sizeof(float));
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct softmax *s = state;
  cpu_parallel_for(s->pool, s->rows, cpu_row_grain(s->cols), softmax_rows, s);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct softmax *s = state;
  struct bench_check c = {.op = "softmax", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .rows = s->rows, .cols = s->cols, .in = {s->x}, .out = s->y};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct softmax *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->x);
  cpu_free(s->y);
  cpu_free(s->rowbuf);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_softmax",
    .backend = "cpu",
    .operation = "softmax",
    .description = "fp32 row softmax (max subtracted), vectorised expf, threaded; GB/s of x + y",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
