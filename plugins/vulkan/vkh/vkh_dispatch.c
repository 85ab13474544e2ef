/* Command buffers: one recorded once per case and submitted for every run,
 * timed with two timestamps; one holding n copies of the same steps for a
 * batch (run_batch); and one-time buffers for copies. */
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = src_access,
                              .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Records `reps` copies of the steps into cmd: reset the queries,
 * timestamp, the dispatches with a barrier between every two of them (also
 * between copies: each iteration overwrites what the previous one wrote),
 * timestamp at BOTTOM_OF_PIPE, a barrier that makes the results visible to
 * the host and to transfers. */
static int record(struct vkh *vk, const struct vkh_dispatch *d, VkCommandBuffer cmd, int64_t reps) {
  const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKH_CALL(vk, vkBeginCommandBuffer, (cmd, &bi));
  /* What earlier submissions wrote (uploads, the previous run) before this
   * run reads or overwrites it. */
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (d->queries) {
    vkCmdResetQueryPool(cmd, d->queries, 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->queries, 0);
  }
  for (int64_t r = 0; r < reps; r++) {
    for (uint32_t i = 0; i < d->nsteps; i++) {
      const struct vkh_step *s = &d->steps[i];
      const struct vkh_pipeline *p = s->pipeline;
      if (r > 0 || i > 0)
        barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0,
                              NULL);
      if (p->push_size)
        vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size, s->push);
      vkCmdDispatch(cmd, s->groups[0], s->groups[1], s->groups[2]);
    }
  }
  /* The end of the interval: after all work has completed (BOTTOM_OF_PIPE;
   * TOP_OF_PIPE would only measure the issue). */
  if (d->queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->queries, 1);
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  VKH_CALL(vk, vkEndCommandBuffer, (cmd));
  return BENCH_OK;
}

static int alloc_cmd(struct vkh *vk, VkCommandBuffer *cmd) {
  const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = vk->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VKH_CALL(vk, vkAllocateCommandBuffers, (vk->device, &ai, cmd));
  return BENCH_OK;
}

/* The steps, their pipelines' handles and their push constants, copied
 * into one block: a batch records them again later, when the caller's
 * structs may have moved (a struct vkh_kernel assigned elsewhere). */
static int keep_steps(struct vkh *vk, struct vkh_dispatch *d, const struct vkh_step *steps,
                      uint32_t nsteps) {
  size_t push_bytes = 0;
  for (uint32_t i = 0; i < nsteps; i++) push_bytes += steps[i].pipeline->push_size;
  const size_t n = nsteps ? nsteps : 1;
  d->steps = calloc(n, sizeof *d->steps);
  d->kept = malloc(n * sizeof(struct vkh_pipeline) + push_bytes);
  if (!d->steps || !d->kept) return vk->host->fail(vk->host, "out of memory");
  struct vkh_pipeline *pipes = d->kept;
  unsigned char *p = (unsigned char *)(pipes + n);
  for (uint32_t i = 0; i < nsteps; i++) {
    pipes[i] = *steps[i].pipeline;
    d->steps[i] = steps[i];
    d->steps[i].pipeline = &pipes[i];
    const uint32_t size = steps[i].pipeline->push_size;
    if (size) memcpy(p, steps[i].push, size);
    d->steps[i].push = p;
    p += size;
  }
  d->nsteps = nsteps;
  return BENCH_OK;
}

int vkh_dispatch_create(struct vkh *vk, struct vkh_dispatch *d, const struct vkh_step *steps,
                        uint32_t nsteps) {
  memset(d, 0, sizeof *d);
  int rc = keep_steps(vk, d, steps, nsteps);
  if (rc) return rc;
  if ((rc = alloc_cmd(vk, &d->cmd))) return rc;
  const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKH_CALL(vk, vkCreateFence, (vk->device, &fi, NULL, &d->fence));
  if (vk->timestamp_bits) {
    const VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                      .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                      .queryCount = 2};
    VKH_CALL(vk, vkCreateQueryPool, (vk->device, &qi, NULL, &d->queries));
  }
  if ((rc = record(vk, d, d->cmd, 1))) return rc;
  return vkh_status(vk);
}

/* Submit cmd, wait on the fence, keep the timestamp interval in d->last_ns
 * (masked by timestampValidBits, ticks * timestampPeriod in double). A timed
 * submit (a sample, or its first / last part) takes the in-band clock's
 * command buffers with it, in the same submit: before the first part
 * (before), after the last (after), outside cmd's own timestamps
 * (vkh_clock.c; none when the clock is off). */
enum { CLOCK_BEFORE = 1, CLOCK_AFTER = 2 };

static int submit(struct vkh *vk, struct vkh_dispatch *d, VkCommandBuffer cmd, int clock) {
  VkCommandBuffer cmds[3];
  uint32_t n = 0;
  const VkCommandBuffer before = clock & CLOCK_BEFORE ? vkh_clock_before(vk) : VK_NULL_HANDLE;
  const VkCommandBuffer after = clock & CLOCK_AFTER ? vkh_clock_after(vk) : VK_NULL_HANDLE;
  if (before) cmds[n++] = before;
  cmds[n++] = cmd;
  if (after) cmds[n++] = after;
  const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = n,
                           .pCommandBuffers = cmds};
  VKH_CALL(vk, vkQueueSubmit, (vk->queue, 1, &si, d->fence));
  VKH_CALL(vk, vkWaitForFences, (vk->device, 1, &d->fence, VK_TRUE, UINT64_MAX));
  VKH_CALL(vk, vkResetFences, (vk->device, 1, &d->fence));
  d->last_ns = 0;
  if (d->queries) {
    uint64_t t[2];
    VKH_CALL(vk, vkGetQueryPoolResults,
             (vk->device, d->queries, 0, 2, sizeof t, t, sizeof t[0],
              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    d->last_ns = vkh_timestamp_ns(t[0], t[1], vk->timestamp_bits,
                                  (double)vk->props.limits.timestampPeriod);
  }
  if (after) vkh_clock_report(vk);
  return vkh_status(vk);
}

int vkh_dispatch_submit(struct vkh *vk, struct vkh_dispatch *d) { return submit(vk, d, d->cmd, 0); }

int vkh_dispatch_run(struct vkh *vk, struct vkh_dispatch *d) {
  int rc = submit(vk, d, d->cmd, CLOCK_BEFORE | CLOCK_AFTER);
  if (rc == BENCH_OK && d->queries) vk->host->set_device_time(vk->host, d->last_ns);
  return rc;
}

/* *cmd holding `reps` copies of the steps, recorded again only when the
 * count changes (the harness keeps n steady once calibrated). */
static int cached_cmd(struct vkh *vk, struct vkh_dispatch *d, VkCommandBuffer *cmd,
                      int64_t *have, int64_t reps) {
  if (*cmd && *have == reps) return BENCH_OK;
  int rc;
  if (!*cmd && (rc = alloc_cmd(vk, cmd))) return rc;
  *have = 0;
  VKH_CALL(vk, vkResetCommandBuffer, (*cmd, 0));
  if ((rc = record(vk, d, *cmd, reps))) return rc;
  *have = reps;
  return BENCH_OK;
}

int vkh_dispatch_run_batch(struct vkh *vk, struct vkh_dispatch *d, int64_t n) {
  if (n < 1) return vk->host->fail(vk->host, "run_batch: n = %lld, expected >= 1", (long long)n);
  if (n == 1) return vkh_dispatch_run(vk, d);
  /* Up to VKH_BATCH_MAX: one command buffer. Beyond: full chunks of
   * VKH_BATCH_MAX, then the rest from a second buffer, so that neither is
   * recorded again from one call to the next. */
  const int64_t chunk = n < VKH_BATCH_MAX ? n : VKH_BATCH_MAX, rest = n % chunk;
  double ns = 0;
  for (int64_t done = 0; done < n;) {
    const int full = n - done >= chunk;
    int rc = full ? cached_cmd(vk, d, &d->batch_cmd, &d->batch_reps, chunk)
                  : cached_cmd(vk, d, &d->rest_cmd, &d->rest_reps, rest);
    const int64_t next = done + (full ? chunk : rest);
    const int clock = (done == 0 ? CLOCK_BEFORE : 0) | (next == n ? CLOCK_AFTER : 0);
    if (rc == BENCH_OK) rc = submit(vk, d, full ? d->batch_cmd : d->rest_cmd, clock);
    if (rc) return rc;
    ns += d->last_ns;
    done = next;
  }
  if (d->queries) vk->host->set_device_time(vk->host, ns);
  return BENCH_OK;
}

void vkh_dispatch_destroy(struct vkh *vk, struct vkh_dispatch *d) {
  if (vk && vk->device) {
    if (d->cmd || d->batch_cmd || d->rest_cmd) vkQueueWaitIdle(vk->queue); /* a failed run may have left it pending */
    if (d->fence) vkDestroyFence(vk->device, d->fence, NULL);
    if (d->queries) vkDestroyQueryPool(vk->device, d->queries, NULL);
    if (d->cmd) vkFreeCommandBuffers(vk->device, vk->pool, 1, &d->cmd);
    if (d->batch_cmd) vkFreeCommandBuffers(vk->device, vk->pool, 1, &d->batch_cmd);
    if (d->rest_cmd) vkFreeCommandBuffers(vk->device, vk->pool, 1, &d->rest_cmd);
  }
  free(d->steps);
  free(d->kept);
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
