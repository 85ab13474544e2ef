/* vk_peak_launch: dispatch latency (roof launch, ns per dispatch): one
 * iteration is `dispatches` dispatches of one invocation each, recorded in
 * one command buffer with a barrier between every two (each waits for the
 * one before, as kernels on one CUDA or HIP stream do), timed by the
 * device's timestamps around them; run_batch repeats the iteration in one
 * submit. Each dispatch does one atomic on a counter (shaders/peak_launch.comp):
 * the first of an iteration sets it to 1, each later one adds 1, so verify
 * compares it exactly with the number of dispatches recorded (bench.compare/1):
 * a dispatch that did not run is WRONG_ANSWER and sets no roof.
 * items = dispatches (bench.items/1). */
#include <stdlib.h>

#include "vk_peak.h"

/* A test fixture (tests/vulkan) builds this file under its own name, with
 * a faulty shader of the same file name first on its include path. */
#ifndef VK_PEAK_NAME
#define VK_PEAK_NAME "vk_peak_launch"
#endif
#define NAME VK_PEAK_NAME

static const uint32_t spv[] =
#include "peak_launch.u32.spv.inc"
    ;

struct launch {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  const struct bench_ext_compare *cmp;
  int32_t dispatches;
  struct vkh_array *count;
};

static const struct bench_param params[] = {
    {.name = "dispatches", .type = BENCH_PARAM_INT, .description = "dispatches per iteration",
     .min = 1, .max = 100000, .defaults = {"100", "1000", "10000", "1,2,9"}},
    {.name = NULL},
};

/* The case's kernel: one pipeline, `dispatches` steps of it in one command
 * buffer, step i with push constant i. */
static int record(struct launch *s) {
  struct vkh *vk = s->vc.vk;
  struct vkh_kernel *k = &s->vc.kernel;
  const struct vkh_pipeline_desc d = {.name = NAME, VKH_SPIRV(spv), .buffers = 1, .push_size = 4,
                                      .local = {1, 1, 1}};
  struct vkh_buffer *bufs[1] = {&s->count->dev};
  int rc;
  if ((rc = vkh_pipeline_create(vk, &k->pipeline, &d)) ||
      (rc = vkh_pipeline_bind(vk, &k->pipeline, bufs)))
    return rc;
  const size_t n = (size_t)s->dispatches;
  struct vkh_step *steps = calloc(n, sizeof *steps);
  uint32_t *index = calloc(n, sizeof *index);
  if (!steps || !index) rc = vk->host->fail(vk->host, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    index[i] = (uint32_t)i;
    steps[i] = (struct vkh_step){&k->pipeline, &index[i], {1, 1, 1}};
  }
  if (!rc) rc = vkh_dispatch_create(vk, &k->dispatch, steps, (uint32_t)n); /* copies the pushes */
  free(steps);
  free(index);
  return rc;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct launch), state);
  if (rc) return rc;
  struct launch *s = *state;
  struct vkh *vk = s->vc.vk;
  s->dispatches = (int32_t)host->param_int(host, "dispatches");
  if (!(s->cmp = vk_peak_compare(host, &rc))) return rc;
  if ((rc = vkh_case_output(&s->vc, &s->count, 1, BENCH_I32, "count")) ||
      (rc = vk_peak_poison(vk, s->count, 0xa5)) || (rc = record(s)))
    return rc;
  vk_peak_items(host, s->dispatches, "dispatches");
  host->set_info(host, "primary", "latency"); /* its figure is time per dispatch, its roof's unit */
  if ((rc = vk_peak_roof(host, BENCH_ROOF_LATENCY, "launch",
                         "1-invocation dispatches, a barrier between each")))
    return rc;
  return vkh_status(vk);
}

/* The counter: one per dispatch of the last iteration. */
static int verify(const struct bench_host *host, void *state) {
  struct launch *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_compare c = {.name = "count", .dtype = BENCH_I32, .ref_dtype = BENCH_I32,
                                  .count = 1, .out = s->count->host, .ref = &s->dispatches,
                                  .tol = BENCH_TOL_EXACT};
  return s->cmp->compare(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "peak",
    .description = "Vulkan dispatch latency: dependent 1-invocation dispatches, each counted by an atomic",
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
