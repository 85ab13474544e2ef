/* A case: the arrays a kernel reads and writes, its kernel, and the run,
 * run_batch and teardown every vk plugin shares, so a plugin file holds
 * only its kernel's setup and check. */
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

int vkh_case_new(const struct bench_host *host, void *ctx, size_t size, void **state) {
  if (size < sizeof(struct vkh_case)) size = sizeof(struct vkh_case);
  struct vkh_case *c = calloc(1, size);
  if (!c) return host->fail(host, "out of memory");
  *state = c;
  c->vk = vkh_case(host, ctx);
  return BENCH_OK;
}

int vkh_case_array(struct vkh_case *c, struct vkh_array **a, const char *what) {
  if (c->narrays == VKH_CASE_ARRAYS)
    return c->vk->host->fail(c->vk->host, "%s: a case holds at most %d arrays", what,
                             VKH_CASE_ARRAYS);
  *a = &c->arrays[c->narrays++];
  memset(*a, 0, sizeof **a);
  return BENCH_OK;
}

int vkh_case_input(struct vkh_case *c, struct vkh_array **a, size_t count, enum bench_dtype dtype,
                   uint64_t seed, const char *what) {
  int rc = vkh_case_array(c, a, what);
  return rc ? rc : vkh_array_random(c->vk, *a, count, dtype, seed, what);
}

int vkh_case_output(struct vkh_case *c, struct vkh_array **a, size_t count, enum bench_dtype dtype,
                    const char *what) {
  int rc = vkh_case_array(c, a, what);
  if (rc) return rc;
  c->output[*a - c->arrays] = 1;
  return vkh_array_output(c->vk, *a, count, dtype, what);
}

int vkh_case_kernel_create(struct vkh_case *c, struct vkh_kernel *k,
                           const struct vkh_pipeline_desc *d, const void *push,
                           const uint32_t groups[3]) {
  if (d->buffers && d->buffers != c->narrays)
    return c->vk->host->fail(c->vk->host, "%s: the pipeline binds %u buffers, the case has %u",
                             d->name, d->buffers, c->narrays);
  struct vkh_pipeline_desc all = *d;
  all.buffers = c->narrays;
  struct vkh_buffer *bufs[VKH_CASE_ARRAYS];
  for (uint32_t i = 0; i < c->narrays; i++) bufs[i] = &c->arrays[i].dev;
  return vkh_kernel_create(c->vk, k, &all, bufs, push, groups);
}

int vkh_case_kernel(struct vkh_case *c, const struct vkh_pipeline_desc *d, const void *push,
                    const uint32_t groups[3]) {
  return vkh_case_kernel_create(c, &c->kernel, d, push, groups);
}

double vkh_case_bytes(const struct vkh_case *c) {
  double bytes = 0;
  for (uint32_t i = 0; i < c->narrays; i++) bytes += (double)vkh_array_bytes(&c->arrays[i]);
  return bytes;
}

int vkh_case_read(struct vkh_case *c) {
  for (uint32_t i = 0; i < c->narrays; i++) {
    if (!c->output[i]) continue;
    int rc = vkh_array_read(c->vk, &c->arrays[i]);
    if (rc) return rc;
  }
  return BENCH_OK;
}

int vkh_case_run(const struct bench_host *host, void *state) {
  (void)host;
  struct vkh_case *c = state;
  return vkh_kernel_run(c->vk, &c->kernel);
}

int vkh_case_run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct vkh_case *c = state;
  return vkh_kernel_run_batch(c->vk, &c->kernel, n);
}

void vkh_case_teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct vkh_case *c = state;
  if (!c) return;
  vkh_kernel_destroy(c->vk, &c->kernel);
  for (uint32_t i = 0; i < c->narrays; i++) vkh_array_free(c->vk, &c->arrays[i]);
  free(c);
}
