/* cpu_softmax: y = exp(x - max) / sum exp(x - max) over each row of a
 * rows x cols fp32 matrix (numerically stable: the row max is subtracted
 * first). Per row, while it stays in cache: the max, then the exps (the
 * polynomial expf of cpu_rowops.h) and their sum, then y scaled by 1/sum;
 * rows split across `threads` threads. y larger than the last-level cache
 * is written with non-temporal stores, one row late: row r-1's output is
 * scaled and stored in the loop of row r's exps, so the stores overlap the
 * arithmetic (on the 2-vCPU Zen 5 VM at 4096 x 4096, against three passes:
 * 1 thread +22-25% GB/s; 2 threads 0.59 -> 0.96 of copy, by
 * studies/pair_copy.sh). GB/s counts 2 * rows * cols * 4 bytes (the
 * harness's softmax figure). Verified against the harness's softmax
 * reference. */
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_pool.h"
#include "cpu_rowops.h"

struct softmax {
  int64_t rows, cols;
  float *x, *y;
  int stream;     /* non-temporal y */
  float *rowbuf;  /* non-temporal y: per thread, two rows of e^(x - max) */
  int64_t rowpad; /* its stride: cols rounded up to a line */
  struct cpu_pool *pool;
};

/* Normal stores: per row, the max, the exps into y (still in L1) and their
 * sum, y scaled in place. */
static void softmax_rows_cached(const struct softmax *s, int64_t r0, int64_t r1) {
  const int64_t cols = s->cols;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = s->x + r * cols;
    float *y = s->y + r * cols;
    const float mx = cpu_row_max(x, cols); /* x from memory (prefetched by the last row) */
    const float sum = cpu_row_exp_sum(y, x, cols, mx, r + 1 < r1 ? x + cols : NULL);
    cpu_row_affine(y, y, cols, 0.0f, 1.0f / sum, NULL, NULL, 0, NULL);
  }
}

/* Non-temporal stores: software-pipelined over the rows, row r's exps in
 * one loop with row r-1's scaled output, through two row buffers of
 * e^(x - max) per thread. (With normal stores this loop is slower than the
 * one above: y's lines, read for ownership, and five rows in flight
 * overflow L1; 32 against 42 GB/s at 1024 x 4096.) */
static void softmax_rows_streamed(const struct softmax *s, int64_t r0, int64_t r1, int tid) {
  const int64_t cols = s->cols;
  float *buf[2] = {s->rowbuf + 2 * tid * s->rowpad, s->rowbuf + (2 * tid + 1) * s->rowpad};
  float inv_prev = 0;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = s->x + r * cols;
    float *e = buf[r & 1], *e_prev = buf[(r + 1) & 1];
    const float *next = r + 1 < r1 ? x + cols : NULL;
    const float mx = cpu_row_max(x, cols);
    const float sum = r == r0 ? cpu_row_exp_sum(e, x, cols, mx, next)
                              : cpu_row_exp_sum_scale(e, x, cols, mx, next, s->y + (r - 1) * cols,
                                                      e_prev, inv_prev, 1);
    inv_prev = 1.0f / sum;
  }
  if (r1 > r0)
    cpu_row_affine(s->y + (r1 - 1) * cols, buf[(r1 - 1) & 1], cols, 0.0f, inv_prev, NULL, NULL, 1,
                   NULL);
  cpu_stream_fence();
}

static void softmax_rows(void *arg, int64_t r0, int64_t r1, int tid) {
  const struct softmax *s = arg;
  if (s->stream)
    softmax_rows_streamed(s, r0, r1, tid);
  else
    softmax_rows_cached(s, r0, r1);
}

static const struct bench_param params[] = {
    BENCH_PARAM_SOFTMAX_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_SOFTMAX_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = "stores", .type = BENCH_PARAM_STRING,
     .description = "y's stores: auto (non-temporal when y exceeds the LLC), normal, nontemporal",
     .choices = "auto,normal,nontemporal", .defaults = {"auto", "auto", "auto", "auto,nontemporal"}},
    CPU_ROWOPS_ISA_PARAM,
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct softmax *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const int rc = cpu_rowops_setup(host); /* isa */
  if (rc != BENCH_OK) return rc;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  if (!(s->pool = cpu_pool_from_param(host, s->rows, cpu_row_grain(s->cols)))) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  s->x = cpu_alloc(n * sizeof(float));
  s->y = cpu_alloc(n * sizeof(float));
  const char *stores = host->param_str(host, "stores");
  s->stream = !strcmp(stores, "nontemporal") ||
              (!strcmp(stores, "auto") && cpu_stream_output(host, (int64_t)(n * sizeof(float))));
  s->rowpad = (s->cols + 15) / 16 * 16;
  s->rowbuf = cpu_alloc((size_t)(2 * cpu_pool_size(s->pool) * s->rowpad) * sizeof(float));
  if (!s->x || !s->y || !s->rowbuf) return host->fail(host, "out of memory");
  host->set_info(host, "stores", s->stream ? "nontemporal" : "normal");
  host->fill_random(host, s->x, n, BENCH_F32, 1);
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
