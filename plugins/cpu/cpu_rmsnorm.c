/* cpu_rmsnorm: y = x / sqrt(mean(x^2) + eps) * w over each row of a
 * rows x cols fp32 matrix (LLaMA's RMSNorm), rows split across `threads`
 * threads: each row read from memory once, for the sum of squares, and
 * y = x * rstd * w written from the row still in L1 (cpu_rowops.c: AVX-512,
 * AVX2 or vectorised loops); y larger than the last-level cache is written with
 * non-temporal stores, saving the read a plain store makes first. Work is
 * the harness's rmsnorm figure (operation.h: x + w + y bytes, 4 FLOPs per
 * element). Verified against the harness's rmsnorm reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_pool.h"
#include "cpu_rowops.h"

struct rmsnorm {
  int64_t rows, cols;
  int64_t grain;  /* rows per task (the tunable block) */
  float eps;
  float *x, *w, *y;
  int stream;     /* non-temporal y */
  struct cpu_pool *pool;
};

static void rmsnorm_rows(void *arg, int64_t r0, int64_t r1, int tid) {
  (void)tid;
  const struct rmsnorm *s = arg;
  const int64_t cols = s->cols;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = s->x + r * cols;
    const float ss = cpu_row_sumsq(x, cols); /* x comes from memory ... */
    const float rstd = 1.0f / sqrtf(ss / (float)cols + s->eps);
    cpu_row_affine(s->y + r * cols, x, cols, 0.0f, rstd, s->w, NULL, s->stream,
                   r + 1 < r1 ? x + cols : NULL); /* ... and from L1 */
  }
  if (s->stream) cpu_stream_fence();
}

static const struct bench_param params[] = {
    BENCH_PARAM_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = "stores", .type = BENCH_PARAM_STRING,
     .description = "y's stores: auto (non-temporal when y exceeds the LLC), normal, nontemporal",
     .choices = "auto,normal,nontemporal", .defaults = {"auto", "auto", "auto", "auto,nontemporal"}},
    /* A tunable (ABI 1.4, bench tune): rows per task; 0 = 16384 / cols. */
    {.name = "block", .type = BENCH_PARAM_INT,
     .description = "rows per task handed to a thread (0 = about 64 KiB of x)", .min = 0,
     .max = 1 << 20, .defaults = {"0", "0", "0", "0"}, .tunable = 1,
     .candidates = "0,1,4,16,64,256"},
    CPU_ROWOPS_ISA_PARAM,
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct rmsnorm *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const int rc = cpu_rowops_setup(host); /* isa */
  if (rc != BENCH_OK) return rc;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  s->eps = (float)host->param_float(host, "eps");
  const int64_t block = host->param_int(host, "block");
  s->grain = block ? block : cpu_row_grain(s->cols);
  if (!(s->pool = cpu_pool_from_param(host, s->rows, s->grain))) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  s->x = cpu_alloc(n * sizeof(float));
  s->y = cpu_alloc(n * sizeof(float));
  s->w = cpu_alloc((size_t)s->cols * sizeof(float));
  const char *stores = host->param_str(host, "stores");
  s->stream = !strcmp(stores, "nontemporal") ||
              (!strcmp(stores, "auto") && cpu_stream_output(host, (int64_t)(n * sizeof(float))));
  if (!s->x || !s->y || !s->w) return host->fail(host, "out of memory");
  host->set_info(host, "stores", s->stream ? "nontemporal" : "normal");
  host->fill_random(host, s->x, n, BENCH_F32, 1);
  host->fill_random(host, s->w, (size_t)s->cols, BENCH_F32, 2);
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct rmsnorm *s = state;
  cpu_parallel_for(s->pool, s->rows, s->grain, rmsnorm_rows, s);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct rmsnorm *s = state;
  struct bench_check c = {.op = "rmsnorm", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .rows = s->rows, .cols = s->cols, .eps = s->eps,
                          .in = {s->x, s->w}, .out = s->y};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct rmsnorm *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->x);
  cpu_free(s->y);
  cpu_free(s->w);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_rmsnorm",
    .backend = "cpu",
    .operation = "rmsnorm",
    .description = "fp32 RMSNorm over rows, vectorised and threaded; GB/s of x + w read, y written",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
