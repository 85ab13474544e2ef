/* gemm_check_fp: false WRONG_ANSWERs of the fast GEMM check (VERIFY_FAST)
 * on correct GEMMs. Built, never run by ctest; studies/gemm_check_fp.sh
 * drives it.
 *
 *   gemm_check_fp [--cases N] [--seed S]
 *
 * Runs N (default 10000) checks of correct outputs and prints how many
 * were WRONG_ANSWER (must be 0). Each problem draws a shape from a mix of
 * tiny, odd, non-square and long-k ones (m, n from 1 to 600, k from 1 to
 * 8192), an input dtype (f32, f16, bf16), an output dtype (the input's or
 * f32), inputs uniform in [-1, 1) (as the harness fills them), in [0, 1)
 * (no cancellation: the largest |C| for its scale) or with rows and
 * columns scaled by powers of 2 up to 2^12 (a problem whose f16 output
 * would overflow is drawn again), and computes C in f32 in one of
 * six orders: sequential, reversed k, blocked along k (partial sums of 64
 * added), pairwise, fmaf, or four interleaved partial sums (as SIMD
 * lanes). Each output is then checked in the four A/B layouts with their
 * own seeds. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "check/dtype.h"
#include "check/reference.h"

enum order { SEQ, REVERSED, BLOCKED, PAIRWISE, FMA, LANES4, NORDERS };
static const char *order_names[] = {"seq", "reversed", "blocked", "pairwise", "fma", "lanes4"};

static float dot_pairwise(const float *a, const float *b, int len, int stride) {
  if (len <= 8) {
    float acc = 0;
    for (int kk = 0; kk < len; kk++) acc += a[kk] * b[(size_t)kk * stride];
    return acc;
  }
  const int h = len / 2;
  return dot_pairwise(a, b, h, stride) + dot_pairwise(a + h, b + (size_t)h * stride, len - h, stride);
}

/* One element C_ij = sum_kk a[kk] b[kk * n] in f32 in the given order. */
static float dot(const float *a, const float *b, int k, int n, enum order o) {
  float acc = 0;
  switch (o) {
  case SEQ:
    for (int kk = 0; kk < k; kk++) acc += a[kk] * b[(size_t)kk * n];
    return acc;
  case REVERSED:
    for (int kk = k - 1; kk >= 0; kk--) acc += a[kk] * b[(size_t)kk * n];
    return acc;
  case BLOCKED:
    for (int k0 = 0; k0 < k; k0 += 64) {
      float part = 0;
      for (int kk = k0; kk < k0 + 64 && kk < k; kk++) part += a[kk] * b[(size_t)kk * n];
      acc += part;
    }
    return acc;
  case PAIRWISE: return dot_pairwise(a, b, k, n);
  case FMA:
    for (int kk = 0; kk < k; kk++) acc = fmaf(a[kk], b[(size_t)kk * n], acc);
    return acc;
  default: {
    float lane[4] = {0, 0, 0, 0};
    for (int kk = 0; kk < k; kk++) lane[kk & 3] += a[kk] * b[(size_t)kk * n];
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
  }
  }
}

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

static void shape(int *m, int *n, int *k) {
  static const int dims[] = {1, 2, 3, 7, 8, 17, 33, 64, 65, 96, 127, 128, 200, 255, 256, 257, 333, 512};
  static const int ks[] = {1, 2, 3, 5, 16, 63, 100, 256, 300, 1000, 1024, 2049, 4096, 8192};
  const int nd = sizeof dims / sizeof *dims, nk = sizeof ks / sizeof *ks;
  switch (pick(4)) {
  case 0: *m = dims[pick(nd)], *n = dims[pick(nd)], *k = ks[pick(nk)]; break; /* mixed */
  case 1: *m = *n = *k = 64 + pick(450); break;                              /* square, odd */
  case 2: *m = 1 + pick(64), *n = 64 + pick(536), *k = 1 + pick(600); break;  /* wide */
  default: *m = 8 + pick(120), *n = 8 + pick(120), *k = 2048 + pick(6145); break; /* k >> n */
  }
  /* keep a problem under about 2e7 multiply-adds */
  while ((double)*m * *n * *k > 2e7) {
    if (*m >= *n && *m > 1) *m = (*m + 1) / 2;
    else if (*n > 1) *n = (*n + 1) / 2;
    else *k = (*k + 1) / 2;
  }
}

int main(int argc, char **argv) {
  int cases = 10000;
  uint64_t seed = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: gemm_check_fp [--cases N] [--seed S]\n");
      return 2;
    }
  }
  rng_state = seed * 0x2545f4914f6cdd1dull;
  const enum bench_dtype types[] = {BENCH_F32, BENCH_F16, BENCH_BF16};
  static const char *dists[] = {"uniform", "positive", "scaled"};
  int run = 0, wrong = 0, fast = 0, skipped = 0, per_type[3] = {0}, per_order[NORDERS] = {0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (uint64_t prob = 0; run < cases; prob++) {
    int m, n, k;
    shape(&m, &n, &k);
    const int ti = pick(3), dist = pick(3);
    const enum order o = (enum order)pick(NORDERS);
    const enum bench_dtype in = types[ti], out = pick(2) ? in : BENCH_F32;
    const size_t es = dtype_size(in);
    float *af = malloc((size_t)m * k * sizeof *af), *bf = malloc((size_t)k * n * sizeof *bf);
    void *a[2] = {malloc((size_t)m * k * es), malloc((size_t)m * k * es)};
    void *b[2] = {malloc((size_t)k * n * es), malloc((size_t)k * n * es)};
    int *rs = malloc((size_t)(m > n ? m : n) * sizeof *rs);
    for (int i = 0; i < (m > n ? m : n); i++) rs[i] = dist == 2 ? pick(13) - 6 : 0;
    for (int i = 0; i < m; i++)
      for (int kk = 0; kk < k; kk++) {
        double v = ldexp((double)(rnd() >> 11) * 0x1p-53 * 2 - 1, rs[i]);
        if (dist == 1) v = fabs(v);
        const float f = (float)dtype_round(in, v);
        af[(size_t)i * k + kk] = f;
        dtype_store(a[0], (size_t)i * k + kk, in, f);
        dtype_store(a[1], (size_t)kk * m + i, in, f);
      }
    for (int j = 0; j < n; j++) rs[j] = dist == 2 ? pick(13) - 6 : 0;
    for (int kk = 0; kk < k; kk++)
      for (int j = 0; j < n; j++) {
        double v = ldexp((double)(rnd() >> 11) * 0x1p-53 * 2 - 1, rs[j]);
        if (dist == 1) v = fabs(v);
        const float f = (float)dtype_round(in, v);
        bf[(size_t)kk * n + j] = f;
        dtype_store(b[0], (size_t)kk * n + j, in, f);
        dtype_store(b[1], (size_t)j * k + kk, in, f);
      }
    void *c = malloc((size_t)m * n * dtype_size(out));
    int overflow = 0; /* an f16 output beyond 65504 is inf: that problem is not a correct one */
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        const float v = dot(af + (size_t)i * k, bf + j, k, n, o);
        overflow |= out == BENCH_F16 && fabsf(v) > 60000.0f;
        dtype_store(c, (size_t)i * n + j, out, v);
      }
    if (overflow) skipped++;
    for (int layout = 0; layout < 4 && run < cases && !overflow; layout++) {
      struct bench_check chk = {.op = "gemm", .dtype = in, .out_dtype = out, .m = m, .n = n,
                                .k = k, .out = c};
      chk.in[0] = a[layout & 1];
      chk.in[1] = b[layout >> 1];
      chk.flags = (layout & 1 ? BENCH_GEMM_TRANS_A : 0u) | (layout & 2 ? BENCH_GEMM_TRANS_B : 0u);
      struct check_result r;
      if (check_output(&chk, VERIFY_FAST, seed * 1000003 + (uint64_t)run, &r) != 0) {
        fprintf(stderr, "malformed check: %s\n", r.message);
        return 1;
      }
      run++;
      fast += strcmp(r.method, "sampled+freivalds") == 0;
      if (!r.pass) {
        wrong++;
        per_type[ti]++;
        per_order[o]++;
        fprintf(stderr, "false WRONG_ANSWER: %dx%dx%d %s->%s %s %s layout %d: %s\n", m, n, k,
                dtype_name(in), dtype_name(out), dists[dist], order_names[o], layout, r.message);
      }
    }
    free(c), free(rs), free(af), free(bf);
    for (int v = 0; v < 2; v++) free(a[v]), free(b[v]);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%d correct cases (%d through the fast path, the rest small enough for the full check; "
         "%d problems skipped whose f16 output overflows), %.1f s: %d false WRONG_ANSWER "
         "(f32 %d, f16 %d, bf16 %d)\n",
         run, fast, skipped, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
         wrong, per_type[0], per_type[1], per_type[2]);
  return wrong ? 1 : 0;
}
