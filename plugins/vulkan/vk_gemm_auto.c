/* vk_gemm_auto: C[m][n] = A[m][k] B[k][n], the tiled GEMM of
 * shaders/gemm_tiled.comp with its tile sizes as a tunable parameter
 * (ABI 1.4): setup compiles the chosen tile variant at run time with
 * libshaderc (the sizes as constants, so the compiler sees them). `bench
 * tune --plugin vk_gemm_auto` searches the variants per device and shape
 * and keeps the winner in bench's tuning cache; a run leaves `tile` at
 * auto and takes that winner (its note says "tuned (cache FILE)"), else the
 * default. A variant over this device's work-group or shared-memory limits
 * is SKIPPED (tune lists it). The result's info names the variant
 * ("variant"). fp32 or fp16 storage, fp32 accumulation; checked against
 * the harness's gemm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_tile.h"
#include "vk_gemm_problem.h"
#include "vkh.h"
#include "vkh_compile.h"

static const char gemm_src[] =
#include "gemm_tiled.comp.txt.inc"
    ;

/* The candidates of `tile`, in order of preference: the default first. */
#define TILE_VARIANTS                                                                      \
  "64x64x8_4x4,128x64x8_8x4,64x128x8_4x8,64x64x16_4x4,32x32x8_2x2,32x64x8_4x4,"              \
  "128x128x8_8x8,16x16x16_1x1"

static const struct bench_param params[] = {
    BENCH_PARAM_GEMM_M("64,33", "512", "1024", "1,7,127,33,64"),
    BENCH_PARAM_GEMM_N("64,17", "512", "1024", "1,13,61,257,65"),
    BENCH_PARAM_GEMM_K("64,47", "512", "1024", "1,5,257,1,63"),
    BENCH_PARAM_DTYPE("element type of A, B and C", "f32,f16", "f32,f16", "f32,f16", "f32,f16",
                      "f32,f16"),
    {.name = "tile", .type = BENCH_PARAM_STRING,
     .description = "tile variant BMxBNxBK_TMxTN (a tunable: auto takes bench tune's winner)",
     .choices = TILE_VARIANTS, .defaults = {"64x64x8_4x4", "64x64x8_4x4", "64x64x8_4x4", "64x64x8_4x4"},
     .tunable = 1},
    {.name = NULL},
};

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

static int setup(const struct bench_host *host, void *ctx, void **state) {
  struct vk_gemm *s;
  int rc = vk_gemm_setup(host, ctx, state, &s);
  if (rc) return rc;
  struct vkh *vk = s->vc.vk;
  const char *tile = host->param_str(host, "tile");
  struct vkh_compiler *cc = NULL;
  if ((rc = vkh_compiler_create(vk, &cc)) == BENCH_OK) rc = build(s, cc, tile, &s->vc.kernel);
  vkh_compiler_destroy(cc);
  if (rc) return rc;
  host->set_info(host, "variant", tile);
  return vkh_status(vk);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "vk_gemm_auto",
    .backend = "vulkan",
    .operation = "gemm",
    .description = "GEMM on Vulkan, tile variants compiled at run time (libshaderc), a tunable "
                   "for bench tune; f32/f16",
    .params = params,
    VKH_CASE_CALLBACKS(setup, vk_gemm_verify),
    .abi_needed = BENCH_ABI_1_4,
    BENCH_PLUGIN_SIZES,
};
