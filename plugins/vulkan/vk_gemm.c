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
  struct vkh *vk = s->vk;

  const struct vkh_pipeline_desc d = {
      .name = "vk_gemm",
      .code = s->dtype == BENCH_F16 ? spv_f16 : spv_f32,
      .code_size = s->dtype == BENCH_F16 ? sizeof spv_f16 : sizeof spv_f32,
      .buffers = 3,
      .push_size = 12,
      .local = {WG, WG, 1},
  };
  const uint32_t push[3] = {(uint32_t)s->m, (uint32_t)s->n, (uint32_t)s->k};
  uint32_t groups[3];
  if ((rc = vkh_groups_2d(vk, ((uint64_t)s->n + WG - 1) / WG, ((uint64_t)s->m + WG - 1) / WG,
                          groups)) ||
      (rc = vkh_kernel_create(vk, &s->kern, &d,
                              (struct vkh_buffer *const[]){&s->a.dev, &s->b.dev, &s->c.dev}, push,
                              groups)))
    return rc;
  vk_gemm_set_work(host, s);
  return vkh_status(vk);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, one invocation per element of C (naive); f32/f16, fp32 accumulation",
    .params = params,
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = vk_gemm_run,
    .verify = vk_gemm_verify,
    .teardown = vk_gemm_teardown,
    .run_batch = vk_gemm_run_batch,
};
