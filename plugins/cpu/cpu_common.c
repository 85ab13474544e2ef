/* Shared plumbing of the CPU plugins (see cpu_common.h). */
#define _GNU_SOURCE
#include "cpu_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* ---- caches ------------------------------------------------------------------ */

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

static int64_t size_cache_bytes(void *user, int level) {
  (void)user;
  if (level == BENCH_CACHE_LLC) return cpu_llc_bytes();
  return level >= 1 && level <= CACHE_LEVELS ? cpu_cache_bytes(level) : 0;
}

static void size_caches_describe(void *user, char *buf, size_t size) {
  (void)user;
  cpu_caches_describe(cpu_caches(), buf, size);
}

const struct bench_caches *cpu_size_caches(void) {
  static const struct bench_caches caches = {size_cache_bytes, size_caches_describe, NULL};
  return &caches;
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

/* ---- pointer rings ------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void cpu_ring_link(struct cpu_ring_node *ring, uint32_t *order, int64_t n, uint64_t seed) {
  /* Sattolo's shuffle: a uniformly random single cycle through all nodes. */
  for (int64_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  for (int64_t i = n - 1; i > 0; i--) {
    const int64_t j = (int64_t)(splitmix64(&seed) % (uint64_t)i);
    const uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int64_t i = 0; i < n; i++) ring[order[i]].next = &ring[order[(i + 1) % n]];
}

const struct cpu_ring_node *cpu_ring_chase(const struct cpu_ring_node *p, int64_t loads) {
  int64_t i = 0;
  for (; i + 8 <= loads; i += 8) {
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
  }
  for (; i < loads; i++) p = p->next;
  return p;
}

/* ---- element types ---------------------------------------------------------- */

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(float *dst, const uint16_t *src,
                                                                  size_t count) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
  for (; i < count; i++) dst[i] = bench_f16_to_f32(src[i]);
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
    for (size_t i = 0; i < count; i++) dst[i] = bench_f16_to_f32(s[i]);
  }
}
