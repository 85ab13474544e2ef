/* vk_peak_bw: device-memory bandwidth (roof dram), 16-byte accesses by a
 * compute shader (shaders/peak_bw.comp), one `kernel` a case:
 *   copy   dst = src                                 bytes = 2 x size
 *   read   one wrapping 32-bit sum per invocation    bytes = size + the sums
 *   write  dst word w = w * 0x9e3779b1 + seed        bytes = size
 * over a buffer of `size` bytes; `max` (the standard and perf default) is
 * the largest this device allows, read from its limits at run time:
 * min(maxStorageBufferRange, maxMemoryAllocationSize, a quarter of the
 * largest device-local heap, 1 GiB), well beyond any GPU's cache (lavapipe:
 * 128 MiB). The inputs are integers, so every output is known exactly:
 * verify compares the whole destination, or every sum, with the plugin's
 * own reference (bench.compare/1); the destination is poisoned first, so a
 * kernel that skipped part of the buffer is WRONG_ANSWER and sets no roof.
 * Vulkan reports no cache sizes, so no case is told apart as an l2 roof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_peak.h"

/* A test fixture (tests/vulkan) builds this file under its own name, with
 * faulty shaders of the same file names first on its include path. */
#ifndef VK_PEAK_NAME
#define VK_PEAK_NAME "vk_peak_bw"
#endif
#define NAME VK_PEAK_NAME

static const uint32_t spv_copy[] =
#include "peak_bw.copy.spv.inc"
    ;
static const uint32_t spv_read[] =
#include "peak_bw.read.spv.inc"
    ;
static const uint32_t spv_write[] =
#include "peak_bw.write.spv.inc"
    ;

#define WG 256    /* invocations a workgroup, or the device's most */
#define ITEMS 16  /* vectors per invocation, a workgroup apart */
#define SEED 0x2545f491u
#define MAX_BYTES (1ull << 30)

enum kernel { COPY, READ, WRITE };

struct bw {
  struct vkh_case vc; /* first: run, run_batch and teardown are vkh_case_* */
  const struct bench_ext_compare *cmp;
  enum kernel kernel;
  uint64_t n4;      /* 16-byte vectors */
  uint32_t wg;
  struct vkh_array *src, *dst, *part;
};

static const struct bench_param params[] = {
    {.name = "kernel", .type = BENCH_PARAM_STRING, .description = "what each access does",
     .choices = "copy,read,write",
     .defaults = {"copy,read,write", "copy,read,write", "copy,read,write", "copy,read,write"}},
    BENCH_PARAM_SIZE("bytes of the buffer (rounded up to 16), or max: the largest this device "
                     "allows, at most 1 GiB; " BENCH_SIZE_EXAMPLES,
                     "4MiB", "max", "max", "16,4112,1000KiB"),
    {.name = NULL},
};

/* The largest buffer: min(maxStorageBufferRange, maxMemoryAllocationSize, a
 * quarter of the largest device-local heap, 1 GiB), a multiple of 16. */
static uint64_t max_bytes(const struct vkh *vk) {
  uint64_t b = vk->props.limits.maxStorageBufferRange, heap = 0;
  if (vk->max_alloc && vk->max_alloc < b) b = vk->max_alloc;
  for (uint32_t i = 0; i < vk->mem.memoryHeapCount; i++)
    if ((vk->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        vk->mem.memoryHeaps[i].size > heap)
      heap = vk->mem.memoryHeaps[i].size;
  if (heap / 4 < b) b = heap / 4;
  if (b > MAX_BYTES) b = MAX_BYTES;
  return b / 16 * 16;
}

/* The size parameter: a size, or max (said in the info vk_peak_size). */
static int buffer_bytes(const struct bench_host *host, struct vkh *vk, uint64_t *bytes) {
  const char *text = host->param_str(host, "size");
  char info[160];
  if (strcmp(text, "max") == 0) {
    *bytes = max_bytes(vk);
    snprintf(info, sizeof info, "max: %llu bytes (maxStorageBufferRange %llu, "
             "maxMemoryAllocationSize %llu, at most a quarter of the heap and 1 GiB)",
             (unsigned long long)*bytes, (unsigned long long)vk->props.limits.maxStorageBufferRange,
             (unsigned long long)vk->max_alloc);
    host->set_info(host, "vk_peak_size", info);
    return *bytes ? BENCH_OK : host->fail(host, "size max: this device allows no buffer");
  }
  int64_t b;
  int rc = bench_param_size(host, "size", NULL, &b);
  *bytes = ((uint64_t)b + 15) / 16 * 16;
  return rc;
}

/* Word w of the write kernel's destination. */
static int32_t pattern(uint64_t w) { return (int32_t)((uint32_t)w * 0x9e3779b1u + SEED); }

static int write_reference(const struct bench_host *host, void *user, int64_t start, int64_t n,
                           double *dst) {
  (void)host, (void)user;
  for (int64_t j = 0; j < n; j++) dst[j] = pattern((uint64_t)(start + j));
  return BENCH_OK;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  int rc = vkh_case_new(host, ctx, sizeof(struct bw), state);
  if (rc) return rc;
  struct bw *s = *state;
  struct vkh *vk = s->vc.vk;
  const char *k = host->param_str(host, "kernel");
  s->kernel = strcmp(k, "copy") == 0 ? COPY : strcmp(k, "read") == 0 ? READ : WRITE;
  uint64_t bytes;
  if ((rc = buffer_bytes(host, vk, &bytes))) return rc;
  s->n4 = bytes / 16;
  if (s->n4 > UINT32_MAX / 4) return host->skip(host, "%s: over 2^30 vectors", NAME);
  if (!(s->cmp = vk_peak_compare(host, &rc))) return rc;

  s->wg = vkh_workgroup_fit(vk, WG, 0);
  const uint64_t per_group = (uint64_t)s->wg * ITEMS;
  uint32_t groups[3];
  if ((rc = vkh_groups_1d(vk, (s->n4 + per_group - 1) / per_group, groups))) return rc;
  const size_t words = (size_t)(s->n4 * 4);
  const size_t sums = (size_t)groups[0] * groups[1] * s->wg; /* one per invocation dispatched */
  if (s->kernel != WRITE && (rc = vkh_case_input(&s->vc, &s->src, words, BENCH_I32, 1, "src")))
    return rc;
  if (s->kernel == READ)
    rc = vkh_case_output(&s->vc, &s->part, sums, BENCH_I32, "sums");
  else
    rc = vkh_case_output(&s->vc, &s->dst, words, BENCH_I32, "dst");
  if (rc || (rc = vk_peak_poison(vk, s->kernel == READ ? s->part : s->dst, 0xa5))) return rc;

  const struct vkh_pipeline_desc d = {
      .name = NAME,
      .code = s->kernel == COPY ? spv_copy : s->kernel == READ ? spv_read : spv_write,
      .code_size = s->kernel == COPY ? sizeof spv_copy : s->kernel == READ ? sizeof spv_read
                                                                          : sizeof spv_write,
      .push_size = 8,
      .local = {s->wg, 1, 1},
      .spec = (const uint32_t[]){ITEMS},
      .nspec = 1};
  const uint32_t push[2] = {(uint32_t)s->n4, SEED};
  if ((rc = vkh_case_kernel(&s->vc, &d, push, groups))) return rc;

  host->set_work(host, 0, vkh_case_bytes(&s->vc)); /* every array read or written once */
  if ((rc = vk_peak_roof(host, BENCH_ROOF_BANDWIDTH, "dram",
                         s->kernel == COPY ? "copy, 16 B accesses"
                         : s->kernel == READ ? "read (sum), 16 B accesses"
                                             : "write, 16 B accesses")))
    return rc;
  return vkh_status(vk);
}

/* The read kernel's sums, as the shader makes them: vector v belongs to
 * invocation (v / (wg * ITEMS)) * wg + v % wg. */
static int32_t *read_reference(const struct bw *s) {
  uint32_t *ref = calloc(s->part->count, sizeof *ref);
  if (!ref) return NULL;
  const uint32_t *src = s->src->host;
  const uint64_t per_group = (uint64_t)s->wg * ITEMS;
  for (uint64_t v = 0; v < s->n4; v++) {
    const uint64_t inv = v / per_group * s->wg + v % s->wg;
    ref[inv] += src[4 * v] + src[4 * v + 1] + src[4 * v + 2] + src[4 * v + 3];
  }
  return (int32_t *)ref;
}

static int verify(const struct bench_host *host, void *state) {
  struct bw *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  struct bench_compare c = {.dtype = BENCH_I32, .ref_dtype = BENCH_I32, .tol = BENCH_TOL_EXACT};
  int32_t *sums = NULL;
  if (s->kernel == COPY) {
    c.name = "dst";
    c.count = (int64_t)s->dst->count;
    c.out = s->dst->host;
    c.ref = s->src->host;
  } else if (s->kernel == READ) {
    if (!(sums = read_reference(s))) return host->fail(host, "out of memory");
    c.name = "sums";
    c.count = (int64_t)s->part->count;
    c.out = s->part->host;
    c.ref = sums;
  } else {
    c.name = "dst";
    c.ref_dtype = BENCH_F64;
    c.count = (int64_t)s->dst->count;
    c.out = s->dst->host;
    c.ref_fn = write_reference;
  }
  rc = s->cmp->compare(host, &c);
  free(sums);
  return rc;
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = NAME,
    .backend = "vulkan",
    .operation = "peak",
    .description = "Vulkan device-memory bandwidth peak: copy, read (exact sum), write; 16 B accesses",
    .params = params,
    VKH_CASE_CALLBACKS(setup, verify),
};
