/* The kernel of the row-wise Vulkan plugins (vk_rmsnorm, vk_softmax,
 * vk_layernorm, vk_layernorm_rmsnorm_fused), each built twice: naive, one
 * invocation per row, VK_ROWS_WG rows per workgroup; and with -DTILED, one
 * workgroup of VK_ROWS_WG invocations per row, reduced with subgroup
 * operations. vk_rows.c is compiled into each plugin with that plugin's
 * TILED, so it follows the same choice. */
#ifndef VK_ROWS_H
#define VK_ROWS_H

#include "vkh.h"

#ifdef TILED
#define VK_ROWS_WG 256 /* invocations per row */
#define VK_ROWS_WG_TEXT "256"
#else
#define VK_ROWS_WG 64 /* rows per workgroup */
#define VK_ROWS_WG_TEXT "64"
#endif

/* What the kernel needs of the device: fp16 storage for f16, subgroup
 * arithmetic when tiled; BENCH_SKIP naming the missing feature. */
int vk_rows_require(struct vkh *vk, enum bench_dtype dtype);
/* The case's kernel over its arrays: the SPIR-V code (code_size bytes),
 * VK_ROWS_WG invocations a workgroup sharing one float each, enough
 * workgroups for `rows`, push constants of push_size bytes. */
int vk_rows_kernel(struct vkh_case *c, const char *name, const uint32_t *code, size_t code_size,
                   int64_t rows, const void *push, uint32_t push_size);
/* The same with wg invocations a workgroup (a tunable: vk_rmsnorm's wg);
 * BENCH_SKIP when wg is over this device's limits. */
int vk_rows_kernel_wg(struct vkh_case *c, const char *name, const uint32_t *code, size_t code_size,
                      int64_t rows, const void *push, uint32_t push_size, uint32_t wg);

#endif
