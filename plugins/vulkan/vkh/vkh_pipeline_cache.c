/* Compiled pipelines kept on disk between processes: one VkPipelineCache per
 * device and driver, in $XDG_CACHE_HOME/bench/ (else ~/.cache/bench/), next
 * to vk_gemm_auto's tuning cache. The file name holds vendorID, deviceID,
 * driverVersion and pipelineCacheUUID; the file starts with "VKHPCA1\n",
 * the SHA-256 of that name (the key this run computed: a file renamed over
 * another's name is not used) and the SHA-256 of the key and the data, and
 * the data's own header is checked against the device again before it is
 * handed to the driver. The folder and file follow the rule of bench's
 * caches (vkh_cachefs.h): not the user's alone means no cache. Written
 * once at deinit, to a random temporary name renamed over the old one. A
 * cache that cannot be read or written costs nothing but the time it would
 * have saved. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vkh.h"
#include "vkh_cachefs.h"
#include "vkh_sha256.h"

#define PCACHE_MAX_BYTES (64u << 20)
#define PCACHE_HEADER_BYTES (16u + VK_UUID_SIZE)
#define FILE_MAGIC "VKHPCA1\n"
#define FILE_HEAD (8 + 32 + 32)

/* The file of this device and driver; -1 when there is none (no folder
 * named), -2 when the folder is not the user's alone (why). */
static int cache_path(const VkPhysicalDeviceProperties *p, char *buf, size_t len, char *why,
                      size_t whylen) {
  char uuid[2 * VK_UUID_SIZE + 1];
  for (unsigned i = 0; i < VK_UUID_SIZE; i++) snprintf(uuid + 2 * i, 3, "%02x", p->pipelineCacheUUID[i]);
  char dir[384];
  if (vkh_cache_top(dir, sizeof dir) != 0) return -1;
  int rc = vkh_cache_dir_ready(dir, dir, 1, why, whylen);
  if (rc == VKH_CACHE_UNTRUSTED) return -2;
  if (rc != VKH_CACHE_OK) return -1;
  int n = snprintf(buf, len, "%s/vk_pipelines_%04x_%04x_%08x_%s.bin", dir, p->vendorID, p->deviceID,
                   p->driverVersion, uuid);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The key of the file at path (its name), and the digest of key and data. */
static void file_key(const char *path, unsigned char key[32]) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  struct vkh_sha256 s;
  vkh_sha256_init(&s);
  vkh_sha256_add(&s, name, strlen(name));
  vkh_sha256_done(&s, key);
}
static void file_digest(const unsigned char key[32], const unsigned char *d, size_t n,
                        unsigned char md[32]) {
  struct vkh_sha256 s;
  vkh_sha256_init(&s);
  vkh_sha256_add(&s, key, 32);
  vkh_sha256_add(&s, d, n);
  vkh_sha256_done(&s, md);
}

/* Does data start with this device's pipeline cache header? */
static int header_matches(const unsigned char *d, size_t n, const VkPhysicalDeviceProperties *p) {
  if (n < PCACHE_HEADER_BYTES) return 0;
  uint32_t w[4];
  memcpy(w, d, sizeof w);
  return w[0] >= PCACHE_HEADER_BYTES && w[1] == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         w[2] == p->vendorID && w[3] == p->deviceID &&
         memcmp(d + 16, p->pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

/* The driver's data kept in path for it (malloc'd), or NULL (absent,
 * another key's, damaged, or not the user's alone: *why then says why). */
static unsigned char *read_cache(const char *path, size_t *n, char *why, size_t whylen) {
  *n = 0;
  unsigned char *d;
  size_t got;
  if (vkh_cache_read(path, PCACHE_MAX_BYTES + FILE_HEAD, &d, &got, why, whylen) != VKH_CACHE_OK)
    return NULL;
  unsigned char key[32], md[32];
  file_key(path, key);
  if (got > FILE_HEAD) file_digest(key, d + FILE_HEAD, got - FILE_HEAD, md);
  if (got <= FILE_HEAD || memcmp(d, FILE_MAGIC, 8) != 0 || memcmp(d + 8, key, 32) != 0 ||
      memcmp(d + 40, md, 32) != 0) {
    free(d);
    return NULL;
  }
  memmove(d, d + FILE_HEAD, got - FILE_HEAD);
  *n = got - FILE_HEAD;
  return d;
}

void vkh_pipeline_cache_open(struct vkh *vk) {
  vk->pcache = VK_NULL_HANDLE;
  vk->pcache_loaded = 0;
  if (getenv("BENCH_VK_NO_PIPELINE_CACHE")) return;
  char why[700] = "";
  int where = cache_path(&vk->props, vk->pcache_path, sizeof vk->pcache_path, why, sizeof why);
  size_t n = 0;
  unsigned char *data = where == 0 ? read_cache(vk->pcache_path, &n, why, sizeof why) : NULL;
  if (why[0]) { /* a folder or file not the user's alone: said, not read */
    char info[800];
    snprintf(info, sizeof info, "off: %s", why);
    vk->host->log(vk->host, "not using the pipeline cache: %s", why);
    if (where != 0) { /* the folder: nothing read or written */
      vk->host->set_info(vk->host, "vk_pipeline_cache", info);
      vk->pcache_path[0] = '\0';
      return;
    }
    /* the file, in the user's own folder: replaced at deinit like a damaged one */
  }
  if (where != 0) {
    vk->pcache_path[0] = '\0';
    return;
  }
  if (data && !header_matches(data, n, &vk->props)) {
    free(data);
    data = NULL;
    n = 0;
  }
  VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                  .initialDataSize = n,
                                  .pInitialData = data};
  VkResult r = vkCreatePipelineCache(vk->device, &ci, NULL, &vk->pcache);
  if (r != VK_SUCCESS && data) { /* the driver refused the data: start empty */
    ci.initialDataSize = 0;
    ci.pInitialData = NULL;
    n = 0;
    r = vkCreatePipelineCache(vk->device, &ci, NULL, &vk->pcache);
  }
  free(data);
  if (r != VK_SUCCESS) {
    vk->pcache = VK_NULL_HANDLE;
    return;
  }
  vk->pcache_loaded = n;
  char info[640];
  snprintf(info, sizeof info, "%s (%zu bytes loaded)", vk->pcache_path, n);
  vk->host->set_info(vk->host, "vk_pipeline_cache", info);
}

void vkh_pipeline_cache_close(struct vkh *vk) {
  if (!vk->pcache) return;
  size_t n = 0;
  unsigned char *data = NULL;
  if (vk->pcache_created && vkGetPipelineCacheData(vk->device, vk->pcache, &n, NULL) == VK_SUCCESS &&
      n > 0 && n <= PCACHE_MAX_BYTES && n != vk->pcache_loaded && (data = malloc(n)) &&
      vkGetPipelineCacheData(vk->device, vk->pcache, &n, data) == VK_SUCCESS &&
      header_matches(data, n, &vk->props) && vk->pcache_path[0]) {
    unsigned char head[FILE_HEAD];
    memcpy(head, FILE_MAGIC, 8);
    file_key(vk->pcache_path, head + 8);
    file_digest(head + 8, data, n, head + 40);
    const void *parts[2] = {head, data};
    const size_t lens[2] = {sizeof head, n};
    (void)vkh_cache_write(vk->pcache_path, parts, lens, 2);
  }
  free(data);
  vkDestroyPipelineCache(vk->device, vk->pcache, NULL);
  vk->pcache = VK_NULL_HANDLE;
}
