/* vk_softmax and vk_softmax_tiled (this file, built twice; -DTILED):
 *   y[r][j] = exp(x[r][j] - max_j x[r]) / sum_j exp(x[r][j] - max_j x[r])
 * naive: one invocation per row (shaders/softmax.comp); tiled: one
 * workgroup per row, max and sum reduced with subgroup operations
 * (shaders/softmax_tiled.comp). fp32 or fp16 storage, fp32 arithmetic;
 * checked against the harness's softmax. */
#include <stdlib.h>

#include "vk_rows.h"

#ifdef TILED
#define NAME "vk_softmax_tiled"
static const uint32_t spv_f32[] =
#include "softmax_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "softmax_tiled.f16.spv.inc"
    ;
#else
#define NAME "vk_softmax"
static const uint32_t spv_f32[] =
#include "softmax.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "softmax.f16.spv.inc"
    ;
#endif

struct softmax {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  int64_t rows, cols;
  enum bench_dtype dtype;
  struct vkh_array *x, *y;
};

static const struct bench_param params[] = {
    BENCH_PARAM_SOFTMAX_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_SOFTMAX_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    BENCH_PARAM_DTYPE("element type of x and y", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct softmax), state);
  if (rc) return rc;
  struct softmax *s = *state;
  struct vkh *vk = s->vc.vk;
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  if (bench_param_dtype(host, "dtype", &s->dtype)) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  if ((rc = vk_rows_require(vk, s->dtype))) return rc;

  if ((rc = vkh_case_input(&s->vc, &s->x, n, s->dtype, 1, "x")) ||
      (rc = vkh_case_output(&s->vc, &s->y, n, s->dtype, "y")))
    return rc;

  const struct { uint32_t rows, cols; } push = {(uint32_t)s->rows, (uint32_t)s->cols};
  if ((rc = vk_rows_kernel(&s->vc, NAME, VKH_SPIRV_DTYPE(s->dtype, spv_f32, spv_f16), s->rows,
                           &push, sizeof push)))
    return rc;
  return vkh_status(vk);
}

static int verify(const struct bench_host *host, void *state) {
  struct softmax *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_check c = {.op = "softmax", .dtype = s->dtype, .out_dtype = s->dtype,
                                .rows = s->rows, .cols = s->cols,
                                .in = {s->x->host}, .out = s->y->host};
  return host->check(host, &c);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "softmax",
#ifdef TILED
    .description = "row softmax on Vulkan, one workgroup per row, subgroup reductions; f32/f16",
#else
    .description = "row softmax on Vulkan, one invocation per row (naive); f32/f16",
#endif
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
