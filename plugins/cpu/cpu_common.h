/* Shared plumbing of the CPU plugins, linked into each as a small static
 * library: a thread pool with a parallel for, aligned allocation, the
 * machine's cache sizes, f16/bf16 conversion, a vectorisable expf, and the
 * `threads` parameter every threaded plugin declares. Nothing here prints
 * or exits. */
#ifndef BENCH_CPU_COMMON_H
#define BENCH_CPU_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_caches.h"

/* Clones of a hot loop's function for AVX-512 (x86-64-v4), AVX2+FMA
 * (x86-64-v3) and the portable baseline; the loader picks the widest this
 * CPU runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CPU_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CPU_MULTIVERSION
#endif

/* The `threads` parameter of every threaded plugin, with its tier defaults. */
#define CPU_THREADS_PARAM(smoke, standard, perf, verify)                              \
  {.name = "threads", .type = BENCH_PARAM_INT,                                         \
   .description = "worker threads, 0 = every CPU this process may run on", .min = 0,   \
   .max = 1024, .defaults = {smoke, standard, perf, verify}}

/* A size in bytes: "4096", "64KiB", "1.5MiB", "2GiB" (also K, M, G), or a
 * cache of this machine with an optional factor or divisor: "L1", "L2/2",
 * "4*LLC" (L1 = L1d, L2, L3, L4, LLC = the last level). L1, L2 and LLC
 * always resolve (cpu_caches.h: a stated default when the machine tells
 * nothing); -1 when malformed or when the machine has no such level (L3
 * on a machine whose last level is L2). */
int64_t cpu_parse_size(const char *text);
/* The one message for a size cpu_parse_size refused: names the machine's
 * caches when the text asked for a level it does not have. BENCH_ERROR. */
int cpu_size_error(const struct bench_host *host, const char *text);

/* CPUs this process may run on (sched_getaffinity), at least 1. */
int cpu_count(void);
/* threads parameter -> thread count: 0 means cpu_count(). */
int cpu_threads_resolve(int64_t requested);

/* Bytes of one instance of data cache `level` (1..4) from cpu_caches(),
 * the harness's own figures (sysfs, CPUID, sysconf or a stated default);
 * 0 when the machine has no such level. Levels 1, 2 and the LLC are > 0. */
int64_t cpu_cache_bytes(int level);
int64_t cpu_llc_bytes(void);
/* For a case sized by the caches: when a figure is a stated default (the
 * machine told nothing), a "note" with the case saying which and what size
 * was used. The figures and their sources are in the result header. */
void cpu_caches_note(const struct bench_host *host);

/* 64-byte aligned memory (2 MiB aligned and transparent huge pages asked for
 * from 4 MiB up); NULL when out of memory. Free with cpu_free. */
void *cpu_alloc(size_t bytes);
void cpu_free(void *p);

/* dst[0, n) = src[0, n) with non-temporal stores (x86; a plain copy
 * elsewhere): the lines go to memory without being read first or kept in
 * the caches. For outputs larger than the last-level cache, which a plain
 * store would first read (write-allocate); call cpu_stream_fence() once the
 * thread has written its last. */
void cpu_stream_copy(float *dst, const float *src, int64_t n);
void cpu_stream_fence(void);

/* Non-temporal output for `bytes` of output on this machine: when it is
 * larger than the last-level cache (cpu_caches_note when that is a default). */
int cpu_stream_output(const struct bench_host *host, int64_t bytes);

/* ---- thread pool ------------------------------------------------------ */

struct cpu_pool;
/* A pool of n threads: the caller is thread 0, n - 1 workers wait in the
 * pool. NULL when a thread could not be started. n = 1 starts none. */
struct cpu_pool *cpu_pool_create(int n);
void cpu_pool_destroy(struct cpu_pool *pool);
int cpu_pool_size(const struct cpu_pool *pool);

/* The pool the `threads` parameter asks for, its size recorded as the
 * case's "threads" info; NULL (after host->fail) when threads cannot start. */
struct cpu_pool *cpu_pool_from_param(const struct bench_host *host);

/* fn(arg, tid, n) on every thread of the pool at once (tid 0 on the
 * caller); returns when all have returned. */
typedef void (*cpu_task_fn)(void *arg, int tid, int nthreads);
void cpu_pool_run(struct cpu_pool *pool, cpu_task_fn fn, void *arg);

/* fn(arg, begin, end, tid) over [0, n) split into one contiguous range per
 * thread; a thread's range is a multiple of `grain` (except the last), so
 * n <= grain runs on the caller alone, waking no thread. The split depends
 * only on n, grain and the pool size, so results are deterministic. */
typedef void (*cpu_range_fn)(void *arg, int64_t begin, int64_t end, int tid);
void cpu_parallel_for(struct cpu_pool *pool, int64_t n, int64_t grain, cpu_range_fn fn,
                      void *arg);

/* The grain of a row-wise kernel over rows of `cols` elements: at least
 * 16 Ki elements per thread, so tiny problems stay on one thread. */
static inline int64_t cpu_row_grain(int64_t cols) {
  return cols >= 16384 ? 1 : 16384 / (cols > 0 ? cols : 1);
}

/* A barrier for the n threads of one cpu_pool_run task: each waits until
 * all n have arrived. It spins briefly, then yields the CPU (a busy machine
 * may have descheduled the others). Initialise with cpu_barrier_init. */
struct cpu_barrier {
  _Atomic int arrived;
  _Atomic unsigned phase;
  int n;
};
void cpu_barrier_init(struct cpu_barrier *b, int n);
void cpu_barrier_wait(struct cpu_barrier *b);

/* Thread tid's share of [0, n) in units of grain. */
void cpu_split(int64_t n, int64_t grain, int tid, int nthreads, int64_t *begin, int64_t *end);

/* ---- element types ------------------------------------------------------ */

int cpu_dtype_parse(const char *name, enum bench_dtype *out);
size_t cpu_dtype_size(enum bench_dtype t);

static inline float cpu_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
float cpu_f16_to_f32(uint16_t h);

/* dst[i] = src[offset + i] as float, for i < count; src holds dtype. */
void cpu_load_f32(float *dst, const void *src, size_t offset, size_t count, enum bench_dtype t);

/* ---- math ----------------------------------------------------------------- */

/* e^x in float, branch-free so loops around it vectorise: Cody-Waite range
 * reduction to r in [-ln2/2, ln2/2] and a degree-5 minimax polynomial for
 * e^r (the coefficients of Arm's optimized-routines expf), times 2^n. Max
 * relative error 1.9e-7 (3.2 units of 2^-24) against exp in double; the
 * argument is clamped to [-87.3, 88.37] (results 2^-126 .. 2.4e38: never
 * inf or subnormal). Needs -fno-trapping-math for GCC to vectorise the
 * clamps. The AVX-512 row kernels (cpu_rowops.c) use the same steps. */
#define CPU_EXP_LN2_HI 0x1.62e4p-1f   /* ln 2 in 16 bits: n * hi is exact */
#define CPU_EXP_LN2_LO 0x1.7f7d1cp-20f /* ln 2 - hi */
#define CPU_EXP_C5 0x1.0e4020p-7f
#define CPU_EXP_C4 0x1.573e2ep-5f
#define CPU_EXP_C3 0x1.555e66p-3f
#define CPU_EXP_C2 0x1.fffdb6p-2f
#define CPU_EXP_C1 0x1.ffffecp-1f
static inline float cpu_expf(float x) {
  x = x < -87.33654f ? -87.33654f : x;
  x = x > 88.37626f ? 88.37626f : x;
  /* n = round(x / ln 2): adding 1.5 * 2^23 rounds to an integer */
  const float magic = 12582912.0f;
  const float n = (x * 1.44269504088896341f + magic) - magic;
  const float r = (x - n * CPU_EXP_LN2_HI) - n * CPU_EXP_LN2_LO;
  float p = CPU_EXP_C5;
  p = p * r + CPU_EXP_C4;
  p = p * r + CPU_EXP_C3;
  p = p * r + CPU_EXP_C2;
  p = p * r + CPU_EXP_C1;
  p = p * r + 1.0f;
  /* times 2^n, n in [-126, 127], built as a float's exponent */
  const uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

#endif
