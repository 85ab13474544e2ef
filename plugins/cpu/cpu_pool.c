/* The CPU plugins' thread pool (see cpu_pool.h). */
#define _GNU_SOURCE
#include "cpu_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* ---- CPUs ------------------------------------------------------------------- */

int cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

int cpu_threads_resolve(int64_t requested) {
  return requested > 0 ? (int)requested : cpu_count();
}

/* ---- the pool ---------------------------------------------------------------- */

/* A task is a number of slots, fn(arg, slot, slots) for each. The caller
 * publishes it in one word, claim (the task's generation, its slot count
 * and the slots claimed so far), and then claims slots itself, like every
 * worker that is awake: a worker that has not started yet (asleep,
 * descheduled on a busy machine) is never waited for, the caller runs its
 * slot. The caller waits only for work another thread has claimed, so for
 * threads that were running a moment ago; three rules keep those from
 * being descheduled while they hold it:
 * - A worker claims nothing while it runs on the CPU the caller published
 *   from: there it could only run instead of the caller, never beside it,
 *   and once the scheduler switched back the caller would wait for it (on
 *   a 2-vCPU VM under `stress-ng --cpu 2`: 4 ms, a tick, for every 110 us
 *   LayerNorm of 64 x 4096, in some processes).
 * - A worker that has had the CPU for HOLD_NS since it last gave it up
 *   yields before it claims more: on an idle CPU that costs 0.7 us, on a
 *   busy one it hands the CPU over while it holds nothing, and comes back
 *   with a new time slice (0.75 ms or more) for the next piece. Both are
 *   checked before every piece (cpu_pool_yield_point, which tasks that
 *   hand out their own pieces call too): cpu_parallel_for hands out its
 *   ranges in CHUNKS pieces each, a thread's own range first, then what is
 *   left of the others'.
 * - A worker that was too late for a task (the caller had claimed every
 *   slot, or it was on the caller's CPU) sleeps at once rather than
 *   spinning and yielding: on a busy machine a thread that yields in a
 *   loop still takes its share of a CPU from the caller, and a woken thread
 *   is placed on an idle CPU if there is one. It spins and yields again
 *   after the next task it got a slot of.
 * A worker can still be descheduled holding a piece (on a busy machine
 * with other processes waking up), and then the caller waits milliseconds
 * for it. So when the caller waited longer than it worked itself (more
 * than SOLO_WAIT_NS), that is longer than it would have taken alone, or
 * woke sleeping workers for SOLO_GOOD tasks in a row that none of them
 * got a slot of (each wake-up costs the caller a system call, and the
 * woken thread often lands on the caller's CPU and takes it for a
 * moment: 64 x 4096 RMSNorm ran 1.2-1.3x one thread's time on a busy VM),
 * the tasks of the next SOLO_MIN_NS run on the caller alone, waking no worker;
 * the period doubles each time a try loses again (up to SOLO_MAX_NS) and
 * halves after SOLO_GOOD tries in a row that did not. This is per process:
 * how busy the machine is does not depend on the pool. Under `stress-ng
 * --cpu 2` on 2 vCPUs, membw_cpu on 2 threads waited 2-11 ms in a quarter
 * of its 1.5 ms runs without this, and its median was up to 2.5x the one
 * thread's in some processes.
 *
 * Otherwise waits spin SPIN pauses, then yield the CPU in a loop for up to
 * YIELD_NS, then sleep on a condition variable; nothing ever sleeps for a
 * time. The spin is short: 4000 pauses took 100 us on Zen 3, and an idle
 * worker that spun beside the caller on one CPU of a busy 2-vCPU VM took
 * 210-240 us of every 8 us GEMM at 64^3; a sched_yield on an otherwise idle
 * CPU returns in 0.7 us, so yielding polls nearly as fast, and on a busy
 * CPU it hands the CPU on (as OpenBLAS's threads do). */
#define SPIN 256
#define YIELD_NS 2000000
#define HOLD_NS 200000
#define CHUNKS 8
#define SOLO_WAIT_NS 50000
#define SOLO_MIN_NS 32000000
#define SOLO_MAX_NS 1000000000
#define SOLO_GOOD 8

#define CLAIM_GEN_SHIFT 32
#define CLAIM_SLOTS_SHIFT 16
#define CLAIM_MASK 0xffffu /* slots and claimed: at most 1024 threads */

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

struct share {
  _Alignas(64) atomic_llong next; /* cpu_parallel_for: pieces of a range claimed */
};

struct cpu_pool {
  int n;                    /* threads: the caller and n - 1 workers */
  pthread_t *threads;
  struct share *share;      /* n, 64-byte aligned */
  pthread_mutex_t mu;
  pthread_cond_t start;     /* a new task, for sleeping workers */
  pthread_cond_t done;      /* the last slot finished, for a sleeping caller */
  cpu_task_fn fn;           /* the task: written before claim, read after a claim */
  void *arg;
  _Alignas(64) atomic_ullong claim; /* gen << 32 | slots << 16 | claimed */
  atomic_int caller_cpu;    /* the CPU the caller published the task from */
  _Alignas(64) atomic_int finished; /* slots of the task finished */
  atomic_int sleepers;      /* workers asleep on start */
  atomic_int caller_asleep; /* the caller asleep on done */
  atomic_int stop;
};

/* The thread's index in its pool (0: the caller, which may be any thread)
 * and, on a worker, its pool and when it last got the CPU back. */
static _Thread_local int tl_self;
static _Thread_local int64_t tl_since;
static _Thread_local const struct cpu_pool *tl_pool;

/* A worker on the CPU the caller published the task from. */
static int on_callers_cpu(const struct cpu_pool *pool) {
  const int cpu = atomic_load_explicit(&pool->caller_cpu, memory_order_relaxed);
  return cpu >= 0 && sched_getcpu() == cpu;
}

int cpu_pool_yield_point(void) {
  if (!tl_pool) return 0; /* the caller */
  if (on_callers_cpu(tl_pool)) return 1;
  if (now_ns() - tl_since < HOLD_NS) return 0;
  sched_yield();
  tl_since = now_ns();
  return on_callers_cpu(tl_pool);
}

static unsigned claim_gen(unsigned long long w) { return (unsigned)(w >> CLAIM_GEN_SHIFT); }

/* Runs unclaimed slots of the task in word w (as last read) until none is
 * left or another task replaced it; a worker stops when it is on the
 * caller's CPU. Returns the number of slots it ran. */
static int run_slots(struct cpu_pool *pool, unsigned long long w) {
  const unsigned gen = claim_gen(w);
  int ran = 0;
  for (;;) {
    const int slots = (int)((w >> CLAIM_SLOTS_SHIFT) & CLAIM_MASK), slot = (int)(w & CLAIM_MASK);
    if (claim_gen(w) != gen || slot >= slots) return ran;
    if (tl_pool && cpu_pool_yield_point()) return ran; /* a worker on the caller's CPU */
    /* acquire: fn, arg and what the task reads were written before the
     * caller published the word */
    if (!atomic_compare_exchange_weak_explicit(&pool->claim, &w, w + 1, memory_order_acquire,
                                               memory_order_relaxed))
      continue;
    pool->fn(pool->arg, slot, slots);
    ran++;
    /* seq_cst with caller_asleep: either the caller sees the count or we
     * see it asleep */
    if (atomic_fetch_add(&pool->finished, 1) + 1 == slots && atomic_load(&pool->caller_asleep)) {
      pthread_mutex_lock(&pool->mu);
      pthread_cond_signal(&pool->done);
      pthread_mutex_unlock(&pool->mu);
    }
    w = atomic_load_explicit(&pool->claim, memory_order_relaxed);
  }
}

/* While the task generation is `seen`: spins, then yields; returns 0 once
 * it differs, 1 when YIELD_NS passed (the worker then sleeps). A worker
 * that was late for the last task returns 1 at once. */
static int wait_for_task(struct cpu_pool *pool, unsigned seen, int late) {
  if (late) return 1;
  for (int spins = 0; spins < SPIN; spins++) {
    if (claim_gen(atomic_load_explicit(&pool->claim, memory_order_relaxed)) != seen) return 0;
    CPU_RELAX();
  }
  const int64_t until = now_ns() + YIELD_NS;
  while (claim_gen(atomic_load_explicit(&pool->claim, memory_order_relaxed)) == seen) {
    sched_yield();
    tl_since = now_ns();
    if (tl_since > until) return 1;
  }
  return 0;
}

struct worker {
  struct cpu_pool *pool;
  int self;
};

static void *worker_main(void *p) {
  const struct worker me = *(struct worker *)p;
  free(p);
  struct cpu_pool *pool = me.pool;
  tl_self = me.self;
  tl_since = now_ns();
  tl_pool = pool;
  unsigned seen = 0;
  int late = 0;
  for (;;) {
    if (wait_for_task(pool, seen, late)) {
      pthread_mutex_lock(&pool->mu);
      atomic_fetch_add(&pool->sleepers, 1); /* seq_cst with the caller's publishing */
      while (claim_gen(atomic_load(&pool->claim)) == seen && !atomic_load(&pool->stop))
        pthread_cond_wait(&pool->start, &pool->mu);
      atomic_fetch_sub(&pool->sleepers, 1);
      pthread_mutex_unlock(&pool->mu);
      tl_since = now_ns();
    }
    if (atomic_load(&pool->stop)) return NULL;
    const unsigned long long w = atomic_load_explicit(&pool->claim, memory_order_relaxed);
    seen = claim_gen(w);
    late = run_slots(pool, w) == 0;
  }
}

static int start_worker(struct cpu_pool *pool, int self) {
  struct worker *w = malloc(sizeof *w);
  if (!w) return -1;
  w->pool = pool;
  w->self = self;
  if (pthread_create(&pool->threads[self], NULL, worker_main, w) != 0) {
    free(w);
    return -1;
  }
  return 0;
}

struct cpu_pool *cpu_pool_create(int n) {
  struct cpu_pool *pool = aligned_alloc(64, sizeof *pool); /* sizeof: a multiple of 64 */
  if (!pool) return NULL;
  memset(pool, 0, sizeof *pool);
  pool->n = n < 1 ? 1 : n > 1024 ? 1024 : n;
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->start, NULL);
  pthread_cond_init(&pool->done, NULL);
  atomic_init(&pool->claim, 0ull);
  atomic_init(&pool->caller_cpu, -1);
  atomic_init(&pool->finished, 0);
  atomic_init(&pool->sleepers, 0);
  atomic_init(&pool->caller_asleep, 0);
  atomic_init(&pool->stop, 0);
  if (pool->n == 1) return pool;
  pool->share = aligned_alloc(64, (size_t)pool->n * sizeof *pool->share);
  pool->threads = calloc((size_t)pool->n, sizeof *pool->threads);
  int started = 1;
  if (pool->share && pool->threads)
    while (started < pool->n && start_worker(pool, started) == 0) started++;
  if (started < pool->n) {
    pool->n = started; /* stop and join the workers started so far */
    cpu_pool_destroy(pool);
    return NULL;
  }
  return pool;
}

void cpu_pool_destroy(struct cpu_pool *pool) {
  if (!pool) return;
  if (pool->n > 1) {
    pthread_mutex_lock(&pool->mu);
    atomic_store(&pool->stop, 1);
    /* a new generation with no slots: every waiting worker looks up */
    const unsigned long long w = atomic_load(&pool->claim);
    atomic_store(&pool->claim, (unsigned long long)(claim_gen(w) + 1u) << CLAIM_GEN_SHIFT);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->mu);
    for (int t = 1; t < pool->n; t++) pthread_join(pool->threads[t], NULL);
  }
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->start);
  pthread_mutex_destroy(&pool->mu);
  free(pool->threads);
  free(pool->share);
  free(pool);
}

int cpu_pool_size(const struct cpu_pool *pool) { return pool ? pool->n : 1; }

/* Tasks run on the caller alone until solo_until (CLOCK_MONOTONIC ns);
 * solo_ns: the last such period, 0 when none; solo_good: tasks since in
 * a row that did not lose; unhelped: tasks in a row whose sleeping
 * workers were woken and then claimed no slot. */
static atomic_llong solo_until, solo_ns;
static atomic_int solo_good, unhelped;

/* After a task: the caller worked `worked` ns on it and then waited
 * `waited` ns for the workers; `wasted`: it woke sleeping workers and ran
 * every slot itself. */
static void solo_update(int64_t now, int64_t worked, int64_t waited, int wasted) {
  long long p = atomic_load_explicit(&solo_ns, memory_order_relaxed);
  int lost = waited > SOLO_WAIT_NS && waited > worked;
  if (!wasted) atomic_store_explicit(&unhelped, 0, memory_order_relaxed);
  else if (atomic_fetch_add_explicit(&unhelped, 1, memory_order_relaxed) + 1 >= SOLO_GOOD) {
    atomic_store_explicit(&unhelped, 0, memory_order_relaxed);
    lost = 1;
  }
  if (lost) {
    p = p ? (2 * p < SOLO_MAX_NS ? 2 * p : SOLO_MAX_NS) : SOLO_MIN_NS;
    atomic_store_explicit(&solo_ns, p, memory_order_relaxed);
    atomic_store_explicit(&solo_until, now + p, memory_order_relaxed);
    atomic_store_explicit(&solo_good, 0, memory_order_relaxed);
  } else if (p && atomic_fetch_add_explicit(&solo_good, 1, memory_order_relaxed) + 1 >= SOLO_GOOD) {
    atomic_store_explicit(&solo_ns, p / 2 >= SOLO_MIN_NS ? p / 2 : 0, memory_order_relaxed);
    atomic_store_explicit(&solo_good, 0, memory_order_relaxed);
  }
}

int cpu_threads_for(int threads, int64_t n, int64_t grain) {
  if (grain < 1) grain = 1;
  const int64_t most = n / grain;
  return most < 2 ? 1 : most < threads ? (int)most : threads;
}

struct cpu_pool *cpu_pool_for_case(const struct bench_host *host, int asked, int used) {
  if (used < 1) used = 1;
  if (used > asked) used = asked;
  struct cpu_pool *pool = cpu_pool_create(used);
  if (!pool) {
    host->fail(host, "cannot start %d threads", used);
    return NULL;
  }
  char text[16];
  snprintf(text, sizeof text, "%d", used);
  host->set_info(host, "threads", text);
  if (used < asked) {
    snprintf(text, sizeof text, "%d", asked);
    host->set_info(host, "threads_requested", text);
  }
  return pool;
}

struct cpu_pool *cpu_pool_from_param(const struct bench_host *host, int64_t n, int64_t grain) {
  const int asked = cpu_threads_resolve(host->param_int(host, "threads"));
  return cpu_pool_for_case(host, asked, cpu_threads_for(asked, n, grain));
}

void cpu_pool_run_slots(struct cpu_pool *pool, int slots, cpu_task_fn fn, void *arg) {
  if (slots < 1) return;
  if (slots > 1024) slots = 1024;
  const int64_t start = now_ns();
  if (!pool || pool->n == 1 || slots == 1 ||
      start < atomic_load_explicit(&solo_until, memory_order_relaxed)) {
    for (int s = 0; s < slots; s++) fn(arg, s, slots); /* inline: no thread woken */
    return;
  }
  pool->fn = fn;
  pool->arg = arg;
  atomic_store_explicit(&pool->finished, 0, memory_order_relaxed);
  atomic_store_explicit(&pool->caller_cpu, sched_getcpu(), memory_order_relaxed);
  const unsigned long long old = atomic_load_explicit(&pool->claim, memory_order_relaxed);
  const unsigned long long w = (unsigned long long)(claim_gen(old) + 1u) << CLAIM_GEN_SHIFT |
                               (unsigned long long)slots << CLAIM_SLOTS_SHIFT;
  atomic_store(&pool->claim, w); /* seq_cst: release, and ordered before reading sleepers */
  const int woke = atomic_load(&pool->sleepers) > 0;
  if (woke) {
    pthread_mutex_lock(&pool->mu);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->mu);
  }

  const int mine = run_slots(pool, w); /* the caller does every slot no worker claimed */
  const int wasted = woke && mine == slots;

  /* Only slots other threads claimed are left, each on a thread that was
   * running when it claimed it. */
  const int64_t worked = now_ns() - start;
  int spins = 0;
  while (spins < SPIN && atomic_load_explicit(&pool->finished, memory_order_acquire) != slots) {
    CPU_RELAX();
    spins++;
  }
  if (spins < SPIN) {
    solo_update(start + worked, worked, 0, wasted);
    return;
  }
  const int64_t waiting = now_ns(), until = waiting + YIELD_NS;
  while (atomic_load_explicit(&pool->finished, memory_order_acquire) != slots) {
    sched_yield();
    if (now_ns() > until) {
      pthread_mutex_lock(&pool->mu);
      atomic_store(&pool->caller_asleep, 1); /* seq_cst with the workers' count */
      while (atomic_load(&pool->finished) != slots) pthread_cond_wait(&pool->done, &pool->mu);
      atomic_store(&pool->caller_asleep, 0);
      pthread_mutex_unlock(&pool->mu);
      break;
    }
  }
  const int64_t end = now_ns();
  solo_update(end, worked, end - waiting, wasted);
}

void cpu_pool_run(struct cpu_pool *pool, cpu_task_fn fn, void *arg) {
  cpu_pool_run_slots(pool, cpu_pool_size(pool), fn, arg);
}

int cpu_pool_thread(void) { return tl_self; }

void cpu_split(int64_t n, int64_t grain, int tid, int nthreads, int64_t *begin, int64_t *end) {
  if (grain < 1) grain = 1;
  const int64_t units = (n + grain - 1) / grain, per = units / nthreads, rem = units % nthreads;
  const int64_t u0 = tid * per + (tid < rem ? tid : rem), u1 = u0 + per + (tid < rem ? 1 : 0);
  *begin = u0 * grain < n ? u0 * grain : n;
  *end = u1 * grain < n ? u1 * grain : n;
}

struct range_task {
  cpu_range_fn fn;
  void *arg;
  int64_t n, grain;
  struct share *share;
};

/* Slot s's range first, then what is left of the others', CHUNKS pieces
 * of whole grains each, a piece at a time. */
static void range_task_run(void *p, int slot, int slots) {
  const struct range_task *t = p;
  for (int i = 0; i < slots; i++) {
    const int s = (slot + i) % slots;
    int64_t b, e;
    cpu_split(t->n, t->grain, s, slots, &b, &e);
    const int64_t units = (e - b + t->grain - 1) / t->grain;
    const int64_t piece = (units + CHUNKS - 1) / CHUNKS * t->grain;
    for (;;) {
      const int64_t c = atomic_fetch_add_explicit(&t->share[s].next, 1, memory_order_relaxed);
      const int64_t pb = b + c * piece;
      if (pb >= e) break;
      t->fn(t->arg, pb, pb + piece < e ? pb + piece : e, tl_self);
      if (cpu_pool_yield_point()) return;
    }
  }
}

void cpu_parallel_for(struct cpu_pool *pool, int64_t n, int64_t grain, cpu_range_fn fn,
                      void *arg) {
  if (n <= 0) return;
  const int slots = cpu_threads_for(cpu_pool_size(pool), n, grain);
  if (slots == 1) {
    fn(arg, 0, n, 0);
    return;
  }
  for (int s = 0; s < slots; s++) atomic_store_explicit(&pool->share[s].next, 0, memory_order_relaxed);
  struct range_task t = {fn, arg, n, grain, pool->share};
  cpu_pool_run_slots(pool, slots, range_task_run, &t);
}
