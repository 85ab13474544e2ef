/* vk_smoke: the latency floor of the backend, the smallest round trip:
 * record once, then per iteration submit one dispatch of a single
 * invocation that writes one word, and wait on the fence. Host time is the
 * round trip; device time is the two timestamps around the dispatch.
 * No reference operation: setup checks the written word itself. No work
 * either: its one figure is the round trip itself, the median (a GB/s of
 * the one word would be a figure the data cannot back). */
#include <stdlib.h>

#include "vkh.h"

static const uint32_t spv[] =
#include "smoke.f32.spv.inc"
    ;

#define MAGIC 0x600dcafeu

struct smoke {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  struct vkh_array *out;
};

static const struct bench_param params[] = {{.name = NULL}};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct smoke), state);
  if (rc) return rc;
  struct smoke *s = *state;
  struct vkh *vk = s->vc.vk;
  if ((rc = vkh_case_output(&s->vc, &s->out, 1, BENCH_F32, "out"))) return rc;
  const struct vkh_pipeline_desc d = {.name = "vk_smoke", VKH_SPIRV(spv), .push_size = 4,
                                      .local = {1, 1, 1}};
  const uint32_t push = MAGIC, groups[3] = {1, 1, 1};
  if ((rc = vkh_case_kernel(&s->vc, &d, &push, groups))) return rc;
  /* Once through, read back: the round trip really happens. */
  if ((rc = vkh_dispatch_submit(vk, &s->vc.kernel.dispatch)) || (rc = vkh_case_read(&s->vc)))
    return rc;
  const uint32_t got = *(const uint32_t *)s->out->host;
  if (got != MAGIC) return host->fail(host, "vk_smoke: read back 0x%08x, expected 0x%08x", got, MAGIC);
  return vkh_status(vk);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_smoke",
    .backend = "vulkan",
    .operation = "none",
    .description = "Vulkan latency floor: one single-invocation dispatch, submit to fence",
    .params = params,
    VKH_CASE_CALLBACKS(setup, NULL),
};
