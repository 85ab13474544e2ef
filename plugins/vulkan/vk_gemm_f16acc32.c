/* vk_gemm_f16acc32: C[m][n] (fp32) = A[m][k] B[k][n] (fp16), fp32
 * accumulation; the tiling of vk_gemm_tiled with vectorised loads
 * (shaders/gemm_f16acc32.comp): A and B go to the device zero-padded to
 * whole tiles, so every tile is read as f16vec4 without bounds checks.
 * Needs shaderFloat16 and storageBuffer16BitAccess (SKIPPED otherwise).
 * Checked against the harness's gemm with fp16 inputs and an fp32 output. */
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

static const uint32_t spv[] =
#include "gemm_f16acc32.f16.spv.inc"
    ;

/* Tile: BM x BN of C per workgroup, k in steps of BK (a multiple of 4, as
 * BN), TM x TN per invocation: (BM/TM)*(BN/TN) = 256 invocations. */
enum { BM = 64, BN = 64, BK = 16, TM = 4, TN = 4 };

struct gemm {
  struct vkh *vk;
  int64_t m, n, k;
  uint32_t mp, np, kp; /* padded to whole tiles */
  void *a, *b;         /* fp16, as the check sees them (unpadded) */
  struct vkh_buffer ap, bp;
  struct vkh_array c;
  struct vkh_kernel kern;
};

static const struct bench_param params[] = {
    BENCH_PARAM_GEMM_M("64,33", "512", "1024", "1,7,127,33,64"),
    BENCH_PARAM_GEMM_N("64,17", "512", "1024", "1,13,61,257,65"),
    BENCH_PARAM_GEMM_K("64,47", "512", "1024", "1,5,257,1,63"),
    BENCH_PARAM_DTYPE("element type of A and B (C is f32)", "f16", "f16", "f16", "f16", "f16"),
    {.name = NULL},
};

static uint32_t round_up(int64_t v, uint32_t to) { return (uint32_t)((v + to - 1) / to * to); }

/* rows x cols of fp16 into a zeroed rows_p x cols_p buffer on the device. */
static int upload_padded(struct vkh *vk, struct vkh_buffer *dst, const uint16_t *src, int64_t rows,
                         int64_t cols, uint32_t rows_p, uint32_t cols_p, const char *what) {
  const size_t bytes = (size_t)rows_p * cols_p * sizeof(uint16_t);
  int rc = vkh_buffer_create(vk, dst, bytes, what);
  if (rc) return rc;
  uint16_t *pad = calloc((size_t)rows_p * cols_p, sizeof *pad);
  if (!pad) return vk->host->fail(vk->host, "%s: out of host memory", what);
  for (int64_t r = 0; r < rows; r++)
    memcpy(pad + (size_t)r * cols_p, src + (size_t)(r * cols), (size_t)cols * sizeof *pad);
  rc = vkh_upload(vk, dst, pad, bytes);
  free(pad);
  return rc;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct gemm *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(host, ctx);
  s->m = host->param_int(host, "m");
  s->n = host->param_int(host, "n");
  s->k = host->param_int(host, "k");
  s->mp = round_up(s->m, BM);
  s->np = round_up(s->n, BN);
  s->kp = round_up(s->k, BK);
  int rc;
  if ((rc = vkh_require_fp16(vk))) return rc;

  s->a = vkh_random(host, (size_t)(s->m * s->k), BENCH_F16, 1);
  s->b = vkh_random(host, (size_t)(s->k * s->n), BENCH_F16, 2);
  if (!s->a || !s->b) return host->fail(host, "out of memory");
  if ((rc = upload_padded(vk, &s->ap, s->a, s->m, s->k, s->mp, s->kp, "A (padded)")) ||
      (rc = upload_padded(vk, &s->bp, s->b, s->k, s->n, s->kp, s->np, "B (padded)")) ||
      (rc = vkh_array_output(vk, &s->c, (size_t)(s->m * s->n), BENCH_F32, "C")))
    return rc;

  const uint32_t spec[] = {BM, BN, BK, TM, TN};
  const struct vkh_pipeline_desc d = {
      .name = "vk_gemm_f16acc32",
      VKH_SPIRV(spv),
      .buffers = 3,
      .push_size = 20,
      .local = {(BM / TM) * (BN / TN), 1, 1},
      .spec = spec,
      .nspec = 5,
      .shared_bytes = (BM + BN) * BK * sizeof(float),
  };
  const uint32_t push[5] = {(uint32_t)s->m, (uint32_t)s->n, (uint32_t)s->k, s->kp, s->np};
  uint32_t groups[3];
  if ((rc = vkh_groups_2d(vk, s->np / BN, s->mp / BM, groups)) ||
      (rc = vkh_kernel_create(vk, &s->kern, &d, (struct vkh_buffer *const[]){&s->ap, &s->bp, &s->c.dev},
                              push, groups)))
    return rc;
  host->set_work(host, 2.0 * (double)s->m * (double)s->n * (double)s->k,
                 (double)(s->m * s->k + s->k * s->n) * 2.0 + (double)vkh_array_bytes(&s->c));
  return vkh_status(vk);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct gemm *s = state;
  return vkh_kernel_run(s->vk, &s->kern);
}

static int run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct gemm *s = state;
  return vkh_kernel_run_batch(s->vk, &s->kern, n);
}

static int verify(const struct bench_host *host, void *state) {
  struct gemm *s = state;
  int rc = vkh_array_read(s->vk, &s->c);
  if (rc) return rc;
  const struct bench_check c = {.op = "gemm", .dtype = BENCH_F16, .out_dtype = BENCH_F32,
                                .m = s->m, .n = s->n, .k = s->k,
                                .in = {s->a, s->b}, .out = s->c.host};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct gemm *s = state;
  vkh_kernel_destroy(s->vk, &s->kern);
  vkh_buffer_destroy(s->vk, &s->ap);
  vkh_buffer_destroy(s->vk, &s->bp);
  vkh_array_free(s->vk, &s->c);
  free(s->a);
  free(s->b);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm_f16acc32",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, fp16 inputs, fp32 accumulation and output, tiled with "
                   "f16vec4 loads; needs shaderFloat16 + 16-bit storage",
    .params = params,
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
