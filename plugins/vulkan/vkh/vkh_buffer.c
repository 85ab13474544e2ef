/* Storage buffers: device-local with staging copies, or host-visible used
 * directly where the device has no separate device-local heap. */
#include <string.h>

#include "vkh.h"

#define MIB (1024.0 * 1024.0)

/* A memory type allowed by `bits` that has all of `need`, preferring one
 * that also has `want`; -1 if none. */
static int memory_type(const struct vkh *vk, uint32_t bits, VkMemoryPropertyFlags need,
                       VkMemoryPropertyFlags want) {
  int found = -1;
  for (uint32_t i = 0; i < vk->mem.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = vk->mem.memoryTypes[i].propertyFlags;
    if (!(bits & (1u << i)) || (f & need) != need) continue;
    if ((f & want) == want) return (int)i;
    if (found < 0) found = (int)i;
  }
  return found;
}

/* A buffer and its own memory, mapped when host-visible. */
static int buffer_make(struct vkh *vk, struct vkh_buffer *b, VkDeviceSize size,
                       VkBufferUsageFlags usage, VkMemoryPropertyFlags need,
                       VkMemoryPropertyFlags want, const char *what) {
  const struct bench_host *h = vk->host;
  memset(b, 0, sizeof *b);
  b->size = size;
  const VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                 .size = size,
                                 .usage = usage,
                                 .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VKH_CALL(vk, vkCreateBuffer, (vk->device, &bi, NULL, &b->buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk->device, b->buffer, &req);
  int type = memory_type(vk, req.memoryTypeBits, need, want);
  if (type < 0)
    return h->fail(h, "%s: no memory type with properties 0x%x for a %.1f MiB buffer", what,
                   (unsigned)need, (double)size / MIB);
  const VkMemoryHeap *heap = &vk->mem.memoryHeaps[vk->mem.memoryTypes[type].heapIndex];
  if (req.size > heap->size)
    return h->skip(h, "%s: needs %.1f MiB, over the size of its memory heap (%.1f MiB)", what,
                   (double)req.size / MIB, (double)heap->size / MIB);
  const VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                   .allocationSize = req.size,
                                   .memoryTypeIndex = (uint32_t)type};
  VKH_CALL(vk, vkAllocateMemory, (vk->device, &ai, NULL, &b->memory));
  VKH_CALL(vk, vkBindBufferMemory, (vk->device, b->buffer, b->memory, 0));
  if (vk->mem.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    VKH_CALL(vk, vkMapMemory, (vk->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map));
  return BENCH_OK;
}

int vkh_buffer_create(struct vkh *vk, struct vkh_buffer *b, VkDeviceSize size, const char *what) {
  const struct bench_host *h = vk->host;
  const VkPhysicalDeviceLimits *l = &vk->props.limits;
  /* Whole 16-byte units, so vec4 loads at the end stay inside. */
  size = (size + 15) / 16 * 16;
  if (size == 0) size = 16;
  memset(b, 0, sizeof *b);
  if (size > l->maxStorageBufferRange)
    return h->skip(h, "%s: needs a %.1f MiB storage buffer, over maxStorageBufferRange = %.1f MiB",
                   what, (double)size / MIB, (double)l->maxStorageBufferRange / MIB);
  if (vk->max_alloc && size > vk->max_alloc)
    return h->skip(h, "%s: needs %.1f MiB in one allocation, over maxMemoryAllocationSize = %.1f MiB",
                   what, (double)size / MIB, (double)vk->max_alloc / MIB);
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (vk->direct)
    return buffer_make(vk, b, size, usage,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what);
  return buffer_make(vk, b, size, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, what);
}

void vkh_buffer_destroy(struct vkh *vk, struct vkh_buffer *b) {
  if (!vk || !vk->device) return;
  if (b->map) vkUnmapMemory(vk->device, b->memory);
  if (b->buffer) vkDestroyBuffer(vk->device, b->buffer, NULL);
  if (b->memory) vkFreeMemory(vk->device, b->memory, NULL);
  memset(b, 0, sizeof *b);
}

/* A host-visible, coherent buffer for one transfer. */
static int staging_create(struct vkh *vk, struct vkh_buffer *s, VkDeviceSize bytes,
                          VkBufferUsageFlags usage, VkMemoryPropertyFlags want) {
  return buffer_make(vk, s, bytes, usage,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     want, "staging buffer");
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = src_access,
                              .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

int vkh_upload(struct vkh *vk, struct vkh_buffer *b, const void *src, VkDeviceSize bytes) {
  if (bytes > b->size) return vk->host->fail(vk->host, "vkh_upload: %llu bytes into a %llu-byte buffer",
                                             (unsigned long long)bytes, (unsigned long long)b->size);
  if (b->map) { /* coherent; the next submission makes the writes visible */
    memcpy(b->map, src, bytes);
    return BENCH_OK;
  }
  struct vkh_buffer s;
  int rc = staging_create(vk, &s, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0);
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (rc == BENCH_OK) {
    memcpy(s.map, src, bytes);
    rc = vkh_once_begin(vk, &cmd);
  }
  if (rc == BENCH_OK) {
    const VkBufferCopy region = {0, 0, bytes};
    vkCmdCopyBuffer(cmd, s.buffer, b->buffer, 1, &region);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    rc = vkh_once_submit(vk, cmd);
  }
  vkh_buffer_destroy(vk, &s);
  return rc;
}

int vkh_download(struct vkh *vk, const struct vkh_buffer *b, void *dst, VkDeviceSize bytes) {
  if (bytes > b->size) return vk->host->fail(vk->host, "vkh_download: %llu bytes from a %llu-byte buffer",
                                             (unsigned long long)bytes, (unsigned long long)b->size);
  /* Mapped VRAM of a discrete GPU (resizable BAR) is uncached for the host,
   * and reading it crosses the bus a word at a time: copy to a cached
   * staging buffer there as well. */
  if (b->map && vk->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
    /* the dispatch ended with a barrier to host reads, and its fence was waited on */
    memcpy(dst, b->map, bytes);
    return vkh_status(vk);
  }
  struct vkh_buffer s;
  int rc = staging_create(vk, &s, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (rc == BENCH_OK) rc = vkh_once_begin(vk, &cmd);
  if (rc == BENCH_OK) {
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferCopy region = {0, 0, bytes};
    vkCmdCopyBuffer(cmd, b->buffer, s.buffer, 1, &region);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    rc = vkh_once_submit(vk, cmd);
  }
  if (rc == BENCH_OK) memcpy(dst, s.map, bytes);
  vkh_buffer_destroy(vk, &s);
  return rc == BENCH_OK ? vkh_status(vk) : rc;
}
