/* vk_gemm: C[m][n] = A[m][k] B[k][n], row-major, one invocation per
 * element of C in 16 x 16 workgroups, fp32 accumulation
 * (shaders/gemm_naive.comp): the baseline the tiled kernels are measured
 * against. fp32 or fp16 storage; checked against the harness's gemm. */
#include <stdlib.h>

#include "vk_gemm_problem.h"
#include "vkh.h"

static const uint32_t spv_f32[] =
#include "gemm_naive.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "gemm_naive.f16.spv.inc"
    ;

#define WG 16 /* WG x WG invocations, one per element of C */

static const struct bench_param params[] = {
    BENCH_PARAM_GEMM_M("64,33", "512", "1024", "1,7,127,33,64"),
    BENCH_PARAM_GEMM_N("64,17", "512", "1024", "1,13,61,257,65"),
    BENCH_PARAM_GEMM_K("64,47", "512", "1024", "1,5,257,1,63"),
    BENCH_PARAM_DTYPE("element type of A, B and C", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct vk_gemm *s;
  int rc = vk_gemm_setup(host, ctx, state, &s);
  if (rc) return rc;
  struct vkh *vk = s->vc.vk;

  /* WG x WG, or what fits the device: x first, then y within
   * maxComputeWorkGroupSize[1] and the invocations left. */
  const VkPhysicalDeviceLimits *l = &vk->props.limits;
  const uint32_t x = vkh_workgroup_fit(vk, WG, 0);
  uint32_t y = WG;
  if (y > l->maxComputeWorkGroupSize[1]) y = l->maxComputeWorkGroupSize[1];
  if (y > l->maxComputeWorkGroupInvocations / x) y = l->maxComputeWorkGroupInvocations / x;
  if (y == 0) y = 1;
  const struct vkh_pipeline_desc d = {
      .name = "vk_gemm",
      VKH_SPIRV_DTYPE(s->dtype, spv_f32, spv_f16),
      .local = {x, y, 1},
  };
  if ((rc = vk_gemm_kernel(s, &s->vc.kernel, &d, y, x))) return rc;
  return vkh_status(vk);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, one invocation per element of C (naive); f32/f16, fp32 accumulation",
    .params = params,
    VKH_CASE_CALLBACKS(setup, vk_gemm_verify),
};
