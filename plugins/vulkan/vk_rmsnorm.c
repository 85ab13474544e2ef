/* vk_rmsnorm and vk_rmsnorm_tiled (this file, built twice; -DTILED):
 *   y[r][j] = x[r][j] / sqrt(mean_j x[r][j]^2 + eps) * w[j]
 * naive: one invocation per row (shaders/rmsnorm.comp); tiled: one
 * workgroup per row, reduced with subgroup operations
 * (shaders/rmsnorm_tiled.comp). fp32 or fp16 storage, fp32 arithmetic;
 * checked against the harness's rmsnorm. */
#include <stdlib.h>

#include "vk_rows.h"

#ifdef TILED
#define NAME "vk_rmsnorm_tiled"
static const uint32_t spv_f32[] =
#include "rmsnorm_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "rmsnorm_tiled.f16.spv.inc"
    ;
#else
#define NAME "vk_rmsnorm"
static const uint32_t spv_f32[] =
#include "rmsnorm.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "rmsnorm.f16.spv.inc"
    ;
#endif

struct rmsnorm {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  int64_t rows, cols;
  float eps;
  enum bench_dtype dtype;
  struct vkh_array *x, *w, *y;
};

static const struct bench_param params[] = {
    BENCH_PARAM_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    BENCH_PARAM_DTYPE("element type of x, w and y", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
#ifdef TILED
#define WG_CANDIDATES "256,64,128,512,1024"
#else
#define WG_CANDIDATES "64,16,32,128,256"
#endif
    /* A tunable (ABI 1.4, bench tune); the default first. */
    {.name = "wg", .type = BENCH_PARAM_INT,
     .description = "invocations per workgroup (a tunable: auto takes bench tune's winner)",
     .min = 1, .max = 4096, .defaults = {VK_ROWS_WG_TEXT, VK_ROWS_WG_TEXT, VK_ROWS_WG_TEXT,
                                          VK_ROWS_WG_TEXT}, .tunable = 1,
     .candidates = WG_CANDIDATES},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct rmsnorm), state);
  if (rc) return rc;
  struct rmsnorm *s = *state;
  struct vkh *vk = s->vc.vk;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  s->eps = (float)host->param_float(host, "eps");
  if (bench_param_dtype(host, "dtype", &s->dtype)) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  if ((rc = vk_rows_require(vk, s->dtype))) return rc;

  if ((rc = vkh_case_input(&s->vc, &s->x, n, s->dtype, 1, "x")) ||
      (rc = vkh_case_input(&s->vc, &s->w, (size_t)s->cols, s->dtype, 2, "w")) ||
      (rc = vkh_case_output(&s->vc, &s->y, n, s->dtype, "y")))
    return rc;

  const struct { uint32_t rows, cols; float eps; } push = {(uint32_t)s->rows, (uint32_t)s->cols,
                                                          s->eps};
  if ((rc = vk_rows_kernel_wg(&s->vc, NAME, VKH_SPIRV_DTYPE(s->dtype, spv_f32, spv_f16), s->rows,
                              &push, sizeof push, (uint32_t)host->param_int(host, "wg"))))
    return rc;
  return vkh_status(vk);
}

static int verify(const struct bench_host *host, void *state) {
  struct rmsnorm *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_check c = {.op = "rmsnorm", .dtype = s->dtype, .out_dtype = s->dtype,
                                .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                .in = {s->x->host, s->w->host}, .out = s->y->host};
  return host->check(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "rmsnorm",
#ifdef TILED
    .description = "RMSNorm on Vulkan, one workgroup per row, subgroup reduction; f32/f16",
#else
    .description = "RMSNorm on Vulkan, one invocation per row (naive); f32/f16",
#endif
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
