/* vk_smoke: the latency floor of the backend, the smallest round trip:
 * record once, then per iteration submit one dispatch of a single
 * invocation that writes one word, and wait on the fence. Host time is the
 * round trip; device time is the two timestamps around the dispatch.
 * No reference operation: setup checks the written word itself. */
#include <stdlib.h>

#include "vkh.h"

static const uint32_t spv[] =
#include "smoke.f32.spv.inc"
    ;

#define MAGIC 0x600dcafeu

struct smoke {
  struct vkh *vk;
  struct vkh_array out;
  struct vkh_kernel k;
};

static const struct bench_param params[] = {{.name = NULL}};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct smoke *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(host, ctx);
  int rc;
  if ((rc = vkh_array_output(vk, &s->out, 1, BENCH_F32, "out"))) return rc;
  const struct vkh_pipeline_desc d = {.name = "vk_smoke", VKH_SPIRV(spv), .buffers = 1,
                                      .push_size = 4, .local = {1, 1, 1}};
  const uint32_t push = MAGIC, groups[3] = {1, 1, 1};
  if ((rc = vkh_kernel_create(vk, &s->k, &d, (struct vkh_buffer *const[]){&s->out.dev}, &push,
                              groups)))
    return rc;
  /* Once through, read back: the round trip really happens. */
  if ((rc = vkh_dispatch_submit(vk, &s->k.dispatch)) || (rc = vkh_array_read(vk, &s->out))) return rc;
  const uint32_t got = *(const uint32_t *)s->out.host;
  if (got != MAGIC) return host->fail(host, "vk_smoke: read back 0x%08x, expected 0x%08x", got, MAGIC);
  host->set_work(host, 0, sizeof(uint32_t));
  return vkh_status(vk);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct smoke *s = state;
  return vkh_kernel_run(s->vk, &s->k);
}

static int run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct smoke *s = state;
  return vkh_kernel_run_batch(s->vk, &s->k, n);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct smoke *s = state;
  vkh_kernel_destroy(s->vk, &s->k);
  vkh_array_free(s->vk, &s->out);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_smoke",
    .backend = "vulkan",
    .operation = "none",
    .description = "Vulkan latency floor: one single-invocation dispatch, submit to fence",
    .params = params,
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .teardown = teardown,
    .run_batch = run_batch,
};
