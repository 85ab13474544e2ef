/* The plugin ABI's growth rule: which plugins this harness accepts, and the
 * fields of a plugin's entry that exist for the version it was built with. */
#ifndef BENCH_ABI_H
#define BENCH_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"

/* The oldest ABI the plugin needs: abi_needed when the plugin was built
 * against 1.1 or later and set it, else its major.0. */
uint32_t abi_needed(const struct bench_plugin *p);

/* 0 when this harness can run the plugin: same major, and the minor it
 * needs is one this harness has. Else -1 and one line in msg, e.g.
 * "needs plugin ABI 1.2, this bench speaks 1.1 (use a newer bench)". */
int abi_accept(const struct bench_plugin *p, char *msg, size_t len);

/* The plugin's run_batch, NULL when absent or built before 1.1. */
typedef int (*abi_run_batch_fn)(const struct bench_host *, void *, int64_t);
abi_run_batch_fn abi_run_batch(const struct bench_plugin *p);

#endif
