/* Shared plumbing of the CPU plugins, linked into each as a small static
 * library (with the thread pool of cpu_pool.h): aligned allocation, the
 * machine's cache sizes (and the resolver of cache-relative sizes),
 * non-temporal stores, f16/bf16 loads and a vectorisable expf. Nothing here
 * prints or exits. */
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

/* This machine's data caches for cache-relative sizes (<bench/params.h>):
 * L1 = L1d, L2, L3, L4 and LLC = the last level, from cpu_caches(). L1, L2
 * and LLC always resolve (a stated default when the machine tells nothing);
 * a level the machine does not have (L3 where the last level is L2) is
 * refused with the machine's caches named. For bench_param_size:
 *   if (bench_param_size(host, "size", cpu_size_caches(), &bytes)) ... */
const struct bench_caches *cpu_size_caches(void);

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

/* ---- pointer rings (memlat_cpu, peak_cpu_lat) ----------------------------- */

/* One node of a pointer ring: a whole cache line. */
#define CPU_RING_LINE 64
struct cpu_ring_node {
  struct cpu_ring_node *next;
  char pad[CPU_RING_LINE - sizeof(struct cpu_ring_node *)];
};

/* Links ring[0, n) (n >= 2) into one random cycle: order[0, n) gets a
 * uniformly random cyclic permutation (Sattolo's shuffle, SplitMix64 from
 * seed) and ring[order[i]].next = &ring[order[(i + 1) % n]], so the node
 * k links after order[p] is order[(p + k) % n]. */
void cpu_ring_link(struct cpu_ring_node *ring, uint32_t *order, int64_t n, uint64_t seed);

/* The node reached from p after `loads` dependent loads (p->next ...). */
const struct cpu_ring_node *cpu_ring_chase(const struct cpu_ring_node *p, int64_t loads);

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
