/* A plugin as an outside author writes it, with <bench/plugin.h> alone:
 * a one-row softmax, checked against the harness's softmax reference. */
#include <math.h>
#include <stdlib.h>

#include <bench/plugin.h>

struct st {
  int64_t n;
  float *x, *y;
};

static const struct bench_param params[] = {
    {.name = "cols", .type = BENCH_PARAM_INT, .description = "row length", .min = 1, .max = 1 << 24,
     .defaults = {"1000", "100000", "1000000", "1,7,1000"}},
    {.name = NULL},
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  (void)ctx;
  struct st *s = calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->n = h->param_int(h, "cols");
  s->x = malloc((size_t)s->n * sizeof(float));
  s->y = malloc((size_t)s->n * sizeof(float));
  if (!s->x || !s->y) return h->fail(h, "out of memory");
  h->fill_random(h, s->x, (size_t)s->n, BENCH_F32, 7);
  h->set_work(h, 0, 2.0 * (double)s->n * sizeof(float));
  return BENCH_OK;
}

static int run(const struct bench_host *h, void *state) {
  (void)h;
  struct st *s = state;
  float mx = s->x[0], sum = 0;
  for (int64_t i = 1; i < s->n; i++) mx = s->x[i] > mx ? s->x[i] : mx;
  for (int64_t i = 0; i < s->n; i++) sum += (s->y[i] = expf(s->x[i] - mx));
  for (int64_t i = 0; i < s->n; i++) s->y[i] /= sum;
  return BENCH_OK;
}

static int verify(const struct bench_host *h, void *state) {
  struct st *s = state;
  struct bench_check c = {.op = "softmax", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .rows = 1, .cols = s->n, .in = {s->x}, .out = s->y};
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct st *s = state;
  free(s->x);
  free(s->y);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ext_softmax",
    .backend = "cpu",
    .operation = "softmax",
    .description = "an out-of-tree plugin: one-row softmax",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
