/* The GEMM problem shared by the Vulkan GEMM plugins whose A, B and C are
 * vkh arrays of one dtype (vk_gemm, vk_gemm_tiled, vk_gemm_auto): the
 * parameters, the inputs, the output, the work and the check, so each
 * plugin file holds only its kernel (run, run_batch and teardown are
 * vkh_case_*). */
#ifndef VK_GEMM_PROBLEM_H
#define VK_GEMM_PROBLEM_H

#include "vkh.h"

struct vk_gemm {
  struct vkh_case vc; /* first; its kernel is the plugin's, made by its setup */
  int64_t m, n, k;
  enum bench_dtype dtype;
  struct vkh_array *a, *b, *c;
};

/* Allocate the state (*state, freed by vkh_case_teardown), read m, n, k and
 * dtype, require fp16 when asked, make A and B (random) and C: bindings 0,
 * 1 and 2. */
int vk_gemm_setup(const struct bench_host *host, void *ctx, void **state, struct vk_gemm **out);
/* A kernel over A, B and C (into k: the case's own, or a candidate) with
 * the push constants m, n, k (d->push_size is set to their 12 bytes) and
 * one workgroup per tile_m x tile_n tile of C. */
int vk_gemm_kernel(struct vk_gemm *s, struct vkh_kernel *k, const struct vkh_pipeline_desc *d,
                   uint32_t tile_m, uint32_t tile_n);
/* A plugin's verify: C read back, checked against the harness's gemm. */
int vk_gemm_verify(const struct bench_host *host, void *state);

#endif
