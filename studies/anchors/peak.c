/* The physical limits of this CPU for studies/anchors.sh: the clock,
 * measured with a chain of dependent integer adds (one per cycle on every
 * x86 core since the P6), and the fp32 FMA throughput of one core measured
 * for each vector ISA the CPU has (12 independent FMA chains: more than
 * latency x pipes on current cores). Each figure is the best of many short
 * runs, so a busy machine's preemptions fall out. Prints key=value lines:
 *   clock_ghz=4.1  fma_avx2_gflops=...  fma_avx512_gflops=...
 * usage: peak [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PEAK_X86 1
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* GHz: 4 dependent adds per iteration, one cycle each. */
static double clock_ghz(long iters) {
  long x = 0;
  const double t0 = now();
  for (long i = 0; i < iters; i++) {
#ifdef PEAK_X86
    __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
#else
    __asm__ volatile("" : "+r"(x));
    x += 4;
#endif
  }
  return 4.0 * (double)iters / (now() - t0) * 1e-9;
}

#ifdef PEAK_X86
/* 12 chains of FMAs on registers of W floats; the empty asm keeps the
 * compiler from folding or hoisting them. */
#define FMA_BODY(T, SET1, FMA, ADD, W)                                                        \
  T a0 = SET1(1.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0,  \
    a9 = a0, a10 = a0, a11 = a0;                                                              \
  const T b = SET1(0.999999f), c = SET1(1e-7f);                                               \
  const double t0 = now();                                                                    \
  for (long i = 0; i < iters; i++) {                                                          \
    __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),         \
                     "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));           \
    a0 = FMA(a0, b, c); a1 = FMA(a1, b, c); a2 = FMA(a2, b, c); a3 = FMA(a3, b, c);            \
    a4 = FMA(a4, b, c); a5 = FMA(a5, b, c); a6 = FMA(a6, b, c); a7 = FMA(a7, b, c);            \
    a8 = FMA(a8, b, c); a9 = FMA(a9, b, c); a10 = FMA(a10, b, c); a11 = FMA(a11, b, c);        \
  }                                                                                           \
  const double t = now() - t0;                                                                \
  T s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));                    \
  s = ADD(s, ADD(ADD(a8, a9), ADD(a10, a11)));                                                \
  float out[W];                                                                               \
  memcpy(out, &s, sizeof out);                                                                \
  sink += out[0];                                                                             \
  return 12.0 * 2 * (W) * (double)iters / t * 1e-9

#include <string.h>
static volatile float sink;

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters) {
  FMA_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8);
}

__attribute__((target("avx512f"))) static double fma_avx512(long iters) {
  FMA_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16);
}
#endif

int main(int argc, char **argv) {
  const int runs = argc > 1 ? atoi(argv[1]) : 50;
  double ghz = 0, avx2 = 0, avx512 = 0;
  for (int r = 0; r < runs; r++) {
    const double g = clock_ghz(2000000);
    if (g > ghz) ghz = g;
#ifdef PEAK_X86
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      const double f = fma_avx2(500000);
      if (f > avx2) avx2 = f;
    }
    if (__builtin_cpu_supports("avx512f")) {
      const double f = fma_avx512(500000);
      if (f > avx512) avx512 = f;
    }
#endif
  }
  printf("clock_ghz=%.3f\n", ghz);
  if (avx2 > 0) printf("fma_avx2_gflops=%.1f\n", avx2);
  if (avx512 > 0) printf("fma_avx512_gflops=%.1f\n", avx512);
  return 0;
}
