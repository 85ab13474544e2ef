/* A host array and its device buffer: the inputs of a case (random, the
 * same on every backend) and its outputs (read back for the check). */
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

size_t vkh_array_bytes(const struct vkh_array *a) { return a->count * bench_dtype_size(a->dtype); }

int vkh_array_output(struct vkh *vk, struct vkh_array *a, size_t count, enum bench_dtype dtype,
                     const char *what) {
  memset(a, 0, sizeof *a);
  a->count = count;
  a->dtype = dtype;
  int rc = vkh_buffer_create(vk, &a->dev, vkh_array_bytes(a), what);
  if (rc != BENCH_OK) return rc;
  a->host = calloc(count ? count : 1, bench_dtype_size(dtype));
  if (!a->host)
    return vk->host->fail(vk->host, "%s: out of host memory for %zu bytes", what, vkh_array_bytes(a));
  return BENCH_OK;
}

int vkh_array_random(struct vkh *vk, struct vkh_array *a, size_t count, enum bench_dtype dtype,
                     uint64_t seed, const char *what) {
  int rc = vkh_array_output(vk, a, count, dtype, what);
  if (rc != BENCH_OK) return rc;
  vk->host->fill_random(vk->host, a->host, count, dtype, seed);
  return vkh_upload(vk, &a->dev, a->host, vkh_array_bytes(a));
}

int vkh_array_read(struct vkh *vk, struct vkh_array *a) {
  return vkh_download(vk, &a->dev, a->host, vkh_array_bytes(a));
}

void vkh_array_free(struct vkh *vk, struct vkh_array *a) {
  vkh_buffer_destroy(vk, &a->dev);
  free(a->host);
  memset(a, 0, sizeof *a);
}
