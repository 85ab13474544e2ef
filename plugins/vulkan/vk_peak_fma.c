/* vk_peak_fma: the device's vector FMA peak (roofs fp32 and fp16), 8
 * independent chains of x = fma(x, a, b) per invocation (shaders/peak_fma.comp),
 * scalar or vec4 (`width` 1 or 4), `chain` steps each, over `invocations`.
 * a = b = 1 come from push constants and each x starts at an integer of its
 * element's index, so the value stays an exact integer all the way (fp16:
 * -2048..2048, hence chain <= 4096) and every chain's end is known:
 * start + chain. verify compares all of them exactly (bench.compare/1), so
 * a chain the compiler dead-coded or shortened, or an invocation that never
 * ran (its output is poisoned with NaN first), is WRONG_ANSWER and sets no
 * roof. flops = 2 x lanes x 8 chains x chain x invocations. */
#include <stdlib.h>

#include "vk_peak.h"

/* A test fixture (tests/vulkan) builds this file under its own name, with
 * faulty shaders of the same file names first on its include path. */
#ifndef VK_PEAK_NAME
#define VK_PEAK_NAME "vk_peak_fma"
#endif
#define NAME VK_PEAK_NAME

static const uint32_t spv_f32[] =
#include "peak_fma.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "peak_fma.f16.spv.inc"
    ;
static const uint32_t spv_f32x4[] =
#include "peak_fma.f32x4.spv.inc"
    ;
static const uint32_t spv_f16x4[] =
#include "peak_fma.f16x4.spv.inc"
    ;

#define CHAINS 8  /* independent chains per invocation (the shader's x0 .. x7) */
#define WG 256    /* invocations a workgroup, or the device's most */
#define F16_MAX 2048 /* fp16 holds every integer of -2048..2048 exactly */
#define F32_LO (-32768)
#define F32_SPAN 65536u

struct fma {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  const struct bench_ext_compare *cmp;
  enum bench_dtype dtype;
  uint32_t width, chain, n, span;
  int32_t lo;
  struct vkh_array *y;
};

static const struct bench_param params[] = {
    BENCH_PARAM_DTYPE("arithmetic and storage type", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = "width", .type = BENCH_PARAM_INT, .description = "lanes of each chain: 1 (float) or 4 (vec4)",
     .min = 1, .max = 4, .defaults = {"1,4", "1,4", "1,4", "1,4"}},
    {.name = "chain", .type = BENCH_PARAM_INT, .description = "dependent FMA steps of each chain",
     .min = 1, .max = 1 << 20, .zip = 1, .defaults = {"256", "1024", "4096", "1,9,4096"}},
    {.name = "invocations", .type = BENCH_PARAM_INT, .description = "invocations (8 chains each)",
     .min = 1, .max = 1 << 26, .zip = 1, .defaults = {"4096", "65536", "1048576", "1,257,1000"}},
    {.name = NULL},
};

/* Where element e's chain starts: the shader's start1(). */
static double start_of(const struct fma *s, uint32_t e) {
  return (double)((int32_t)((e * 40503u) % s->span) + s->lo);
}

static int reference(const struct bench_host *host, void *user, int64_t start, int64_t n,
                     double *dst) {
  (void)host;
  const struct fma *s = user;
  for (int64_t j = 0; j < n; j++) dst[j] = start_of(s, (uint32_t)(start + j)) + s->chain;
  return BENCH_OK;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct fma), state);
  if (rc) return rc;
  struct fma *s = *state;
  struct vkh *vk = s->vc.vk;
  if ((rc = bench_param_dtype(host, "dtype", &s->dtype))) return rc;
  s->width = (uint32_t)host->param_int(host, "width");
  const int vec4 = s->width == 4;
  if (s->width != 1 && !vec4) return host->fail(host, "width %u: 1 or 4", s->width);
  s->chain = (uint32_t)host->param_int(host, "chain");
  s->n = (uint32_t)host->param_int(host, "invocations");
  const int f16 = s->dtype == BENCH_F16;
  if (f16 && (rc = vkh_require_fp16(vk))) return rc;
  if (f16 && s->chain > 2 * F16_MAX)
    return host->fail(host, "chain %u: an fp16 chain stays exact for at most %d steps (-%d..%d)",
                      s->chain, 2 * F16_MAX, F16_MAX, F16_MAX);
  s->lo = f16 ? -F16_MAX : F32_LO;
  s->span = f16 ? (uint32_t)(2 * F16_MAX + 1) - s->chain : F32_SPAN;
  if (!(s->cmp = vk_peak_compare(host, &rc))) return rc;

  const size_t count = (size_t)s->n * CHAINS * s->width;
  if ((rc = vkh_case_output(&s->vc, &s->y, count, s->dtype, "y")) ||
      (rc = vk_peak_poison(vk, s->y, 0xff))) /* NaN in fp32 and fp16 */
    return rc;
  const uint32_t wg = vkh_workgroup_fit(vk, WG, 0);
  const struct vkh_pipeline_desc d = {
      .name = NAME,
      .code = vec4 ? (f16 ? spv_f16x4 : spv_f32x4) : (f16 ? spv_f16 : spv_f32),
      .code_size = vec4 ? (f16 ? sizeof spv_f16x4 : sizeof spv_f32x4)
                        : (f16 ? sizeof spv_f16 : sizeof spv_f32),
      .push_size = 24,
      .local = {wg, 1, 1}};
  const struct {
    float a, b;
    uint32_t chain, n, span;
    int32_t lo;
  } push = {1.0f, 1.0f, s->chain, s->n, s->span, s->lo};
  uint32_t groups[3];
  if ((rc = vkh_groups_1d(vk, (s->n + wg - 1) / wg, groups)) ||
      (rc = vkh_case_kernel(&s->vc, &d, &push, groups)))
    return rc;

  host->set_work(host, 2.0 * s->width * CHAINS * s->chain * (double)s->n,
                 (double)vkh_array_bytes(s->y));
  if ((rc = vk_peak_roof(host, BENCH_ROOF_COMPUTE, f16 ? "fp16" : "fp32",
                         vec4 ? "vec4 fma, 8 chains" : "scalar fma, 8 chains")))
    return rc;
  return vkh_status(vk);
}

/* Every chain's end, exactly. */
static int verify(const struct bench_host *host, void *state) {
  struct fma *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_compare c = {.name = "y", .dtype = s->dtype, .ref_dtype = BENCH_F64,
                                  .count = (int64_t)s->y->count, .cols = CHAINS * s->width,
                                  .out = s->y->host, .ref_fn = reference, .user = s,
                                  .tol = BENCH_TOL_EXACT};
  return s->cmp->compare(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "peak",
    .description = "Vulkan FMA peak (fp32, fp16): 8 exact FMA chains per invocation, scalar or vec4",
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
