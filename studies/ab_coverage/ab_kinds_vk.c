/* The Vulkan kernel of studies/ab_coverage.sh (on lavapipe here): a
 * buffer copy by a compute shader (plugins/vulkan/shaders/copy.comp,
 * compiled by the script into copy.spv.inc), built once per planted ratio:
 * AB_SCALE scales the bytes copied at build time, so two builds differ by a
 * known ratio of time. Checked by the harness's copy reference (exact). */
#include <stdlib.h>

#include "vkh.h"

#ifndef AB_SCALE
#define AB_SCALE 1.0
#endif

static const uint32_t spv[] =
#include "copy.spv.inc"
    ;

#define WG 256
#define ITEMS 4

struct st {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  uint64_t n4;
  struct vkh_array *src, *dst;
};

static const struct bench_param params[] = {
    BENCH_PARAM_SIZE("bytes copied before the planted scale (rounded up to 16)", "64MiB", "64MiB", "64MiB",
                     "64MiB"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct st), state);
  if (rc) return rc;
  struct st *s = *state;
  struct vkh *vk = s->vc.vk;
  int64_t bytes;
  if ((rc = bench_param_size(host, "size", NULL, &bytes))) return rc;
  s->n4 = (uint64_t)((double)bytes * AB_SCALE / 16 + 0.5);
  if (s->n4 > UINT32_MAX) return host->skip(host, "ab_kinds_vk: over 2^32 vectors");
  const size_t words = (size_t)(s->n4 * 4);
  if ((rc = vkh_case_input(&s->vc, &s->src, words, BENCH_F32, 1, "src")) ||
      (rc = vkh_case_output(&s->vc, &s->dst, words, BENCH_F32, "dst")))
    return rc;
  const uint32_t wg = vkh_workgroup_fit(vk, WG, 0);
  const struct vkh_pipeline_desc d = {.name = "ab_kinds_vk", VKH_SPIRV(spv), .push_size = 4,
                                      .local = {wg, 1, 1}, .spec = (const uint32_t[]){ITEMS}, .nspec = 1};
  const uint32_t push[1] = {(uint32_t)s->n4};
  uint32_t groups[3];
  if ((rc = vkh_groups_1d(vk, (s->n4 + (uint64_t)wg * ITEMS - 1) / ((uint64_t)wg * ITEMS), groups)) ||
      (rc = vkh_case_kernel(&s->vc, &d, push, groups)))
    return rc;
  return vkh_status(vk);
}

static int verify(const struct bench_host *host, void *state) {
  struct st *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_check c = {.op = "copy", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                                .n = (int64_t)(s->n4 * 4), .in = {s->src->host}, .out = s->dst->host};
  return host->check(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ab_kinds_vk",
    .backend = "vulkan",
    .operation = "copy",
    .description = "studies/ab_coverage.sh: a Vulkan buffer copy, bytes scaled at build time",
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
