/* The CPU plugins' thread pool (linked into each with cpu_common.c): a pool
 * of the caller and n - 1 workers that runs tasks of slots, a parallel for
 * over ranges of whole grains, the grains and splits the plugins use, and
 * the `threads` parameter every threaded plugin declares. How the workers
 * claim, wait and stand down on a busy machine: cpu_pool.c. Nothing here
 * prints or exits. */
#ifndef BENCH_CPU_POOL_H
#define BENCH_CPU_POOL_H

#include <stdint.h>

#include "bench/params.h"
#include "bench/plugin.h"

/* The `threads` parameter of every threaded plugin, with its tier defaults. */
#define CPU_THREADS_PARAM(smoke, standard, perf, verify)                              \
  {.name = "threads", .type = BENCH_PARAM_INT,                                         \
   .description = "worker threads, 0 = every CPU this process may run on", .min = 0,   \
   .max = 1024, .defaults = {smoke, standard, perf, verify}}

/* CPUs this process may run on (sched_getaffinity), at least 1. */
int cpu_count(void);
/* threads parameter -> thread count: 0 means cpu_count(). */
int cpu_threads_resolve(int64_t requested);

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

#endif
