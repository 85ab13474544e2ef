/* vk_gemm_auto: C[m][n] = A[m][k] B[k][n], the tiled GEMM of
 * shaders/gemm_tiled.comp with its tile sizes chosen per device and shape:
 * setup compiles each tile variant at run time with libshaderc (the sizes
 * as constants, so the compiler sees them), times it on this case's
 * buffers, keeps the fastest, and records the choice in the tuning cache
 * (tune_cache.h) under the device, its driver version, the shape and the
 * dtype; the next run of that shape compiles only the cached winner. The
 * result's info names the variant ("variant") and how it was chosen
 * ("tuning"). BENCH_VK_RETUNE=1 searches again. fp32 or fp16 storage, fp32
 * accumulation; checked against the harness's gemm. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm_tile.h"
#include "tune_cache.h"
#include "vk_gemm_problem.h"
#include "vkh.h"
#include "vkh_compile.h"

static const char gemm_src[] =
#include "gemm_tiled.comp.txt.inc"
    ;

/* The candidates. VARIANT_SET names this list and the kernel: change it
 * when either changes, and cached choices lapse. */
#define VARIANT_SET "1"
static const char *const variants[] = {
    "64x64x8_4x4", "128x64x8_8x4", "64x128x8_4x8", "64x64x16_4x4",
    "32x32x8_2x2", "32x64x8_4x4",  "128x128x8_8x8", "16x16x16_1x1",
};
#define NVARIANTS (sizeof variants / sizeof variants[0])
#define TIMED_RUNS 3 /* per variant, after one warm-up run; the minimum counts */
#define LONG_RUN_S 2.0 /* s: a run this long is measured by its warm-up alone */

static const struct bench_param params[] = {
    BENCH_PARAM_GEMM_M("64,33", "512", "1024", "1,7,127,33,64"),
    BENCH_PARAM_GEMM_N("64,17", "512", "1024", "1,13,61,257,65"),
    BENCH_PARAM_GEMM_K("64,47", "512", "1024", "1,5,257,1,63"),
    BENCH_PARAM_DTYPE("element type of A, B and C", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = NULL},
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Compile one variant with its sizes as macros, and make its kernel. */
static int build(struct vk_gemm *s, struct vkh_compiler *cc, const char *name, struct vkh_kernel *k) {
  struct vkh *vk = s->vc.vk;
  struct gemm_tile t;
  if (gemm_tile_parse(name, &t) != 0) return vk->host->fail(vk->host, "bad variant %s", name);
  char def[5][24];
  snprintf(def[0], sizeof def[0], "TILE_BM=%u", t.bm);
  snprintf(def[1], sizeof def[1], "TILE_BN=%u", t.bn);
  snprintf(def[2], sizeof def[2], "TILE_BK=%u", t.bk);
  snprintf(def[3], sizeof def[3], "TILE_TM=%u", t.tm);
  snprintf(def[4], sizeof def[4], "TILE_TN=%u", t.tn);
  const char *defines[] = {def[0], def[1], def[2], def[3], def[4], "F16"};
  /* The limits first: no compile for a variant this device cannot run. */
  const uint32_t local[3] = {gemm_tile_threads(&t), 1, 1};
  int rc = vkh_require_workgroup(vk, local, gemm_tile_shared_bytes(&t));
  if (rc) return rc;
  uint32_t *words;
  size_t bytes;
  if ((rc = vkh_compile(vk, cc, gemm_src, "gemm_tiled.comp", defines,
                        s->dtype == BENCH_F16 ? 6 : 5, &words, &bytes)))
    return rc;
  const struct vkh_pipeline_desc d = {.name = name, .code = words, .code_size = bytes,
                                      .local = {local[0], 1, 1},
                                      .shared_bytes = gemm_tile_shared_bytes(&t)};
  rc = vk_gemm_kernel(s, k, &d, t.bm, t.bn);
  free(words);
  return rc;
}

/* The time of one variant: the best of TIMED_RUNS after a warm-up run (the
 * first run includes the JIT), device time, or host time where the queue
 * has no timestamps. To keep the search short where runs are long: a
 * warm-up over LONG_RUN_S is itself the measure (the JIT is noise there),
 * and a variant over twice the best so far after one timed run stops. */
static int time_kernel(struct vk_gemm *s, struct vkh_kernel *k, double best_ns, double *ns) {
  double t0 = now_s();
  int rc = vkh_dispatch_submit(s->vc.vk, &k->dispatch);
  double host_ns = (now_s() - t0) * 1e9;
  *ns = k->dispatch.queries ? k->dispatch.last_ns : host_ns;
  if (rc != BENCH_OK || host_ns > LONG_RUN_S * 1e9) return rc;
  for (int i = 0; rc == BENCH_OK && i < TIMED_RUNS; i++) {
    t0 = now_s();
    rc = vkh_dispatch_submit(s->vc.vk, &k->dispatch);
    double t = k->dispatch.queries ? k->dispatch.last_ns : (now_s() - t0) * 1e9;
    if (i == 0 || t < *ns) *ns = t;
    if (best_ns > 0 && *ns > 2 * best_ns) break;
  }
  return rc;
}

/* Every variant this device can run, timed; the fastest stays in s->vc.kernel. */
static int search(struct vk_gemm *s, struct vkh_compiler *cc, char *best, size_t len, double *best_ns,
                  char *log, size_t loglen) {
  const struct bench_host *h = s->vc.vk->host;
  size_t used = 0;
  int tried = 0;
  for (size_t i = 0; i < NVARIANTS; i++) {
    struct vkh_kernel k = {0};
    double ns = 0;
    int rc = build(s, cc, variants[i], &k);
    if (rc == BENCH_OK) rc = time_kernel(s, &k, tried ? *best_ns : 0, &ns);
    if (rc == BENCH_OK && (!tried || ns < *best_ns)) {
      vkh_kernel_destroy(s->vc.vk, &s->vc.kernel);
      s->vc.kernel = k; /* keep it: no second compile of the winner */
      memset(&k, 0, sizeof k);
      *best_ns = ns;
      snprintf(best, len, "%s", variants[i]);
    }
    vkh_kernel_destroy(s->vc.vk, &k);
    if (rc == BENCH_ERROR) return rc;
    if (rc == BENCH_OK) tried++;
    int n = rc == BENCH_OK ? snprintf(log + used, loglen - used, "%s%s %.3g ms", used ? ", " : "",
                                      variants[i], ns / 1e6)
                           : snprintf(log + used, loglen - used, "%s%s skipped", used ? ", " : "",
                                      variants[i]);
    if (n > 0 && used + (size_t)n < loglen) used += (size_t)n;
  }
  if (!tried) return h->skip(h, "no tile variant fits this device's limits (%s)", log);
  return BENCH_OK;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct vk_gemm *s;
  int rc = vk_gemm_setup(host, ctx, state, &s);
  if (rc) return rc;
  struct vkh *vk = s->vc.vk;

  /* The cache key: device, driver version, shape, dtype, candidate set. */
  char key[512], path[1024], variant[32] = "", tuning[2400];
  snprintf(key, sizeof key, "vk_gemm_auto/%s device=%s id=%04x:%04x driver=0x%08x m=%lld n=%lld "
           "k=%lld dtype=%s", VARIANT_SET, vk->props.deviceName, vk->props.vendorID,
           vk->props.deviceID, vk->props.driverVersion, (long long)s->m, (long long)s->n,
           (long long)s->k, bench_dtype_name(s->dtype));
  for (char *p = key; *p; p++)
    if (*p == '\t' || *p == '\n') *p = ' ';
  const int have_path = tune_cache_path("vk_gemm_auto.tsv", path, sizeof path) == 0;
  const char *retune = getenv("BENCH_VK_RETUNE");
  const int use_cache = have_path && !(retune && *retune && strcmp(retune, "0") != 0);

  struct vkh_compiler *cc = NULL;
  if ((rc = vkh_compiler_create(vk, &cc))) goto out;
  if (use_cache && tune_cache_get(path, key, variant, sizeof variant) == 0) {
    size_t i = 0;
    while (i < NVARIANTS && strcmp(variants[i], variant) != 0) i++;
    if (i < NVARIANTS && (rc = build(s, cc, variant, &s->vc.kernel)) == BENCH_OK) {
      snprintf(tuning, sizeof tuning, "cache hit in %s", path);
      goto out;
    }
    if (rc == BENCH_ERROR) goto out;
    vkh_kernel_destroy(vk, &s->vc.kernel); /* stale or no longer fits: search again */
  }
  double t0 = now_s(), best_ns = 0;
  char log[768] = "";
  if ((rc = search(s, cc, variant, sizeof variant, &best_ns, log, sizeof log))) goto out;
  char err[512] = "";
  const char *stored = !have_path ? "not cached: neither XDG_CACHE_HOME nor HOME is set"
                       : tune_cache_put(path, key, variant, best_ns, err, sizeof err) == 0
                           ? "cached in "
                           : "not cached: ";
  snprintf(tuning, sizeof tuning, "searched %zu variants in %.2f s (%s); %s%s", NVARIANTS,
           now_s() - t0, log, stored, !have_path ? "" : err[0] ? err : path);
out:
  vkh_compiler_destroy(cc);
  if (rc) return rc;
  host->set_info(host, "variant", variant);
  host->set_info(host, "tuning", tuning);
  return vkh_status(vk);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm_auto",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, tile variants compiled at run time (libshaderc), the fastest "
                   "kept in a tuning cache per device, driver, shape and dtype; f32/f16",
    .params = params,
    VKH_CASE_CALLBACKS(setup, vk_gemm_verify),
};
