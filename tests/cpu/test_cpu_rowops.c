/* The CPU row kernels (plugins/cpu/cpu_rowops.c) against double precision:
 * the exp's stated accuracy over its whole range, the sum it returns,
 * softmax's fused exp-and-scale step, the affine writer, both moments in
 * one pass, and every tail
 * length, the reductions. ctest runs it three times: on the widest path
 * this CPU has, with BENCH_CPU_ROWOPS=avx2 and with =portable. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/test.h"
#include "cpu_common.h"
#include "cpu_rowops.h"

/* cpu_rowops.h states 1.9e-7 (3.2 units of 2^-24); a kernel that lost a
 * bit anywhere in [-87.3, 0] fails this. */
#define EXP_MAX_REL 2.0e-7
#define N_EXP (1 << 20)

static float *falloc(int64_t n) { return cpu_alloc((size_t)n * sizeof(float)); }

static double rel_err(double got, double want) { return fabs(got - want) / fabs(want); }

/* e^(x - shift) over 2^20 points of each of 8 offsets across [-87.3, 0],
 * in rows of 4096 (each row's sum checked: one element lost or counted
 * twice moves it by 1/4096, rounding by about 64 * 2^-24). */
static void test_exp_accuracy(void) {
  float *x = falloc(N_EXP), *y = falloc(N_EXP);
  REQUIRE(x && y);
  const float shift = 2.5f; /* the kernel subtracts it: x - shift is exact here */
  const int64_t row = 4096;
  double worst = 0, worst_sum = 0;
  for (int off = 0; off < 8; off++) {
    for (int64_t i = 0; i < N_EXP; i++)
      x[i] = shift - 87.3f * (float)(((double)i + off / 8.0) / N_EXP);
    for (int64_t r = 0; r < N_EXP; r += row) {
      const float sum = cpu_row_exp_sum(y + r, x + r, row, shift, NULL);
      double want_sum = 0;
      for (int64_t i = r; i < r + row; i++) {
        const double e = rel_err(y[i], exp((double)x[i] - shift));
        if (e > worst) worst = e;
        want_sum += y[i];
      }
      const double es = rel_err(sum, want_sum);
      if (es > worst_sum) worst_sum = es;
    }
  }
  printf("%s: exp max relative error %.3g (%.2f units of 2^-24), row sums %.3g\n",
         cpu_rowops_isa(), worst, worst * 16777216.0, worst_sum);
  CHECK(worst <= EXP_MAX_REL);
  CHECK(worst_sum <= 2e-5);
  cpu_free(x);
  cpu_free(y);
}

/* The scalar cpu_expf the portable loops inline, over its clamp range. */
static void test_expf_scalar(void) {
  double worst = 0;
  for (int i = 0; i <= 200000; i++) {
    const float x = -87.3f + (87.3f + 88.3f) * (float)i / 200000.0f;
    const double e = rel_err(cpu_expf(x), exp((double)x));
    if (e > worst) worst = e;
  }
  CHECK(worst <= EXP_MAX_REL);
  CHECK(cpu_expf(-INFINITY) > 0 && cpu_expf(-INFINITY) <= 1.2e-38f); /* clamped, not 0/NaN */
  CHECK(isfinite(cpu_expf(1000.0f)));
  CHECK(cpu_expf(0.0f) == 1.0f);
}

/* Every length from 1 to 70 (the 16-lane tails and the 32- and 64-wide
 * loops), masked elements untouched, -inf giving (almost) 0. */
static void test_exp_tails(void) {
  float x[80], y[80];
  for (int n = 1; n <= 70; n++) {
    for (int i = 0; i < 80; i++) {
      x[i] = -0.37f * (float)i;
      y[i] = -1.0f;
    }
    x[0] = -INFINITY;
    double want_sum = 0;
    const float sum = cpu_row_exp_sum(y, x, n, 0.0f, NULL);
    for (int i = 0; i < n; i++) {
      const double want = i ? exp((double)x[i]) : 0.0;
      CHECK(fabs(y[i] - want) <= EXP_MAX_REL * want + 1.2e-38);
      want_sum += y[i];
    }
    for (int i = n; i < 80; i++) CHECK(y[i] == -1.0f);
    CHECK(rel_err(sum, want_sum) <= 1e-6);
  }
}

/* Softmax's fused step: e as cpu_row_exp_sum, and y = e_prev * scale as
 * cpu_row_affine, on every length to 70, streamed or not, at a 64-byte
 * aligned y (the fused loop) and a misaligned one (the two passes). */
static void test_exp_sum_scale(void) {
  float *x = falloc(80), *e = falloc(80), *e_prev = falloc(80), *buf = falloc(96), *want_e = falloc(80);
  REQUIRE(x && e && e_prev && buf && want_e);
  int bad = 0;
  for (int i = 0; i < 80; i++) {
    x[i] = -0.21f * (float)i;
    e_prev[i] = 0.5f + 0.01f * (float)i;
  }
  for (int stream = 0; stream < 2; stream++)
    for (int align = 0; align < 2; align++)
      for (int n = 1; n <= 70; n++) {
        float *y = buf + (align ? 3 : 0);
        for (int i = 0; i < 80; i++) e[i] = want_e[i] = y[i] = -1.0f;
        const float want_sum = cpu_row_exp_sum(want_e, x, n, 0.5f, NULL);
        const float sum = cpu_row_exp_sum_scale(e, x, n, 0.5f, NULL, y, e_prev, 0.25f, stream);
        if (stream) cpu_stream_fence();
        bad += sum != want_sum;
        for (int i = 0; i < 80; i++) {
          bad += e[i] != want_e[i]; /* bit for bit the same exps, -1 past n */
          bad += y[i] != (i < n ? e_prev[i] * 0.25f : -1.0f);
        }
      }
  CHECK(bad == 0);
  cpu_free(x);
  cpu_free(e);
  cpu_free(e_prev);
  cpu_free(buf);
  cpu_free(want_e);
}

/* y = (x - shift) * scale * w + b, in place and not, with and without
 * w and b and streaming stores, on every length to 70 at every alignment
 * of y within a cache line. */
static void test_affine(void) {
  float *x = falloc(96), *w = falloc(96), *b = falloc(96), *buf = falloc(96 + 16);
  REQUIRE(x && w && b && buf);
  for (int i = 0; i < 96; i++) {
    x[i] = 0.25f * (float)i - 7.0f;
    w[i] = 1.0f + 0.01f * (float)i;
    b[i] = 0.5f - 0.003f * (float)i;
  }
  int bad = 0;
  for (int variant = 0; variant < 8; variant++) {
    const int use_wb = variant & 1, stream = (variant >> 1) & 1, inplace = (variant >> 2) & 1;
    for (int align = 0; align < 16; align++)
      for (int n = 1; n <= 70; n++) {
        float *y = buf + align;
        for (int i = 0; i < 96; i++) y[i] = inplace ? x[i] : -99.0f;
        cpu_row_affine(y, inplace ? y : x, n, 1.5f, 0.75f, use_wb ? w : NULL, use_wb ? b : NULL,
                       stream, NULL);
        if (stream) cpu_stream_fence();
        for (int i = 0; i < n; i++) {
          const double want =
              ((double)x[i] - 1.5) * 0.75 * (use_wb ? w[i] : 1.0) + (use_wb ? b[i] : 0.0);
          bad += !(fabs(y[i] - want) <= 4e-7 * (fabs(want) + 8.0));
        }
        for (int i = n; i < 96 - align; i++) bad += y[i] != (inplace ? x[i] : -99.0f);
      }
  }
  CHECK(bad == 0);
  cpu_free(x);
  cpu_free(w);
  cpu_free(b);
  cpu_free(buf);
}

/* The worst-case relative error bound of a float sum of n terms: n units
 * of 2^-24 for the portable loop (one running sum where the compiler does
 * not vectorise it, as at -O0), n/16 + 8 for the vector paths (at least 16
 * running sums, lanes times accumulators, of n/16 terms each, then a tree). */
static double tol(int n) {
  const int vector = strcmp(cpu_rowops_isa(), "portable") != 0;
  return (vector ? n / 16.0 + 8 : n + 1.0) * 0x1p-24;
}

/* Both moments about c in one pass: bit for bit cpu_row_sumdev's and
 * cpu_row_sqdev's sums (with c = 0, cpu_row_sum's and cpu_row_sumsq's),
 * every length to 70 and a few rows' worth, at every alignment of x; and
 * against double precision. */
static void test_moments(void) {
  enum { N = 4099 + 16 };
  float *buf = falloc(N);
  REQUIRE(buf);
  for (int i = 0; i < N; i++) buf[i] = 0.1f + 0.37f * (float)((i * 29) % 101);
  static const int longer[] = {127, 128, 129, 1000, 4096, 4099};
  int bad = 0, cases = 0;
  for (int shifted = 0; shifted < 2; shifted++)
    for (int align = 0; align < 16; align++)
      for (int k = 0; k < 70 + 6; k++) {
        const int n = k < 70 ? k + 1 : longer[k - 70];
        const float *x = buf + align, c = shifted ? x[0] + 0.5f : 0.0f;
        float s2 = -1;
        const float s1 = cpu_row_moments(x, n, c, &s2);
        const float w1 = c == 0 ? cpu_row_sum(x, n) : cpu_row_sumdev(x, n, c);
        const float w2 = c == 0 ? cpu_row_sumsq(x, n) : cpu_row_sqdev(x, n, c, NULL);
        bad += memcmp(&s1, &w1, sizeof s1) != 0 || memcmp(&s2, &w2, sizeof s2) != 0;
        double d1 = 0, d2 = 0, abs1 = 0;
        for (int i = 0; i < n; i++) {
          d1 += (double)x[i] - c, d2 += ((double)x[i] - c) * ((double)x[i] - c);
          abs1 += fabs((double)x[i] - c);
        }
        bad += !(fabs(s1 - d1) <= tol(n) * abs1 + 1e-30) || !(fabs(s2 - d2) <= tol(n) * d2 + 1e-30);
        cases++;
      }
  CHECK(cases == 2 * 16 * 76);
  CHECK(bad == 0);
  cpu_free(buf);
}

/* sum, sum of squares, centred sum of squares and max, every length from 1
 * to 70 (the 8- and 16-lane tails and the 32- and 64-wide loops), with the
 * max at each place in turn and all elements negative (a masked lane read
 * as 0 would win the max). */
static void test_reductions(void) {
  float x[80];
  int bad = 0;
  for (int n = 1; n <= 70; n++)
    for (int at = 0; at < n; at++) {
      double sum = 0, sq = 0, dev = 0;
      for (int i = 0; i < n; i++) {
        x[i] = -1.0f - 0.01f * (float)((i * 37) % 71);
        if (i == at) x[i] = -0.5f;
      }
      for (int i = 0; i < n; i++) sum += x[i], sq += (double)x[i] * x[i];
      const float mean = (float)(sum / n);
      for (int i = 0; i < n; i++) dev += ((double)x[i] - mean) * ((double)x[i] - mean);
      bad += cpu_row_max(x, n) != -0.5f;
      bad += !(rel_err(cpu_row_sum(x, n), sum) <= 1e-6);
      bad += !(rel_err(cpu_row_sumsq(x, n), sq) <= 1e-6);
      bad += !(fabs(cpu_row_sqdev(x, n, mean, NULL) - dev) <= 1e-6 * (sq + 1e-30));
    }
  CHECK(bad == 0);
}

/* A forced path is the path taken, where the CPU has it. */
static void test_path(void) {
  const char *force = getenv("BENCH_CPU_ROWOPS");
  const char *isa = cpu_rowops_isa();
  printf("row kernels: %s (BENCH_CPU_ROWOPS=%s)\n", isa, force ? force : "");
  if (force && !strcmp(force, "portable")) CHECK(!strcmp(isa, "portable"));
#if defined(__x86_64__) && defined(__GNUC__)
  const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const int avx512 = __builtin_cpu_supports("avx512f");
  if (force && !strcmp(force, "avx2")) CHECK(!strcmp(isa, avx2 ? "avx2" : "portable"));
  if (!force || !*force) CHECK(!strcmp(isa, avx512 ? "avx512" : avx2 ? "avx2" : "portable"));
#endif
}

TEST_MAIN(TEST_ENTRY(test_path), TEST_ENTRY(test_reductions), TEST_ENTRY(test_exp_accuracy), TEST_ENTRY(test_expf_scalar), TEST_ENTRY(test_exp_tails),
          TEST_ENTRY(test_exp_sum_scale), TEST_ENTRY(test_affine), TEST_ENTRY(test_moments))
