/* ex_vk_rmsnorm: an example Vulkan plugin, RMSNorm with one invocation per
 * row (rmsnorm.comp, compiled by glslc and embedded), on the installed
 * helpers <bench/vkh.h> (pkg-config bench-vulkan): device choice, buffers
 * with staging, the pipeline, timestamps, and validation messages that fail
 * the case under bench --mode debug. Checked against the harness's rmsnorm. */
#include <stdlib.h>

#include <bench/vkh.h>

static const uint32_t spv[] =
#include "rmsnorm.spv.inc"
    ;

#define WG 64 /* rows per workgroup */

struct state {
  struct vkh *vk;
  int64_t rows, cols;
  float eps;
  struct vkh_array x, w, y;
  struct vkh_kernel k;
};

static const struct bench_param params[] = {
    /* <bench/params.h>'s declarations of rmsnorm's parameters, the same in
     * every backend's plugins; the defaults per tier (smoke, standard, perf,
     * verify) are ours. rows and cols advance together (zip 1): smoke runs
     * 7x1000 and 64x4096. */
    BENCH_PARAM_ROWS("7,64", "4096", "16384", "1,3,17"),
    BENCH_PARAM_COLS("1000,4096", "4096", "4096", "1,7,4099"),
    BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
    {.name = NULL},
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s; /* teardown frees it, whatever happens next */
  struct vkh *vk = s->vk = vkh_case(h, ctx);
  s->rows = h->param_int(h, "rows");
  s->cols = h->param_int(h, "cols");
  s->eps = (float)h->param_float(h, "eps");
  const size_t n = (size_t)(s->rows * s->cols);
  int rc;
  /* inputs from host->fill_random, uploaded; the output buffer */
  if ((rc = vkh_array_random(vk, &s->x, n, BENCH_F32, 1, "x")) ||
      (rc = vkh_array_random(vk, &s->w, (size_t)s->cols, BENCH_F32, 2, "w")) ||
      (rc = vkh_array_output(vk, &s->y, n, BENCH_F32, "y")))
    return rc;
  /* the kernel: pipeline, buffers at bindings 0, 1, 2, push constants, grid */
  const struct vkh_pipeline_desc d = {.name = "ex_vk_rmsnorm", VKH_SPIRV(spv), .buffers = 3,
                                      .push_size = 12, .local = {WG, 1, 1}};
  const struct { uint32_t rows, cols; float eps; } push = {(uint32_t)s->rows, (uint32_t)s->cols,
                                                          s->eps};
  uint32_t groups[3];
  if ((rc = vkh_groups_1d(vk, ((uint64_t)s->rows + WG - 1) / WG, groups)) ||
      (rc = vkh_kernel_create(vk, &s->k, &d,
                              (struct vkh_buffer *const[]){&s->x.dev, &s->w.dev, &s->y.dev},
                              &push, groups)))
    return rc;
  h->set_work(h, 4.0 * (double)n, 2.0 * (double)n * sizeof(float)); /* read x, write y */
  return vkh_status(vk);
}

/* One iteration: submit, wait, the timestamps' interval as device time. */
static int run(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = state;
  return vkh_kernel_run(s->vk, &s->k);
}

/* n iterations in one command buffer, one submit and one wait (short
 * kernels are measured without a host round trip per iteration). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  (void)h;
  struct state *s = state;
  return vkh_kernel_run_batch(s->vk, &s->k, n);
}

static int verify(const struct bench_host *h, void *state) {
  struct state *s = state;
  int rc = vkh_array_read(s->vk, &s->y);
  if (rc) return rc;
  const struct bench_check c = {.op = "rmsnorm", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                                .rows = s->rows, .cols = s->cols, .eps = s->eps,
                                .in = {s->x.host, s->w.host}, .out = s->y.host};
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = state;
  vkh_kernel_destroy(s->vk, &s->k);
  vkh_array_free(s->vk, &s->x);
  vkh_array_free(s->vk, &s->w);
  vkh_array_free(s->vk, &s->y);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ex_vk_rmsnorm",
    .backend = "vulkan",
    .operation = "rmsnorm",
    .description = "example: RMSNorm on Vulkan, one invocation per row",
    .params = params,
    .init = vkh_init, /* instance, device choice, validation messages */
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
