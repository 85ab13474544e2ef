/* vkfx_raw: a Vulkan plugin (test fixture, never installed) written on the
 * raw Vulkan API, without the vkh helpers and without a debug messenger of
 * its own, as an out-of-tree author would. Its run() records and submits a
 * command buffer that pushes constants:
 *   error=push  for the compute and the vertex stage, while the layout's
 *               only range is for compute (VUID-vkCmdPushConstants-offset-01795;
 *               the bytes stay inside the range: the 1.3.239 layer
 *               overflows its own buffer on bytes past it)
 *   error=none  for the compute stage only: valid
 * The driver does not mind either way, so only the validation layer (which
 * the harness enables in --mode debug) can see the bug.
 * Built twice more, with an error outside the cases:
 *   -DVKFX_PLANT=1 (vkfx_raw_deinit): deinit leaves the pipeline layout
 *               alive at vkDestroyDevice (VUID-vkDestroyDevice-device-00378)
 *   -DVKFX_PLANT=2 (vkfx_raw_init): init creates a buffer with no usage
 *               flags (VUID-VkBufferCreateInfo-usage-requiredbitmask) */
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "bench/plugin.h"

#ifndef VKFX_PLANT
#define VKFX_PLANT 0
#define VKFX_NAME "vkfx_raw"
#elif VKFX_PLANT == 1
#define VKFX_NAME "vkfx_raw_deinit"
#else
#define VKFX_NAME "vkfx_raw_init"
#endif

struct ctx {
  VkInstance instance;
  VkDevice device;
  VkQueue queue;
  VkCommandPool pool;
  VkPipelineLayout layout;
};

struct state {
  struct ctx *c;
  VkShaderStageFlags stages;
};

static const struct bench_param params[] = {
    {.name = "error", .type = BENCH_PARAM_STRING, .description = "which rule to break",
     .choices = "push,none", .defaults = {"push", "none"}},
    {.name = NULL},
};

static void deinit(const struct bench_host *host, void *p) {
  (void)host;
  struct ctx *c = p;
  if (!c) return;
  if (c->device) {
    vkDeviceWaitIdle(c->device);
    if (c->layout && VKFX_PLANT != 1) vkDestroyPipelineLayout(c->device, c->layout, NULL);
    if (c->pool) vkDestroyCommandPool(c->device, c->pool, NULL);
    vkDestroyDevice(c->device, NULL);
  }
  if (c->instance) vkDestroyInstance(c->instance, NULL);
  free(c);
}

static int init_in(const struct bench_host *host, struct ctx *c) {
  const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                 .pApplicationName = "vkfx_raw",
                                 .apiVersion = VK_API_VERSION_1_1};
  const VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                    .pApplicationInfo = &app};
  VkResult r = vkCreateInstance(&ici, NULL, &c->instance);
  if (r != VK_SUCCESS) {
    c->instance = VK_NULL_HANDLE;
    return host->skip(host, "no Vulkan driver: vkCreateInstance returned %d", (int)r);
  }
  uint32_t n = 1;
  VkPhysicalDevice pd;
  r = vkEnumeratePhysicalDevices(c->instance, &n, &pd);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) return host->skip(host, "no Vulkan device");
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
  VkQueueFamilyProperties q[16];
  if (nq > 16) nq = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, q);
  uint32_t fam = 0;
  while (fam < nq && !(q[fam].queueFlags & VK_QUEUE_COMPUTE_BIT)) fam++;
  if (fam == nq) return host->skip(host, "no compute queue");
  const float prio = 1.0f;
  const VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                       .queueFamilyIndex = fam,
                                       .queueCount = 1,
                                       .pQueuePriorities = &prio};
  const VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                  .queueCreateInfoCount = 1,
                                  .pQueueCreateInfos = &qci};
  if ((r = vkCreateDevice(pd, &dci, NULL, &c->device)) != VK_SUCCESS) {
    c->device = VK_NULL_HANDLE;
    return host->fail(host, "vkCreateDevice returned %d", (int)r);
  }
  vkGetDeviceQueue(c->device, fam, 0, &c->queue);
  const VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                       .queueFamilyIndex = fam};
  if ((r = vkCreateCommandPool(c->device, &pci, NULL, &c->pool)) != VK_SUCCESS)
    return host->fail(host, "vkCreateCommandPool returned %d", (int)r);
  const VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
  const VkPipelineLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                          .pushConstantRangeCount = 1,
                                          .pPushConstantRanges = &range};
  if ((r = vkCreatePipelineLayout(c->device, &lci, NULL, &c->layout)) != VK_SUCCESS)
    return host->fail(host, "vkCreatePipelineLayout returned %d", (int)r);
  if (VKFX_PLANT == 2) { /* usage 0: the layer refuses it, the driver never sees it */
    const VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 64};
    VkBuffer b = VK_NULL_HANDLE;
    if (vkCreateBuffer(c->device, &bci, NULL, &b) == VK_SUCCESS && b) vkDestroyBuffer(c->device, b, NULL);
  }
  return BENCH_OK;
}

static int init(const struct bench_host *host, void **out) {
  struct ctx *c = calloc(1, sizeof *c);
  if (!c) return host->fail(host, "out of memory");
  int rc = init_in(host, c);
  if (rc != BENCH_OK) {
    deinit(host, c); /* the harness calls deinit only after a successful init */
    c = NULL;
  }
  *out = c;
  return rc;
}

static int setup(const struct bench_host *host, void *ctx, void **out) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  s->c = ctx;
  s->stages = VK_SHADER_STAGE_COMPUTE_BIT;
  if (strcmp(host->param_str(host, "error"), "push") == 0) s->stages |= VK_SHADER_STAGE_VERTEX_BIT;
  *out = s;
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *p) {
  struct state *s = p;
  struct ctx *c = s->c;
  const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = c->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VkCommandBuffer cmd;
  VkResult r = vkAllocateCommandBuffers(c->device, &ai, &cmd);
  if (r != VK_SUCCESS) return host->fail(host, "vkAllocateCommandBuffers returned %d", (int)r);
  const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  const uint32_t push[1] = {1};
  vkBeginCommandBuffer(cmd, &bi);
  vkCmdPushConstants(cmd, c->layout, s->stages, 0, sizeof push, push);
  vkEndCommandBuffer(cmd);
  const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cmd};
  r = vkQueueSubmit(c->queue, 1, &si, VK_NULL_HANDLE);
  if (r == VK_SUCCESS) r = vkQueueWaitIdle(c->queue);
  vkFreeCommandBuffers(c->device, c->pool, 1, &cmd);
  return r == VK_SUCCESS ? BENCH_OK : host->fail(host, "vkQueueSubmit returned %d", (int)r);
}

static void teardown(const struct bench_host *host, void *p) {
  (void)host;
  free(p);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = VKFX_NAME,
    .backend = "vulkan",
    .operation = "none",
    .description = "test fixture: raw Vulkan (no vkh) with a planted validation error",
    .params = params,
    .init = init,
    .deinit = deinit,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
