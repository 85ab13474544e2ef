/* hip_peak_bw: device memory and L2 bandwidth (roofs dram and l2), three
 * kernels over 32-bit words, 16-byte loads and stores, checked exactly:
 *   read   every thread sums the words it reads (integer adds, which wrap:
 *          exact) and writes its sum; verify compares each thread's sum
 *   write  every word set to a value the kernel takes as an argument
 *   copy   y = x, over two buffers of size/2
 * `size` is the working set, the kernel's buffers together: a size of at
 * least 1 GiB and 4 x L2 is the roof dram (device memory: beyond every GPU
 * cache, MI300X's 256 MiB Infinity Cache included), one within the L2 (the
 * size the device reports, hipDeviceAttributeL2CacheSize /
 * cudaDevAttrL2CacheSize; "L2/2" in the parameter) is the roof l2, with
 * capacity_bytes the L2 size; a size between is measured without a roof.
 * One iteration is `passes` passes over the working set in one kernel
 * (0: enough to move 1 GiB, at most 4096), so that an L2-sized set is not measured
 * against the launch. A thread does not read the same words every pass:
 * pass p gives it the words of the thread 7 blocks on (mod the grid), so
 * that the words come from the L2 and not from a CU's own L1 (an SM's share
 * of L2/2 can fit its L1). Writes of a word by two passes store the same
 * value, so the outputs do not depend on the order of passes; the read
 * sums count every pass. GB/s = size x passes / time.
 *
 * Datasheet (dram): 2 x memory clock x bus width / 8 (the memory clock
 * and bus width attributes: double data rate), 3352 GB/s for an H100 SXM
 * (2619 MHz, 5120 bit); 0 for the L2. */
#include <stdlib.h>
#include <string.h>

#include "hipb_peak.h"

static const struct bench_param params[] = {
    {.name = "kernel", .type = BENCH_PARAM_STRING,
     .description = "read (a sum of every word), write (fill) or copy (two buffers of size/2)",
     .choices = "read,write,copy", .min = 0, .max = 0, .zip = 0,
     .defaults = {"read,write,copy", "read,write,copy", "read,write,copy", "read,write,copy"}},
    BENCH_PARAM_SIZE("working set (the kernel's buffers together): " BENCH_SIZE_EXAMPLES
                     ", or relative to the device's L2 (L2/2, 8*L2); >= 1 GiB and 4 x L2: roof "
                     "dram, <= L2: roof l2",
                     "1GiB,L2/2", "1GiB,L2/2", "1GiB,L2/2", "4100,1000004,L2/2"),
    {.name = "passes", .type = BENCH_PARAM_INT,
     .description = "passes over the working set in one kernel (0: enough to move 1 GiB, at most "
                    "4096)",
     .choices = NULL, .min = 0, .max = 1000000, .zip = 0,
     .defaults = {"0", "0", "0", "1,2"}},
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

#define BW_BLOCKS_PER_CU 8 /* 2048 threads: one full round on NVIDIA and CDNA */
#define BW_ROTATE (7 * HIPB_PEAK_THREADS)

enum bw_kind { BW_READ, BW_WRITE, BW_COPY };

/* The words of "chunk" q: x4[q], x4[q + stride], ... and the tail word
 * x[4 n4 + q] when q < n % 4. Pass p gives thread g chunk (g + p * BW_ROTATE)
 * mod stride. */
__device__ inline size_t bw_chunk(size_t g, int p, size_t stride) {
  return (g + (size_t)p * BW_ROTATE) % stride;
}

__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_bw_read(
    const uint4 *__restrict__ x4, size_t n4, const uint32_t *__restrict__ x, size_t n, int passes,
    uint32_t *__restrict__ sums) {
  const size_t stride = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t g = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  uint32_t s = 0;
  for (int p = 0; p < passes; p++) {
    const size_t q = bw_chunk(g, p, stride);
#pragma unroll 4
    for (size_t i = q; i < n4; i += stride) {
      const uint4 v = x4[i];
      s += v.x + v.y + v.z + v.w;
    }
    if (4 * n4 + q < n) s += x[4 * n4 + q];
  }
  sums[g] = s;
}

__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_bw_write(uint4 *__restrict__ y4,
                                                                   size_t n4,
                                                                   uint32_t *__restrict__ y,
                                                                   size_t n, int passes,
                                                                   uint32_t v) {
  const size_t stride = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t g = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  for (int p = 0; p < passes; p++) {
    const size_t q = bw_chunk(g, p, stride);
#pragma unroll 4
    for (size_t i = q; i < n4; i += stride) y4[i] = make_uint4(v, v, v, v);
    if (4 * n4 + q < n) y[4 * n4 + q] = v;
  }
}

__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_bw_copy(
    const uint4 *__restrict__ x4, uint4 *__restrict__ y4, size_t n4, const uint32_t *__restrict__ x,
    uint32_t *__restrict__ y, size_t n, int passes) {
  const size_t stride = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t g = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  for (int p = 0; p < passes; p++) {
    const size_t q = bw_chunk(g, p, stride);
#pragma unroll 4
    for (size_t i = q; i < n4; i += stride) y4[i] = x4[i];
    if (4 * n4 + q < n) y[4 * n4 + q] = x[4 * n4 + q];
  }
}

struct peak {
  struct hipb_ctx *ctx;
  int kind, passes;
  unsigned blocks;
  size_t n, stride;  /* words per buffer; threads */
  uint32_t value;    /* write's word */
  struct hipb_buf x; /* read's and copy's input (I32: random words) */
  struct hipb_buf y; /* read: the threads' sums; write, copy: the output */
  uint32_t *ref;     /* read: each thread's sum */
};

static const char *const kind_names[] = {"read", "write", "copy"};

static int ref_fn(const struct bench_host *h, void *user, int64_t start, int64_t n, double *dst) {
  (void)h;
  const struct peak *s = (const struct peak *)user;
  const uint32_t *x = (const uint32_t *)s->x.host;
  for (int64_t i = 0; i < n; i++) {
    const uint32_t w = s->kind == BW_READ ? s->ref[start + i] : s->kind == BW_WRITE ? s->value : x[start + i];
    dst[i] = (double)(int32_t)w; /* the output's words as int32 */
  }
  return BENCH_OK;
}

/* read's reference: the sum of each chunk's words, then each thread's sum
 * of its chunks over the passes (as the kernel, wrapping). */
static int read_reference(const struct bench_host *h, struct peak *s) {
  const uint32_t *x = (const uint32_t *)s->x.host;
  uint32_t *chunk = (uint32_t *)calloc(s->stride, sizeof *chunk);
  s->ref = (uint32_t *)calloc(s->stride, sizeof *s->ref);
  if (!chunk || !s->ref) {
    free(chunk);
    return h->fail(h, "out of memory");
  }
  const size_t n4 = s->n / 4;
  for (size_t i = 0; i < 4 * n4; i++) chunk[(i / 4) % s->stride] += x[i];
  for (size_t i = 4 * n4; i < s->n; i++) chunk[i - 4 * n4] += x[i];
  for (size_t g = 0; g < s->stride; g++)
    for (int p = 0; p < s->passes; p++) s->ref[g] += chunk[(g + (size_t)p * BW_ROTATE) % s->stride];
  free(chunk);
  return BENCH_OK;
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct peak *s = (struct peak *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_peak_require(h));
  HIPB_TRY(hipb_setup(h, s->ctx));
  const char *kernel = h->param_str(h, "kernel");
  for (int i = 0; i < 3; i++)
    if (strcmp(kernel, kind_names[i]) == 0) s->kind = i;
  const struct bench_caches caches = hipb_peak_caches(s->ctx);
  const char *text = h->param_str(h, "size");
  int64_t size = 0;
  const enum bench_size_status st = bench_size_parse(text, &caches, &size);
  if (st == BENCH_SIZE_NO_CACHE && hipb_peak_cache_bytes(s->ctx, 2) == 0) /* not the plugin's fault */
    return h->skip(h, "size %s: device %s reports no L2 size", text, s->ctx->prop.name);
  if (st != BENCH_SIZE_OK) {
    char msg[256];
    bench_size_message(msg, sizeof msg, "size", text, st, &caches);
    return h->fail(h, "%s", msg);
  }
  const int buffers = s->kind == BW_COPY ? 2 : 1;
  s->n = ((size_t)size + 4 * buffers - 1) / (4 * (size_t)buffers);
  const double footprint = 4.0 * (double)s->n * buffers;
  if (footprint > (double)s->ctx->prop.totalGlobalMem / 2)
    return h->skip(h, "a working set of %.0f MiB takes more than half of the device's %zu MiB",
                   footprint / 1048576, s->ctx->prop.totalGlobalMem >> 20);
  s->passes = (int)h->param_int(h, "passes");
  if (s->passes == 0) { /* enough for 1 GiB, at most 4096 (a tiny set is not about the L2) */
    const double want = (1073741824.0 + footprint - 1) / footprint;
    s->passes = want < 4096 ? (int)want : 4096;
  }
  s->blocks = hipb_grid_fill(s->ctx, (s->n / 4 + HIPB_PEAK_THREADS - 1) / HIPB_PEAK_THREADS,
                             BW_BLOCKS_PER_CU);
  s->stride = (size_t)s->blocks * HIPB_PEAK_THREADS;

  if (s->kind != BW_WRITE) HIPB_TRY(hipb_input(h, &s->x, s->n, BENCH_I32, 1));
  HIPB_TRY(hipb_output(h, &s->y, s->kind == BW_READ ? s->stride : s->n, BENCH_I32));
  if (s->kind == BW_READ) HIPB_TRY(read_reference(h, s));
  uint32_t seed = 0;
  h->fill_random(h, &seed, 1, BENCH_I32, 2);
  s->value = seed ^ 0x5a5a5a5au;
  h->set_work(h, 0, footprint * s->passes);

  const double l2 = s->ctx->prop.l2CacheSize > 0 ? s->ctx->prop.l2CacheSize : 0;
  char method[96], how[160] = "";
  snprintf(method, sizeof method, "%s, 16-byte accesses, %d pass%s", kind_names[s->kind],
           s->passes, s->passes == 1 ? "" : "es");
  if (l2 > 0 && footprint <= l2)
    return hipb_peak_roof(h, BENCH_ROOF_BANDWIDTH, "l2", method, l2, 0, NULL);
  if (footprint >= 1073741824.0 && footprint >= 4 * l2) {
    const double mkhz = hipb_peak_clock_khz(s->ctx, 1), bus = s->ctx->prop.memoryBusWidth;
    double sheet = 0;
    if (mkhz > 0 && bus > 0) {
      sheet = 2 * mkhz * 1e3 * bus / 8 / 1e9;
      snprintf(how, sizeof how, "2 x %.0f MHz x %.0f bit / 8 (memory clock and bus width attributes)",
               mkhz / 1000, bus);
    }
    return hipb_peak_roof(h, BENCH_ROOF_BANDWIDTH, "dram", method, 0, sheet, how);
  }
  h->set_info(h, "note", "no roof: the working set is above the L2 and below 1 GiB or 4 x L2");
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct peak *s = (struct peak *)state;
  const dim3 grid(s->blocks), block(HIPB_PEAK_THREADS);
  const size_t n4 = s->n / 4;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) {
    if (s->kind == BW_READ)
      HIPB_LAUNCH(h, peak_bw_read, grid, block, 0, s->ctx->stream, (const uint4 *)s->x.dev, n4,
                  (const uint32_t *)s->x.dev, s->n, s->passes, (uint32_t *)s->y.dev);
    else if (s->kind == BW_WRITE)
      HIPB_LAUNCH(h, peak_bw_write, grid, block, 0, s->ctx->stream, (uint4 *)s->y.dev, n4,
                  (uint32_t *)s->y.dev, s->n, s->passes, s->value);
    else
      HIPB_LAUNCH(h, peak_bw_copy, grid, block, 0, s->ctx->stream, (const uint4 *)s->x.dev,
                  (uint4 *)s->y.dev, n4, (const uint32_t *)s->x.dev, (uint32_t *)s->y.dev, s->n,
                  s->passes);
  }
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct peak *s = (struct peak *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->y));
  return hipb_peak_compare(h, s->kind == BW_READ ? "sums" : "words", BENCH_I32, s->y.host,
                           (int64_t)s->y.count, ref_fn, s);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct peak *s = (struct peak *)state;
  hipb_free(&s->x);
  hipb_free(&s->y);
  free(s->ref);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("peak_bw"),
    .backend = HIPB_BACKEND,
    .operation = "peak",
    .description = "device memory and L2 bandwidth: read (exact integer sums), write, copy",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
