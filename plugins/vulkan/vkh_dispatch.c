/* Command buffers: one recorded once per case and submitted for every run,
 * timed with two timestamps; and one-time buffers for copies. */
#include <string.h>

#include "vkh.h"

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = src_access,
                              .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

int vkh_dispatch_create(struct vkh *vk, struct vkh_dispatch *d, const struct vkh_step *steps,
                        uint32_t nsteps) {
  memset(d, 0, sizeof *d);
  const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = vk->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VKH_CALL(vk, vkAllocateCommandBuffers, (vk->device, &ai, &d->cmd));
  const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKH_CALL(vk, vkCreateFence, (vk->device, &fi, NULL, &d->fence));
  if (vk->timestamp_bits) {
    const VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                      .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                      .queryCount = 2};
    VKH_CALL(vk, vkCreateQueryPool, (vk->device, &qi, NULL, &d->queries));
  }

  const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKH_CALL(vk, vkBeginCommandBuffer, (d->cmd, &bi));
  /* What earlier submissions wrote (uploads, the previous run) before this
   * run reads or overwrites it. */
  barrier(d->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (d->queries) {
    vkCmdResetQueryPool(d->cmd, d->queries, 0, 2);
    vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->queries, 0);
  }
  for (uint32_t i = 0; i < nsteps; i++) {
    const struct vkh_step *s = &steps[i];
    const struct vkh_pipeline *p = s->pipeline;
    if (i > 0)
      barrier(d->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0,
                            NULL);
    if (p->push_size)
      vkCmdPushConstants(d->cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size, s->push);
    vkCmdDispatch(d->cmd, s->groups[0], s->groups[1], s->groups[2]);
  }
  /* The end of the interval: after all work has completed (BOTTOM_OF_PIPE;
   * TOP_OF_PIPE would only measure the issue). */
  if (d->queries)
    vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->queries, 1);
  barrier(d->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  VKH_CALL(vk, vkEndCommandBuffer, (d->cmd));
  return vkh_status(vk);
}

int vkh_dispatch_submit(struct vkh *vk, struct vkh_dispatch *d) {
  const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &d->cmd};
  VKH_CALL(vk, vkQueueSubmit, (vk->queue, 1, &si, d->fence));
  VKH_CALL(vk, vkWaitForFences, (vk->device, 1, &d->fence, VK_TRUE, UINT64_MAX));
  VKH_CALL(vk, vkResetFences, (vk->device, 1, &d->fence));
  d->last_ns = 0;
  if (d->queries) {
    uint64_t t[2];
    VKH_CALL(vk, vkGetQueryPoolResults,
             (vk->device, d->queries, 0, 2, sizeof t, t, sizeof t[0],
              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    const uint64_t mask = vk->timestamp_bits >= 64 ? ~(uint64_t)0
                                                   : ((uint64_t)1 << vk->timestamp_bits) - 1;
    const uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask; /* also across a wrap */
    d->last_ns = (double)ticks * (double)vk->props.limits.timestampPeriod;
  }
  return vkh_status(vk);
}

int vkh_dispatch_run(struct vkh *vk, struct vkh_dispatch *d) {
  int rc = vkh_dispatch_submit(vk, d);
  if (rc == BENCH_OK && d->queries) vk->host->set_device_time(vk->host, d->last_ns);
  return rc;
}

void vkh_dispatch_destroy(struct vkh *vk, struct vkh_dispatch *d) {
  if (!vk || !vk->device) return;
  if (d->cmd) vkQueueWaitIdle(vk->queue); /* a failed run may have left it pending */
  if (d->fence) vkDestroyFence(vk->device, d->fence, NULL);
  if (d->queries) vkDestroyQueryPool(vk->device, d->queries, NULL);
  if (d->cmd) vkFreeCommandBuffers(vk->device, vk->pool, 1, &d->cmd);
  memset(d, 0, sizeof *d);
}

int vkh_once_begin(struct vkh *vk, VkCommandBuffer *cmd) {
  const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = vk->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VKH_CALL(vk, vkAllocateCommandBuffers, (vk->device, &ai, cmd));
  const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = vkBeginCommandBuffer(*cmd, &bi);
  if (r != VK_SUCCESS) {
    vkFreeCommandBuffers(vk->device, vk->pool, 1, cmd);
    *cmd = VK_NULL_HANDLE;
    return vkh_fail_call(vk, "vkBeginCommandBuffer", r);
  }
  return BENCH_OK;
}

/* End, submit with a fence of its own, wait, free. */
static int once_run(struct vkh *vk, VkCommandBuffer cmd, VkFence *fence) {
  VKH_CALL(vk, vkEndCommandBuffer, (cmd));
  const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKH_CALL(vk, vkCreateFence, (vk->device, &fi, NULL, fence));
  const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cmd};
  VKH_CALL(vk, vkQueueSubmit, (vk->queue, 1, &si, *fence));
  VKH_CALL(vk, vkWaitForFences, (vk->device, 1, fence, VK_TRUE, UINT64_MAX));
  return BENCH_OK;
}

int vkh_once_submit(struct vkh *vk, VkCommandBuffer cmd) {
  VkFence fence = VK_NULL_HANDLE;
  int rc = once_run(vk, cmd, &fence);
  if (rc != BENCH_OK) vkQueueWaitIdle(vk->queue); /* never free what may still run */
  if (fence) vkDestroyFence(vk->device, fence, NULL);
  vkFreeCommandBuffers(vk->device, vk->pool, 1, &cmd);
  return rc;
}
