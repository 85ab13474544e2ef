/* The instance, its validation messages, and which physical device to use. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

#define MAX_DEVICES 16

/* Every message is logged (the child's stderr, kept with the result); a
 * validation or performance warning or error also fails the case at the next
 * vkh_status(). */
static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user) {
  struct vkh *vk = ((struct vkh_shared *)user)->current;
  if (!vk) return VK_FALSE; /* between plugins: nobody's case */
  const char *text = data && data->pMessage ? data->pMessage : "(no text)";
  const char *sev = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error"
                    : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT ? "warning"
                                                                                 : "info";
  const char *kind = type & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT    ? "validation"
                     : type & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT ? "performance"
                                                                              : "general";
  if (vk->host) vk->host->log(vk->host, "vulkan %s %s: %s", kind, sev, text);
  const int counts = (type & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) &&
                     severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  if (counts && vk->messages++ == 0)
    snprintf(vk->message, sizeof vk->message, "%s %s: %s", kind, sev, text);
  return VK_FALSE;
}

static int has_instance_extension(const char *name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  int found = 0;
  if (e && vkEnumerateInstanceExtensionProperties(NULL, &n, e) >= VK_SUCCESS)
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(e[i].extensionName, name) == 0;
  free(e);
  return found;
}

int vkh_instance_create(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  uint32_t api = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&api) != VK_SUCCESS) api = VK_API_VERSION_1_0;
  if (api < VK_API_VERSION_1_1)
    return h->skip(h, "the Vulkan loader offers %u.%u; the vk plugins need 1.1",
                   VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
  vk->api_version = api > VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : api;
  const char *layers = getenv("VK_INSTANCE_LAYERS");
  vk->validation = layers && strstr(layers, "VK_LAYER_KHRONOS_validation") != NULL;

  const int debug_utils = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  const char *ext[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  VkDebugUtilsMessengerCreateInfoEXT mi = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = on_message,
      .pUserData = vk->shared, /* its current plugin gets the messages */
  };
  const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "bench",
      .applicationVersion = 1,
      .pEngineName = "bench vkh",
      .apiVersion = vk->api_version,
  };
  const VkInstanceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pNext = debug_utils ? &mi : NULL, /* messages of vkCreate/DestroyInstance too */
      .pApplicationInfo = &app,
      .enabledExtensionCount = debug_utils ? 1 : 0,
      .ppEnabledExtensionNames = ext,
  };
  VkResult r = vkCreateInstance(&ci, NULL, &vk->instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED) {
    vk->instance = VK_NULL_HANDLE;
    return h->skip(h, "no Vulkan driver: vkCreateInstance returned %s (%d)", vkh_result_name(r),
                   (int)r);
  }
  if (r != VK_SUCCESS) {
    vk->instance = VK_NULL_HANDLE;
    return vkh_fail_call(vk, "vkCreateInstance", r);
  }
  if (debug_utils) {
    PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
    if (!create) return h->fail(h, "vkGetInstanceProcAddr: no vkCreateDebugUtilsMessengerEXT");
    VKH_CALL(vk, create, (vk->instance, &mi, NULL, &vk->messenger));
  }
  return BENCH_OK;
}

void vkh_instance_destroy(struct vkh *vk) {
  if (!vk->instance) return;
  if (vk->messenger) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (destroy) destroy(vk->instance, vk->messenger, NULL);
    vk->messenger = VK_NULL_HANDLE;
  }
  vkDestroyInstance(vk->instance, NULL);
  vk->instance = VK_NULL_HANDLE;
}

/* A compute queue family (one with timestamps first), or -1. */
static int compute_family(VkPhysicalDevice pd, uint32_t *bits) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
  VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
  if (!q) return -1;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
  int best = -1;
  for (uint32_t i = 0; i < n; i++) {
    if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || q[i].queueCount == 0) continue;
    if (best < 0 || (q[best].timestampValidBits == 0 && q[i].timestampValidBits > 0)) best = (int)i;
  }
  if (best >= 0) *bits = q[best].timestampValidBits;
  free(q);
  return best;
}

/* Why a device cannot be used, or NULL. */
static const char *unsuitable(VkPhysicalDevice pd) {
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(pd, &p);
  uint32_t bits;
  if (p.apiVersion < VK_API_VERSION_1_1) return "it supports only Vulkan 1.0";
  if (compute_family(pd, &bits) < 0) return "it has no compute queue";
  return NULL;
}

static int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  default: return 3; /* CPU (lavapipe) and other */
  }
}

static int name_matches(const char *name, const char *want) {
  size_t n = strlen(want);
  for (const char *p = name; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)want[i])) i++;
    if (i == n) return 1;
  }
  return 0;
}

/* BENCH_VK_DEVICE (an index or part of a name), else the first suitable
 * device of the best type: discrete, integrated, virtual, then CPU. */
int vkh_physical_device_choose(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  VkPhysicalDevice pds[MAX_DEVICES];
  uint32_t n = MAX_DEVICES;
  VkResult r = vkEnumeratePhysicalDevices(vk->instance, &n, pds);
  if (r == VK_ERROR_INITIALIZATION_FAILED || (r >= VK_SUCCESS && n == 0))
    return h->skip(h, "no Vulkan device: vkEnumeratePhysicalDevices found none (%s)",
                   vkh_result_name(r));
  if (r < VK_SUCCESS) return vkh_fail_call(vk, "vkEnumeratePhysicalDevices", r);

  const char *want = getenv("BENCH_VK_DEVICE");
  int chosen = -1;
  if (want && *want) {
    char *end;
    long idx = strtol(want, &end, 10);
    for (uint32_t i = 0; i < n && chosen < 0; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(pds[i], &p);
      if (*end == '\0' ? idx == (long)i : name_matches(p.deviceName, want)) chosen = (int)i;
    }
    if (chosen < 0)
      return h->skip(h, "BENCH_VK_DEVICE=%s matches none of the %u Vulkan device(s)", want, n);
    const char *why = unsuitable(pds[chosen]);
    if (why) return h->skip(h, "BENCH_VK_DEVICE=%s: device %d cannot be used: %s", want, chosen, why);
  } else {
    int best_rank = 99;
    for (uint32_t i = 0; i < n; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(pds[i], &p);
      if (unsuitable(pds[i]) || type_rank(p.deviceType) >= best_rank) continue;
      best_rank = type_rank(p.deviceType);
      chosen = (int)i;
    }
    if (chosen < 0) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(pds[0], &p);
      return h->skip(h, "no suitable Vulkan device: %s: %s", p.deviceName, unsuitable(pds[0]));
    }
  }
  vk->phys = pds[chosen];
  vk->shared->index = chosen;
  vk->family = (uint32_t)compute_family(vk->phys, &vk->timestamp_bits);
  if (getenv("BENCH_VK_NO_TIMESTAMPS")) vk->timestamp_bits = 0; /* test hook: host time */
  char idx[16];
  snprintf(idx, sizeof idx, "%d", chosen);
  h->set_info(h, "vk_device_index", idx);
  return BENCH_OK;
}

/* ---- the plugin's init and deinit --------------------------------------- */

int vkh_init(const struct bench_host *host, void **ctx) {
  struct vkh *vk = calloc(1, sizeof *vk);
  if (!vk) return host->fail(host, "out of memory");
  *ctx = vk;
  vk->host = host;
  vk->shared = calloc(1, sizeof *vk->shared);
  if (!vk->shared) {
    free(vk);
    *ctx = NULL;
    return host->fail(host, "out of memory");
  }
  vk->shared->current = vk;
  int rc;
  if (vkh_share_attach(vk)) { /* an earlier plugin's instance and device */
    rc = vkh_device_setup(vk);
  } else {
    rc = vkh_instance_create(vk);
    if (rc == BENCH_OK) rc = vkh_physical_device_choose(vk);
    if (rc == BENCH_OK) rc = vkh_device_create(vk);
    if (rc == BENCH_OK) vkh_share_publish(vk);
  }
  if (rc == BENCH_OK) rc = vkh_status(vk);
  if (rc != BENCH_OK) {
    /* The harness calls deinit only after a successful init. */
    vkh_deinit(host, vk);
    *ctx = NULL;
  }
  return rc;
}

void vkh_deinit(const struct bench_host *host, void *ctx) {
  struct vkh *vk = ctx;
  if (!vk) return;
  vk->host = host;
  vkh_device_destroy(vk);
  if (!VKH_KEPT(vk)) vkh_instance_destroy(vk);
  vkh_share_detach(vk);
  free(vk);
}

struct vkh *vkh_case(const struct bench_host *host, void *ctx) {
  struct vkh *vk = ctx;
  vk->host = host;
  if (vk->shared) vk->shared->current = vk;
  return vk;
}

int vkh_status(struct vkh *vk) {
  if (!vk->messages) return BENCH_OK;
  return vk->host->fail(vk->host, "%d Vulkan validation message%s; the first: %s", vk->messages,
                        vk->messages == 1 ? "" : "s", vk->message);
}
