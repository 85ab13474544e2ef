/* cpu_gemm: C[m,n] = A[m,k] * B[k,n], fp32, row-major, on one CPU core.
 *   variant=naive    the plain triple loop (i, k, j order), no blocking
 *   variant=blocked  cache-blocked panels of B and C, vectorised row updates
 *                    (AVX2+FMA clone chosen at run time when the CPU has it)
 * Verified against the harness's GEMM reference. */
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"

/* Blocking for the blocked variant: a KC x NC panel of B (256 KiB) stays in
 * L2, a row of C's panel (2 KiB) and of A's block stay in L1. */
#define KC 128
#define NC 512

struct gemm {
  int64_t m, n, k;
  int blocked;
  float *a, *b, *c;
};

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MULTIVERSION
#endif

static void gemm_naive(const struct gemm *g) {
  const int64_t m = g->m, n = g->n, k = g->k;
  for (int64_t i = 0; i < m; i++) {
    float *c = g->c + i * n;
    for (int64_t j = 0; j < n; j++) c[j] = 0.0f;
    for (int64_t p = 0; p < k; p++) {
      const float a = g->a[i * k + p];
      const float *b = g->b + p * n;
      for (int64_t j = 0; j < n; j++) c[j] += a * b[j];
    }
  }
}

MULTIVERSION
static void gemm_blocked(const struct gemm *g) {
  const int64_t m = g->m, n = g->n, k = g->k;
  memset(g->c, 0, (size_t)(m * n) * sizeof(float));
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = n - jc < NC ? n - jc : NC;
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = k - pc < KC ? k - pc : KC;
      for (int64_t i = 0; i < m; i++) {
        float *restrict c = g->c + i * n + jc;
        const float *restrict a = g->a + i * k + pc;
        int64_t p = 0;
        /* Four rows of B per pass: a quarter of the loads and stores of C. */
        for (; p + 4 <= kc; p += 4) {
          const float a0 = a[p], a1 = a[p + 1], a2 = a[p + 2], a3 = a[p + 3];
          const float *restrict b0 = g->b + (pc + p) * n + jc;
          const float *restrict b1 = b0 + n, *restrict b2 = b1 + n, *restrict b3 = b2 + n;
          for (int64_t j = 0; j < nc; j++) c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
        for (; p < kc; p++) {
          const float ap = a[p];
          const float *restrict b = g->b + (pc + p) * n + jc;
          for (int64_t j = 0; j < nc; j++) c[j] += ap * b[j];
        }
      }
    }
  }
}

static const struct bench_param params[] = {
    {.name = "variant", .type = BENCH_PARAM_STRING, .description = "kernel variant",
     .choices = "naive,blocked",
     .defaults = {"naive,blocked", "naive,blocked", "blocked", "naive,blocked"}},
    {.name = "m", .type = BENCH_PARAM_INT, .description = "rows of A and C", .min = 1, .max = 65536,
     .zip = 1, .defaults = {"64,33", "1024", "1024,2048", "1,7,127,33,64"}},
    {.name = "n", .type = BENCH_PARAM_INT, .description = "columns of B and C", .min = 1, .max = 65536,
     .zip = 1, .defaults = {"64,17", "1024", "1024,2048", "1,13,61,257,65"}},
    {.name = "k", .type = BENCH_PARAM_INT, .description = "columns of A, rows of B (reduction)",
     .min = 1, .max = 65536, .zip = 1, .defaults = {"64,47", "1024", "1024,2048", "1,5,257,1,63"}},
    {.name = "dtype", .type = BENCH_PARAM_STRING, .description = "element type of A, B and C",
     .choices = "f32", .defaults = {"f32", "f32", "f32", "f32"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct gemm *g = calloc(1, sizeof *g);
  if (!g) return host->fail(host, "out of memory");
  *state = g;
  g->m = host->param_int(host, "m");
  g->n = host->param_int(host, "n");
  g->k = host->param_int(host, "k");
  g->blocked = strcmp(host->param_str(host, "variant"), "blocked") == 0;
  size_t na = (size_t)(g->m * g->k), nb = (size_t)(g->k * g->n), nc = (size_t)(g->m * g->n);
  g->a = malloc(na * sizeof(float));
  g->b = malloc(nb * sizeof(float));
  g->c = malloc(nc * sizeof(float));
  if (!g->a || !g->b || !g->c)
    return host->fail(host, "out of memory for %zu MiB of matrices",
                      (na + nb + nc) * sizeof(float) >> 20);
  host->fill_random(host, g->a, na, BENCH_F32, 1);
  host->fill_random(host, g->b, nb, BENCH_F32, 2);
  host->set_work(host, 2.0 * (double)g->m * (double)g->n * (double)g->k,
                 (double)(na + nb + nc) * sizeof(float));
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  const struct gemm *g = state;
  if (g->blocked)
    gemm_blocked(g);
  else
    gemm_naive(g);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct gemm *g = state;
  struct bench_check c = {.op = "gemm", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .m = g->m, .n = g->n, .k = g->k,
                          .in = {g->a, g->b}, .out = g->c};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct gemm *g = state;
  free(g->a);
  free(g->b);
  free(g->c);
  free(g);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_gemm",
    .backend = "cpu",
    .operation = "gemm",
    .description = "fp32 GEMM on one core: naive triple loop and cache-blocked vectorised",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
