/* vk_layernorm_rmsnorm_fused and ..._tiled (this file, built twice; -DTILED):
 * one kernel, two outputs,
 *   y1 = layernorm(x; w1, b1, eps)    stored in the dtype
 *   y2 = rmsnorm(y1; w2, eps)         of y1 as stored
 * i.e. exactly a layernorm kernel followed by an rmsnorm kernel, with y1
 * never read back from memory by another dispatch. Each output is checked
 * on its own: y1 against the harness's layernorm of x, y2 against its
 * rmsnorm of the y1 the kernel produced (which the first check vouches for).
 * naive: one invocation per row (shaders/lnrms.comp); tiled: one workgroup
 * per row, subgroup reductions (shaders/lnrms_tiled.comp). */
#include <stdlib.h>

#include "vkh.h"

#ifdef TILED
#define NAME "vk_layernorm_rmsnorm_fused_tiled"
#define WG 256 /* invocations per row */
static const uint32_t spv_f32[] =
#include "lnrms_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "lnrms_tiled.f16.spv.inc"
    ;
#else
#define NAME "vk_layernorm_rmsnorm_fused"
#define WG 64 /* rows per workgroup */
static const uint32_t spv_f32[] =
#include "lnrms.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "lnrms.f16.spv.inc"
    ;
#endif

struct fused {
  struct vkh *vk;
  int64_t rows, cols;
  float eps;
  enum bench_dtype dtype;
  struct vkh_array x, w1, b1, w2, y1, y2;
  struct vkh_kernel k;
};

static const struct bench_param params[] = {
    BENCH_PARAM_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    {.name = "eps", .type = BENCH_PARAM_FLOAT,
     .description = "added to the variance and to the mean square",
     .min = 1e-12, .max = 1, .defaults = {"1e-5", "1e-5", "1e-5", "1e-5"}},
    BENCH_PARAM_DTYPE("element type of every array", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct fused *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(host, ctx);
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  s->eps = (float)host->param_float(host, "eps");
  if (bench_param_dtype(host, "dtype", &s->dtype)) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols), cols = (size_t)s->cols;
  int rc;
  if (s->dtype == BENCH_F16 && (rc = vkh_require_fp16(vk))) return rc;
#ifdef TILED
  if ((rc = vkh_require_subgroup_arithmetic(vk))) return rc;
#endif

  if ((rc = vkh_array_random(vk, &s->x, n, s->dtype, 1, "x")) ||
      (rc = vkh_array_random(vk, &s->w1, cols, s->dtype, 2, "w1")) ||
      (rc = vkh_array_random(vk, &s->b1, cols, s->dtype, 3, "b1")) ||
      (rc = vkh_array_random(vk, &s->w2, cols, s->dtype, 4, "w2")) ||
      (rc = vkh_array_output(vk, &s->y1, n, s->dtype, "y1")) ||
      (rc = vkh_array_output(vk, &s->y2, n, s->dtype, "y2")))
    return rc;

  const struct vkh_pipeline_desc d = {
      .name = NAME,
      .code = s->dtype == BENCH_F16 ? spv_f16 : spv_f32,
      .code_size = s->dtype == BENCH_F16 ? sizeof spv_f16 : sizeof spv_f32,
      .buffers = 6,
      .push_size = 16,
      .local = {WG, 1, 1},
      .shared_bytes = WG * sizeof(float),
  };
  const struct { uint32_t rows, cols; float eps1, eps2; } push = {(uint32_t)s->rows,
                                                                   (uint32_t)s->cols, s->eps, s->eps};
  uint32_t groups[3];
#ifdef TILED
  if ((rc = vkh_groups_1d(vk, (uint64_t)s->rows, groups))) return rc;
#else
  if ((rc = vkh_groups_1d(vk, ((uint64_t)s->rows + WG - 1) / WG, groups))) return rc;
#endif
  struct vkh_buffer *const bufs[] = {&s->x.dev, &s->w1.dev, &s->b1.dev,
                                     &s->w2.dev, &s->y1.dev, &s->y2.dev};
  if ((rc = vkh_kernel_create(vk, &s->k, &d, bufs, &push, groups))) return rc;
  /* x read, y1 written and read back, y2 written; the weights once. */
  host->set_work(host, 0,
                 (double)(4 * vkh_array_bytes(&s->x) + 3 * vkh_array_bytes(&s->w1)));
  return vkh_status(vk);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct fused *s = state;
  return vkh_kernel_run(s->vk, &s->k);
}

static int run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct fused *s = state;
  return vkh_kernel_run_batch(s->vk, &s->k, n);
}

static int verify(const struct bench_host *host, void *state) {
  struct fused *s = state;
  int rc;
  if ((rc = vkh_array_read(s->vk, &s->y1)) || (rc = vkh_array_read(s->vk, &s->y2))) return rc;
  const struct bench_check ln = {.op = "layernorm", .dtype = s->dtype, .out_dtype = s->dtype,
                                 .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                 .in = {s->x.host, s->w1.host, s->b1.host}, .out = s->y1.host};
  const struct bench_check rms = {.op = "rmsnorm", .dtype = s->dtype, .out_dtype = s->dtype,
                                  .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                  .in = {s->y1.host, s->w2.host}, .out = s->y2.host};
  if ((rc = host->check(host, &ln))) return rc;
  return host->check(host, &rms);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct fused *s = state;
  vkh_kernel_destroy(s->vk, &s->k);
  vkh_array_free(s->vk, &s->x);
  vkh_array_free(s->vk, &s->w1);
  vkh_array_free(s->vk, &s->b1);
  vkh_array_free(s->vk, &s->w2);
  vkh_array_free(s->vk, &s->y1);
  vkh_array_free(s->vk, &s->y2);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "layernorm_rmsnorm",
#ifdef TILED
    .description = "y1 = LayerNorm(x), y2 = RMSNorm(y1) in one Vulkan kernel, one workgroup per "
                   "row, subgroup reductions; f32/f16",
#else
    .description = "y1 = LayerNorm(x), y2 = RMSNorm(y1) in one Vulkan kernel, one invocation per "
                   "row; f32/f16",
#endif
    .params = params,
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
