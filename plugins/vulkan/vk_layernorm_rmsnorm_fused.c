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

#include "vk_rows.h"

#ifdef TILED
#define NAME "vk_layernorm_rmsnorm_fused_tiled"
static const uint32_t spv_f32[] =
#include "lnrms_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "lnrms_tiled.f16.spv.inc"
    ;
#else
#define NAME "vk_layernorm_rmsnorm_fused"
static const uint32_t spv_f32[] =
#include "lnrms.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "lnrms.f16.spv.inc"
    ;
#endif

struct fused {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  int64_t rows, cols;
  float eps;
  enum bench_dtype dtype;
  struct vkh_array *x, *w1, *b1, *w2, *y1, *y2;
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
  int rc = vkh_case_new(host, ctx, sizeof(struct fused), state);
  if (rc) return rc;
  struct fused *s = *state;
  struct vkh *vk = s->vc.vk;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  s->eps = (float)host->param_float(host, "eps");
  if (bench_param_dtype(host, "dtype", &s->dtype)) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols), cols = (size_t)s->cols;
  if ((rc = vk_rows_require(vk, s->dtype))) return rc;

  if ((rc = vkh_case_input(&s->vc, &s->x, n, s->dtype, 1, "x")) ||
      (rc = vkh_case_input(&s->vc, &s->w1, cols, s->dtype, 2, "w1")) ||
      (rc = vkh_case_input(&s->vc, &s->b1, cols, s->dtype, 3, "b1")) ||
      (rc = vkh_case_input(&s->vc, &s->w2, cols, s->dtype, 4, "w2")) ||
      (rc = vkh_case_output(&s->vc, &s->y1, n, s->dtype, "y1")) ||
      (rc = vkh_case_output(&s->vc, &s->y2, n, s->dtype, "y2")))
    return rc;

  const struct { uint32_t rows, cols; float eps1, eps2; } push = {(uint32_t)s->rows,
                                                                   (uint32_t)s->cols, s->eps, s->eps};
  if ((rc = vk_rows_kernel(&s->vc, NAME, VKH_SPIRV_DTYPE(s->dtype, spv_f32, spv_f16), s->rows,
                           &push, sizeof push)))
    return rc;
  /* x read, y1 written and read back, y2 written; the weights once. */
  host->set_work(host, 0,
                 (double)(4 * vkh_array_bytes(s->x) + 3 * vkh_array_bytes(s->w1)));
  return vkh_status(vk);
}

static int verify(const struct bench_host *host, void *state) {
  struct fused *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_check ln = {.op = "layernorm", .dtype = s->dtype, .out_dtype = s->dtype,
                                 .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                 .in = {s->x->host, s->w1->host, s->b1->host}, .out = s->y1->host};
  const struct bench_check rms = {.op = "rmsnorm", .dtype = s->dtype, .out_dtype = s->dtype,
                                  .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                  .in = {s->y1->host, s->w2->host}, .out = s->y2->host};
  if ((rc = host->check(host, &ln))) return rc;
  return host->check(host, &rms);
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
    VKH_CASE_CALLBACKS(setup, verify),
};
