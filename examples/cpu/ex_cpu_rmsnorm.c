/* ex_cpu_rmsnorm: an example plugin, y = x / sqrt(mean(x^2) + eps) * w over
 * each row of a rows x cols fp32 matrix, checked against the harness's own
 * rmsnorm reference. Needs only <bench/plugin.h> (pkg-config bench-plugin). */
#include <math.h>
#include <stdlib.h>

#include <bench/params.h>
#include <bench/plugin.h>

struct state {
  int64_t rows, cols;
  float eps;
  float *x, *w, *y;
};

/* The kernel. */
static void rmsnorm(const struct state *s) {
  for (int64_t r = 0; r < s->rows; r++) {
    const float *x = s->x + r * s->cols;
    float *y = s->y + r * s->cols;
    float ss = 0;
    for (int64_t j = 0; j < s->cols; j++) ss += x[j] * x[j];
    const float rstd = 1.0f / sqrtf(ss / (float)s->cols + s->eps);
    for (int64_t j = 0; j < s->cols; j++) y[j] = x[j] * rstd * s->w[j];
  }
}

/* The plumbing: parameters, inputs, work, check. */
static const struct bench_param params[] = {
    /* <bench/params.h>'s declarations of rmsnorm's parameters, the same in
     * every backend's plugins; the defaults per tier (smoke, standard, perf,
     * verify) are ours. rows and cols advance together (zip 1): smoke runs
     * 7x1000 and 64x4096. */
    BENCH_PARAM_ROWS("7,64", "4096", "16384", "1,3,17"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096", "1,7,4099"),
    BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    {.name = NULL},
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  (void)ctx;
  struct state *s = calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s; /* teardown frees it, whatever happens next */
  s->rows = h->param_int(h, "rows");
  s->cols = h->param_int(h, "cols");
  s->eps = (float)h->param_float(h, "eps");
  const size_t n = (size_t)(s->rows * s->cols);
  s->x = malloc(n * sizeof(float));
  s->y = malloc(n * sizeof(float));
  s->w = malloc((size_t)s->cols * sizeof(float));
  if (!s->x || !s->y || !s->w) return h->fail(h, "out of memory");
  h->fill_random(h, s->x, n, BENCH_F32, 1);
  h->fill_random(h, s->w, (size_t)s->cols, BENCH_F32, 2);
  h->set_work(h, 4.0 * (double)n, 2.0 * (double)n * sizeof(float)); /* read x, write y */
  return BENCH_OK;
}

static int run(const struct bench_host *h, void *state) {
  (void)h;
  rmsnorm(state);
  return BENCH_OK;
}

static int verify(const struct bench_host *h, void *state) {
  const struct state *s = state;
  const struct bench_check c = {.op = "rmsnorm", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                                .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                .in = {s->x, s->w}, .out = s->y};
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = state;
  free(s->x);
  free(s->w);
  free(s->y);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ex_cpu_rmsnorm",
    .backend = "cpu",
    .operation = "rmsnorm",
    .description = "example: RMSNorm on the CPU, one row at a time",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
