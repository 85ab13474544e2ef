/* gpu_planted: the GPU plugin of studies/gpu_truth.sh's planted slowdown,
 * built twice for CUDA as cuda_planted (studies/CMakeLists.txt): as is, and
 * with PLANTED_SCALE=1.05, 5% more dependent FMAs per thread: a build whose
 * kernel does 5% more work under the same name and parameters, so that
 * `bench compare BASE SLOW` must call it SLOWER.
 *
 * Each thread runs a chain of x = fma(x, A, B) from x0 = its lane % 8. The
 * chain approaches B / (1 - A) = 256 slowly (A = 1 - 2^-20), so a chain cut
 * short, skipped or run twice ends elsewhere; verify recomputes the eight
 * chains on the CPU with fmaf (one rounding, as the GPU's fma) and compares
 * every output bitwise. */
#include <math.h>
#include <stdlib.h>

#include "hipb.h"

#ifndef PLANTED_SCALE
#define PLANTED_SCALE 1.0
#endif
#define CHAIN_A (1.0f - 0x1p-20f)
#define CHAIN_B 0x1p-12f
#define THREADS 256

static const struct bench_param params[] = {
    {.name = "steps", .type = BENCH_PARAM_INT,
     .description = "dependent FMAs per thread (times PLANTED_SCALE in the planted build)",
     .min = 1, .max = 1e8, .defaults = {"4096", "262144", "1048576", "4096"}},
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

__global__ __launch_bounds__(THREADS) void planted_chain(float *__restrict__ y, int64_t steps) {
  float x = (float)(threadIdx.x & 7);
  for (int64_t i = 0; i < steps; i++) x = fmaf(x, CHAIN_A, CHAIN_B);
  y[(size_t)blockIdx.x * THREADS + threadIdx.x] = x;
}

struct planted {
  struct hipb_ctx *ctx;
  int64_t steps; /* scaled */
  unsigned blocks;
  struct hipb_buf y;
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct planted *s = (struct planted *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_setup(h, s->ctx));
  s->steps = (int64_t)llround((double)h->param_int(h, "steps") * PLANTED_SCALE);
  s->blocks = hipb_grid_fill(s->ctx, (size_t)1 << 20, 4); /* 4 blocks a CU */
  HIPB_TRY(hipb_output(h, &s->y, (size_t)s->blocks * THREADS, BENCH_F32));
  h->set_work(h, 2.0 * (double)s->steps * s->blocks * THREADS, 0);
  return BENCH_OK;
}

static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct planted *s = (struct planted *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++)
    HIPB_LAUNCH(h, planted_chain, dim3(s->blocks), dim3(THREADS), 0, s->ctx->stream, (float *)s->y.dev,
                s->steps);
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct planted *s = (struct planted *)state;
  const struct bench_ext_compare *cmp =
      (const struct bench_ext_compare *)bench_host_extension(h, BENCH_EXT_COMPARE);
  if (!cmp) return h->skip(h, "needs the harness's bench.compare/1");
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  float want[8];
  for (int l = 0; l < 8; l++) {
    float x = (float)l;
    for (int64_t i = 0; i < s->steps; i++) x = fmaf(x, CHAIN_A, CHAIN_B);
    want[l] = x;
  }
  const float *y = (const float *)s->y.host;
  for (size_t i = 0; i < (size_t)s->blocks * THREADS; i++)
    if (y[i] != want[i & 7])
      return cmp->mismatch(h, "y[%zu] = %.9g, expected %.9g (%lld FMAs)", i, (double)y[i], (double)want[i & 7],
                           (long long)s->steps);
  return cmp->matched(h, "every thread's FMA chain, bitwise against the CPU's fmaf");
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct planted *s = (struct planted *)state;
  hipb_free(&s->y);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("planted"),
    .backend = HIPB_BACKEND,
    .operation = "none",
    .description = "dependent fp32 FMA chains (studies/gpu_truth.sh's planted slowdown)",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
