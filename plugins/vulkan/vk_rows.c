#include "vk_rows.h"

int vk_rows_require(struct vkh *vk, enum bench_dtype dtype) {
  int rc;
  if (dtype == BENCH_F16 && (rc = vkh_require_fp16(vk))) return rc;
#ifdef TILED
  if ((rc = vkh_require_subgroup_arithmetic(vk))) return rc;
#endif
  return BENCH_OK;
}

int vk_rows_kernel(struct vkh_case *c, const char *name, const uint32_t *code, size_t code_size,
                   int64_t rows, const void *push, uint32_t push_size) {
  /* Written for any workgroup size: VK_ROWS_WG, or less where the device
   * allows less (one float of shared memory per invocation). */
  const uint32_t wg = vkh_workgroup_fit(c->vk, VK_ROWS_WG, sizeof(float));
  return vk_rows_kernel_wg(c, name, code, code_size, rows, push, push_size, wg);
}

int vk_rows_kernel_wg(struct vkh_case *c, const char *name, const uint32_t *code, size_t code_size,
                      int64_t rows, const void *push, uint32_t push_size, uint32_t wg) {
  const struct vkh_pipeline_desc d = {
      .name = name,
      .code = code,
      .code_size = code_size,
      .push_size = push_size,
      .local = {wg, 1, 1},
      .shared_bytes = wg * sizeof(float),
  };
  const uint32_t local[3] = {wg, 1, 1};
  int rc = vkh_require_workgroup(c->vk, local, wg * sizeof(float));
  if (rc) return rc;
  uint32_t groups[3];
#ifdef TILED
  rc = vkh_groups_1d(c->vk, (uint64_t)rows, groups);
#else
  rc = vkh_groups_1d(c->vk, ((uint64_t)rows + wg - 1) / wg, groups);
#endif
  return rc ? rc : vkh_case_kernel(c, &d, push, groups);
}
