/* vk_layernorm and vk_layernorm_tiled (this file, built twice; -DTILED):
 *   y[r][j] = (x[r][j] - mean) / sqrt(var + eps) * w[j] + b[j]
 * with the biased variance, computed in two passes (mean, then squared
 * deviations). naive: one invocation per row (shaders/layernorm.comp);
 * tiled: one workgroup per row, reduced with subgroup operations
 * (shaders/layernorm_tiled.comp). fp32 or fp16 storage, fp32 arithmetic;
 * checked against the harness's layernorm. */
#include <stdlib.h>

#include "vkh.h"

#ifdef TILED
#define NAME "vk_layernorm_tiled"
#define WG 256 /* invocations per row */
static const uint32_t spv_f32[] =
#include "layernorm_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "layernorm_tiled.f16.spv.inc"
    ;
#else
#define NAME "vk_layernorm"
#define WG 64 /* rows per workgroup */
static const uint32_t spv_f32[] =
#include "layernorm.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "layernorm.f16.spv.inc"
    ;
#endif

struct layernorm {
  struct vkh *vk;
  int64_t rows, cols;
  float eps;
  enum bench_dtype dtype;
  struct vkh_array x, w, b, y;
  struct vkh_kernel k;
};

static const struct bench_param params[] = {
    BENCH_PARAM_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    BENCH_PARAM_LAYERNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    BENCH_PARAM_DTYPE("element type of x, w, b and y", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct layernorm *s = calloc(1, sizeof *s);
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
      (rc = vkh_array_random(vk, &s->w, cols, s->dtype, 2, "w")) ||
      (rc = vkh_array_random(vk, &s->b, cols, s->dtype, 3, "b")) ||
      (rc = vkh_array_output(vk, &s->y, n, s->dtype, "y")))
    return rc;

  const struct vkh_pipeline_desc d = {
      .name = NAME,
      .code = s->dtype == BENCH_F16 ? spv_f16 : spv_f32,
      .code_size = s->dtype == BENCH_F16 ? sizeof spv_f16 : sizeof spv_f32,
      .buffers = 4,
      .push_size = 12,
      .local = {WG, 1, 1},
      .shared_bytes = WG * sizeof(float),
  };
  const struct { uint32_t rows, cols; float eps; } push = {(uint32_t)s->rows, (uint32_t)s->cols,
                                                          s->eps};
  uint32_t groups[3];
#ifdef TILED
  if ((rc = vkh_groups_1d(vk, (uint64_t)s->rows, groups))) return rc;
#else
  if ((rc = vkh_groups_1d(vk, ((uint64_t)s->rows + WG - 1) / WG, groups))) return rc;
#endif
  if ((rc = vkh_kernel_create(vk, &s->k, &d,
                              (struct vkh_buffer *const[]){&s->x.dev, &s->w.dev, &s->b.dev, &s->y.dev},
                              &push, groups)))
    return rc;
  host->set_work(host, 0,
                 (double)(vkh_array_bytes(&s->x) + vkh_array_bytes(&s->w) + vkh_array_bytes(&s->b) +
                          vkh_array_bytes(&s->y)));
  return vkh_status(vk);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct layernorm *s = state;
  return vkh_kernel_run(s->vk, &s->k);
}

static int run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct layernorm *s = state;
  return vkh_kernel_run_batch(s->vk, &s->k, n);
}

static int verify(const struct bench_host *host, void *state) {
  struct layernorm *s = state;
  int rc = vkh_array_read(s->vk, &s->y);
  if (rc) return rc;
  const struct bench_check c = {.op = "layernorm", .dtype = s->dtype, .out_dtype = s->dtype,
                                .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                .in = {s->x.host, s->w.host, s->b.host}, .out = s->y.host};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct layernorm *s = state;
  vkh_kernel_destroy(s->vk, &s->k);
  vkh_array_free(s->vk, &s->x);
  vkh_array_free(s->vk, &s->w);
  vkh_array_free(s->vk, &s->b);
  vkh_array_free(s->vk, &s->y);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "layernorm",
#ifdef TILED
    .description = "LayerNorm on Vulkan, one workgroup per row, subgroup reductions; f32/f16",
#else
    .description = "LayerNorm on Vulkan, one invocation per row (naive); f32/f16",
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
