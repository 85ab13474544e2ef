/* Compiled pipelines kept on disk between processes: one VkPipelineCache per
 * device and driver, in $XDG_CACHE_HOME/bench/ (else ~/.cache/bench/), next
 * to vk_gemm_auto's tuning cache. The file name holds vendorID, deviceID,
 * driverVersion and pipelineCacheUUID; the data's own header is checked
 * against the device again before it is handed to the driver. Written once
 * at deinit, to a temporary file renamed over the old one. A cache that
 * cannot be read or written costs nothing but the time it would have saved. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vkh.h"

#define PCACHE_MAX_BYTES (64u << 20)
#define PCACHE_HEADER_BYTES (16u + VK_UUID_SIZE)

static int cache_path(const VkPhysicalDeviceProperties *p, char *buf, size_t len) {
  char uuid[2 * VK_UUID_SIZE + 1];
  for (unsigned i = 0; i < VK_UUID_SIZE; i++) snprintf(uuid + 2 * i, 3, "%02x", p->pipelineCacheUUID[i]);
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char dir[384];
  if (xdg && xdg[0] == '/') /* the XDG spec: a relative value is ignored */
    snprintf(dir, sizeof dir, "%s/bench", xdg);
  else if (home && *home)
    snprintf(dir, sizeof dir, "%s/.cache/bench", home);
  else
    return -1;
  int n = snprintf(buf, len, "%s/vk_pipelines_%04x_%04x_%08x_%s.bin", dir, p->vendorID, p->deviceID,
                   p->driverVersion, uuid);
  return n > 0 && (size_t)n < len ? 0 : -1;
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

/* A regular file of at most PCACHE_MAX_BYTES, or NULL. */
static unsigned char *read_cache(const char *path, size_t *n) {
  *n = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (unsigned long long)st.st_size > PCACHE_MAX_BYTES) {
    close(fd);
    return NULL;
  }
  unsigned char *d = malloc((size_t)st.st_size);
  size_t got = 0;
  while (d && got < (size_t)st.st_size) {
    ssize_t r = read(fd, d + got, (size_t)st.st_size - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (!d || got != (size_t)st.st_size) {
    free(d);
    return NULL;
  }
  *n = got;
  return d;
}

void vkh_pipeline_cache_open(struct vkh *vk) {
  vk->pcache = VK_NULL_HANDLE;
  vk->pcache_loaded = 0;
  if (getenv("BENCH_VK_NO_PIPELINE_CACHE")) return;
  if (cache_path(&vk->props, vk->pcache_path, sizeof vk->pcache_path) != 0) {
    vk->pcache_path[0] = '\0';
    return;
  }
  size_t n = 0;
  unsigned char *data = read_cache(vk->pcache_path, &n);
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

/* mkdir -p of the folder holding path. */
static int make_parents(const char *path) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return 0;
  *slash = '\0';
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
    *p = c;
    if (c == '\0') break;
  }
  return 0;
}

void vkh_pipeline_cache_close(struct vkh *vk) {
  if (!vk->pcache) return;
  size_t n = 0;
  unsigned char *data = NULL;
  if (vk->pcache_created && vkGetPipelineCacheData(vk->device, vk->pcache, &n, NULL) == VK_SUCCESS &&
      n > 0 && n <= PCACHE_MAX_BYTES && n != vk->pcache_loaded && (data = malloc(n)) &&
      vkGetPipelineCacheData(vk->device, vk->pcache, &n, data) == VK_SUCCESS &&
      header_matches(data, n, &vk->props) && make_parents(vk->pcache_path) == 0) {
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", vk->pcache_path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int ok = fd >= 0;
    for (size_t off = 0; ok && off < n;) {
      ssize_t w = write(fd, data + off, n - off);
      if (w <= 0) ok = 0;
      else off += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0) ok = 0;
    if (!ok || rename(tmp, vk->pcache_path) != 0) unlink(tmp);
  }
  free(data);
  vkDestroyPipelineCache(vk->device, vk->pcache, NULL);
  vk->pcache = VK_NULL_HANDLE;
}
