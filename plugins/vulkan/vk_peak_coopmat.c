/* vk_peak_coopmat: cooperative-matrix throughput (VK_KHR_cooperative_matrix;
 * roofs fp16_matrix and int8_matrix): `types` f16_f16 (f16 x f16 + f16),
 * f16_f32 (+ f32) or i8_i32 (int8 x int8 + int32), the first subgroup-scope
 * M x N x K the device lists for them. Each workgroup holds 4 quads of 4
 * accumulator tiles, each taking acc = A * B + acc `reps` times
 * (shaders/peak_coopmat.comp); A is a 0/1 matrix picking row i % K of B,
 * B holds -1, 0, 1 and C small integers, so every tile ends exactly at
 * C + reps * B[i % K] (fp16 accumulation: reps <= 1536 keeps |x| <= 2048),
 * and verify compares every element exactly (bench.compare/1); the output
 * is poisoned first. flops = 2 M N K x reps x 16 tiles x workgroups.
 * SKIPPED with the reason where the device lacks the extension, the
 * feature, Vulkan 1.3 or a listed size for the types, and where this build
 * has no shader: its glslc did not accept GL_KHR_cooperative_matrix
 * (Debian 12's glslc, shaderc 2023.2 with glslang 11.13, does not; glslang
 * 13 does). An integer MulAdd chain could in principle be strength-reduced
 * by a compiler without changing the result; no driver is known to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_coopmat_build.h" /* VK_PEAK_COOPMAT_SHADERS, VK_PEAK_COOPMAT_GLSLC (CMakeLists.txt) */
#include "vk_peak.h"

#define NAME "vk_peak_coopmat"
#if VK_PEAK_COOPMAT_SHADERS
static const uint32_t spv_f16acc[] =
#include "peak_coopmat.f16acc.spv.inc"
    ;
static const uint32_t spv_f32acc[] =
#include "peak_coopmat.f32acc.spv.inc"
    ;
static const uint32_t spv_i8[] =
#include "peak_coopmat.i8.spv.inc"
    ;
#endif

#define QUADS 4      /* quads of 4 accumulator tiles per workgroup */
#define TILES (4 * QUADS)
#define F16_REPS 1536 /* |C| <= 512, + reps: exact in fp16 up to 2048 */

enum types { F16_F16, F16_F32, I8_I32 };

struct coopmat {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  const struct bench_ext_compare *cmp;
  enum types types;
  uint32_t m, n, k, reps;
  struct vkh_array *a, *b, *c, *d;
};

static const struct bench_param params[] = {
    {.name = "types", .type = BENCH_PARAM_STRING,
     .description = "A and B, and the accumulator: f16_f16, f16_f32, i8_i32",
     .choices = "f16_f16,f16_f32,i8_i32",
     .defaults = {"f16_f16,f16_f32,i8_i32", "f16_f16,f16_f32,i8_i32", "f16_f16,f16_f32,i8_i32",
                  "f16_f16,f16_f32,i8_i32"}},
    {.name = "reps", .type = BENCH_PARAM_INT, .description = "MulAdds chained on each tile",
     .min = 1, .max = 1 << 20, .zip = 1, .defaults = {"16", "1024", "1024", "1,5"}},
    {.name = "workgroups", .type = BENCH_PARAM_INT, .description = "workgroups of 16 tiles each",
     .min = 1, .max = 1 << 20, .zip = 1, .defaults = {"8", "1024", "8192", "1,3"}},
    {.name = NULL},
};

static const char *const type_names[] = {"f16 x f16 + f16", "f16 x f16 + f32", "int8 x int8 + int32"};

/* The known matrices: A picks row i % K of B, B in {-1, 0, 1}, C[t] small. */
static int a_of(uint32_t i, uint32_t k, const struct coopmat *s) { return k == i % s->k; }
static int b_of(uint32_t k, uint32_t j) { return (int)((7 * k + 5 * j + 1) % 3) - 1; }
static int c_of(uint32_t t, uint32_t i, uint32_t j, const struct coopmat *s) {
  return (int)(((i * s->n + j) * 37 + t * 101) % 1024) - 512;
}

static int reference(const struct bench_host *host, void *user, int64_t start, int64_t n,
                     double *dst) {
  (void)host;
  const struct coopmat *s = user;
  const int64_t tile = (int64_t)s->m * s->n;
  for (int64_t e = start; e < start + n; e++) {
    const uint32_t t = (uint32_t)(e / tile % 4), i = (uint32_t)(e % tile / s->n),
                   j = (uint32_t)(e % s->n);
    dst[e - start] = c_of(t, i, j, s) + (double)s->reps * b_of(i % s->k, j);
  }
  return BENCH_OK;
}

static int has_extension(struct vkh *vk, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(vk->phys, NULL, &n, NULL) != VK_SUCCESS || !n) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  int found = 0;
  if (e && vkEnumerateDeviceExtensionProperties(vk->phys, NULL, &n, e) >= VK_SUCCESS)
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(e[i].extensionName, name) == 0;
  free(e);
  return found;
}

/* What this build lacks, for a reason that names the device's lack too. */
#if VK_PEAK_COOPMAT_SHADERS
#define BUILD_NOTE ""
#else
#define BUILD_NOTE "; this build has no cooperative-matrix shader either: " VK_PEAK_COOPMAT_GLSLC
#endif

/* The device can run cooperative matrices at all (else SKIP with why). */
static int require(struct vkh *vk) {
  const struct bench_host *h = vk->host;
  const char *dev = vk->props.deviceName;
  if (vk->api_version < VK_API_VERSION_1_3)
    return h->skip(h, "device %s: Vulkan %u.%u; cooperative-matrix shaders (SPIR-V 1.6) need 1.3%s",
                   dev, VK_API_VERSION_MAJOR(vk->api_version), VK_API_VERSION_MINOR(vk->api_version),
                   BUILD_NOTE);
  if (!has_extension(vk, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME))
    return h->skip(h, "device %s lacks VK_KHR_cooperative_matrix%s", dev, BUILD_NOTE);
  if (!vk->coopmat)
    return h->skip(h, "device %s has VK_KHR_cooperative_matrix but not its cooperativeMatrix "
                      "feature with vulkanMemoryModel%s", dev, BUILD_NOTE);
  if (!VK_PEAK_COOPMAT_SHADERS)
    return h->skip(h, "this build has no cooperative-matrix shader: %s", VK_PEAK_COOPMAT_GLSLC);
  return BENCH_OK;
}

/* The first subgroup-scope size the device lists for the types (else SKIP
 * naming what it lists). */
static int pick_size(struct coopmat *s) {
  struct vkh *vk = s->vc.vk;
  const struct bench_host *h = vk->host;
  PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR get =
      (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)vkGetInstanceProcAddr(
          vk->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
  if (!get) return h->skip(h, "no vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
  uint32_t n = 0;
  VKH_CALL(vk, get, (vk->phys, &n, NULL));
  VkCooperativeMatrixPropertiesKHR *p = calloc(n ? n : 1, sizeof *p);
  if (!p) return h->fail(h, "out of memory");
  for (uint32_t i = 0; i < n; i++) p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
  VkResult r = get(vk->phys, &n, p);
  const VkComponentTypeKHR ab = s->types == I8_I32 ? VK_COMPONENT_TYPE_SINT8_KHR
                                                   : VK_COMPONENT_TYPE_FLOAT16_KHR;
  const VkComponentTypeKHR acc = s->types == F16_F16   ? VK_COMPONENT_TYPE_FLOAT16_KHR
                                 : s->types == F16_F32 ? VK_COMPONENT_TYPE_FLOAT32_KHR
                                                       : VK_COMPONENT_TYPE_SINT32_KHR;
  char listed[256] = "";
  size_t at = 0;
  for (uint32_t i = 0; r >= VK_SUCCESS && i < n && !s->m; i++) {
    if (at < sizeof listed)
      at += (size_t)snprintf(listed + at, sizeof listed - at, "%s%ux%ux%u types %d,%d,%d,%d scope %d",
                             i ? "; " : "", p[i].MSize, p[i].NSize, p[i].KSize, p[i].AType,
                             p[i].BType, p[i].CType, p[i].ResultType, p[i].scope);
    if (p[i].AType == ab && p[i].BType == ab && p[i].CType == acc && p[i].ResultType == acc &&
        p[i].scope == VK_SCOPE_SUBGROUP_KHR && !p[i].saturatingAccumulate) {
      s->m = p[i].MSize;
      s->n = p[i].NSize;
      s->k = p[i].KSize;
    }
  }
  free(p);
  if (r < VK_SUCCESS) return vkh_fail_call(vk, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR", r);
  if (!s->m)
    return h->skip(h, "device %s lists no subgroup cooperative matrix of %s (it lists: %s)",
                   vk->props.deviceName, type_names[s->types], n ? listed : "none");
  return BENCH_OK;
}

/* An input of count elements of dtype, element e = v(e), uploaded. */
static int known_input(struct coopmat *s, struct vkh_array **a, size_t count, enum bench_dtype dtype,
                       int (*v)(const struct coopmat *, size_t), const char *what) {
  struct vkh *vk = s->vc.vk;
  int rc = vkh_case_array(&s->vc, a, what);
  if (rc || (rc = vkh_array_output(vk, *a, count, dtype, what))) return rc;
  for (size_t e = 0; e < count; e++) {
    const int x = v(s, e);
    if (dtype == BENCH_I8) ((int8_t *)(*a)->host)[e] = (int8_t)x;
    else if (dtype == BENCH_I32) ((int32_t *)(*a)->host)[e] = x;
    else if (dtype == BENCH_F32) ((float *)(*a)->host)[e] = (float)x;
    else ((uint16_t *)(*a)->host)[e] = bench_f32_to_f16((float)x);
  }
  return vkh_upload(vk, &(*a)->dev, (*a)->host, vkh_array_bytes(*a));
}
static int a_elem(const struct coopmat *s, size_t e) { return a_of((uint32_t)(e / s->k), (uint32_t)(e % s->k), s); }
static int b_elem(const struct coopmat *s, size_t e) { return b_of((uint32_t)(e / s->n), (uint32_t)(e % s->n)); }
static int c_elem(const struct coopmat *s, size_t e) {
  const size_t tile = (size_t)s->m * s->n;
  return c_of((uint32_t)(e / tile), (uint32_t)(e % tile / s->n), (uint32_t)(e % s->n), s);
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct coopmat), state);
  if (rc) return rc;
  struct coopmat *s = *state;
  struct vkh *vk = s->vc.vk;
  const char *t = host->param_str(host, "types");
  s->types = strcmp(t, "f16_f16") == 0 ? F16_F16 : strcmp(t, "f16_f32") == 0 ? F16_F32 : I8_I32;
  s->reps = (uint32_t)host->param_int(host, "reps");
  const uint32_t workgroups = (uint32_t)host->param_int(host, "workgroups");
  if ((rc = require(vk)) || (rc = pick_size(s))) return rc;
  if (s->types == I8_I32 && !vk->int8)
    return host->skip(host, "device %s lacks shaderInt8 or storageBuffer8BitAccess", vk->props.deviceName);
  if (s->types != I8_I32 && (rc = vkh_require_fp16(vk))) return rc;
  if (s->types == F16_F16 && s->reps > F16_REPS)
    return host->fail(host, "reps %u: an fp16 accumulator stays exact for at most %d", s->reps, F16_REPS);
  if (!(s->cmp = vk_peak_compare(host, &rc))) return rc;

  const enum bench_dtype in = s->types == I8_I32 ? BENCH_I8 : BENCH_F16;
  const enum bench_dtype out = s->types == F16_F16 ? BENCH_F16 : s->types == F16_F32 ? BENCH_F32 : BENCH_I32;
  const uint32_t wg = QUADS * vk->subgroup.subgroupSize;
  uint32_t groups[3];
  const size_t tile = (size_t)s->m * s->n;
  if ((rc = vkh_groups_1d(vk, workgroups, groups)) ||
      (rc = known_input(s, &s->a, (size_t)s->m * s->k, in, a_elem, "A")) ||
      (rc = known_input(s, &s->b, (size_t)s->k * s->n, in, b_elem, "B")) ||
      (rc = known_input(s, &s->c, 4 * tile, out, c_elem, "C")) ||
      (rc = vkh_case_output(&s->vc, &s->d, (size_t)groups[0] * groups[1] * TILES * tile, out, "D")) ||
      (rc = vk_peak_poison(vk, s->d, 0xa5)))
    return rc;

#if VK_PEAK_COOPMAT_SHADERS
  const struct vkh_pipeline_desc d = {
      .name = NAME,
      .code = s->types == F16_F16 ? spv_f16acc : s->types == F16_F32 ? spv_f32acc : spv_i8,
      .code_size = s->types == F16_F16   ? sizeof spv_f16acc
                   : s->types == F16_F32 ? sizeof spv_f32acc
                                         : sizeof spv_i8,
      .push_size = 4,
      .local = {wg, 1, 1},
      .spec = (const uint32_t[]){s->m, s->n, s->k, QUADS},
      .nspec = 4};
  if ((rc = vkh_case_kernel(&s->vc, &d, &s->reps, groups))) return rc;
#else
  (void)wg;
  return host->fail(host, "unreachable: no shader");
#endif

  char method[96];
  snprintf(method, sizeof method, "KHR cooperative matrix %ux%ux%u %s", s->m, s->n, s->k,
           type_names[s->types]);
  host->set_work(host, 2.0 * s->m * s->n * s->k * s->reps * TILES * (double)groups[0] * groups[1],
                 (double)vkh_array_bytes(s->d));
  if ((rc = vk_peak_roof(host, BENCH_ROOF_COMPUTE, s->types == I8_I32 ? "int8_matrix" : "fp16_matrix",
                         method)))
    return rc;
  return vkh_status(vk);
}

/* Every tile's end, exactly. */
static int verify(const struct bench_host *host, void *state) {
  struct coopmat *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_compare c = {.name = "D", .dtype = s->d->dtype, .ref_dtype = BENCH_F64,
                                  .count = (int64_t)s->d->count, .cols = s->n, .out = s->d->host,
                                  .ref_fn = reference, .user = s, .tol = BENCH_TOL_EXACT};
  return s->cmp->compare(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "peak",
    .description = "Vulkan cooperative-matrix peak (VK_KHR_cooperative_matrix): f16 and int8, exact chains",
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
