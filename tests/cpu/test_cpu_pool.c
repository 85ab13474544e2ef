/* The CPU thread pool (plugins/cpu/cpu_pool.c) and the packed GEMM's
 * team (cpu_gemm_packed.c): every slot of a task runs exactly once, with
 * the task's slot count; cpu_parallel_for covers its range exactly once in
 * pieces of whole grains, on the pool's threads, and wakes no thread below
 * two grains; tasks after
 * the workers went to sleep, tasks whose slots outlast the caller's spin,
 * and thousands of tiny tasks back to back; the team GEMM on 1 to 5
 * threads bit for bit equal to one thread's plain blocks, also when one
 * thread runs every slot (a pool of one) and so no slot ever runs beside
 * another. Run under the sanitizer build too. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../unit/test.h"
#include "cpu_common.h"
#include "cpu_gemm_packed.h"
#include "cpu_pool.h"

#define MAX_SLOTS 16

struct slot_counts {
  atomic_int runs[MAX_SLOTS];
  atomic_int bad; /* a slot outside [0, slots) or slots not the task's */
  int slots;
  int sleep_us;   /* each slot sleeps this long (0: none) */
};

static void count_slot(void *arg, int slot, int slots) {
  struct slot_counts *c = arg;
  if (slots != c->slots || slot < 0 || slot >= slots) atomic_fetch_add(&c->bad, 1);
  else atomic_fetch_add(&c->runs[slot], 1);
  if (c->sleep_us) {
    struct timespec t = {0, (long)c->sleep_us * 1000};
    nanosleep(&t, NULL);
  }
}

/* One task of `slots` slots on pool: every slot exactly once. */
static int run_counted(struct cpu_pool *pool, int slots, int sleep_us) {
  struct slot_counts c = {.slots = slots, .sleep_us = sleep_us};
  for (int s = 0; s < MAX_SLOTS; s++) atomic_init(&c.runs[s], 0);
  atomic_init(&c.bad, 0);
  cpu_pool_run_slots(pool, slots, count_slot, &c);
  int ok = atomic_load(&c.bad) == 0;
  for (int s = 0; s < MAX_SLOTS; s++) ok &= atomic_load(&c.runs[s]) == (s < slots);
  return ok;
}

static void test_slots_once(void) {
  for (int n = 1; n <= 4; n++) {
    struct cpu_pool *pool = cpu_pool_create(n);
    REQUIRE(pool && cpu_pool_size(pool) == n);
    int bad = 0;
    for (int rep = 0; rep < 2000; rep++) bad += !run_counted(pool, 1 + rep % MAX_SLOTS, 0);
    CHECK(bad == 0);
    cpu_pool_run(pool, count_slot, &(struct slot_counts){.slots = n}); /* one slot a thread */
    cpu_pool_destroy(pool);
  }
}

/* Idle for longer than the workers spin and yield (2 ms): they sleep on
 * the condition variable and must be woken; slots that sleep 3 ms make
 * the caller give up yielding and sleep too. */
static void test_sleepers(void) {
  struct cpu_pool *pool = cpu_pool_create(3);
  REQUIRE(pool);
  int bad = 0;
  for (int rep = 0; rep < 6; rep++) {
    struct timespec t = {0, 5 * 1000 * 1000};
    nanosleep(&t, NULL);
    bad += !run_counted(pool, 3, 0);
    bad += !run_counted(pool, 3, 3000);
  }
  CHECK(bad == 0);
  cpu_pool_destroy(pool);
  cpu_pool_destroy(cpu_pool_create(4)); /* destroyed while its workers still spin */
}

struct range_hits {
  atomic_int *hits;
  int64_t grain, n;
  int threads;
  atomic_int bad; /* a range not on a grain boundary, or tid not a thread's */
  atomic_int calls;
};

static void hit_range(void *arg, int64_t b, int64_t e, int tid) {
  struct range_hits *h = arg;
  if (b % h->grain || (e % h->grain && e != h->n) || b >= e || tid < 0 || tid >= h->threads ||
      tid != cpu_pool_thread())
    atomic_fetch_add(&h->bad, 1);
  for (int64_t i = b; i < e; i++) atomic_fetch_add(&h->hits[i], 1);
  atomic_fetch_add(&h->calls, 1);
}

static void test_parallel_for(void) {
  static const int64_t ns[] = {1, 2, 7, 63, 64, 65, 127, 128, 129, 1000, 4099};
  static const int64_t grains[] = {1, 3, 64, 1000};
  atomic_int *hits = malloc(4099 * sizeof *hits);
  REQUIRE(hits);
  int bad = 0;
  for (int t = 1; t <= 4; t++) {
    struct cpu_pool *pool = cpu_pool_create(t);
    REQUIRE(pool);
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (size_t b = 0; b < sizeof grains / sizeof *grains; b++) {
        const int64_t n = ns[a], grain = grains[b];
        struct range_hits h = {.hits = hits, .grain = grain, .n = n, .threads = t};
        atomic_init(&h.bad, 0);
        atomic_init(&h.calls, 0);
        for (int64_t i = 0; i < n; i++) atomic_init(&hits[i], 0);
        cpu_parallel_for(pool, n, grain, hit_range, &h);
        for (int64_t i = 0; i < n; i++) bad += atomic_load(&hits[i]) != 1;
        bad += atomic_load(&h.bad) != 0;
        /* one range a thread as cpu_threads_for says, in up to 8 pieces
         * each; one call below two grains */
        const int want = cpu_threads_for(t, n, grain), calls = atomic_load(&h.calls);
        bad += calls < want || calls > 8 * want;
        bad += n < 2 * grain && calls != 1;
      }
    cpu_pool_destroy(pool);
  }
  CHECK(bad == 0);
  CHECK(cpu_threads_for(8, 100, 10) == 8 && cpu_threads_for(8, 19, 10) == 1 &&
        cpu_threads_for(8, 35, 10) == 3 && cpu_threads_for(1, 1000, 1) == 1);
  free(hits);
}

/* ---- the team GEMM ---------------------------------------------------------------- */

struct team_run {
  const struct gemm_kernel *kr;
  const struct gemm_problem *p;
  struct gemm_team *team;
  float *buf;
  size_t floats;
};

static void team_slot(void *arg, int slot, int slots) {
  (void)slots;
  struct team_run *r = arg;
  gemm_packed_team(r->kr, r->p, r->buf + (size_t)slot * r->floats, r->team, slot);
}

static void test_team(void) {
  struct gemm_kernel kr;
  REQUIRE(gemm_kernel_pick("auto", &kr) == 0);
  /* k past the largest kc (C accumulated over k panels), n past nc in the
   * second (several column panels), odd edges */
  static const int64_t shapes[][3] = {{301, 97, 1100}, {150, 4099 + 64, 70}, {61, 13, 3}};
  const size_t floats = gemm_packed_buffer_floats(&kr);
  float *buf = cpu_alloc(5 * floats * sizeof(float));
  REQUIRE(buf);
  int bad = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    float *a = cpu_alloc((size_t)(m * k) * sizeof(float)), *b = cpu_alloc((size_t)(k * n) * sizeof(float));
    float *want = cpu_alloc((size_t)(m * n) * sizeof(float)), *c = cpu_alloc((size_t)(m * n) * sizeof(float));
    REQUIRE(a && b && want && c);
    for (int64_t i = 0; i < m * k; i++) a[i] = (float)((i * 37 % 101) - 50) / 64.0f;
    for (int64_t i = 0; i < k * n; i++) b[i] = (float)((i * 53 % 97) - 48) / 32.0f;
    struct gemm_problem p = {.m = m, .n = n, .k = k, .a = a, .b = b, .dtype = BENCH_F32, .c = want};
    gemm_packed_block(&kr, &p, 0, m, 0, n, buf);
    p.c = c;
    for (int t = 1; t <= 5; t++)
      for (int pooled = 0; pooled < 2; pooled++) {
        /* pooled: t threads; else a pool of one runs the t slots in turn */
        struct cpu_pool *pool = cpu_pool_create(pooled ? t : 1);
        struct gemm_team team = {0};
        REQUIRE(pool && gemm_team_init(&team, &kr, t) == 0);
        struct team_run r = {&kr, &p, &team, buf, floats};
        for (int rep = 0; rep < 5; rep++) {
          memset(c, 0xff, (size_t)(m * n) * sizeof(float)); /* NaN */
          gemm_team_reset(&team);
          cpu_pool_run_slots(pool, t, team_slot, &r);
          bad += memcmp(c, want, (size_t)(m * n) * sizeof(float)) != 0;
        }
        gemm_team_free(&team);
        cpu_pool_destroy(pool);
      }
    cpu_free(a);
    cpu_free(b);
    cpu_free(want);
    cpu_free(c);
  }
  CHECK(bad == 0);
  cpu_free(buf);
}

/* test_sleepers last: its caller waits for slots that sleep, longer than
 * it works itself, and then the pool runs tasks on the caller alone for
 * a while. */
TEST_MAIN(TEST_ENTRY(test_slots_once), TEST_ENTRY(test_parallel_for), TEST_ENTRY(test_team),
          TEST_ENTRY(test_sleepers))
