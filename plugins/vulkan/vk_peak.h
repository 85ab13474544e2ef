/* What the Vulkan peak plugins (vk_peak_fma, vk_peak_bw, vk_peak_launch,
 * vk_peak_coopmat; operation "peak", issue 41) share: the harness's
 * bench.compare/1 (every peak case compares its whole output exactly with
 * the plugin's own reference, so a dead-coded chain or a kernel that ran on
 * part of its invocations is WRONG_ANSWER and sets no roof), the roof a case
 * measures (bench.roof/1, where the harness has it), and an output buffer
 * poisoned before the first run (what a kernel never wrote cannot pass).
 * vk_peak.c is compiled into each of them. Not installed. */
#ifndef VK_PEAK_H
#define VK_PEAK_H

#include "vkh.h"

/* bench.compare/1, or NULL after host->skip (a harness older than 1.1):
 * call from setup, return the status when NULL. */
const struct bench_ext_compare *vk_peak_compare(const struct bench_host *host, int *rc);
/* The case measures roof `id` of `kind` by `method` (bench.roof/1); nothing
 * where the harness lacks the extension (the case still runs and checks).
 * capacity_bytes and datasheet are 0: Vulkan reports neither a cache's size
 * nor a clock. From setup. */
int vk_peak_roof(const struct bench_host *host, enum bench_roof_kind kind, const char *id,
                 const char *method);
/* The output array a's device buffer filled with the byte `byte` (through
 * its host side, which vkh_case_read overwrites later). */
int vk_peak_poison(struct vkh *vk, struct vkh_array *a, unsigned char byte);
/* bench.items/1's set_items, where the harness has it. */
void vk_peak_items(const struct bench_host *host, double items, const char *unit);

#endif
