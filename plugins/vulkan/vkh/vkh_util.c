/* VkResult names, limit checks and random host arrays of the vk plugins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

const char *vkh_result_name(VkResult r) {
  switch (r) {
#define NAME(x) case x: return #x;
  NAME(VK_SUCCESS) NAME(VK_NOT_READY) NAME(VK_TIMEOUT) NAME(VK_EVENT_SET)
  NAME(VK_EVENT_RESET) NAME(VK_INCOMPLETE) NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
  NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY) NAME(VK_ERROR_INITIALIZATION_FAILED)
  NAME(VK_ERROR_DEVICE_LOST) NAME(VK_ERROR_MEMORY_MAP_FAILED) NAME(VK_ERROR_LAYER_NOT_PRESENT)
  NAME(VK_ERROR_EXTENSION_NOT_PRESENT) NAME(VK_ERROR_FEATURE_NOT_PRESENT)
  NAME(VK_ERROR_INCOMPATIBLE_DRIVER) NAME(VK_ERROR_TOO_MANY_OBJECTS)
  NAME(VK_ERROR_FORMAT_NOT_SUPPORTED) NAME(VK_ERROR_FRAGMENTED_POOL) NAME(VK_ERROR_UNKNOWN)
  NAME(VK_ERROR_OUT_OF_POOL_MEMORY) NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
  NAME(VK_ERROR_FRAGMENTATION) NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
  NAME(VK_PIPELINE_COMPILE_REQUIRED) NAME(VK_ERROR_VALIDATION_FAILED_EXT)
#undef NAME
  default: return "VkResult";
  }
}

int vkh_fail_call(struct vkh *vk, const char *call, VkResult r) {
  const struct bench_host *h = vk->host;
  if (r == VK_ERROR_DEVICE_LOST && vk->shared) vk->shared->lost = 1; /* not handed on */
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
    return h->skip(h, "%s: %s (%d): not enough memory for this case", call, vkh_result_name(r),
                   (int)r);
  return h->fail(h, "%s: %s (%d)", call, vkh_result_name(r), (int)r);
}

int vkh_require_workgroup(struct vkh *vk, const uint32_t local[3], uint32_t shared_bytes) {
  const VkPhysicalDeviceLimits *l = &vk->props.limits;
  const struct bench_host *h = vk->host;
  static const char axis[] = "xyz";
  for (int i = 0; i < 3; i++)
    if (local[i] == 0 || local[i] > l->maxComputeWorkGroupSize[i])
      return h->skip(h, "workgroup size %c = %u is over maxComputeWorkGroupSize[%d] = %u",
                     axis[i], local[i], i, l->maxComputeWorkGroupSize[i]);
  uint64_t n = (uint64_t)local[0] * local[1] * local[2];
  if (n > l->maxComputeWorkGroupInvocations)
    return h->skip(h, "workgroup of %llu invocations is over maxComputeWorkGroupInvocations = %u",
                   (unsigned long long)n, l->maxComputeWorkGroupInvocations);
  if (shared_bytes > l->maxComputeSharedMemorySize)
    return h->skip(h, "needs %u bytes of shared memory, over maxComputeSharedMemorySize = %u",
                   shared_bytes, l->maxComputeSharedMemorySize);
  return BENCH_OK;
}

int vkh_require_fp16(struct vkh *vk) {
  if (vk->fp16) return BENCH_OK;
  return vk->host->skip(vk->host, "device %s lacks shaderFloat16 or storageBuffer16BitAccess",
                        vk->props.deviceName);
}

uint32_t vkh_workgroup_fit(struct vkh *vk, uint32_t want, uint32_t shared_per_invocation) {
  const VkPhysicalDeviceLimits *l = &vk->props.limits;
  const char *force = getenv("BENCH_VK_WG");
  uint32_t n = want ? want : 1;
  if (force && *force) {
    char *end;
    unsigned long v = strtoul(force, &end, 10);
    if (*end == 0 && v > 0 && v <= UINT32_MAX) n = (uint32_t)v;
  } else {
    if (n > l->maxComputeWorkGroupSize[0]) n = l->maxComputeWorkGroupSize[0];
    if (n > l->maxComputeWorkGroupInvocations) n = l->maxComputeWorkGroupInvocations;
    if (shared_per_invocation && n > l->maxComputeSharedMemorySize / shared_per_invocation)
      n = l->maxComputeSharedMemorySize / shared_per_invocation;
    if (n == 0) n = 1;
  }
  char buf[16];
  snprintf(buf, sizeof buf, "%u", n);
  vk->host->set_info(vk->host, "vk_workgroup", buf);
  return n;
}

int vkh_require_subgroup_arithmetic(struct vkh *vk) {
  const VkSubgroupFeatureFlags need = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                      VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  if ((vk->subgroup.supportedOperations & need) == need &&
      (vk->subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
    return BENCH_OK;
  return vk->host->skip(vk->host, "device %s lacks subgroup arithmetic in compute shaders",
                        vk->props.deviceName);
}

int vkh_groups_2d(struct vkh *vk, uint64_t x, uint64_t y, uint32_t groups[3]) {
  const uint32_t *max = vk->props.limits.maxComputeWorkGroupCount;
  if (x > max[0] || y > max[1])
    return vk->host->skip(vk->host, "%llu x %llu workgroups is over maxComputeWorkGroupCount "
                          "(%u, %u)", (unsigned long long)x, (unsigned long long)y, max[0], max[1]);
  groups[0] = (uint32_t)(x ? x : 1);
  groups[1] = (uint32_t)(y ? y : 1);
  groups[2] = 1;
  return BENCH_OK;
}

int vkh_groups_1d(struct vkh *vk, uint64_t count, uint32_t groups[3]) {
  const uint32_t maxx = vk->props.limits.maxComputeWorkGroupCount[0];
  if (count <= maxx) return vkh_groups_2d(vk, count, 1, groups);
  return vkh_groups_2d(vk, maxx, (count + maxx - 1) / maxx, groups);
}

void *vkh_random(const struct bench_host *host, size_t count, enum bench_dtype t, uint64_t seed) {
  void *p = malloc(count * bench_dtype_size(t));
  if (p) host->fill_random(host, p, count, t, seed);
  return p;
}
