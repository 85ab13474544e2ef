/* `bench --list`'s verdicts (can this plugin run here, and why not) kept
 * beside the scan cache, keyed by the plugin file's key, this boot
 * (/proc/sys/kernel/random/boot_id: a driver installed or a device added
 * since takes a reboot or --rescan) and the environment variables that steer
 * the GPU runtimes (VK_*, HIP_*, ROCR_*, HSA_*, CUDA_*, MESA_*, LP_*,
 * LD_LIBRARY_PATH, OMP_*). A run never reads it: the worker's init decides. */
#ifndef BENCH_PROBE_CACHE_H
#define BENCH_PROBE_CACHE_H

#include <stddef.h>

#include "plugin/plugin_loader.h"

struct probe_verdict;
struct probe_cache {
  size_t n;
  struct probe_verdict *v;
  char *boot_env; /* this boot and environment, one field */
  int dirty;
};

/* Read the cache (none when unusable, or when the scan cache is off or
 * --rescan asked to ask again). */
void probe_cache_load(struct probe_cache *c);
/* The verdict for pl as it is now: 1 with rc (BENCH_OK/SKIP/ERROR) and
 * reason (malloc'd), or 0. */
int probe_cache_get(const struct probe_cache *c, const struct plugin *pl, int *rc, char **reason);
void probe_cache_put(struct probe_cache *c, const struct plugin *pl, int rc, const char *reason);
/* Write it when something changed (and the cache is on); quiet. */
void probe_cache_save(struct probe_cache *c);
void probe_cache_release(struct probe_cache *c);

#endif
