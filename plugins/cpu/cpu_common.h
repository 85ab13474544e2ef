/* Shared plumbing of the CPU plugins, linked into each as a small static
 * library: a thread pool with a parallel for, aligned allocation, the
 * machine's cache sizes (and the resolver of cache-relative sizes), f16/bf16
 * loads, a vectorisable expf, and the
 * `threads` parameter every threaded plugin declares. Nothing here prints
 * or exits. */
#ifndef BENCH_CPU_COMMON_H
#define BENCH_CPU_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench/dtype.h"
#include "bench/params.h"
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

/* This machine's data caches for cache-relative sizes (<bench/params.h>):
 * L1 = L1d, L2, L3, L4 and LLC = the last level, from cpu_caches(). L1, L2
 * and LLC always resolve (a stated default when the machine tells nothing);
 * a level the machine does not have (L3 where the last level is L2) is
 * refused with the machine's caches named. For bench_param_size:
 *   if (bench_param_size(host, "size", cpu_size_caches(), &bytes)) ... */
const struct bench_caches *cpu_size_caches(void);

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
/* A pool of n threads: the caller and n - 1 workers that wait in the pool.
 * NULL when a thread could not be started. n = 1 starts none. */
struct cpu_pool *cpu_pool_create(int n);
void cpu_pool_destroy(struct cpu_pool *pool);
int cpu_pool_size(const struct cpu_pool *pool);

/* Threads worth using on n units of work when each thread should get at
 * least `grain` units: at most `threads` and n / grain, at least 1 (so one
 * below 2 * grain: waking a thread would cost more than it saves). */
int cpu_threads_for(int threads, int64_t n, int64_t grain);

/* A pool of the `used` threads a case's runs use, `asked` being what its
 * `threads` parameter resolved to: records the case's info "threads" =
 * used and, when fewer, "threads_requested" = asked (the work is too small
 * to split). NULL (after host->fail) when threads cannot start. */
struct cpu_pool *cpu_pool_for_case(const struct bench_host *host, int asked, int used);
/* The same for a case of n units of work split with cpu_parallel_for's
 * `grain`: the `threads` parameter's count, capped by cpu_threads_for. */
struct cpu_pool *cpu_pool_from_param(const struct bench_host *host, int64_t n, int64_t grain);

/* fn(arg, slot, slots) once for every slot in [0, slots), slots at most
 * 1024; returns when all have returned. The caller and every awake worker
 * claim slots from a counter, so the caller runs each slot no worker has
 * started yet: it never waits for a worker to wake up, only for slots
 * already running on another thread. Slots may run at once on several
 * threads or one after another on one (slots = 1, or a pool of one, runs
 * them on the caller and wakes no thread): a slot must never wait for
 * another slot (no barrier between them); a slot runs on one thread at a
 * time, so per-slot buffers need no locks. Waits spin briefly, then
 * yield the CPU, then sleep on a condition variable; never for a time. */
typedef void (*cpu_task_fn)(void *arg, int slot, int slots);
void cpu_pool_run_slots(struct cpu_pool *pool, int slots, cpu_task_fn fn, void *arg);
/* cpu_pool_run_slots with one slot per thread of the pool. */
void cpu_pool_run(struct cpu_pool *pool, cpu_task_fn fn, void *arg);

/* For tasks that hand out their own pieces of work: call between pieces,
 * holding none another thread could wait for, and take no more pieces
 * when it returns nonzero (the caller takes what is left). On a worker
 * that has had the CPU for a while (0.2 ms) it yields the CPU, so that a
 * busy machine deschedules it here rather than in the middle of a piece;
 * nonzero when the worker runs on the caller's CPU (where it can only
 * run instead of the caller). 0 at once on the caller. */
int cpu_pool_yield_point(void);
/* The index of the calling thread in the pool whose task it runs: 0 on
 * the caller (and outside any task), 1 .. size - 1 on the workers. */
int cpu_pool_thread(void);

/* fn(arg, begin, end, tid) over [0, n): n is split into cpu_threads_for(
 * pool size, n, grain) contiguous ranges of whole grains, one a thread
 * (n < 2 * grain runs on the caller alone, waking no thread), and each
 * range into up to 8 pieces; a thread takes the pieces of its own range
 * first, then what is left of the others', so one that is descheduled
 * holds the others up for one piece at most. tid is the thread running
 * the piece (cpu_pool_thread: index per-thread buffers with it). Pieces
 * depend only on n, grain and the pool size; which thread runs one may
 * vary. */
typedef void (*cpu_range_fn)(void *arg, int64_t begin, int64_t end, int tid);
void cpu_parallel_for(struct cpu_pool *pool, int64_t n, int64_t grain, cpu_range_fn fn,
                      void *arg);

/* The grain of a row-wise kernel over rows of `cols` elements: at least
 * 16 Ki elements (64 KiB of f32) per thread, so below 32 Ki elements one
 * thread runs it and none is woken. Measured on 2 vCPUs (AMD EPYC family
 * 25 model 1), rows of 1024, 2 threads against 1: quiet, rmsnorm 1.05-1.22
 * at 2 rows, 0.79-0.88 at 4, 0.65-0.74 at 8; softmax 0.56-0.70 at 4;
 * layernorm 0.65-0.73 at 4: 2 threads pay from about 4 Ki elements on an
 * idle machine, and the margin of 8 is for a busy one (64 x 4096 under
 * `stress-ng --cpu 2`: 1.0-1.3x of one thread). OpenBLAS's gemv runs one
 * thread below m * n = 2304 x GEMM_MULTITHREAD_THRESHOLD 4 = 9216. */
static inline int64_t cpu_row_grain(int64_t cols) {
  return cols >= 16384 ? 1 : 16384 / (cols > 0 ? cols : 1);
}

/* Slot `slot`'s share of [0, n) in units of grain. */
void cpu_split(int64_t n, int64_t grain, int slot, int slots, int64_t *begin, int64_t *end);

/* ---- element types ------------------------------------------------------ */

/* Names, sizes and conversions: <bench/dtype.h> (bench_param_dtype in
 * <bench/params.h> reads a dtype parameter). */

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
