/* The streaming kernels of the bandwidth plugins (see cpu_stream.h). */
#include "cpu_stream.h"

#include <stddef.h>

#include "cpu_common.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_STREAM_STORES 1
#endif

int cpu_stream_store_bytes(int nontemporal) {
#ifdef HAVE_STREAM_STORES
  return nontemporal ? (__builtin_cpu_supports("avx512f") ? 64 : 16) : 0;
#else
  (void)nontemporal;
  return 0;
#endif
}

/* One element of dst = x + q y, for the tails. */
static inline double element(const double *x, const double *y, double q, int64_t i) {
  if (x && y) return x[i] + q * y[i];
  if (x) return x[i];
  return y ? q * y[i] : q;
}

#ifdef HAVE_STREAM_STORES
/* The streaming loops with 64-byte stores, a whole cache line each (on
 * Zen 5, copy +5% at the median, +6% best, against 16-byte ones, A/B
 * interleaved): STREAM built with -march=native on an AVX-512 machine does
 * the same. i0 is 64-byte aligned. */
__attribute__((target("avx512f"))) static void stream_range_512(
    double *restrict dst, const double *restrict x, const double *restrict y, double q,
    int64_t i0, int64_t i1) {
  const __m512d vq = _mm512_set1_pd(q);
  int64_t i = i0;
  if (x && y)
    for (; i + 8 <= i1; i += 8)
      _mm512_stream_pd(dst + i, _mm512_add_pd(_mm512_load_pd(x + i),
                                              _mm512_mul_pd(vq, _mm512_load_pd(y + i))));
  else if (x)
    for (; i + 8 <= i1; i += 8) _mm512_stream_pd(dst + i, _mm512_load_pd(x + i));
  else if (y)
    for (; i + 8 <= i1; i += 8) _mm512_stream_pd(dst + i, _mm512_mul_pd(vq, _mm512_load_pd(y + i)));
  else
    for (; i + 8 <= i1; i += 8) _mm512_stream_pd(dst + i, vq);
  for (; i < i1; i++) dst[i] = element(x, y, q, i);
  _mm_sfence();
}

/* The same with 16-byte stores (SSE2, every x86-64). i0 is 16-byte aligned. */
static void stream_range_128(double *restrict dst, const double *restrict x,
                             const double *restrict y, double q, int64_t i0, int64_t i1) {
  const __m128d vq = _mm_set1_pd(q);
  int64_t i = i0;
  if (x && y)
    for (; i + 2 <= i1; i += 2)
      _mm_stream_pd(dst + i, _mm_add_pd(_mm_load_pd(x + i), _mm_mul_pd(vq, _mm_load_pd(y + i))));
  else if (x)
    for (; i + 2 <= i1; i += 2) _mm_stream_pd(dst + i, _mm_load_pd(x + i));
  else if (y)
    for (; i + 2 <= i1; i += 2) _mm_stream_pd(dst + i, _mm_mul_pd(vq, _mm_load_pd(y + i)));
  else
    for (; i + 2 <= i1; i += 2) _mm_stream_pd(dst + i, vq);
  for (; i < i1; i++) dst[i] = element(x, y, q, i);
  _mm_sfence();
}
#endif

/* Normal stores: loops the compiler vectorises, for the widest ISA this
 * CPU runs (CPU_MULTIVERSION). */
CPU_MULTIVERSION
static void plain_range(double *restrict dst, const double *restrict x, const double *restrict y,
                        double q, int64_t i0, int64_t i1) {
  if (x && y) {
#pragma omp simd
    for (int64_t i = i0; i < i1; i++) dst[i] = x[i] + q * y[i];
  } else if (x) {
#pragma omp simd
    for (int64_t i = i0; i < i1; i++) dst[i] = x[i];
  } else if (y) {
#pragma omp simd
    for (int64_t i = i0; i < i1; i++) dst[i] = q * y[i];
  } else {
#pragma omp simd
    for (int64_t i = i0; i < i1; i++) dst[i] = q;
  }
}

void cpu_stream_kernel(double *restrict dst, const double *restrict x, const double *restrict y,
                       double q, int64_t i0, int64_t i1, int stream_bytes) {
#ifdef HAVE_STREAM_STORES
  if (stream_bytes == 64) {
    stream_range_512(dst, x, y, q, i0, i1);
    return;
  }
  if (stream_bytes) {
    stream_range_128(dst, x, y, q, i0, i1);
    return;
  }
#else
  (void)stream_bytes;
#endif
  plain_range(dst, x, y, q, i0, i1);
}

/* ---- the sum ------------------------------------------------------------ */

#define SUM_ACC 8 /* accumulators: 2 add pipes x 3-4 cycles of latency */

#ifdef HAVE_STREAM_STORES
__attribute__((target("avx512f"))) static double sum_512(const double *x, int64_t n) {
  __m512d acc[SUM_ACC];
  for (int k = 0; k < SUM_ACC; k++) acc[k] = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + 8 * SUM_ACC <= n; i += 8 * SUM_ACC)
    for (int k = 0; k < SUM_ACC; k++) acc[k] = _mm512_add_pd(acc[k], _mm512_loadu_pd(x + i + 8 * k));
  for (int k = 1; k < SUM_ACC; k++) acc[0] = _mm512_add_pd(acc[0], acc[k]);
  double s = _mm512_reduce_add_pd(acc[0]);
  for (; i < n; i++) s += x[i];
  return s;
}

__attribute__((target("avx2"))) static double sum_256(const double *x, int64_t n) {
  __m256d acc[SUM_ACC];
  for (int k = 0; k < SUM_ACC; k++) acc[k] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 4 * SUM_ACC <= n; i += 4 * SUM_ACC)
    for (int k = 0; k < SUM_ACC; k++) acc[k] = _mm256_add_pd(acc[k], _mm256_loadu_pd(x + i + 4 * k));
  for (int k = 1; k < SUM_ACC; k++) acc[0] = _mm256_add_pd(acc[0], acc[k]);
  double lanes[4];
  _mm256_storeu_pd(lanes, acc[0]);
  double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; i++) s += x[i];
  return s;
}
#endif

static double sum_portable(const double *x, int64_t n) {
  double acc[2 * SUM_ACC] = {0};
  int64_t i = 0;
  for (; i + 2 * SUM_ACC <= n; i += 2 * SUM_ACC)
    for (int k = 0; k < 2 * SUM_ACC; k++) acc[k] += x[i + k];
  double s = 0;
  for (int k = 0; k < 2 * SUM_ACC; k++) s += acc[k];
  for (; i < n; i++) s += x[i];
  return s;
}

double cpu_stream_sum(const double *x, int64_t n) {
#ifdef HAVE_STREAM_STORES
  if (__builtin_cpu_supports("avx512f")) return sum_512(x, n);
  if (__builtin_cpu_supports("avx2")) return sum_256(x, n);
#endif
  return sum_portable(x, n);
}
