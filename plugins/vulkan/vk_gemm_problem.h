/* The GEMM problem shared by the Vulkan GEMM plugins whose A, B and C are
 * vkh arrays of one dtype (vk_gemm, vk_gemm_tiled, vk_gemm_auto): the
 * parameters, the inputs, the output, the work, the check and the cleanup,
 * so each plugin file holds only its kernel. */
#ifndef VK_GEMM_PROBLEM_H
#define VK_GEMM_PROBLEM_H

#include "vkh.h"

struct vk_gemm {
  struct vkh *vk;
  int64_t m, n, k;
  enum bench_dtype dtype;
  struct vkh_array a, b, c;
  struct vkh_kernel kern; /* the plugin's kernel, made by its setup */
};

/* Allocate the state (*state, freed by vk_gemm_teardown), read m, n, k and
 * dtype, require fp16 when asked, make A and B (random) and C. */
int vk_gemm_setup(const struct bench_host *host, void *ctx, void **state, struct vk_gemm **out);

/* Plugin callbacks for a struct vk_gemm state. */
int vk_gemm_run(const struct bench_host *host, void *state);
int vk_gemm_run_batch(const struct bench_host *host, void *state, int64_t n);
int vk_gemm_verify(const struct bench_host *host, void *state);
void vk_gemm_teardown(const struct bench_host *host, void *state);

#endif
