/* The logical device: one compute queue, the optional 16-bit features and
 * cooperative matrices, the memory mode, a command pool, and the device's
 * facts for the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

static int has_device_extension(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  int found = 0;
  if (e && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) >= VK_SUCCESS)
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(e[i].extensionName, name) == 0;
  free(e);
  return found;
}

static const char *type_name(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
  default: return "other";
  }
}

/* Direct (buffers in host-visible, coherent device-local memory, no
 * staging) where such a memory type lives on the largest device-local heap:
 * one heap for everything (lavapipe, UMA integrated GPUs) or a discrete GPU
 * whose whole VRAM is host-visible (resizable BAR). A discrete GPU with only
 * its small BAR window host-visible (a separate ~256 MiB heap) or none gets
 * device-local buffers and staging copies. BENCH_VK_MEMORY=staging|direct
 * forces (a test hook: staging works on every device). */
static int choose_direct(const struct vkh *vk) {
  const char *force = getenv("BENCH_VK_MEMORY");
  const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int any_hv = 0, big = -1;
  for (uint32_t i = 0; i < vk->mem.memoryHeapCount; i++)
    if ((vk->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        (big < 0 || vk->mem.memoryHeaps[i].size > vk->mem.memoryHeaps[big].size))
      big = (int)i;
  int local_hv = 0;
  for (uint32_t i = 0; i < vk->mem.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = vk->mem.memoryTypes[i].propertyFlags;
    any_hv |= (f & hv) == hv;
    local_hv |= (f & hv) == hv && (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
                (int)vk->mem.memoryTypes[i].heapIndex == big;
  }
  if (force && strcmp(force, "staging") == 0) return 0;
  if (force && strcmp(force, "direct") == 0) return any_hv;
  return local_hv;
}

/* "2048 MiB device-local host-visible; 256 MiB device-local host-visible;
 * 32768 MiB host-visible": each heap, its size and what its types offer. */
static void memory_heaps(const VkPhysicalDeviceMemoryProperties *m, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t h = 0; h < m->memoryHeapCount && at < len; h++) {
    VkMemoryPropertyFlags any = 0;
    for (uint32_t i = 0; i < m->memoryTypeCount; i++)
      if (m->memoryTypes[i].heapIndex == h) any |= m->memoryTypes[i].propertyFlags;
    int n = snprintf(buf + at, len - at, "%s%.0f MiB%s%s", h ? "; " : "",
                     (double)m->memoryHeaps[h].size / (1024.0 * 1024.0),
                     m->memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT ? " device-local" : "",
                     any & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? " host-visible" : "");
    if (n < 0) break;
    at += (size_t)n;
  }
}

static void driver_version(const VkPhysicalDeviceProperties *p, char *buf, size_t len) {
  uint32_t v = p->driverVersion;
  if (p->vendorID == 0x10de) /* NVIDIA: 10.8.8.6 bits */
    snprintf(buf, len, "%u.%u.%u.%u (0x%08x)", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff,
             v & 0x3f, v);
  else
    snprintf(buf, len, "%u.%u.%u (0x%08x)", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
             VK_API_VERSION_PATCH(v), v);
}

/* Properties, limits and the facts recorded with the result. */
static void read_properties(struct vkh *vk, int driver_props) {
  const struct bench_host *h = vk->host;
  VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties m3 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
      .pNext = driver_props ? &drv : NULL};
  vk->subgroup = (VkPhysicalDeviceSubgroupProperties){
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = &m3};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                    .pNext = &vk->subgroup};
  vkGetPhysicalDeviceProperties2(vk->phys, &p2);
  vk->subgroup.pNext = NULL;
  vk->props = p2.properties;
  vk->max_alloc = m3.maxMemoryAllocationSize;
  vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->mem);

  char buf[2 * VK_MAX_DRIVER_NAME_SIZE + 16], ver[64];
  h->set_info(h, "device", vk->props.deviceName);
  if (driver_props)
    snprintf(buf, sizeof buf, "%s: %s", drv.driverName, drv.driverInfo);
  else
    snprintf(buf, sizeof buf, "vendor 0x%04x", vk->props.vendorID);
  h->set_info(h, "driver", buf);
  driver_version(&vk->props, ver, sizeof ver);
  h->set_info(h, "vk_driver_version", ver);
  uint32_t a = vk->props.apiVersion;
  snprintf(buf, sizeof buf, "%u.%u.%u", VK_API_VERSION_MAJOR(a), VK_API_VERSION_MINOR(a),
           VK_API_VERSION_PATCH(a));
  h->set_info(h, "vk_api", buf);
  snprintf(buf, sizeof buf, "%s, vendor 0x%04x, device 0x%04x",
           type_name(vk->props.deviceType), vk->props.vendorID, vk->props.deviceID);
  h->set_info(h, "vk_device_type", buf);
  snprintf(buf, sizeof buf, "%u", vk->subgroup.subgroupSize);
  h->set_info(h, "vk_subgroup_size", buf);
  char heaps[VK_MAX_MEMORY_HEAPS * 48];
  memory_heaps(&vk->mem, heaps, sizeof heaps);
  h->set_info(h, "vk_memory_heaps", heaps);
  if (!(vk->props.limits.timestampPeriod > 0)) vk->timestamp_bits = 0; /* unusable */
  if (vk->timestamp_bits)
    snprintf(buf, sizeof buf, "%u valid bits, %g ns per tick", vk->timestamp_bits,
             (double)vk->props.limits.timestampPeriod);
  else
    snprintf(buf, sizeof buf, "none on the compute queue (timestampValidBits 0): host time");
  h->set_info(h, "vk_timestamps", buf);
  h->set_info(h, "vk_validation", vk->validation ? "on" : "off");
}

int vkh_device_create(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(vk->phys, &p);
  if (p.apiVersion < vk->api_version) vk->api_version = p.apiVersion;
  const int v12 = vk->api_version >= VK_API_VERSION_1_2;
  const int f16_ext = !v12 && has_device_extension(vk->phys, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  read_properties(vk, v12 || has_device_extension(vk->phys, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME));

  /* 16-bit storage (core 1.1) and shaderFloat16 (core 1.2, else the KHR
   * extension): enabled when present, needed only by the f16 cases. */
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                          .pNext = &f12};
  VkPhysicalDeviceShaderFloat16Int8Features fi8 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      .pNext = f16_ext ? &fi8 : NULL};
  VkPhysicalDeviceFeatures2 feat = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = v12 ? (void *)&f11 : (void *)&s16};
  vkGetPhysicalDeviceFeatures2(vk->phys, &feat);
  const int memory_model = v12 && f12.vulkanMemoryModel;
  const int int8 = v12 && f12.shaderInt8 && f12.storageBuffer8BitAccess;
  if (v12) {
    vk->fp16 = f11.storageBuffer16BitAccess && f12.shaderFloat16;
    /* Enable exactly what we use. */
    memset(&f11, 0, sizeof f11);
    memset(&f12, 0, sizeof f12);
    f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f11.pNext = &f12;
    f11.storageBuffer16BitAccess = f12.shaderFloat16 = vk->fp16 ? VK_TRUE : VK_FALSE;
  } else {
    vk->fp16 = s16.storageBuffer16BitAccess && f16_ext && fi8.shaderFloat16;
    memset(&s16, 0, sizeof s16);
    memset(&fi8, 0, sizeof fi8);
    s16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    fi8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    s16.pNext = f16_ext ? &fi8 : NULL;
    s16.storageBuffer16BitAccess = fi8.shaderFloat16 = vk->fp16 ? VK_TRUE : VK_FALSE;
  }
  memset(&feat.features, 0, sizeof feat.features);
  h->set_info(h, "vk_fp16", vk->fp16 ? "shaderFloat16 and storageBuffer16BitAccess" : "no");

  /* The subgroup clock, for the in-band clock (vkh_clock.c): enabled where
   * present, alone (the device clock is a constant-rate timer). */
  VkPhysicalDeviceShaderClockFeaturesKHR clk = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  if (has_device_extension(vk->phys, VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) {
    VkPhysicalDeviceFeatures2 cf = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &clk};
    vkGetPhysicalDeviceFeatures2(vk->phys, &cf);
    vk->shader_clock = clk.shaderSubgroupClock == VK_TRUE;
  }
  if (vk->shader_clock) {
    clk = (VkPhysicalDeviceShaderClockFeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
        .pNext = feat.pNext,
        .shaderSubgroupClock = VK_TRUE};
    feat.pNext = &clk;
  }

  /* Cooperative matrices (VK_KHR_cooperative_matrix, for vk_peak_coopmat):
   * on Vulkan 1.3 (their shaders are SPIR-V 1.6), with the Vulkan memory
   * model those shaders declare, and 8-bit storage and arithmetic for int8
   * matrices where present; enabled where present, else nothing changes. */
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  if (vk->api_version >= VK_API_VERSION_1_3 && memory_model &&
      has_device_extension(vk->phys, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    VkPhysicalDeviceFeatures2 cf = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &cm};
    vkGetPhysicalDeviceFeatures2(vk->phys, &cf);
    vk->coopmat = cm.cooperativeMatrix == VK_TRUE;
  }
  if (vk->coopmat) {
    cm = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .pNext = feat.pNext,
        .cooperativeMatrix = VK_TRUE};
    feat.pNext = &cm;
    f12.vulkanMemoryModel = VK_TRUE;
    vk->int8 = int8;
    f12.shaderInt8 = f12.storageBuffer8BitAccess = int8 ? VK_TRUE : VK_FALSE;
  }

  const float priority = 1.0f;
  const VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                      .queueFamilyIndex = vk->family,
                                      .queueCount = 1,
                                      .pQueuePriorities = &priority};
  const char *ext[3];
  uint32_t next = 0;
  if (f16_ext && vk->fp16) ext[next++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
  if (vk->shader_clock) ext[next++] = VK_KHR_SHADER_CLOCK_EXTENSION_NAME;
  if (vk->coopmat) ext[next++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
  const VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                 .pNext = &feat,
                                 .queueCreateInfoCount = 1,
                                 .pQueueCreateInfos = &qi,
                                 .enabledExtensionCount = next,
                                 .ppEnabledExtensionNames = ext};
  VKH_CALL(vk, vkCreateDevice, (vk->phys, &di, NULL, &vk->device));
  vkGetDeviceQueue(vk->device, vk->family, 0, &vk->queue);
  return vkh_device_setup(vk);
}

/* The plugin's own part: facts for its results (again for a plugin reusing
 * the worker's device), its command pool and pipeline cache. */
int vkh_device_setup(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  if (vk->shared && vk->shared->users > 1) { /* vkh_device_create did these for the first */
    const int v12 = vk->api_version >= VK_API_VERSION_1_2;
    read_properties(vk, v12 || has_device_extension(vk->phys, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME));
    h->set_info(h, "vk_fp16", vk->fp16 ? "shaderFloat16 and storageBuffer16BitAccess" : "no");
  }

  const VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                      .queueFamilyIndex = vk->family};
  VKH_CALL(vk, vkCreateCommandPool, (vk->device, &pi, NULL, &vk->pool));
  vkh_pipeline_cache_open(vk);

  vk->direct = choose_direct(vk);
  h->set_info(h, "vk_memory", vk->direct ? "direct: host-visible buffers, no staging"
                                         : "staging: device-local buffers, copies through staging "
                                           "buffers outside the timed region");
  return vkh_clock_setup(vk);
}

void vkh_device_destroy(struct vkh *vk) {
  if (!vk->device) return;
  vkDeviceWaitIdle(vk->device);
  vkh_clock_destroy(vk);
  vkh_pipeline_cache_close(vk);
  if (vk->pool) vkDestroyCommandPool(vk->device, vk->pool, NULL);
  vk->pool = VK_NULL_HANDLE;
  if (VKH_KEPT(vk)) return; /* the worker's, destroyed when it ends */
  vkDestroyDevice(vk->device, NULL);
  vk->device = VK_NULL_HANDLE;
}
