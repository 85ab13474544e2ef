/* One Vulkan instance and device for every vk plugin of a worker process.
 * The harness runs the selected plugins of a backend one after the other in
 * one worker; each making its own instance and device cost 30-50 ms (more on
 * a real driver) per plugin. Where the harness offers bench.process/1, the
 * first plugin's instance and device are kept in the worker's slot and the
 * next plugins reuse them; the worker destroys them after the last plugin.
 * Each plugin keeps its own command pool and pipeline cache, and records
 * the device's facts with its own results as before.
 *
 * The slot's key names this layout and what vkh enables on the device (and
 * the environment that chooses the device), so that a plugin built against
 * another vkh, or wanting other features, makes its own. A device that
 * reported VK_ERROR_DEVICE_LOST is not handed on. */
#include <stdio.h>
#include <stdlib.h>

#include "vkh.h"

/* What vkh_device_create enables: shaderFloat16, storageBuffer16BitAccess,
 * shaderSubgroupClock, and cooperativeMatrix (with vulkanMemoryModel,
 * shaderInt8 and storageBuffer8BitAccess) where present. Change it with the
 * features vkh_device_create enables. */
#define VKH_DEVICE_FEATURES "f16+s16+clock+coopmat-if-present"

static const struct bench_ext_process *slots(const struct bench_host *h) {
  return bench_host_extension(h, BENCH_EXT_PROCESS);
}

static void slot_key(char *buf, size_t len) {
  const char *dev = getenv("BENCH_VK_DEVICE");
  const char *layers = getenv("VK_INSTANCE_LAYERS");
  snprintf(buf, len, "vkh.device/1/%zu/%s/%.40s/%.40s", sizeof(struct vkh_shared),
           VKH_DEVICE_FEATURES, dev && *dev ? dev : "auto", layers ? layers : "");
}

static void release_shared(void *ptr) {
  struct vkh_shared *s = ptr;
  s->current = NULL;
  if (s->device) {
    vkDeviceWaitIdle(s->device);
    vkDestroyDevice(s->device, NULL);
  }
  if (s->messenger) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(s->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (destroy) destroy(s->instance, s->messenger, NULL);
  }
  if (s->instance) vkDestroyInstance(s->instance, NULL);
  free(s);
}

int vkh_share_attach(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  const struct bench_ext_process *ext = slots(h);
  if (!ext) return 0;
  char key[BENCH_PROCESS_KEY_MAX + 1];
  slot_key(key, sizeof key);
  struct vkh_shared *s = ext->get(h, key);
  if (!s || s->lost || !s->device) return 0;
  free(vk->shared); /* the empty one vkh_init made */
  vk->shared = s;
  s->current = vk;
  s->refs++;
  s->users++;
  vk->instance = s->instance;
  vk->messenger = s->messenger;
  vk->phys = s->phys;
  vk->family = s->family;
  vk->timestamp_bits = s->timestamp_bits;
  vk->api_version = s->api_version;
  vk->device = s->device;
  vk->queue = s->queue;
  vk->fp16 = s->fp16;
  vk->validation = s->validation;
  vk->shader_clock = s->shader_clock;
  vk->coopmat = s->coopmat;
  vk->int8 = s->int8;
  char buf[96];
  snprintf(buf, sizeof buf, "%d", s->index);
  h->set_info(h, "vk_device_index", buf);
  snprintf(buf, sizeof buf, "reused: made by an earlier plugin of this worker (user %d)", s->users);
  h->set_info(h, "vk_device_shared", buf);
  return 1;
}

void vkh_share_publish(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  struct vkh_shared *s = vk->shared;
  s->current = vk;
  s->instance = vk->instance;
  s->messenger = vk->messenger;
  s->phys = vk->phys;
  s->family = vk->family;
  s->timestamp_bits = vk->timestamp_bits;
  s->api_version = vk->api_version;
  s->device = vk->device;
  s->queue = vk->queue;
  s->fp16 = vk->fp16;
  s->validation = vk->validation;
  s->shader_clock = vk->shader_clock;
  s->coopmat = vk->coopmat;
  s->int8 = vk->int8;
  s->refs = s->users = 1;
  const struct bench_ext_process *ext = slots(h);
  char key[BENCH_PROCESS_KEY_MAX + 1];
  slot_key(key, sizeof key);
  /* A lost device in the slot is replaced (and released) here. */
  s->in_slot = ext && ext->put(h, key, s, release_shared) == BENCH_OK;
  h->set_info(h, "vk_device_shared",
              s->in_slot ? "created: kept for the later vk plugins of this worker"
                         : "created: this plugin's own");
}

void vkh_share_detach(struct vkh *vk) {
  struct vkh_shared *s = vk->shared;
  if (!s) return;
  vk->shared = NULL;
  if (s->current == vk) s->current = NULL;
  if (!s->in_slot) { /* vk's own, its device and instance already destroyed */
    free(s);
    return;
  }
  s->refs--;
  vk->device = VK_NULL_HANDLE;
  vk->instance = VK_NULL_HANDLE;
  vk->messenger = VK_NULL_HANDLE;
}
