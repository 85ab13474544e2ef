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
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  int64_t m, n, k;
  uint32_t mp, np, kp;      /* padded to whole tiles */
  struct vkh_array *a, *b;  /* fp16: unpadded on the host (as the check sees them), padded on the device */
  struct vkh_array *c;
};

static const struct bench_param params[] = {
    BENCH_PARAM_GEMM_M("64,33", "512", "1024", "1,7,127,33,64"),
    BENCH_PARAM_GEMM_N("64,17", "512", "1024", "1,13,61,257,65"),
    BENCH_PARAM_GEMM_K("64,47", "512", "1024", "1,5,257,1,63"),
    BENCH_PARAM_DTYPE("element type of A and B (C is f32)", "f16", "f16", "f16", "f16", "f16"),
    {.name = NULL},
};

static uint32_t round_up(int64_t v, uint32_t to) { return (uint32_t)((v + to - 1) / to * to); }

/* An input of rows x cols random fp16 (seed) on the host, zero-padded to
 * rows_p x cols_p on the device. */
static int padded_input(struct vkh_case *c, struct vkh_array **out, int64_t rows, int64_t cols,
                        uint32_t rows_p, uint32_t cols_p, uint64_t seed, const char *what) {
  struct vkh *vk = c->vk;
  int rc = vkh_case_array(c, out, what);
  if (rc) return rc;
  struct vkh_array *a = *out;
  a->count = (size_t)(rows * cols);
  a->dtype = BENCH_F16;
  if (!(a->host = vkh_random(vk->host, a->count, BENCH_F16, seed)))
    return vk->host->fail(vk->host, "out of memory");
  const size_t bytes = (size_t)rows_p * cols_p * sizeof(uint16_t);
  if ((rc = vkh_buffer_create(vk, &a->dev, bytes, what))) return rc;
  uint16_t *pad = calloc((size_t)rows_p * cols_p, sizeof *pad);
  if (!pad) return vk->host->fail(vk->host, "%s: out of host memory", what);
  const uint16_t *src = a->host;
  for (int64_t r = 0; r < rows; r++)
    memcpy(pad + (size_t)r * cols_p, src + (size_t)(r * cols), (size_t)cols * sizeof *pad);
  rc = vkh_upload(vk, &a->dev, pad, bytes);
  free(pad);
  return rc;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct gemm), state);
  if (rc) return rc;
  struct gemm *s = *state;
  struct vkh *vk = s->vc.vk;
  s->m = host->param_int(host, "m");
  s->n = host->param_int(host, "n");
  s->k = host->param_int(host, "k");
  s->mp = round_up(s->m, BM);
  s->np = round_up(s->n, BN);
  s->kp = round_up(s->k, BK);
  if ((rc = vkh_require_fp16(vk))) return rc;

  if ((rc = padded_input(&s->vc, &s->a, s->m, s->k, s->mp, s->kp, 1, "A (padded)")) ||
      (rc = padded_input(&s->vc, &s->b, s->k, s->n, s->kp, s->np, 2, "B (padded)")) ||
      (rc = vkh_case_output(&s->vc, &s->c, (size_t)(s->m * s->n), BENCH_F32, "C")))
    return rc;

  const uint32_t spec[] = {BM, BN, BK, TM, TN};
  const struct vkh_pipeline_desc d = {
      .name = "vk_gemm_f16acc32",
      VKH_SPIRV(spv),
      .push_size = 20,
      .local = {(BM / TM) * (BN / TN), 1, 1},
      .spec = spec,
      .nspec = 5,
      .shared_bytes = (BM + BN) * BK * sizeof(float),
  };
  const uint32_t push[5] = {(uint32_t)s->m, (uint32_t)s->n, (uint32_t)s->k, s->kp, s->np};
  uint32_t groups[3];
  if ((rc = vkh_groups_2d(vk, s->np / BN, s->mp / BM, groups)) ||
      (rc = vkh_case_kernel(&s->vc, &d, push, groups)))
    return rc;
  return vkh_status(vk);
}

static int verify(const struct bench_host *host, void *state) {
  struct gemm *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_check c = {.op = "gemm", .dtype = BENCH_F16, .out_dtype = BENCH_F32,
                                .m = s->m, .n = s->n, .k = s->k,
                                .in = {s->a->host, s->b->host}, .out = s->c->host};
  return host->check(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm_f16acc32",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, fp16 inputs, fp32 accumulation and output, tiled with "
                   "f16vec4 loads; needs shaderFloat16 + 16-bit storage",
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
