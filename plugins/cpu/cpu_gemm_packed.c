/* Packed, register-blocked GEMM (the loops of BLIS / Goto's algorithm).
 *
 *   for jc: columns of C in blocks of nc          B panel kc x nc -> L3
 *     for pc: the reduction in blocks of kc       pack B[pc.., jc..]
 *       for ic: rows of C in blocks of mc         pack A[ic.., pc..] -> L2
 *         for jr: nr-wide micro-panels of B       one micro-panel -> L1
 *           for ir: mr-high micro-panels of A
 *             micro-kernel: C[mr,nr] (+)= Ap[kc][mr] Bp[kc][nr] in registers
 *
 * Packing lays each micro-panel out in the order the kernel reads it,
 * zero-pads the edges (so the kernel always runs a full tile; partial tiles
 * of C go through a small buffer) and converts f16/bf16 to f32. */
#include "cpu_gemm_packed.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu_common.h"
#include "cpu_pool.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GEMM_X86 1
#endif

/* ---- micro-kernels ------------------------------------------------------------ */

/* Portable: the compiler vectorises the j loops for the baseline ISA. */
static void kern_generic(int64_t kc, const float *restrict a, const float *restrict b,
                         float *restrict c, int64_t ldc, int accumulate) {
  float t[6][16] = {{0}};
  for (int64_t p = 0; p < kc; p++, a += 6, b += 16)
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 16; j++) t[i][j] += a[i] * b[j];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 16; j++) c[i * ldc + j] = accumulate ? c[i * ldc + j] + t[i][j] : t[i][j];
}

static void rows_generic(int64_t kc, const float *restrict a, int64_t lda, const float *restrict b,
                         int64_t ldb, float *restrict c, int64_t ldc) {
  float t[6][16] = {{0}};
  for (int64_t p = 0; p < kc; p++, b += ldb)
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 16; j++) t[i][j] += a[i * lda + p] * b[j];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 16; j++) c[i * ldc + j] = t[i][j];
}

#ifdef GEMM_X86
/* AVX2+FMA, 6 x 16: 12 accumulators, 2 loads of B and 6 broadcasts of A
 * for 12 FMAs per step of k (BLIS's Haswell/Zen shape). */
#define ROW2(i)                                          \
  do {                                                   \
    const __m256 ai = _mm256_broadcast_ss(a + (i));      \
    c##i##0 = _mm256_fmadd_ps(ai, b0, c##i##0);          \
    c##i##1 = _mm256_fmadd_ps(ai, b1, c##i##1);          \
  } while (0)
#define STORE2(i)                                                                     \
  do {                                                                                \
    float *ci = c + (i) * ldc;                                                        \
    if (accumulate) {                                                                 \
      c##i##0 = _mm256_add_ps(c##i##0, _mm256_loadu_ps(ci));                          \
      c##i##1 = _mm256_add_ps(c##i##1, _mm256_loadu_ps(ci + 8));                      \
    }                                                                                 \
    _mm256_storeu_ps(ci, c##i##0);                                                    \
    _mm256_storeu_ps(ci + 8, c##i##1);                                                \
  } while (0)

__attribute__((target("avx2,fma"))) static void kern_avx2(int64_t kc, const float *restrict a,
                                                           const float *restrict b,
                                                           float *restrict c, int64_t ldc,
                                                           int accumulate) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
         c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int i = 0; i < 6; i++) _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; p++) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    ROW2(0);
    ROW2(1);
    ROW2(2);
    ROW2(3);
    ROW2(4);
    ROW2(5);
    a += 6;
    b += 16;
  }
  STORE2(0);
  STORE2(1);
  STORE2(2);
  STORE2(3);
  STORE2(4);
  STORE2(5);
}

/* The same with A's rows in place: row i of A at a0[i * lda] (a3 for rows
 * 3..5), so each broadcast is one load with a scaled index. */
#define ROW2R(i, base, r)                                \
  do {                                                   \
    const __m256 ai = _mm256_broadcast_ss(base + (r));   \
    c##i##0 = _mm256_fmadd_ps(ai, b0, c##i##0);          \
    c##i##1 = _mm256_fmadd_ps(ai, b1, c##i##1);          \
  } while (0)

__attribute__((target("avx2,fma"))) static void rows_avx2(int64_t kc, const float *restrict a,
                                                           int64_t lda, const float *restrict b,
                                                           int64_t ldb, float *restrict c,
                                                           int64_t ldc) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
         c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  const float *a0 = a, *a3 = a + 3 * lda;
  const int accumulate = 0;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; p++, a0++, a3++, b += ldb) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    ROW2R(0, a0, 0);
    ROW2R(1, a0, lda);
    ROW2R(2, a0, 2 * lda);
    ROW2R(3, a3, 0);
    ROW2R(4, a3, lda);
    ROW2R(5, a3, 2 * lda);
  }
  STORE2(0);
  STORE2(1);
  STORE2(2);
  STORE2(3);
  STORE2(4);
  STORE2(5);
}

/* AVX-512, 12 x 32: 24 accumulators in zmm registers, 2 loads of B and 12
 * broadcasts of A for 24 FMAs per step of k. */
#define ROW512(i)                                        \
  do {                                                   \
    const __m512 ai = _mm512_set1_ps(a[i]);              \
    c##i##_0 = _mm512_fmadd_ps(ai, b0, c##i##_0);        \
    c##i##_1 = _mm512_fmadd_ps(ai, b1, c##i##_1);        \
  } while (0)
#define STORE512(i)                                                                   \
  do {                                                                                \
    float *ci = c + (i) * ldc;                                                        \
    if (accumulate) {                                                                 \
      c##i##_0 = _mm512_add_ps(c##i##_0, _mm512_loadu_ps(ci));                        \
      c##i##_1 = _mm512_add_ps(c##i##_1, _mm512_loadu_ps(ci + 16));                   \
    }                                                                                 \
    _mm512_storeu_ps(ci, c##i##_0);                                                   \
    _mm512_storeu_ps(ci + 16, c##i##_1);                                              \
  } while (0)

__attribute__((target("avx512f"))) static void kern_avx512(int64_t kc, const float *restrict a,
                                                            const float *restrict b,
                                                            float *restrict c, int64_t ldc,
                                                            int accumulate) {
  __m512 c0_0 = _mm512_setzero_ps(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0,
         c2_1 = c0_0, c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0,
         c5_1 = c0_0, c6_0 = c0_0, c6_1 = c0_0, c7_0 = c0_0, c7_1 = c0_0, c8_0 = c0_0,
         c8_1 = c0_0, c9_0 = c0_0, c9_1 = c0_0, c10_0 = c0_0, c10_1 = c0_0, c11_0 = c0_0,
         c11_1 = c0_0;
  for (int i = 0; i < 12; i++) { /* C's tile: both lines of each row, early */
    _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c + i * ldc + 16), _MM_HINT_T0);
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; p++) {
    const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
    ROW512(0);
    ROW512(1);
    ROW512(2);
    ROW512(3);
    ROW512(4);
    ROW512(5);
    ROW512(6);
    ROW512(7);
    ROW512(8);
    ROW512(9);
    ROW512(10);
    ROW512(11);
    a += 12;
    b += 32;
  }
  STORE512(0);
  STORE512(1);
  STORE512(2);
  STORE512(3);
  STORE512(4);
  STORE512(5);
  STORE512(6);
  STORE512(7);
  STORE512(8);
  STORE512(9);
  STORE512(10);
  STORE512(11);
}

/* The same with A's rows in place: row i of A at a0/a4/a8[(i % 4) * lda]. */
#define ROW512R(i, base, r)                              \
  do {                                                   \
    const __m512 ai = _mm512_set1_ps(base[r]);           \
    c##i##_0 = _mm512_fmadd_ps(ai, b0, c##i##_0);        \
    c##i##_1 = _mm512_fmadd_ps(ai, b1, c##i##_1);        \
  } while (0)

__attribute__((target("avx512f"))) static void rows_avx512(int64_t kc, const float *restrict a,
                                                            int64_t lda, const float *restrict b,
                                                            int64_t ldb, float *restrict c,
                                                            int64_t ldc) {
  __m512 c0_0 = _mm512_setzero_ps(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0,
         c2_1 = c0_0, c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0,
         c5_1 = c0_0, c6_0 = c0_0, c6_1 = c0_0, c7_0 = c0_0, c7_1 = c0_0, c8_0 = c0_0,
         c8_1 = c0_0, c9_0 = c0_0, c9_1 = c0_0, c10_0 = c0_0, c10_1 = c0_0, c11_0 = c0_0,
         c11_1 = c0_0;
  const float *a0 = a, *a4 = a + 4 * lda, *a8 = a + 8 * lda;
  const int64_t l3 = 3 * lda;
  const int accumulate = 0;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; p++, a0++, a4++, a8++, b += ldb) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
    ROW512R(0, a0, 0);
    ROW512R(1, a0, lda);
    ROW512R(2, a0, 2 * lda);
    ROW512R(3, a0, l3);
    ROW512R(4, a4, 0);
    ROW512R(5, a4, lda);
    ROW512R(6, a4, 2 * lda);
    ROW512R(7, a4, l3);
    ROW512R(8, a8, 0);
    ROW512R(9, a8, lda);
    ROW512R(10, a8, 2 * lda);
    ROW512R(11, a8, l3);
  }
  STORE512(0);
  STORE512(1);
  STORE512(2);
  STORE512(3);
  STORE512(4);
  STORE512(5);
  STORE512(6);
  STORE512(7);
  STORE512(8);
  STORE512(9);
  STORE512(10);
  STORE512(11);
}
#endif

/* The kernels, widest first; gemm_kernel_pick sizes the cache blocks here
 * for this machine (cpu_caches: sysfs, CPUID, sysconf or a stated default). */
static const struct gemm_kernel kernels[] = {
#ifdef GEMM_X86
    {"avx512 12x32", 12, 32, 144, 256, 4096, kern_avx512, rows_avx512, 1024},
    {"avx2 6x16", 6, 16, 144, 256, 4080, kern_avx2, rows_avx2, 512},
#endif
    {"generic 6x16", 6, 16, 96, 256, 2048, kern_generic, rows_generic, 512},
};

static int kernel_runs_here(const struct gemm_kernel *k) {
#ifdef GEMM_X86
  if (k->fn == kern_avx512) return __builtin_cpu_supports("avx512f");
  if (k->fn == kern_avx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  (void)k;
  return 1;
}

static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Cache blocks from this machine's caches, per kernel (measured on Zen 5,
 * 1 MiB L2, at 1024^3 and 2048^3):
 *   kc: a B micro-panel (kc x nr) and two A micro-panels (kc x mr) in a
 *       quarter of L2, at most kc_most (1024 for AVX-512, 512 for AVX2):
 *       a long kc means few passes over C, whose tiles cost the most when
 *       C's rows are a power of two apart (2048 floats: they share cache
 *       sets): AVX-512 at 2048^3 measured 5% faster with 1024 than 512;
 *       AVX2 (half the FLOPs per load of C) 1-2% slower
 *   mc: the packed A block (mc x kc) in a tenth of L2 (AVX-512 24 rows,
 *       AVX2 48): a short block walks C's tiles along its rows, not down
 *       its columns, and each B micro-panel, streamed from L3, serves the
 *       block's A micro-panels while in L1/L2 (AVX-512 at 2048^3: 5% faster
 *       than 252 rows, the same at 1024^3; AVX2: 48 and 72 rows equal
 *       within the noise)
 *   nc: the packed B panel (kc x nc) in a quarter of the last-level cache. */
static void size_blocks(struct gemm_kernel *k) {
  const int64_t l2 = cpu_cache_bytes(2), llc = cpu_llc_bytes(); /* both > 0 */
  k->kc = (int)clamp64(l2 / 4 / ((k->nr + 2 * k->mr) * 4) / 16 * 16, 128, k->kc_most);
  k->mc = (int)clamp64(l2 / 10 / (k->kc * 4) / k->mr * k->mr, k->mr, 1020 / k->mr * k->mr);
  k->nc = (int)clamp64(llc / 4 / (k->kc * 4) / k->nr * k->nr, k->nr, 8192 / k->nr * k->nr);
}

int gemm_kernel_pick(const char *isa, struct gemm_kernel *out) {
  const int any = strcmp(isa, "auto") == 0;
  const size_t len = strlen(isa);
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    const struct gemm_kernel *k = &kernels[i]; /* widest first */
    const int named = strncmp(k->name, isa, len) == 0 && k->name[len] == ' ';
    if ((any || named) && kernel_runs_here(k)) {
      *out = *k;
      size_blocks(out);
      return 0;
    }
  }
  return -1;
}

/* ---- packing ---------------------------------------------------------------------- */

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* A block size for `total` split as evenly as blocks of at most `most`
 * allow, rounded up to `unit`: 2048 rows with mc = 252 make 9 blocks of
 * 228, not 8 of 252 and a thin one of 32. */
static int64_t balanced(int64_t total, int64_t most, int64_t unit) {
  if (total <= most) return total;
  const int64_t blocks = (total + most - 1) / most;
  const int64_t b = round_up((total + blocks - 1) / blocks, unit);
  return b < most ? b : most;
}
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

size_t gemm_packed_buffer_floats(const struct gemm_kernel *kr) {
  const int64_t a = round_up(round_up(kr->mc, kr->mr) * kr->kc, 16);
  const int64_t b = round_up(kr->kc * round_up(kr->nc, kr->nr), 16);
  const int64_t tmp = round_up(kr->kc > kr->nc ? kr->kc : kr->nc, 16);
  return (size_t)(a + b + tmp);
}

/* Row `row`, columns [col, col + count) of a row-major matrix as floats:
 * straight from an f32 source, else converted into tmp. */
static const float *row_f32(const struct gemm_problem *g, const void *src, int64_t ld,
                            int64_t row, int64_t col, int64_t count, float *tmp) {
  if (g->dtype == BENCH_F32) return (const float *)src + row * ld + col;
  cpu_load_f32(tmp, src, (size_t)(row * ld + col), (size_t)count, g->dtype);
  return tmp;
}

/* B[pc..pc+kc, jc..jc+nc] -> nr-wide micro-panels, each kc x nr. */
static void pack_b(const struct gemm_kernel *kr, const struct gemm_problem *g, int64_t pc,
                   int64_t kc, int64_t jc, int64_t nc, float *bp, float *tmp) {
  const int nr = kr->nr;
  for (int64_t p = 0; p < kc; p++) {
    const float *src = row_f32(g, g->b, g->n, pc + p, jc, nc, tmp);
    for (int64_t jp = 0; jp < nc; jp += nr) {
      float *dst = bp + jp * kc + p * nr;
      const int64_t w = min64(nr, nc - jp);
      if (w == nr) { /* a whole row of the micro-panel: one vector copy */
        memcpy(dst, src + jp, (size_t)nr * sizeof(float));
        continue;
      }
      int64_t j = 0;
      for (; j < w; j++) dst[j] = src[jp + j];
      for (; j < nr; j++) dst[j] = 0;
    }
  }
}

/* panel[p * rows + i] = a[i * lda + p] for i < rows, p < cols: rows of A
 * to one micro-panel, four rows by four columns at a time through SSE
 * registers (the compiler does not vectorise the strided writes). */
void gemm_pack_rows_f32(const float *a, int64_t lda, int rows, int64_t cols, float *panel) {
  int i0 = 0;
#ifdef GEMM_X86
  for (; i0 + 4 <= rows; i0 += 4) {
    const float *r0 = a + i0 * lda, *r1 = r0 + lda, *r2 = r1 + lda, *r3 = r2 + lda;
    int64_t p = 0;
    for (; p + 4 <= cols; p += 4) {
      __m128 x0 = _mm_loadu_ps(r0 + p), x1 = _mm_loadu_ps(r1 + p), x2 = _mm_loadu_ps(r2 + p),
             x3 = _mm_loadu_ps(r3 + p);
      _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
      float *d = panel + p * rows + i0;
      _mm_storeu_ps(d, x0);
      _mm_storeu_ps(d + rows, x1);
      _mm_storeu_ps(d + 2 * rows, x2);
      _mm_storeu_ps(d + 3 * rows, x3);
    }
    for (; p < cols; p++) {
      panel[p * rows + i0] = r0[p];
      panel[p * rows + i0 + 1] = r1[p];
      panel[p * rows + i0 + 2] = r2[p];
      panel[p * rows + i0 + 3] = r3[p];
    }
  }
#endif
  for (; i0 < rows; i0++)
    for (int64_t p = 0; p < cols; p++) panel[p * rows + i0] = a[i0 * lda + p];
}

/* A[ic..ic+mc, pc..pc+kc] -> mr-high micro-panels, each kc x mr (transposed). */
static void pack_a(const struct gemm_kernel *kr, const struct gemm_problem *g, int64_t ic,
                   int64_t mc, int64_t pc, int64_t kc, float *ap, float *tmp) {
  const int mr = kr->mr;
  for (int64_t ip = 0; ip < mc; ip += mr) {
    float *panel = ap + ip * kc;
    if (g->dtype == BENCH_F32 && ip + mr <= mc) {
      const float *a = (const float *)g->a + (ic + ip) * g->k + pc;
      gemm_pack_rows_f32(a, g->k, mr, kc, panel);
      continue;
    }
    for (int i = 0; i < mr; i++) {
      if (ip + i < mc) {
        const float *src = row_f32(g, g->a, g->k, ic + ip + i, pc, kc, tmp);
        for (int64_t p = 0; p < kc; p++) panel[p * mr + i] = src[p];
      } else {
        for (int64_t p = 0; p < kc; p++) panel[p * mr + i] = 0;
      }
    }
  }
}

/* ---- the loops ------------------------------------------------------------------------- */

/* C[ic.., jc..] (+)= the packed A block (mc x kc) times the packed B panel (kc x nc). */
static void multiply_block(const struct gemm_kernel *kr, const struct gemm_problem *g,
                           const float *ap, const float *bp, int64_t ic, int64_t mc, int64_t jc,
                           int64_t nc, int64_t kc, int accumulate) {
  const int mr = kr->mr, nr = kr->nr;
  float tile[12 * 32] __attribute__((aligned(64))); /* the largest mr x nr */
  const int64_t n = g->n;
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const float *bpanel = bp + jr * kc;
    const int64_t w = min64(nr, nc - jr);
    for (int64_t ir = 0; ir < mc; ir += mr) {
      const float *apanel = ap + ir * kc;
      float *c = g->c + (ic + ir) * n + jc + jr;
      const int64_t h = min64(mr, mc - ir);
      if (h == mr && w == nr) {
        kr->fn(kc, apanel, bpanel, c, n, accumulate);
        continue;
      }
      kr->fn(kc, apanel, bpanel, tile, nr, 0);
      for (int64_t i = 0; i < h; i++)
        for (int64_t j = 0; j < w; j++)
          c[i * n + j] = accumulate ? c[i * n + j] + tile[i * nr + j] : tile[i * nr + j];
    }
  }
}

struct buffers {
  float *ap, *bp, *tmp;
};

static struct buffers split_buffer(const struct gemm_kernel *kr, float *buf) {
  struct buffers b;
  b.ap = buf;
  b.bp = b.ap + round_up(round_up(kr->mc, kr->mr) * kr->kc, 16);
  b.tmp = b.bp + round_up(kr->kc * round_up(kr->nc, kr->nr), 16);
  return b;
}

void gemm_packed_block(const struct gemm_kernel *kr, const struct gemm_problem *g, int64_t i0,
                       int64_t i1, int64_t j0, int64_t j1, float *buf) {
  const struct buffers b = split_buffer(kr, buf);
  const int64_t kb = balanced(g->k, kr->kc, 16), mb = balanced(i1 - i0, kr->mc, kr->mr);
  for (int64_t jc = j0; jc < j1; jc += kr->nc) {
    const int64_t nc = min64(kr->nc, j1 - jc);
    for (int64_t pc = 0; pc < g->k; pc += kb) {
      const int64_t kc = min64(kb, g->k - pc);
      pack_b(kr, g, pc, kc, jc, nc, b.bp, b.tmp);
      for (int64_t ic = i0; ic < i1; ic += mb) {
        const int64_t mc = min64(mb, i1 - ic);
        pack_a(kr, g, ic, mc, pc, kc, b.ap, b.tmp);
        multiply_block(kr, g, b.ap, b.bp, ic, mc, jc, nc, kc, pc > 0);
      }
    }
  }
}

int gemm_team_init(struct gemm_team *t, const struct gemm_kernel *kr, int nthreads) {
  const size_t floats = (size_t)round_up(kr->kc * round_up(kr->nc, kr->nr), 16);
  t->b[0] = cpu_alloc(floats * sizeof(float));
  t->b[1] = cpu_alloc(floats * sizeof(float));
  t->count = cpu_alloc(sizeof *t->count);
  t->own = cpu_alloc((size_t)nthreads * sizeof *t->own);
  t->nthreads = nthreads;
  if (!t->b[0] || !t->b[1] || !t->count || !t->own) return -1;
  gemm_team_reset(t);
  return 0;
}

void gemm_team_reset(struct gemm_team *t) {
  atomic_store(&t->count->next, 0);
  atomic_store(&t->count->packed, 0);
  atomic_store(&t->count->rows_done, 0);
  for (int i = 0; i < t->nthreads; i++) atomic_store(&t->own[i].next, 0);
}

void gemm_team_free(struct gemm_team *t) {
  cpu_free(t->b[0]);
  cpu_free(t->b[1]);
  cpu_free(t->count);
  cpu_free(t->own);
}

/* The next piece of work below `end`, or -1: pieces are numbered across
 * the whole GEMM, so the counter only grows and needs no reset between
 * panels; a thread never takes a piece of the next panel's phase early. */
static int64_t claim(_Atomic int64_t *next, int64_t end) {
  int64_t u = atomic_load_explicit(next, memory_order_relaxed);
  while (u < end)
    if (atomic_compare_exchange_weak_explicit(next, &u, u + 1, memory_order_relaxed,
                                              memory_order_relaxed))
      return u;
  return -1;
}

/* The next run of micro-panel rows below `end` from one thread's share:
 * its first unit, or -1; *count gets its length. Whole blocks (most units)
 * while plenty is left, then ever shorter runs (half of what is left), so
 * the threads finish a panel within about one micro-panel of each other,
 * not one block: at 1024^3 a 24-row block is 5% of a thread's share. */
static int64_t claim_rows(_Atomic int64_t *next, int64_t end, int64_t most, int64_t *count) {
  int64_t u = atomic_load_explicit(next, memory_order_relaxed);
  while (u < end) {
    const int64_t c = clamp64((end - u + 1) / 2, 1, most);
    if (atomic_compare_exchange_weak_explicit(next, &u, u + c, memory_order_relaxed,
                                              memory_order_relaxed)) {
      *count = c;
      return u;
    }
  }
  return -1;
}

/* Waits until *counter >= target (acquire: what the threads that counted
 * wrote is then visible): spins, then yields the CPU. Only work already
 * claimed is counted towards target, by threads that were running when
 * they claimed it, so this never waits for a thread to start. */
static void wait_count(_Atomic int64_t *counter, int64_t target) {
  for (int spins = 0; atomic_load_explicit(counter, memory_order_acquire) < target; spins++) {
#if defined(__x86_64__) || defined(__i386__)
    if (spins < 256) {
      __builtin_ia32_pause();
      continue;
    }
#endif
    sched_yield();
  }
}

#define PACK_PIECE 8 /* B micro-panels per piece of packing */

void gemm_packed_team(const struct gemm_kernel *kr, const struct gemm_problem *g, float *buf,
                      struct gemm_team *team, int tid) {
  const struct buffers b = split_buffer(kr, buf);
  const int nthreads = team->nthreads;
  struct gemm_team_counters *cnt = team->count;
  const int64_t kb = balanced(g->k, kr->kc, 16), mb = balanced(g->m, kr->mc, kr->mr);
  const int64_t units = (g->m + kr->mr - 1) / kr->mr, most = (mb + kr->mr - 1) / kr->mr;
  const int64_t cols = (int64_t)PACK_PIECE * kr->nr;
  int64_t end = 0, u, count;
  unsigned panel = 0;
  for (int64_t jc = 0; jc < g->n; jc += kr->nc) {
    const int64_t nc = min64(kr->nc, g->n - jc);
    for (int64_t pc = 0; pc < g->k; pc += kb, panel++) {
      const int64_t kc = min64(kb, g->k - pc);
      /* The other buffer may still be read (the previous panel); this one
       * held panel - 2, done: this thread saw all of panel - 1's rows
       * claimed, after waiting for panel - 2's rows to be done. */
      float *bp = team->b[panel & 1];
      const int64_t packs = end;
      end += (nc + cols - 1) / cols;
      for (;;) {
        if (cpu_pool_yield_point()) return; /* on the caller's CPU: it does the rest */
        if ((u = claim(&cnt->next, end)) < 0) break;
        const int64_t j = (u - packs) * cols;
        pack_b(kr, g, pc, kc, jc + j, min64(cols, nc - j), bp + j * kc, b.tmp);
        atomic_fetch_add_explicit(&cnt->packed, 1, memory_order_release);
      }
      /* The panel packed, and the previous panel's rows done (their C
       * rows are accumulated here; pieces and rows are counted across the
       * whole GEMM, and the first thread to get past here saw no row of
       * this panel counted yet). All of them are claimed by now. */
      wait_count(&cnt->packed, end);
      wait_count(&cnt->rows_done, (int64_t)panel * units);
      /* Thread s's share: units [first, last); its counter counts them
       * over all panels, so it too needs no reset between panels. */
      for (int i = 0; i < nthreads; i++) {
        const int s = (tid + i) % nthreads;
        const int64_t first = units * s / nthreads, last = units * (s + 1) / nthreads;
        const int64_t base = (int64_t)panel * (last - first);
        for (;;) {
          if (cpu_pool_yield_point()) return;
          u = claim_rows(&team->own[s].next, base + last - first, most, &count);
          if (u < 0) break;
          const int64_t ic = (first + u - base) * kr->mr, mc = min64(count * kr->mr, g->m - ic);
          pack_a(kr, g, ic, mc, pc, kc, b.ap, b.tmp);
          multiply_block(kr, g, b.ap, bp, ic, mc, jc, nc, kc, pc > 0);
          atomic_fetch_add_explicit(&cnt->rows_done, count, memory_order_release);
        }
      }
    }
  }
}
