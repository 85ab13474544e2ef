/* Shared plumbing of the CPU plugins (see cpu_common.h). */
#define _GNU_SOURCE
#include "cpu_common.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() __builtin_ia32_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* ---- CPUs and caches ------------------------------------------------------ */

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

int64_t cpu_cache_bytes(int level) { return cpu_caches_bytes(cpu_caches(), level); }

int64_t cpu_llc_bytes(void) {
  const struct cpu_caches *c = cpu_caches();
  return cpu_caches_bytes(c, c->llc);
}

void cpu_caches_note(const struct bench_host *host) {
  const struct cpu_caches *c = cpu_caches();
  char levels[64] = "", sizes[96] = "";
  for (int lv = 1; lv <= CACHE_LEVELS; lv++) {
    if (c->level[lv].source != CACHE_DEFAULT) continue;
    const int64_t b = c->level[lv].bytes;
    const size_t nl = strlen(levels), ns = strlen(sizes);
    snprintf(levels + nl, sizeof levels - nl, "%sL%d%s", nl ? ", " : "", lv, lv == 1 ? "d" : "");
    snprintf(sizes + ns, sizeof sizes - ns, "%s%lld %s", ns ? ", " : "",
             (long long)(b >= (1 << 20) ? b >> 20 : b >> 10), b >= (1 << 20) ? "MiB" : "KiB");
  }
  if (!levels[0]) return;
  char note[256];
  snprintf(note, sizeof note,
           "this machine does not tell its %s size (no sysfs, CPUID or sysconf figure): "
           "sized with the default %s",
           levels, sizes);
  host->set_info(host, "note", note);
}

int64_t cpu_parse_size(const char *text) {
  if (!text) return -1;
  char *end;
  double factor = 1, v;
  const char *s = text;
  if (s[0] != 'L' && s[0] != 'l') {
    v = strtod(s, &end);
    if (end == s || !(v > 0)) return -1;
    if (*end != '*') { /* a plain size */
      double unit = 1;
      if (!strcmp(end, "") || !strcmp(end, "B")) unit = 1;
      else if (!strcmp(end, "K") || !strcmp(end, "KiB")) unit = 1024.0;
      else if (!strcmp(end, "M") || !strcmp(end, "MiB")) unit = 1024.0 * 1024;
      else if (!strcmp(end, "G") || !strcmp(end, "GiB")) unit = 1024.0 * 1024 * 1024;
      else return -1;
      return v * unit >= 1 && v * unit < 9e18 ? (int64_t)(v * unit) : -1;
    }
    factor = v;
    s = end + 1;
  }
  int64_t cache;
  if (!strncmp(s, "LLC", 3) || !strncmp(s, "llc", 3)) {
    cache = cpu_llc_bytes();
    s += 3;
  } else if ((s[0] == 'L' || s[0] == 'l') && s[1] >= '1' && s[1] <= '4') {
    cache = cpu_cache_bytes(s[1] - '0');
    s += 2;
  } else {
    return -1;
  }
  if (cache <= 0) return -1;
  if (*s == '/') {
    v = strtod(s + 1, &end);
    if (end == s + 1 || !(v > 0)) return -1;
    factor /= v;
    s = end;
  }
  if (*s) return -1;
  const double bytes = factor * (double)cache;
  return bytes >= 1 && bytes < 9e18 ? (int64_t)bytes : -1;
}

int cpu_size_error(const struct bench_host *host, const char *text) {
  const char *s = text;
  while (*s && *s != 'L' && *s != 'l') s++;
  if ((*s == 'L' || *s == 'l') && s[1] >= '1' && s[1] <= '9' && cpu_cache_bytes(s[1] - '0') <= 0) {
    char have[256];
    cpu_caches_describe(cpu_caches(), have, sizeof have);
    return host->fail(host, "size '%s': this machine has no L%c cache (%s); LLC names its last level",
                      text, s[1], have);
  }
  return host->fail(host, "size '%s': not a size (64MiB, 1.5GiB, L2/2, 4*LLC)", text);
}

/* ---- memory ------------------------------------------------------------------ */

#define HUGE_FROM ((size_t)4 << 20)

void *cpu_alloc(size_t bytes) {
  void *p = NULL;
  size_t align = bytes >= HUGE_FROM ? (size_t)2 << 20 : 64;
  if (bytes == 0) bytes = 1;
  if (posix_memalign(&p, align, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  if (bytes >= HUGE_FROM) madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is fine */
#endif
  return p;
}

void cpu_free(void *p) { free(p); }

void cpu_stream_copy(float *dst, const float *src, int64_t n) {
  int64_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  for (; i < n && ((uintptr_t)(dst + i) & 15); i++) dst[i] = src[i];
  for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
#endif
  for (; i < n; i++) dst[i] = src[i];
}

void cpu_stream_fence(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  _mm_sfence();
#endif
}

int cpu_stream_output(const struct bench_host *host, int64_t bytes) {
  cpu_caches_note(host);
  return bytes > cpu_llc_bytes();
}

/* ---- thread pool ------------------------------------------------------------ */

/* Workers spin this many pauses for the next task, then yield the CPU in a
 * loop for up to YIELD_NS, then sleep on a condition variable; the caller
 * waits for them the same way. The yielding phase (as OpenBLAS's threads
 * do) keeps a busy machine from turning every wake-up into a wait for the
 * scheduler: a sleeping thread woken there may wait a whole time slice. */
#define SPIN 4000
#define YIELD_NS 2000000

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Spins, then yields, while *word == value; returns 0 once it differs, 1
 * when YIELD_NS passed (the caller then sleeps). */
static int wait_while_uint(atomic_uint *word, unsigned value) {
  for (int spins = 0; spins < SPIN; spins++) {
    if (atomic_load_explicit(word, memory_order_acquire) != value) return 0;
    CPU_RELAX();
  }
  const int64_t until = now_ns() + YIELD_NS;
  while (atomic_load_explicit(word, memory_order_acquire) == value) {
    sched_yield();
    if (now_ns() > until) return 1;
  }
  return 0;
}

static int wait_while_int(atomic_int *word, int value) {
  for (int spins = 0; spins < SPIN; spins++) {
    if (atomic_load_explicit(word, memory_order_acquire) != value) return 0;
    CPU_RELAX();
  }
  const int64_t until = now_ns() + YIELD_NS;
  while (atomic_load_explicit(word, memory_order_acquire) == value) {
    sched_yield();
    if (now_ns() > until) return 1;
  }
  return 0;
}

struct cpu_pool {
  int n;
  pthread_t *threads;
  pthread_mutex_t mu;
  pthread_cond_t start, done;
  atomic_uint gen;    /* bumped once per task */
  atomic_int pending; /* workers still running the task */
  atomic_int stop;
  cpu_task_fn fn;
  void *arg;
};

struct worker {
  struct cpu_pool *pool;
  int tid;
};

static void *worker_main(void *p) {
  struct worker w = *(struct worker *)p;
  free(p);
  struct cpu_pool *pool = w.pool;
  unsigned seen = 0;
  for (;;) {
    if (wait_while_uint(&pool->gen, seen)) {
      pthread_mutex_lock(&pool->mu);
      while (atomic_load_explicit(&pool->gen, memory_order_acquire) == seen)
        pthread_cond_wait(&pool->start, &pool->mu);
      pthread_mutex_unlock(&pool->mu);
    }
    seen = atomic_load_explicit(&pool->gen, memory_order_acquire);
    if (atomic_load(&pool->stop)) return NULL;
    pool->fn(pool->arg, w.tid, pool->n);
    if (atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&pool->mu);
      pthread_cond_signal(&pool->done);
      pthread_mutex_unlock(&pool->mu);
    }
  }
}

static int start_worker(struct cpu_pool *pool, int tid) {
  struct worker *w = malloc(sizeof *w);
  if (!w) return -1;
  w->pool = pool;
  w->tid = tid;
  if (pthread_create(&pool->threads[tid], NULL, worker_main, w) != 0) {
    free(w);
    return -1;
  }
  return 0;
}

struct cpu_pool *cpu_pool_create(int n) {
  struct cpu_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->n = n < 1 ? 1 : n;
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->start, NULL);
  pthread_cond_init(&pool->done, NULL);
  atomic_init(&pool->gen, 0);
  atomic_init(&pool->pending, 0);
  atomic_init(&pool->stop, 0);
  if (pool->n == 1) return pool;
  pool->threads = calloc((size_t)pool->n, sizeof *pool->threads);
  int started = 1;
  while (pool->threads && started < pool->n && start_worker(pool, started) == 0) started++;
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
    atomic_fetch_add_explicit(&pool->gen, 1, memory_order_release);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->mu);
    for (int t = 1; t < pool->n; t++) pthread_join(pool->threads[t], NULL);
  }
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->start);
  pthread_mutex_destroy(&pool->mu);
  free(pool->threads);
  free(pool);
}

int cpu_pool_size(const struct cpu_pool *pool) { return pool ? pool->n : 1; }

struct cpu_pool *cpu_pool_from_param(const struct bench_host *host) {
  const int n = cpu_threads_resolve(host->param_int(host, "threads"));
  struct cpu_pool *pool = cpu_pool_create(n);
  if (!pool) {
    host->fail(host, "cannot start %d threads", n);
    return NULL;
  }
  char text[16];
  snprintf(text, sizeof text, "%d", n);
  host->set_info(host, "threads", text);
  return pool;
}

void cpu_pool_run(struct cpu_pool *pool, cpu_task_fn fn, void *arg) {
  if (!pool || pool->n == 1) {
    fn(arg, 0, 1);
    return;
  }
  pool->fn = fn;
  pool->arg = arg;
  atomic_store_explicit(&pool->pending, pool->n - 1, memory_order_relaxed);
  pthread_mutex_lock(&pool->mu);
  atomic_fetch_add_explicit(&pool->gen, 1, memory_order_release);
  pthread_cond_broadcast(&pool->start);
  pthread_mutex_unlock(&pool->mu);

  fn(arg, 0, pool->n);

  int left;
  while ((left = atomic_load_explicit(&pool->pending, memory_order_acquire)) != 0)
    if (wait_while_int(&pool->pending, left)) {
      pthread_mutex_lock(&pool->mu);
      while (atomic_load_explicit(&pool->pending, memory_order_acquire) != 0)
        pthread_cond_wait(&pool->done, &pool->mu);
      pthread_mutex_unlock(&pool->mu);
      break;
    }
}

void cpu_barrier_init(struct cpu_barrier *b, int n) {
  atomic_init(&b->arrived, 0);
  atomic_init(&b->phase, 0u);
  b->n = n;
}

void cpu_barrier_wait(struct cpu_barrier *b) {
  if (b->n <= 1) return;
  const unsigned phase = atomic_load_explicit(&b->phase, memory_order_acquire);
  if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) == b->n - 1) {
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&b->phase, phase + 1, memory_order_release);
    return;
  }
  for (int spins = 0; atomic_load_explicit(&b->phase, memory_order_acquire) == phase;)
    if (++spins < SPIN) CPU_RELAX();
    else sched_yield(); /* never sleeps: the others are inside the same task */
}

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
};

static void range_task_run(void *p, int tid, int nthreads) {
  const struct range_task *t = p;
  int64_t b, e;
  cpu_split(t->n, t->grain, tid, nthreads, &b, &e);
  if (b < e) t->fn(t->arg, b, e, tid);
}

void cpu_parallel_for(struct cpu_pool *pool, int64_t n, int64_t grain, cpu_range_fn fn,
                      void *arg) {
  if (n <= 0) return;
  if (n <= grain || cpu_pool_size(pool) == 1) {
    fn(arg, 0, n, 0);
    return;
  }
  struct range_task t = {fn, arg, n, grain};
  cpu_pool_run(pool, range_task_run, &t);
}

/* ---- element types ---------------------------------------------------------- */

int cpu_dtype_parse(const char *name, enum bench_dtype *out) {
  if (!name) return -1;
  if (strcmp(name, "f32") == 0) *out = BENCH_F32;
  else if (strcmp(name, "f16") == 0) *out = BENCH_F16;
  else if (strcmp(name, "bf16") == 0) *out = BENCH_BF16;
  else return -1;
  return 0;
}

size_t cpu_dtype_size(enum bench_dtype t) { return t == BENCH_F32 ? 4 : 2; }

float cpu_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (man << 13); /* inf, NaN */
  } else if (exp != 0) {
    u = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    u = sign;
  } else { /* subnormal: normalise */
    exp = 113;
    while (!(man & 0x400)) {
      man <<= 1;
      exp--;
    }
    u = sign | (exp << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(float *dst, const uint16_t *src,
                                                                  size_t count) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
  for (; i < count; i++) dst[i] = cpu_f16_to_f32(src[i]);
}
#endif

void cpu_load_f32(float *dst, const void *src, size_t offset, size_t count, enum bench_dtype t) {
  if (t == BENCH_F32) {
    memcpy(dst, (const float *)src + offset, count * sizeof *dst);
  } else if (t == BENCH_BF16) {
    const uint16_t *s = (const uint16_t *)src + offset;
    for (size_t i = 0; i < count; i++) {
      uint32_t u = (uint32_t)s[i] << 16;
      memcpy(dst + i, &u, sizeof u);
    }
  } else {
    const uint16_t *s = (const uint16_t *)src + offset;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("f16c")) {
      f16_to_f32_f16c(dst, s, count);
      return;
    }
#endif
    for (size_t i = 0; i < count; i++) dst[i] = cpu_f16_to_f32(s[i]);
  }
}
