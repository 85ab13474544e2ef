/* The device's name and its in-band clock for the harness (bench.device/1).
 *
 * Name: the PCI bus id from VK_EXT_pci_bus_info (a property: the extension
 * need not be enabled), else none (lavapipe has no bus). Vulkan has no
 * default clock: set_device gets 0 and the harness reads it from the
 * vendor's library by the bus id.
 *
 * Clock: where the device has VK_KHR_shader_clock's shaderSubgroupClock
 * (the subgroup clock is the shader core's cycle counter: %clock64 on
 * NVIDIA, s_memtime on AMD) and timestamps on the compute queue. Around
 * each timed submit, in the same vkQueueSubmit (no host gap, outside the
 * plugin's own timestamps, with barriers so that nothing overlaps the timed
 * work), one invocation spins a short (SHORT_CYCLES) and a long
 * (LONG_CYCLES) while reading the clock at its start and end, each dispatch
 * between two timestamps: MHz = (long cycles - short cycles) / (long ns -
 * short ns), so the dispatch's fixed cost (launch, drain: a few us, which a
 * single timestamp pair around one spin would count as time without
 * cycles) cancels. Both readings come from the same invocation, so cycle
 * counters that differ between SMs do not matter, and timestamps and
 * cycles come from the device within one command buffer: no host
 * correlation (VK_EXT_calibrated_timestamps) is needed. The sample's clock
 * is the mean of the one before and the one after it.
 *
 * Not measured (vk_inband_clock says why): no shaderSubgroupClock, no
 * timestamps, a CPU device, a first reading at init that is no plausible
 * GPU clock (a constant-rate counter, e.g. Intel's subgroup clock at the
 * 12-38 MHz timestamp rate), or a harness without bench.device/1, which
 * then costs nothing.
 *
 * lavapipe (Mesa 22.3, measured on these machines): its subgroup clock
 * counts nanoseconds. Spins of 0.4-40 M "cycles" read 971-1040 MHz, 1000
 * within 1% once the spin is long, while the host's TSC runs at 2596 MHz;
 * with the GPU's 40000-cycle spins the figure is lavapipe's dispatch
 * overhead (tens of us, varying), 789-3277 MHz. A time counter is no clock
 * (no throttle moves it): a CPU device is not measured.
 * BENCH_VK_CLOCK_ON_CPU=1 (a test hook) measures it anyway, with 4 M-cycle
 * spins and without the plausibility test at init (lavapipe's first
 * dispatches are slow to start: one probe read 20000 MHz), so that the
 * whole path runs on lavapipe and reads about 1000 MHz. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

static const uint32_t clock_spv[] =
#include "vkh_clock.spv.inc"
    ;

/* The spins: 40000 cycles between them, about 27 us at 1.5 GHz, hundreds
 * of timestamp ticks on every device; never more than MAX_ITER reads of a
 * clock that does not move (about 100 M cycles on a GPU). On a CPU device
 * (test hook) 4 M cycles, which lavapipe's dispatch overhead cannot swamp. */
#define SHORT_CYCLES 4000u
#define LONG_CYCLES 44000u
#define MAX_ITER (1u << 22)
#define CPU_LONG_CYCLES 4000000u
#define CPU_MAX_ITER (1u << 28)
/* A first reading outside this is not a GPU's shader clock: the
 * constant-rate counters some drivers give as the subgroup clock run
 * slower (Intel's timestamp: 12-38 MHz), GPUs' clocks faster, also idle
 * (NVIDIA's lowest is about 200 MHz), and the probe's spins are load. */
#define PLAUSIBLE_MIN_MHZ 50.0
#define PROBES 8 /* readings at init, for one that makes sense */
#define PLAUSIBLE_MAX_MHZ 5000.0

static int has_extension(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  int found = 0;
  if (e && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) >= VK_SUCCESS)
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(e[i].extensionName, name) == 0;
  free(e);
  return found;
}

/* "0000:3b:00.0" into buf, or 0 when the device does not say. */
static int pci_bus_id(const struct vkh *vk, char *buf, size_t len) {
  if (!has_extension(vk->phys, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME)) return 0;
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                    .pNext = &pci};
  vkGetPhysicalDeviceProperties2(vk->phys, &p2);
  snprintf(buf, len, "%04x:%02x:%02x.%x", pci.pciDomain & 0xffffu, pci.pciBus & 0xffu,
           pci.pciDevice & 0x1fu, pci.pciFunction & 0x7u);
  return 1;
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = src_access,
                              .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* before (first = 0) or after (first = 2): everything earlier done, then
 * the short and the long spin, each between two timestamps, then
 * everything later waits and the host may read the results. */
static int record(struct vkh *vk, VkCommandBuffer cmd, uint32_t first) {
  struct vkh_clock *k = &vk->clock;
  const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKH_CALL(vk, vkBeginCommandBuffer, (cmd, &bi));
  barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0);
  vkCmdResetQueryPool(cmd, k->queries, first * 2, 4);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipe->pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipe->layout, 0, 1,
                          &k->pipe->set, 0, NULL);
  for (uint32_t i = 0; i < 2; i++) {
    const uint32_t push[3] = {first + i, i ? k->long_cycles : SHORT_CYCLES, k->max_iter};
    if (i) barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0);
    vkCmdPushConstants(cmd, k->pipe->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, k->queries, (first + i) * 2);
    vkCmdDispatch(cmd, 1, 1, 1);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, k->queries, (first + i) * 2 + 1);
  }
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  VKH_CALL(vk, vkEndCommandBuffer, (cmd));
  return BENCH_OK;
}

/* 4 x uvec4 in host-visible, coherent memory. */
static int make_buffer(struct vkh *vk) {
  struct vkh_clock *k = &vk->clock;
  const VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                 .size = 64,
                                 .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VKH_CALL(vk, vkCreateBuffer, (vk->device, &bi, NULL, &k->buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk->device, k->buffer, &req);
  const VkMemoryPropertyFlags need =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int type = -1;
  for (uint32_t i = 0; i < vk->mem.memoryTypeCount && type < 0; i++)
    if ((req.memoryTypeBits & (1u << i)) && (vk->mem.memoryTypes[i].propertyFlags & need) == need)
      type = (int)i;
  if (type < 0) return vk->host->fail(vk->host, "no host-visible coherent memory for the clock");
  const VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                   .allocationSize = req.size,
                                   .memoryTypeIndex = (uint32_t)type};
  VKH_CALL(vk, vkAllocateMemory, (vk->device, &ai, NULL, &k->memory));
  VKH_CALL(vk, vkBindBufferMemory, (vk->device, k->buffer, k->memory, 0));
  void *map = NULL;
  VKH_CALL(vk, vkMapMemory, (vk->device, k->memory, 0, VK_WHOLE_SIZE, 0, &map));
  k->map = map;
  return BENCH_OK;
}

/* Pipeline, buffer, timestamps and the two command buffers. */
static int make(struct vkh *vk) {
  struct vkh_clock *k = &vk->clock;
  k->pipe = calloc(1, sizeof *k->pipe);
  if (!k->pipe) return vk->host->fail(vk->host, "out of memory");
  const struct vkh_pipeline_desc d = {.name = "vkh_clock", VKH_SPIRV(clock_spv), .buffers = 1,
                                      .push_size = 12, .local = {1, 1, 1}};
  int rc = vkh_pipeline_create(vk, k->pipe, &d);
  if (rc == BENCH_OK) rc = make_buffer(vk);
  if (rc != BENCH_OK) return rc;
  const VkDescriptorBufferInfo dbi = {k->buffer, 0, VK_WHOLE_SIZE};
  const VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = k->pipe->set,
                                  .dstBinding = 0,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &dbi};
  vkUpdateDescriptorSets(vk->device, 1, &w, 0, NULL);
  const VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = 8};
  VKH_CALL(vk, vkCreateQueryPool, (vk->device, &qi, NULL, &k->queries));
  VkCommandBuffer cmds[2];
  const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = vk->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 2};
  VKH_CALL(vk, vkAllocateCommandBuffers, (vk->device, &ai, cmds));
  k->pre = cmds[0];
  k->post = cmds[1];
  if ((rc = record(vk, k->pre, 0)) || (rc = record(vk, k->post, 2))) return rc;
  return vkh_status(vk);
}

/* The last submit's clock, 0 when a reading made no sense: the mean of
 * the one before and the one after where both did. */
static double measured(struct vkh *vk) {
  struct vkh_clock *k = &vk->clock;
  uint64_t ts[8];
  if (vkGetQueryPoolResults(vk->device, k->queries, 0, 8, sizeof ts, ts, sizeof ts[0],
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
    return 0;
  uint32_t r[4][4];
  memcpy(r, k->map, sizeof r);
  const double period = (double)vk->props.limits.timestampPeriod;
  const double before = vkh_clock_mhz((const uint32_t(*)[4])r, ts, vk->timestamp_bits, period);
  const double after = vkh_clock_mhz((const uint32_t(*)[4])r + 2, ts + 4, vk->timestamp_bits, period);
  if (before > 0 && after > 0) return (before + after) / 2;
  return before > 0 ? before : after;
}

/* Submit the two measurements alone, wait, read. */
static int probe(struct vkh *vk, double *mhz) {
  VkFence fence;
  const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKH_CALL(vk, vkCreateFence, (vk->device, &fi, NULL, &fence));
  const VkCommandBuffer cmds[2] = {vk->clock.pre, vk->clock.post};
  const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 2,
                           .pCommandBuffers = cmds};
  VkResult r = vkQueueSubmit(vk->queue, 1, &si, fence);
  if (r == VK_SUCCESS) r = vkWaitForFences(vk->device, 1, &fence, VK_TRUE, UINT64_MAX);
  vkDestroyFence(vk->device, fence, NULL);
  if (r != VK_SUCCESS) return vkh_fail_call(vk, "vkQueueSubmit (in-band clock)", r);
  *mhz = measured(vk);
  return vkh_status(vk);
}

/* BENCH_VK_CLOCK_ON_CPU set, not empty and not 0. */
static int clock_on_cpu(void) {
  const char *e = getenv("BENCH_VK_CLOCK_ON_CPU");
  return e && *e && strcmp(e, "0") != 0;
}

/* Why this device's clock is not measured, or NULL. */
static const char *cannot(const struct vkh *vk) {
  if (!vk->shader_clock)
    return has_extension(vk->phys, VK_KHR_SHADER_CLOCK_EXTENSION_NAME)
               ? "no: VK_KHR_shader_clock without shaderSubgroupClock (the device clock is a "
                 "constant-rate timer, not a cycle counter)"
               : "no: the device has no VK_KHR_shader_clock";
  if (!vk->timestamp_bits) return "no: no timestamps on the compute queue";
  if (vk->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !clock_on_cpu())
    return "no: a CPU device: its shader clock is a time counter (lavapipe: 1000 MHz, "
           "nanoseconds, whatever the CPU's speed), not a GPU clock";
  return NULL;
}

int vkh_clock_setup(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  struct vkh_clock *k = &vk->clock;
  char bus[32], buf[192];
  const int has_bus = pci_bus_id(vk, bus, sizeof bus);
  h->set_info(h, "vk_pci_bus_id", has_bus ? bus : "none: the device has no VK_EXT_pci_bus_info");
  k->ext = bench_host_extension(h, BENCH_EXT_DEVICE);
  if (k->ext) k->ext->set_device(h, has_bus ? bus : NULL, 0);
  const char *why = cannot(vk);
  if (why) {
    h->set_info(h, "vk_inband_clock", why);
    return BENCH_OK;
  }
  if (!k->ext) {
    h->set_info(h, "vk_inband_clock", "not measured: the harness takes no clock (no bench.device/1)");
    return BENCH_OK;
  }
  const int cpu = vk->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; /* the test hook */
  k->long_cycles = cpu ? CPU_LONG_CYCLES : LONG_CYCLES;
  k->max_iter = cpu ? CPU_MAX_ITER : MAX_ITER;
  /* A failure here costs the clock, not the plugin. */
  double mhz = 0;
  int rc = make(vk);
  if (rc == BENCH_OK) rc = probe(vk, &mhz); /* a warm-up: the first dispatch pays for more */
  /* A reading that makes no sense (0: the spins' times not in order, as
   * when the device's threads were preempted on a busy CPU) is no verdict
   * on the clock: the first sensible one of a few is. */
  for (int i = 0; i < PROBES && rc == BENCH_OK; i++)
    if ((rc = probe(vk, &mhz)) == BENCH_OK && mhz > 0) break;
  if (rc != BENCH_OK) {
    snprintf(buf, sizeof buf, "no: setting it up failed (see the log)");
    h->log(h, "vkh: in-band clock off: its setup failed");
  } else if (mhz == 0) {
    snprintf(buf, sizeof buf, "no: none of %d readings at init made sense (the spins' times out "
             "of order)", PROBES);
  } else if (!(mhz >= PLAUSIBLE_MIN_MHZ && mhz <= PLAUSIBLE_MAX_MHZ) && !cpu) {
    snprintf(buf, sizeof buf,
             "no: the subgroup clock read %.4g MHz at init, not a plausible GPU clock "
             "(a constant-rate counter?)", mhz);
  } else {
    snprintf(buf, sizeof buf,
             "yes%s: subgroup clock (clockARB) against timestamps, before and after each sample; "
             "%.0f MHz at init", cpu ? " (BENCH_VK_CLOCK_ON_CPU: a time counter, no clock)" : "",
             mhz);
    k->on = 1;
  }
  h->set_info(h, "vk_inband_clock", buf);
  if (!k->on) vkh_clock_destroy(vk);
  return BENCH_OK;
}

VkCommandBuffer vkh_clock_before(const struct vkh *vk) {
  return vk->clock.on ? vk->clock.pre : VK_NULL_HANDLE;
}

VkCommandBuffer vkh_clock_after(const struct vkh *vk) {
  return vk->clock.on ? vk->clock.post : VK_NULL_HANDLE;
}

void vkh_clock_report(struct vkh *vk) {
  struct vkh_clock *k = &vk->clock;
  if (!k->on) return;
  const double mhz = measured(vk);
  /* what the harness takes: finite, in (0, 10000] */
  if (mhz >= 1 && mhz <= 10000) {
    k->ext->set_clock(vk->host, mhz);
  } else if (k->dropped++ == 0) {
    vk->host->log(vk->host, "vkh: in-band clock reading %g MHz dropped (no figure for this sample)",
                  mhz);
  }
}

void vkh_clock_destroy(struct vkh *vk) {
  struct vkh_clock *k = &vk->clock;
  if (vk->device) {
    if (k->pre || k->post) vkQueueWaitIdle(vk->queue);
    if (k->pre) vkFreeCommandBuffers(vk->device, vk->pool, 1, &k->pre);
    if (k->post) vkFreeCommandBuffers(vk->device, vk->pool, 1, &k->post);
    if (k->queries) vkDestroyQueryPool(vk->device, k->queries, NULL);
    if (k->map) vkUnmapMemory(vk->device, k->memory);
    if (k->buffer) vkDestroyBuffer(vk->device, k->buffer, NULL);
    if (k->memory) vkFreeMemory(vk->device, k->memory, NULL);
    if (k->pipe) vkh_pipeline_destroy(vk, k->pipe);
  }
  free(k->pipe);
  const struct bench_ext_device *ext = k->ext;
  memset(k, 0, sizeof *k);
  k->ext = ext;
}
