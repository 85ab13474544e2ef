/* Row kernels (cpu_rowops.h): an AVX-512 version of each, written with
 * intrinsics (masked loads for the tail, aligned non-temporal stores after
 * a masked head), an AVX2 + FMA one with the same steps on 8 lanes, and a
 * portable one the compiler vectorises. */
#include "cpu_rowops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ROWOPS_X86 1
#endif

/* ---- portable ------------------------------------------------------------------ */

CPU_MULTIVERSION
static float sum_c(const float *restrict x, int64_t n) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; j++) s += x[j];
  return s;
}

CPU_MULTIVERSION
static float sumsq_c(const float *restrict x, int64_t n) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; j++) s += x[j] * x[j];
  return s;
}

CPU_MULTIVERSION
static float sqdev_c(const float *restrict x, int64_t n, float mean) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; j++) s += (x[j] - mean) * (x[j] - mean);
  return s;
}

CPU_MULTIVERSION
static float sumdev_c(const float *restrict x, int64_t n, float c) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; j++) s += x[j] - c;
  return s;
}

CPU_MULTIVERSION
static float max_c(const float *restrict x, int64_t n) {
  float m = x[0];
#pragma omp simd reduction(max : m)
  for (int64_t j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
  return m;
}

CPU_MULTIVERSION
static void affine_c(float *y, const float *x, int64_t n, float shift, float scale,
                     const float *restrict w, const float *restrict b) {
#pragma omp simd
  for (int64_t j = 0; j < n; j++)
    y[j] = (x[j] - shift) * scale * (w ? w[j] : 1.0f) + (b ? b[j] : 0.0f);
}

CPU_MULTIVERSION
static float exp_sum_c(float *restrict y, const float *restrict x, int64_t n, float shift) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; j++) {
    y[j] = cpu_expf(x[j] - shift);
    s += y[j];
  }
  return s;
}

/* ---- AVX-512 ------------------------------------------------------------------------ */

#ifdef ROWOPS_X86
#define AVX512 __attribute__((target("avx512f")))

static AVX512 inline __mmask16 tail_mask(int64_t left) {
  return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
}

/* Reductions: four accumulators of 16 floats, then the tail masked into the
 * first (OP(acc, v) for v = x[j..j+16) or e.g. (x - mean)); pf, when not
 * NULL, is prefetched along (the next row). */
#define REDUCE(OP, INIT, FOLD, REDUCE_ALL)                                          \
  __m512 a0 = INIT, a1 = INIT, a2 = INIT, a3 = INIT;                                \
  int64_t j = 0;                                                                    \
  for (; j + 64 <= n; j += 64) {                                                    \
    if (pf)                                                                         \
      for (int l = 0; l < 64; l += 16) _mm_prefetch((const char *)(pf + j + l), _MM_HINT_T0); \
    a0 = OP(a0, _mm512_loadu_ps(x + j));                                            \
    a1 = OP(a1, _mm512_loadu_ps(x + j + 16));                                       \
    a2 = OP(a2, _mm512_loadu_ps(x + j + 32));                                       \
    a3 = OP(a3, _mm512_loadu_ps(x + j + 48));                                       \
  }                                                                                 \
  for (; j < n; j += 16) {                                                          \
    const __mmask16 k = tail_mask(n - j);                                           \
    a0 = _mm512_mask_mov_ps(a0, k, OP(a0, _mm512_maskz_loadu_ps(k, x + j)));        \
  }                                                                                 \
  return REDUCE_ALL(FOLD(FOLD(a0, a1), FOLD(a2, a3)))

#define OP_SUM(a, v) _mm512_add_ps(a, v)
#define OP_SQ(a, v) _mm512_fmadd_ps(v, v, a)
#define OP_DEV(a, v) _mm512_fmadd_ps(_mm512_sub_ps(v, m), _mm512_sub_ps(v, m), a)
#define OP_SUBC(a, v) _mm512_add_ps(a, _mm512_sub_ps(v, m))
#define OP_MAX(a, v) _mm512_max_ps(a, v)

static AVX512 float sum_512(const float *x, int64_t n) {
  const float *pf = NULL;
  REDUCE(OP_SUM, _mm512_setzero_ps(), _mm512_add_ps, _mm512_reduce_add_ps);
}

static AVX512 float sumsq_512(const float *x, int64_t n) {
  const float *pf = NULL;
  REDUCE(OP_SQ, _mm512_setzero_ps(), _mm512_add_ps, _mm512_reduce_add_ps);
}

static AVX512 float sqdev_512(const float *x, int64_t n, float mean, const float *pf) {
  const __m512 m = _mm512_set1_ps(mean);
  REDUCE(OP_DEV, _mm512_setzero_ps(), _mm512_add_ps, _mm512_reduce_add_ps);
}

static AVX512 float sumdev_512(const float *x, int64_t n, float c) {
  const __m512 m = _mm512_set1_ps(c);
  const float *pf = NULL;
  REDUCE(OP_SUBC, _mm512_setzero_ps(), _mm512_add_ps, _mm512_reduce_add_ps);
}

static AVX512 float max_512(const float *x, int64_t n) {
  const float *pf = NULL;
  REDUCE(OP_MAX, _mm512_set1_ps(-INFINITY), _mm512_max_ps, _mm512_reduce_max_ps);
}

static AVX512 inline __m512 affine_16(const float *x, const float *w, const float *b, int64_t j,
                                      __mmask16 k, __m512 shift, __m512 scale) {
  __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j), shift), scale);
  if (w) v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(k, w + j));
  if (b) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, b + j));
  return v;
}

static AVX512 void affine_512(float *y, const float *x, int64_t n, float shift_, float scale_,
                              const float *w, const float *b, int stream, const float *next) {
  const __m512 shift = _mm512_set1_ps(shift_), scale = _mm512_set1_ps(scale_);
  int64_t j = 0;
  if (stream) {
    /* a masked head up to y's next 64-byte boundary, then whole lines */
    const int64_t head = (int64_t)((64 - ((uintptr_t)y & 63)) & 63) / 4;
    if (((uintptr_t)y & 3) == 0 && head > 0) {
      const __mmask16 k = tail_mask(head < n ? head : n);
      _mm512_mask_storeu_ps(y, k, affine_16(x, w, b, 0, k, shift, scale));
      j = head < n ? head : n;
    }
    if (((uintptr_t)(y + j) & 63) == 0)
      for (; j + 16 <= n; j += 16) {
        if (next) _mm_prefetch((const char *)(next + j), _MM_HINT_T1);
        _mm512_stream_ps(y + j, affine_16(x, w, b, j, 0xffff, shift, scale));
      }
  }
  /* masked stores only for the tail: on Zen 5 this loop took 4.7 cycles
   * per 16 floats with masked stores, 1.6 with plain ones */
  for (; j + 16 <= n; j += 16) {
    if (next) _mm_prefetch((const char *)(next + j), _MM_HINT_T1);
    _mm512_storeu_ps(y + j, affine_16(x, w, b, j, 0xffff, shift, scale));
  }
  if (j < n) {
    const __mmask16 k = tail_mask(n - j);
    _mm512_mask_storeu_ps(y + j, k, affine_16(x, w, b, j, k, shift, scale));
  }
}

/* sumdev_512 and sqdev_512 in one pass: both sums in REDUCE's order (four
 * accumulators over 64 floats, the tail masked into the first), so each
 * equals its own pass bit for bit. */
static AVX512 float moments_512(const float *x, int64_t n, float c, float *s2) {
  const __m512 m = _mm512_set1_ps(c);
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  __m512 q0 = a0, q1 = a0, q2 = a0, q3 = a0;
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {
    const __m512 v0 = _mm512_loadu_ps(x + j), v1 = _mm512_loadu_ps(x + j + 16);
    const __m512 v2 = _mm512_loadu_ps(x + j + 32), v3 = _mm512_loadu_ps(x + j + 48);
    a0 = OP_SUBC(a0, v0), a1 = OP_SUBC(a1, v1), a2 = OP_SUBC(a2, v2), a3 = OP_SUBC(a3, v3);
    q0 = OP_DEV(q0, v0), q1 = OP_DEV(q1, v1), q2 = OP_DEV(q2, v2), q3 = OP_DEV(q3, v3);
  }
  for (; j < n; j += 16) {
    const __mmask16 k = tail_mask(n - j);
    const __m512 v = _mm512_maskz_loadu_ps(k, x + j);
    a0 = _mm512_mask_mov_ps(a0, k, OP_SUBC(a0, v));
    q0 = _mm512_mask_mov_ps(q0, k, OP_DEV(q0, v));
  }
  *s2 = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(q0, q1), _mm512_add_ps(q2, q3)));
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

/* cpu_expf on 16 lanes: the same clamp below, reduction and polynomial,
 * 2^n applied with vscalefps, which overflows to inf by itself (the callers
 * pass x - max <= 0: no upper clamp). About 6 cycles per 16 lanes on Zen 5,
 * against 8.3 for the degree-7 Cephes polynomial this replaced. */
static AVX512 inline __m512 exp_16(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.33654f));
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  const __m512 n =
      _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), magic), magic);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(CPU_EXP_LN2_HI), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(CPU_EXP_LN2_LO), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(CPU_EXP_C5), r, _mm512_set1_ps(CPU_EXP_C4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CPU_EXP_C3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CPU_EXP_C2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CPU_EXP_C1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

/* e = e^(x - shift), returning its sum, and when y is not NULL, in the same
 * loop, y = e_prev * scale: 16 floats of the previous row's output per 16
 * exps (y aligned to 64 bytes when stream). Inlined into the two callers
 * below, each with its own constant y. */
static AVX512 inline __attribute__((always_inline)) float exp_sum_body(
    float *e, const float *x, int64_t n, float shift_, const float *next, float *y,
    const float *e_prev, float scale_, int stream) {
  const __m512 shift = _mm512_set1_ps(shift_), scale = _mm512_set1_ps(scale_);
  __m512 s0 = _mm512_setzero_ps(), s1 = s0;
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    if (next) {
      _mm_prefetch((const char *)(next + j), _MM_HINT_T0);
      _mm_prefetch((const char *)(next + j + 16), _MM_HINT_T0);
    }
    const __m512 e0 = exp_16(_mm512_sub_ps(_mm512_loadu_ps(x + j), shift));
    const __m512 e1 = exp_16(_mm512_sub_ps(_mm512_loadu_ps(x + j + 16), shift));
    _mm512_storeu_ps(e + j, e0);
    _mm512_storeu_ps(e + j + 16, e1);
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
    if (!y) continue;
    const __m512 y0 = _mm512_mul_ps(_mm512_loadu_ps(e_prev + j), scale);
    const __m512 y1 = _mm512_mul_ps(_mm512_loadu_ps(e_prev + j + 16), scale);
    if (stream) {
      _mm512_stream_ps(y + j, y0);
      _mm512_stream_ps(y + j + 16, y1);
    } else {
      _mm512_storeu_ps(y + j, y0);
      _mm512_storeu_ps(y + j + 16, y1);
    }
  }
  for (; j < n; j += 16) {
    const __mmask16 k = tail_mask(n - j);
    const __m512 ev = exp_16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j), shift));
    _mm512_mask_storeu_ps(e + j, k, ev);
    s0 = _mm512_mask_add_ps(s0, k, s0, ev);
    if (y)
      _mm512_mask_storeu_ps(y + j, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, e_prev + j), scale));
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

static AVX512 float exp_sum_512(float *e, const float *x, int64_t n, float shift,
                                const float *next) {
  return exp_sum_body(e, x, n, shift, next, NULL, NULL, 0.0f, 0);
}

static AVX512 float exp_sum_scale_512(float *e, const float *x, int64_t n, float shift,
                                      const float *next, float *y, const float *e_prev,
                                      float scale, int stream) {
  return exp_sum_body(e, x, n, shift, next, y, e_prev, scale, stream);
}


/* ---- AVX2 + FMA ------------------------------------------------------------------------ */

/* The AVX-512 kernels' steps on 8 lanes, for the CPUs without AVX-512
 * (Zen 3; the loops the compiler vectorises reached 0.35-0.77 of copy on
 * Zen 3, these 0.8 and more: studies/anchors.sh). Tails through
 * vmaskmovps; non-temporal stores need 32-byte alignment. */
#define AVX2 __attribute__((target("avx2,fma")))

static AVX2 inline __m256i tail_mask8(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left < 8 ? left : 8)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static AVX2 inline float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

static AVX2 inline float hmax8(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

/* As REDUCE, 8 lanes: four accumulators, 32 floats a step; the tail's
 * masked lanes load as 0 and are blended away (so max sees no 0). */
#define REDUCE8(OP, INIT, FOLD, REDUCE_ALL)                                         \
  __m256 a0 = INIT, a1 = INIT, a2 = INIT, a3 = INIT;                                \
  int64_t j = 0;                                                                    \
  for (; j + 32 <= n; j += 32) {                                                    \
    if (pf) {                                                                       \
      _mm_prefetch((const char *)(pf + j), _MM_HINT_T0);                            \
      _mm_prefetch((const char *)(pf + j + 16), _MM_HINT_T0);                       \
    }                                                                               \
    a0 = OP(a0, _mm256_loadu_ps(x + j));                                            \
    a1 = OP(a1, _mm256_loadu_ps(x + j + 8));                                        \
    a2 = OP(a2, _mm256_loadu_ps(x + j + 16));                                       \
    a3 = OP(a3, _mm256_loadu_ps(x + j + 24));                                       \
  }                                                                                 \
  for (; j < n; j += 8) {                                                           \
    const __m256i k = tail_mask8(n - j);                                            \
    a0 = _mm256_blendv_ps(a0, OP(a0, _mm256_maskload_ps(x + j, k)), _mm256_castsi256_ps(k)); \
  }                                                                                 \
  return REDUCE_ALL(FOLD(FOLD(a0, a1), FOLD(a2, a3)))

#define OP8_SUM(a, v) _mm256_add_ps(a, v)
#define OP8_SQ(a, v) _mm256_fmadd_ps(v, v, a)
#define OP8_DEV(a, v) _mm256_fmadd_ps(_mm256_sub_ps(v, m), _mm256_sub_ps(v, m), a)
#define OP8_SUBC(a, v) _mm256_add_ps(a, _mm256_sub_ps(v, m))
#define OP8_MAX(a, v) _mm256_max_ps(a, v)

static AVX2 float sum_256(const float *x, int64_t n) {
  const float *pf = NULL;
  REDUCE8(OP8_SUM, _mm256_setzero_ps(), _mm256_add_ps, hsum8);
}

static AVX2 float sumsq_256(const float *x, int64_t n) {
  const float *pf = NULL;
  REDUCE8(OP8_SQ, _mm256_setzero_ps(), _mm256_add_ps, hsum8);
}

static AVX2 float sqdev_256(const float *x, int64_t n, float mean, const float *pf) {
  const __m256 m = _mm256_set1_ps(mean);
  REDUCE8(OP8_DEV, _mm256_setzero_ps(), _mm256_add_ps, hsum8);
}

static AVX2 float sumdev_256(const float *x, int64_t n, float c) {
  const __m256 m = _mm256_set1_ps(c);
  const float *pf = NULL;
  REDUCE8(OP8_SUBC, _mm256_setzero_ps(), _mm256_add_ps, hsum8);
}

static AVX2 float max_256(const float *x, int64_t n) {
  const float *pf = NULL;
  REDUCE8(OP8_MAX, _mm256_set1_ps(-INFINITY), _mm256_max_ps, hmax8);
}

static AVX2 inline __m256 affine_8(const float *x, const float *w, const float *b, int64_t j,
                                   __m256 shift, __m256 scale) {
  __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), shift), scale);
  if (w) v = _mm256_mul_ps(v, _mm256_loadu_ps(w + j));
  if (b) v = _mm256_add_ps(v, _mm256_loadu_ps(b + j));
  return v;
}

/* One element at a time for the head (to y's 32-byte boundary) and the
 * tail: the same arithmetic as affine_8's lanes. */
static AVX2 inline void affine_1(float *y, const float *x, const float *w, const float *b,
                                 int64_t j, float shift, float scale) {
  float v = (x[j] - shift) * scale;
  if (w) v *= w[j];
  if (b) v += b[j];
  y[j] = v;
}

static AVX2 void affine_256(float *y, const float *x, int64_t n, float shift_, float scale_,
                            const float *w, const float *b, int stream, const float *next) {
  const __m256 shift = _mm256_set1_ps(shift_), scale = _mm256_set1_ps(scale_);
  int64_t j = 0;
  if (stream && ((uintptr_t)y & 3) == 0) {
    for (; j < n && ((uintptr_t)(y + j) & 31); j++) affine_1(y, x, w, b, j, shift_, scale_);
    for (; j + 16 <= n; j += 16) {
      if (next) _mm_prefetch((const char *)(next + j), _MM_HINT_T1);
      _mm256_stream_ps(y + j, affine_8(x, w, b, j, shift, scale));
      _mm256_stream_ps(y + j + 8, affine_8(x, w, b, j + 8, shift, scale));
    }
  }
  for (; j + 16 <= n; j += 16) {
    if (next) _mm_prefetch((const char *)(next + j), _MM_HINT_T1);
    _mm256_storeu_ps(y + j, affine_8(x, w, b, j, shift, scale));
    _mm256_storeu_ps(y + j + 8, affine_8(x, w, b, j + 8, shift, scale));
  }
  for (; j < n; j++) affine_1(y, x, w, b, j, shift_, scale_);
}

/* sumdev_256 and sqdev_256 in one pass, in REDUCE8's order (four
 * accumulators over 32 floats, the tail blended into the first): each
 * equals its own pass bit for bit. */
static AVX2 float moments_256(const float *x, int64_t n, float c, float *s2) {
  const __m256 m = _mm256_set1_ps(c);
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  __m256 q0 = a0, q1 = a0, q2 = a0, q3 = a0;
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    const __m256 v0 = _mm256_loadu_ps(x + j), v1 = _mm256_loadu_ps(x + j + 8);
    const __m256 v2 = _mm256_loadu_ps(x + j + 16), v3 = _mm256_loadu_ps(x + j + 24);
    a0 = OP8_SUBC(a0, v0), a1 = OP8_SUBC(a1, v1), a2 = OP8_SUBC(a2, v2), a3 = OP8_SUBC(a3, v3);
    q0 = OP8_DEV(q0, v0), q1 = OP8_DEV(q1, v1), q2 = OP8_DEV(q2, v2), q3 = OP8_DEV(q3, v3);
  }
  for (; j < n; j += 8) {
    const __m256i k = tail_mask8(n - j);
    const __m256 v = _mm256_maskload_ps(x + j, k), keep = _mm256_castsi256_ps(k);
    a0 = _mm256_blendv_ps(a0, OP8_SUBC(a0, v), keep);
    q0 = _mm256_blendv_ps(q0, OP8_DEV(q0, v), keep);
  }
  *s2 = hsum8(_mm256_add_ps(_mm256_add_ps(q0, q1), _mm256_add_ps(q2, q3)));
  return hsum8(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
}

/* cpu_expf on 8 lanes, its clamps, reduction and polynomial; 2^n built in
 * the exponent field as cpu_expf does. */
static AVX2 inline __m256 exp_8(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.33654f)), _mm256_set1_ps(88.37626f));
  const __m256 magic = _mm256_set1_ps(12582912.0f);
  const __m256 n =
      _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic), magic);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(CPU_EXP_LN2_HI), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(CPU_EXP_LN2_LO), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(CPU_EXP_C5), r, _mm256_set1_ps(CPU_EXP_C4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CPU_EXP_C3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CPU_EXP_C2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CPU_EXP_C1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* As exp_sum_body, 8 lanes (y aligned to 32 bytes when stream). */
static AVX2 inline __attribute__((always_inline)) float exp_sum_body8(
    float *e, const float *x, int64_t n, float shift_, const float *next, float *y,
    const float *e_prev, float scale_, int stream) {
  const __m256 shift = _mm256_set1_ps(shift_), scale = _mm256_set1_ps(scale_);
  __m256 s0 = _mm256_setzero_ps(), s1 = s0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    if (next) _mm_prefetch((const char *)(next + j), _MM_HINT_T0);
    const __m256 e0 = exp_8(_mm256_sub_ps(_mm256_loadu_ps(x + j), shift));
    const __m256 e1 = exp_8(_mm256_sub_ps(_mm256_loadu_ps(x + j + 8), shift));
    _mm256_storeu_ps(e + j, e0);
    _mm256_storeu_ps(e + j + 8, e1);
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
    if (!y) continue;
    const __m256 y0 = _mm256_mul_ps(_mm256_loadu_ps(e_prev + j), scale);
    const __m256 y1 = _mm256_mul_ps(_mm256_loadu_ps(e_prev + j + 8), scale);
    if (stream) {
      _mm256_stream_ps(y + j, y0);
      _mm256_stream_ps(y + j + 8, y1);
    } else {
      _mm256_storeu_ps(y + j, y0);
      _mm256_storeu_ps(y + j + 8, y1);
    }
  }
  for (; j < n; j += 8) {
    const __m256i k = tail_mask8(n - j);
    const __m256 ev = exp_8(_mm256_sub_ps(_mm256_maskload_ps(x + j, k), shift));
    _mm256_maskstore_ps(e + j, k, ev);
    s0 = _mm256_add_ps(s0, _mm256_and_ps(ev, _mm256_castsi256_ps(k)));
    if (y) _mm256_maskstore_ps(y + j, k, _mm256_mul_ps(_mm256_maskload_ps(e_prev + j, k), scale));
  }
  return hsum8(_mm256_add_ps(s0, s1));
}

static AVX2 float exp_sum_256(float *e, const float *x, int64_t n, float shift,
                              const float *next) {
  return exp_sum_body8(e, x, n, shift, next, NULL, NULL, 0.0f, 0);
}

static AVX2 float exp_sum_scale_256(float *e, const float *x, int64_t n, float shift,
                                    const float *next, float *y, const float *e_prev,
                                    float scale, int stream) {
  return exp_sum_body8(e, x, n, shift, next, y, e_prev, scale, stream);
}

/* The widest path: 2 AVX-512, 1 AVX2 + FMA, 0 the portable loops.
 * BENCH_CPU_ROWOPS=portable or =avx2 caps it (for tests of the narrower
 * paths on a wider CPU). */
static int rowops_widest(void) {
  static int known = -1;
  if (known < 0) {
    const char *force = getenv("BENCH_CPU_ROWOPS");
    int cap = 2;
    if (force && !strcmp(force, "portable")) cap = 0;
    if (force && !strcmp(force, "avx2")) cap = 1;
    const int level = __builtin_cpu_supports("avx512f")                                    ? 2
                      : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1
                                                                                          : 0;
    known = level < cap ? level : cap;
  }
  return known;
}

/* The path cpu_rowops_use chose for this process's calls; -1: the widest. */
static int chosen = -1;

static int rowops_level(void) { return chosen >= 0 ? chosen : rowops_widest(); }

static int cpu_has_level(int level) {
  return level == 0 || (level == 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ||
         (level == 2 && __builtin_cpu_supports("avx512f"));
}
#else
static int chosen = -1;
static int rowops_level(void) { return 0; }
static int cpu_has_level(int level) { return level == 0; }
#endif

const char *cpu_rowops_use(const char *isa) {
  static const char *const names[] = {"portable", "avx2", "avx512"};
  if (!isa || !strcmp(isa, "widest")) {
    chosen = -1;
    return cpu_rowops_isa();
  }
  for (int level = 0; level < 3; level++)
    if (!strcmp(isa, names[level])) {
      if (!cpu_has_level(level)) return NULL;
      chosen = level;
      return names[level];
    }
  return NULL;
}

int cpu_rowops_setup(const struct bench_host *host) {
  const char *isa = host->param_str(host, "isa");
  const char *used = cpu_rowops_use(isa);
  if (!used) return host->skip(host, "isa=%s: this CPU has no %s", isa, isa);
  host->set_info(host, "isa", used);
  return BENCH_OK;
}

/* ---- dispatch --------------------------------------------------------------------------- */

const char *cpu_rowops_isa(void) {
  static const char *const names[] = {"portable", "avx2", "avx512"};
  return names[rowops_level()];
}

#ifdef ROWOPS_X86
#define DISPATCH(f512, f256, fc) \
  switch (rowops_level()) {      \
  case 2: return f512;           \
  case 1: return f256;           \
  default: return fc;            \
  }
#else
#define DISPATCH(f512, f256, fc) return fc
#endif

float cpu_row_sum(const float *x, int64_t n) {
  DISPATCH(sum_512(x, n), sum_256(x, n), sum_c(x, n));
}
float cpu_row_sumsq(const float *x, int64_t n) {
  DISPATCH(sumsq_512(x, n), sumsq_256(x, n), sumsq_c(x, n));
}
float cpu_row_sqdev(const float *x, int64_t n, float mean, const float *next) {
  (void)next;
  DISPATCH(sqdev_512(x, n, mean, next), sqdev_256(x, n, mean, next), sqdev_c(x, n, mean));
}
float cpu_row_sumdev(const float *x, int64_t n, float c) {
  DISPATCH(sumdev_512(x, n, c), sumdev_256(x, n, c), sumdev_c(x, n, c));
}
float cpu_row_max(const float *x, int64_t n) {
  DISPATCH(max_512(x, n), max_256(x, n), max_c(x, n));
}
float cpu_row_exp_sum(float *y, const float *x, int64_t n, float shift, const float *next) {
  (void)next;
  DISPATCH(exp_sum_512(y, x, n, shift, next), exp_sum_256(y, x, n, shift, next),
           exp_sum_c(y, x, n, shift));
}

float cpu_row_exp_sum_scale(float *e, const float *x, int64_t n, float shift, const float *next,
                            float *y, const float *e_prev, float scale, int stream) {
#ifdef ROWOPS_X86
  if (rowops_level() == 2 && (!stream || ((uintptr_t)y & 63) == 0))
    return exp_sum_scale_512(e, x, n, shift, next, y, e_prev, scale, stream);
  if (rowops_level() == 1 && (!stream || ((uintptr_t)y & 31) == 0))
    return exp_sum_scale_256(e, x, n, shift, next, y, e_prev, scale, stream);
#endif
  const float sum = cpu_row_exp_sum(e, x, n, shift, next);
  cpu_row_affine(y, e_prev, n, 0.0f, scale, NULL, NULL, stream, NULL);
  return sum;
}

void cpu_row_affine(float *y, const float *x, int64_t n, float shift, float scale,
                    const float *w, const float *b, int stream, const float *next) {
  (void)next;
#ifdef ROWOPS_X86
  if (rowops_level() == 2) {
    affine_512(y, x, n, shift, scale, w, b, stream, next);
    return;
  }
  if (rowops_level() == 1) {
    affine_256(y, x, n, shift, scale, w, b, stream, next);
    return;
  }
#endif
  if (!stream) {
    affine_c(y, x, n, shift, scale, w, b);
    return;
  }
  /* through a buffer on the stack, out with non-temporal stores */
  float buf[1024] __attribute__((aligned(64)));
  for (int64_t j = 0; j < n; j += 1024) {
    const int64_t len = n - j < 1024 ? n - j : 1024;
    affine_c(buf, x + j, len, shift, scale, w ? w + j : NULL, b ? b + j : NULL);
    cpu_stream_copy(y + j, buf, len);
  }
}

float cpu_row_moments(const float *x, int64_t n, float c, float *s2) {
#ifdef ROWOPS_X86
  if (rowops_level() == 2) return moments_512(x, n, c, s2);
  if (rowops_level() == 1) return moments_256(x, n, c, s2);
#endif
  *s2 = sqdev_c(x, n, c);
  return sumdev_c(x, n, c);
}
