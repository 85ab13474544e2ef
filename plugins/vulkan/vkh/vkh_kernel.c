/* The usual pair of a plugin: one pipeline bound to its buffers and one
 * recorded dispatch of it. */
#include "vkh.h"

int vkh_kernel_create(struct vkh *vk, struct vkh_kernel *k, const struct vkh_pipeline_desc *d,
                      struct vkh_buffer *const *bufs, const void *push, const uint32_t groups[3]) {
  int rc = vkh_pipeline_create(vk, &k->pipeline, d);
  if (rc == BENCH_OK) rc = vkh_pipeline_bind(vk, &k->pipeline, bufs);
  if (rc != BENCH_OK) return rc;
  const struct vkh_step step = {&k->pipeline, push, {groups[0], groups[1], groups[2]}};
  return vkh_dispatch_create(vk, &k->dispatch, &step, 1);
}

int vkh_kernel_run(struct vkh *vk, struct vkh_kernel *k) {
  return vkh_dispatch_run(vk, &k->dispatch);
}

int vkh_kernel_run_batch(struct vkh *vk, struct vkh_kernel *k, int64_t n) {
  return vkh_dispatch_run_batch(vk, &k->dispatch, n);
}

void vkh_kernel_destroy(struct vkh *vk, struct vkh_kernel *k) {
  vkh_dispatch_destroy(vk, &k->dispatch);
  vkh_pipeline_destroy(vk, &k->pipeline);
}
