/* Which device a plugin runs on, for the tuning cache's key: init() in a
 * child, then the "device", "driver" and "arch" facts it set (a CPU plugin
 * that sets none: the CPU model and the machine's architecture). */
#ifndef BENCH_TUNE_DEVICE_H
#define BENCH_TUNE_DEVICE_H

#include <stddef.h>

#include "plugin/plugin_loader.h"

struct tune_device {
  char *name;   /* "llvmpipe (LLVM 15.0.6, 256 bits)", "AMD EPYC 7B13" */
  char *key;    /* "device=NAME;driver=D;arch=A" */
};

/* BENCH_OK with *d filled, or BENCH_SKIP / BENCH_ERROR with the reason
 * (init declined or failed) in reason. */
int tune_device_probe(const struct plugin *pl, double timeout_s, int debug, struct tune_device *d,
                      char *reason, size_t len);
void tune_device_release(struct tune_device *d);

#endif
