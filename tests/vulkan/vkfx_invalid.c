/* vkfx_invalid: a vk plugin (test fixture, never installed) that breaks the
 * Vulkan rules on purpose, to show that a validation message fails the case:
 *   error=core  a buffer created with usage 0 (core validation; harmless
 *               to the driver, unlike most invalid calls, and to the layer,
 *               which overflows its own buffer after reporting push
 *               constants past a layout's range)
 *   error=sync  a fill of the buffer, then a dispatch writing it, with no
 *               barrier between them (synchronization validation only;
 *               the 1.3.239 layer misses a write-after-write between two
 *               dispatches, so the first write is a transfer)
 *   error=none  the same work done right */
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

static const uint32_t spv[] =
#include "smoke.f32.spv.inc"
    ;

struct fx {
  struct vkh *vk;
  struct vkh_array out;
  struct vkh_kernel k;
};

static const struct bench_param params[] = {
    {.name = "error", .type = BENCH_PARAM_STRING, .description = "which rule to break",
     .choices = "core,sync,none", .defaults = {"core", "sync", "none", "core"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct fx *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(host, ctx);
  const char *error = host->param_str(host, "error");
  int rc;
  if ((rc = vkh_array_output(vk, &s->out, 4, BENCH_F32, "out"))) return rc;
  const struct vkh_pipeline_desc d = {.name = "vkfx_invalid", VKH_SPIRV(spv), .buffers = 1,
                                      .push_size = 4, .local = {1, 1, 1}};
  const uint32_t push[1] = {1}, groups[3] = {1, 1, 1};
  if ((rc = vkh_kernel_create(vk, &s->k, &d, (struct vkh_buffer *const[]){&s->out.dev}, push, groups)))
    return rc;

  if (strcmp(error, "core") == 0) {
    const VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                   .size = 64,
                                   .usage = 0,
                                   .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkBuffer b;
    VKH_CALL(vk, vkCreateBuffer, (vk->device, &bi, NULL, &b));
    vkDestroyBuffer(vk->device, b, NULL);
  }

  VkCommandBuffer cmd;
  if ((rc = vkh_once_begin(vk, &cmd))) return rc;
  const struct vkh_pipeline *p = &s->k.pipeline;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0, NULL);
  vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, push);
  vkCmdFillBuffer(cmd, s->out.dev.buffer, 0, VK_WHOLE_SIZE, 7);
  if (strcmp(error, "sync") != 0) {
    const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  }
  vkCmdDispatch(cmd, 1, 1, 1);
  const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT |
                                               VK_ACCESS_TRANSFER_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                       NULL, 0, NULL);
  if ((rc = vkh_once_submit(vk, cmd))) return rc;
  return vkh_status(vk);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct fx *s = state;
  return vkh_kernel_run(s->vk, &s->k);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct fx *s = state;
  vkh_kernel_destroy(s->vk, &s->k);
  vkh_array_free(s->vk, &s->out);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vkfx_invalid",
    .backend = "vulkan",
    .operation = "none",
    .description = "test fixture: breaks a Vulkan rule on purpose",
    .params = params,
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
