/* vk_fill and vk_copy (this file, built twice; -DCOPY): device memory
 * bandwidth of a compute shader moving 16 bytes per access, each
 * invocation handling ITEMS vectors a workgroup apart.
 *   fill: dst = value       bytes = size (written)
 *   copy: dst = src         bytes = 2 * size (read + written, as STREAM)
 * (the harness counts the bytes from the operation table, see operation.h)
 * Checked with the harness's "copy" and "fill" reference ops (exact: the
 * destination must hold the source, or the value, bit for bit). */
#include <stdlib.h>

#include "vkh.h"

#ifdef COPY
#define NAME "vk_copy"
static const uint32_t spv[] =
#include "copy.f32.spv.inc"
    ;
#else
#define NAME "vk_fill"
static const uint32_t spv[] =
#include "fill.f32.spv.inc"
    ;
#endif

#define WG 256 /* invocations a workgroup, or the device's most (vkh_workgroup_fit) */
#define ITEMS 4
#define VALUE 0x3f8ccccdu /* 1.1f, the bits the shader stores */
#define VALUE_F32 1.1f

struct membw {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  uint64_t n4;        /* 16-byte vectors */
  struct vkh_array *src, *dst;
};

static const struct bench_param params[] = {
    BENCH_PARAM_SIZE("bytes of the buffer (rounded up to 16): " BENCH_SIZE_EXAMPLES, "1MiB",
                     "64MiB", "120MiB", "1000KiB,4096,16"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct membw), state);
  if (rc) return rc;
  struct membw *s = *state;
  struct vkh *vk = s->vc.vk;
  int64_t bytes;
  if ((rc = bench_param_size(host, "size", NULL, &bytes))) return rc;
  s->n4 = (bytes + 15) / 16;
  const size_t words = (size_t)(s->n4 * 4);
#ifdef COPY
  if ((rc = vkh_case_input(&s->vc, &s->src, words, BENCH_F32, 1, "src"))) return rc;
#endif
  if ((rc = vkh_case_output(&s->vc, &s->dst, words, BENCH_F32, "dst"))) return rc;

  const uint32_t wg = vkh_workgroup_fit(vk, WG, 0);
  const struct vkh_pipeline_desc d = {.name = NAME, VKH_SPIRV(spv), .push_size = 8,
                                      .local = {wg, 1, 1}, .spec = (const uint32_t[]){ITEMS},
                                      .nspec = 1};
  const uint32_t push[2] = {(uint32_t)s->n4, VALUE};
  uint32_t groups[3];
  if (s->n4 > UINT32_MAX) return host->skip(host, "%s: over 2^32 vectors", NAME);
  if ((rc = vkh_groups_1d(vk, (s->n4 + (uint64_t)wg * ITEMS - 1) / ((uint64_t)wg * ITEMS), groups)) ||
      (rc = vkh_case_kernel(&s->vc, &d, push, groups)))
    return rc;

  return vkh_status(vk);
}

/* The destination after the timed runs, against the harness's reference. */
static int verify(const struct bench_host *host, void *state) {
  struct membw *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
#ifdef COPY
  const struct bench_check c = {.op = "copy", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                                .n = (int64_t)(s->n4 * 4), .in = {s->src->host},
                                .out = s->dst->host};
#else
  const float value = VALUE_F32;
  const struct bench_check c = {.op = "fill", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                                .n = (int64_t)(s->n4 * 4), .in = {&value}, .out = s->dst->host};
#endif
  return host->check(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
#ifdef COPY
    .operation = "copy",
#else
    .operation = "fill",
#endif
#ifdef COPY
    .description = "Vulkan device memory bandwidth: buffer copy by a compute shader, 16 B accesses",
#else
    .description = "Vulkan device memory bandwidth: buffer fill by a compute shader, 16 B stores",
#endif
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
