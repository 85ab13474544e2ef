/* vk_softmax and vk_softmax_tiled (this file, built twice; -DTILED):
 *   y[r][j] = exp(x[r][j] - max_j x[r]) / sum_j exp(x[r][j] - max_j x[r])
 * naive: one invocation per row (shaders/softmax.comp); tiled: one
 * workgroup per row, max and sum reduced with subgroup operations
 * (shaders/softmax_tiled.comp). fp32 or fp16 storage, fp32 arithmetic;
 * checked against the harness's softmax. */
#include <stdlib.h>

#include "vkh.h"

#ifdef TILED
#define NAME "vk_softmax_tiled"
#define WG 256 /* invocations per row */
static const uint32_t spv_f32[] =
#include "softmax_tiled.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "softmax_tiled.f16.spv.inc"
    ;
#else
#define NAME "vk_softmax"
#define WG 64 /* rows per workgroup */
static const uint32_t spv_f32[] =
#include "softmax.f32.spv.inc"
    ;
static const uint32_t spv_f16[] =
#include "softmax.f16.spv.inc"
    ;
#endif

struct softmax {
  struct vkh *vk;
  int64_t rows, cols;
  enum bench_dtype dtype;
  struct vkh_array x, y;
  struct vkh_kernel k;
};

static const struct bench_param params[] = {
    BENCH_PARAM_SOFTMAX_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
    BENCH_PARAM_SOFTMAX_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
    BENCH_PARAM_DTYPE("element type of x and y", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct softmax *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(host, ctx);
  s->rows = host->param_int(host, "rows");
  s->cols = host->param_int(host, "cols");
  if (bench_param_dtype(host, "dtype", &s->dtype)) return BENCH_ERROR;
  const size_t n = (size_t)(s->rows * s->cols);
  int rc;
  if (s->dtype == BENCH_F16 && (rc = vkh_require_fp16(vk))) return rc;
#ifdef TILED
  if ((rc = vkh_require_subgroup_arithmetic(vk))) return rc;
#endif

  if ((rc = vkh_array_random(vk, &s->x, n, s->dtype, 1, "x")) ||
      (rc = vkh_array_output(vk, &s->y, n, s->dtype, "y")))
    return rc;

  const struct vkh_pipeline_desc d = {
      .name = NAME,
      .code = s->dtype == BENCH_F16 ? spv_f16 : spv_f32,
      .code_size = s->dtype == BENCH_F16 ? sizeof spv_f16 : sizeof spv_f32,
      .buffers = 2,
      .push_size = 8,
      .local = {WG, 1, 1},
      .shared_bytes = WG * sizeof(float),
  };
  const struct { uint32_t rows, cols; } push = {(uint32_t)s->rows, (uint32_t)s->cols};
  uint32_t groups[3];
#ifdef TILED
  if ((rc = vkh_groups_1d(vk, (uint64_t)s->rows, groups))) return rc;
#else
  if ((rc = vkh_groups_1d(vk, ((uint64_t)s->rows + WG - 1) / WG, groups))) return rc;
#endif
  if ((rc = vkh_kernel_create(vk, &s->k, &d, (struct vkh_buffer *const[]){&s->x.dev, &s->y.dev},
                              &push, groups)))
    return rc;
  host->set_work(host, 0, (double)(vkh_array_bytes(&s->x) + vkh_array_bytes(&s->y)));
  return vkh_status(vk);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct softmax *s = state;
  return vkh_kernel_run(s->vk, &s->k);
}

static int run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct softmax *s = state;
  return vkh_kernel_run_batch(s->vk, &s->k, n);
}

static int verify(const struct bench_host *host, void *state) {
  struct softmax *s = state;
  int rc = vkh_array_read(s->vk, &s->y);
  if (rc) return rc;
  const struct bench_check c = {.op = "softmax", .dtype = s->dtype, .out_dtype = s->dtype,
                                .rows = s->rows, .cols = s->cols,
                                .in = {s->x.host}, .out = s->y.host};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct softmax *s = state;
  vkh_kernel_destroy(s->vk, &s->k);
  vkh_array_free(s->vk, &s->x);
  vkh_array_free(s->vk, &s->y);
  free(s);
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
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
