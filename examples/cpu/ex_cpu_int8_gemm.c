/* ex_cpu_int8_gemm: an example plugin with an integer kernel checked
 * exactly. C = A * B with A (m x k) and B (k x n) in int8 and C (m x n)
 * accumulated in int32, row-major. The harness has no int8 GEMM reference,
 * so verify() computes its own (in int64, stored as int32: k <= 65536, so
 * |C| <= k * 2^14 <= 2^30 fits) and hands both to the harness's compare
 * extension (ABI 1.1) as BENCH_I32 with BENCH_TOL_EXACT: one element off by
 * one is WRONG_ANSWER.
 * Never check an int kernel as f32 under a tolerance: with rtol * |ref|
 * above 1 an off-by-one passes unseen.
 *
 * Built with -DEX_OFF_BY_ONE the kernel has a bug planted: the last element
 * of C comes out one too big (tests/sdk/t_example_cpu.sh checks that the
 * harness reports it as WRONG_ANSWER). Needs only <bench/plugin.h>. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bench/params.h>
#include <bench/plugin.h>

struct state {
  int64_t m, n, k;
  int8_t *a, *b;
  int32_t *c;
};

/* The kernel: i-k-j order, so the inner loop runs along rows of B and C. */
static void gemm_i8(const struct state *s) {
  for (int64_t i = 0; i < s->m; i++) {
    int32_t *c = s->c + i * s->n;
    memset(c, 0, (size_t)s->n * sizeof *c);
    for (int64_t p = 0; p < s->k; p++) {
      const int32_t a = s->a[i * s->k + p];
      const int8_t *b = s->b + p * s->n;
      for (int64_t j = 0; j < s->n; j++) c[j] += a * b[j];
    }
  }
#ifdef EX_OFF_BY_ONE
  s->c[s->m * s->n - 1] += 1; /* the planted bug */
#endif
}

/* The plumbing: parameters, inputs, work, check. */
static const struct bench_param params[] = {
    /* <bench/params.h>'s declarations of gemm's m, n, k; the defaults per
     * tier (smoke, standard, perf, verify) are ours. m, n and k advance
     * together (zip 1): smoke runs 17x33x65 and 64x64x256. */
    BENCH_PARAM_GEMM_M("17,64", "512", "1024", "1,7,96"),
    BENCH_PARAM_GEMM_N("33,64", "512", "1024", "1,9,80"),
    BENCH_PARAM_GEMM_K("65,256", "512", "1024", "1,13,300"),
    {.name = NULL},
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  (void)ctx;
  struct state *s = calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s; /* teardown frees it, whatever happens next */
  s->m = h->param_int(h, "m");
  s->n = h->param_int(h, "n");
  s->k = h->param_int(h, "k");
  s->a = malloc((size_t)(s->m * s->k));
  s->b = malloc((size_t)(s->k * s->n));
  s->c = malloc((size_t)(s->m * s->n) * sizeof(int32_t));
  if (!s->a || !s->b || !s->c) return h->fail(h, "out of memory");
  h->fill_random(h, s->a, (size_t)(s->m * s->k), BENCH_I8, 1); /* uniform in [-128, 127] */
  h->fill_random(h, s->b, (size_t)(s->k * s->n), BENCH_I8, 2);
  h->set_work(h, 2.0 * (double)s->m * (double)s->n * (double)s->k,
              (double)(s->m * s->k + s->k * s->n) + 4.0 * (double)(s->m * s->n));
  return BENCH_OK;
}

static int run(const struct bench_host *h, void *state) {
  (void)h;
  gemm_i8(state);
  return BENCH_OK;
}

static int verify(const struct bench_host *h, void *state) {
  const struct state *s = state;
  const struct bench_ext_compare *cmp = bench_host_extension(h, BENCH_EXT_COMPARE);
  if (!cmp) return h->skip(h, "needs a bench harness of ABI 1.1 or newer (bench.compare/1)");
  /* The reference: the textbook triple loop, accumulated in int64. */
  int32_t *ref = malloc((size_t)(s->m * s->n) * sizeof *ref);
  if (!ref) return h->fail(h, "out of memory");
  for (int64_t i = 0; i < s->m; i++)
    for (int64_t j = 0; j < s->n; j++) {
      int64_t acc = 0;
      for (int64_t p = 0; p < s->k; p++) acc += (int64_t)s->a[i * s->k + p] * s->b[p * s->n + j];
      ref[i * s->n + j] = (int32_t)acc;
    }
  const struct bench_compare c = {.name = "C", .dtype = BENCH_I32, .ref_dtype = BENCH_I32,
                                  .count = s->m * s->n, .cols = s->n, .out = s->c, .ref = ref,
                                  .tol = BENCH_TOL_EXACT};
  int rc = cmp->compare(h, &c);
  free(ref);
  return rc;
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = state;
  free(s->a);
  free(s->b);
  free(s->c);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ex_cpu_int8_gemm",
    .backend = "cpu",
    .operation = "gemm_i8",
    .description = "example: int8 GEMM accumulated in int32 on the CPU, checked exactly",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .abi_needed = BENCH_ABI_1_1,
};
