/* The growth rule of the plugin ABI (see bench/plugin.h): a plugin of our
 * major is accepted when the minor it needs is one we have; fields added
 * after 1.0 are read only when the plugin's abi_version says they exist. */
#include "plan/abi.h"

#include <stdio.h>

#define MAJOR(v) ((unsigned)((v) >> 16))
#define MINOR(v) ((unsigned)((v)&0xffffu))

static int built_with(const struct bench_plugin *p, uint32_t version) {
  return MAJOR(p->abi_version) == MAJOR(version) && p->abi_version >= version;
}

uint32_t abi_needed(const struct bench_plugin *p) {
  if (built_with(p, BENCH_ABI_1_1) && p->abi_needed) return p->abi_needed;
  return BENCH_ABI(MAJOR(p->abi_version), 0);
}

int abi_accept(const struct bench_plugin *p, char *msg, size_t len) {
  const uint32_t v = p->abi_version, need = abi_needed(p);
  if (MAJOR(v) != BENCH_ABI_MAJOR) {
    snprintf(msg, len, "built for plugin ABI %u.%u, this bench speaks %d.%d (rebuild it against "
             "this bench's plugin.h)", MAJOR(v), MINOR(v), BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
    return -1;
  }
  if (MAJOR(need) != MAJOR(v) || need > v) {
    snprintf(msg, len, "abi_needed %u.%u does not fit its abi_version %u.%u (a plugin needs at "
             "most the version it was built with)", MAJOR(need), MINOR(need), MAJOR(v), MINOR(v));
    return -1;
  }
  if (MINOR(need) > BENCH_ABI_MINOR) {
    snprintf(msg, len, "needs plugin ABI %u.%u, this bench speaks %d.%d (use a newer bench)",
             MAJOR(need), MINOR(need), BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
    return -1;
  }
  return 0;
}

abi_run_batch_fn abi_run_batch(const struct bench_plugin *p) {
  return built_with(p, BENCH_ABI_1_1) ? p->run_batch : NULL;
}
