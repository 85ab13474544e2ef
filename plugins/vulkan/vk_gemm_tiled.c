/* vk_gemm_tiled: C[m][n] = A[m][k] B[k][n], row-major, fp32 accumulation,
 * shared-memory tiles and register blocking (shaders/gemm_tiled.comp): a
 * workgroup computes a BM x BN tile of C, staging BM x BK of A and BK x BN of
 * B in shared memory per step of k; each invocation accumulates TM x TN
 * elements in registers. The tile sizes are specialisation constants, set
 * from the `tile` parameter. fp32 or fp16 storage; checked against the
 * harness's gemm. */
#include <stdlib.h>

#include "gemm_tile.h"
#include "vk_gemm_problem.h"
#include "vkh.h"

static const uint32_t spv_f32[] =
#include "gemm_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "gemm_tiled.f16.spv.inc"
    ;

static const struct bench_param params[] = {
    BENCH_PARAM_GEMM_M("64,33", "512", "1024", "1,7,127,33,64"),
    BENCH_PARAM_GEMM_N("64,17", "512", "1024", "1,13,61,257,65"),
    BENCH_PARAM_GEMM_K("64,47", "512", "1024", "1,5,257,1,63"),
    BENCH_PARAM_DTYPE("element type of A, B and C", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = "tile", .type = BENCH_PARAM_STRING,
     .description = "BMxBNxBK_TMxTN: workgroup tile of C, k step, per-invocation block",
     .defaults = {"64x64x8_4x4", "64x64x8_4x4", "64x64x8_4x4", "64x64x8_4x4,32x32x8_2x2"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct vk_gemm *s;
  int rc = vk_gemm_setup(host, ctx, state, &s);
  if (rc) return rc;
  struct vkh *vk = s->vc.vk;
  struct gemm_tile t;
  if (gemm_tile_parse(host->param_str(host, "tile"), &t) != 0)
    return host->fail(host, "tile = '%s': expected BMxBNxBK_TMxTN with TM dividing BM and TN "
                      "dividing BN, e.g. 64x64x8_4x4", host->param_str(host, "tile"));

  const uint32_t spec[] = {t.bm, t.bn, t.bk, t.tm, t.tn}; /* constant ids 3..7 */
  const struct vkh_pipeline_desc d = {
      .name = "vk_gemm_tiled",
      VKH_SPIRV_DTYPE(s->dtype, spv_f32, spv_f16),
      .local = {gemm_tile_threads(&t), 1, 1},
      .spec = spec,
      .nspec = 5,
      .shared_bytes = gemm_tile_shared_bytes(&t),
  };
  if ((rc = vk_gemm_kernel(s, &s->vc.kernel, &d, t.bm, t.bn))) return rc;
  return vkh_status(vk);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm_tiled",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, shared-memory tiles + register blocking, tiles as "
                   "specialisation constants; f32/f16, fp32 accumulation",
    .params = params,
    VKH_CASE_CALLBACKS(setup, vk_gemm_verify),
};
