/* The fast GEMM check (VERIFY_FAST, "sampled+freivalds") against planted
 * errors: one element off by 20 times its own full-check tolerance, at the
 * corners, at tile edges (rows and columns at multiples of 16, 32, 64, +-1)
 * and at random positions, is WRONG_ANSWER every time, for f32, f16 and bf16
 * inputs (output the same type) in all four A/B layouts; correct GEMMs
 * accumulated in another order than the reference (blocked along k,
 * pairwise) pass. Sizes up to 512, and 96 rows of n = k = 2048, keep the
 * test quick under ASan; studies/gemm_check_rate.c
 * (studies/gemm_check_rate.sh) measures full sizes to 8192. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/dtype.h"
#include "check/reference.h"
#include "test.h"

enum order { ORDER_BLOCKED, ORDER_PAIRWISE, ORDER_ROWS };

/* sum_{kk < len} a[kk] b[kk * stride] in f32, pairwise halves down to 8 terms. */
static float dot_pairwise(const float *a, const float *b, int len, int stride) {
  if (len <= 8) {
    float acc = 0;
    for (int kk = 0; kk < len; kk++) acc += a[kk] * b[(size_t)kk * stride];
    return acc;
  }
  const int h = len / 2;
  return dot_pairwise(a, b, h, stride) + dot_pairwise(a + h, b + (size_t)h * stride, len - h, stride);
}

/* C = A B (row-major f32) in f32, blocked along k by 64, pairwise, or
 * (ORDER_ROWS) in k order a row of C at a time (quick enough for k = 2048). */
static void gemm_f32(const float *a, const float *b, float *c, int m, int n, int k, enum order o) {
  if (o == ORDER_ROWS) {
    for (int i = 0; i < m; i++) {
      float *cr = c + (size_t)i * n;
      for (int j = 0; j < n; j++) cr[j] = 0;
      for (int kk = 0; kk < k; kk++) {
        const float av = a[(size_t)i * k + kk], *br = b + (size_t)kk * n;
        for (int j = 0; j < n; j++) cr[j] += av * br[j];
      }
    }
    return;
  }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      if (o == ORDER_PAIRWISE) {
        acc = dot_pairwise(a + (size_t)i * k, b + j, k, n);
      } else {
        for (int k0 = 0; k0 < k; k0 += 64) {
          float part = 0;
          for (int kk = k0; kk < k0 + 64 && kk < k; kk++)
            part += a[(size_t)i * k + kk] * b[(size_t)kk * n + j];
          acc += part;
        }
      }
      c[(size_t)i * n + j] = acc;
    }
}

struct problem {
  int m, n, k;
  enum bench_dtype t;
  void *a[2], *b[2]; /* [0] row-major, [1] transposed */
  void *c;           /* correct output, type t */
};

/* hot_col >= 0: that column of B is 2^10 times the others (one large
 * column, as in a weight matrix with an outlier channel). */
static void problem_init_hot(struct problem *p, int m, int n, int k, enum bench_dtype t,
                             enum order o, uint64_t seed, int hot_col) {
  p->m = m, p->n = n, p->k = k, p->t = t;
  const size_t es = dtype_size(t);
  float *af = malloc((size_t)m * k * sizeof *af), *bf = malloc((size_t)k * n * sizeof *bf);
  float *cf = malloc((size_t)m * n * sizeof *cf);
  for (int v = 0; v < 2; v++) p->a[v] = malloc((size_t)m * k * es), p->b[v] = malloc((size_t)k * n * es);
  for (int i = 0; i < m; i++)
    for (int kk = 0; kk < k; kk++) {
      const float v = (float)dtype_round(t, random_uniform(seed, (uint64_t)i * k + kk));
      af[(size_t)i * k + kk] = v;
      dtype_store(p->a[0], (size_t)i * k + kk, t, v);
      dtype_store(p->a[1], (size_t)kk * m + i, t, v);
    }
  for (int kk = 0; kk < k; kk++)
    for (int j = 0; j < n; j++) {
      const double u = random_uniform(seed + 1, (uint64_t)kk * n + j);
      const float v = (float)dtype_round(t, j == hot_col ? 1024 * u : u);
      bf[(size_t)kk * n + j] = v;
      dtype_store(p->b[0], (size_t)kk * n + j, t, v);
      dtype_store(p->b[1], (size_t)j * k + kk, t, v);
    }
  gemm_f32(af, bf, cf, m, n, k, o);
  p->c = malloc((size_t)m * n * es);
  for (size_t e = 0; e < (size_t)m * n; e++) dtype_store(p->c, e, t, cf[e]);
  free(af), free(bf), free(cf);
}

static void problem_init(struct problem *p, int m, int n, int k, enum bench_dtype t, enum order o,
                         uint64_t seed) {
  problem_init_hot(p, m, n, k, t, o, seed, -1);
}

static void problem_free(struct problem *p) {
  for (int v = 0; v < 2; v++) free(p->a[v]), free(p->b[v]);
  free(p->c);
}

/* The check of p in layout (bit 0: A transposed, bit 1: B transposed). */
static struct bench_check problem_check(const struct problem *p, int layout) {
  struct bench_check c = {.op = "gemm", .dtype = p->t, .out_dtype = p->t, .m = p->m, .n = p->n,
                          .k = p->k, .out = p->c};
  c.in[0] = p->a[layout & 1];
  c.in[1] = p->b[(layout >> 1) & 1];
  c.flags = (layout & 1 ? BENCH_GEMM_TRANS_A : 0u) | (layout & 2 ? BENCH_GEMM_TRANS_B : 0u);
  return c;
}

static int64_t tile_edge(uint64_t r, int n) {
  static const int tiles[] = {16, 32, 64};
  const int t = tiles[r % 3], count = n / t;
  int64_t v = (int64_t)((r >> 8) % (uint64_t)(count > 1 ? count - 1 : 1) + 1) * t;
  v += (int64_t)((r >> 4) % 3) - 1;
  return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* Plants factor x tolerance at `trials` positions of each kind; returns how
 * many of them the fast check missed. */
static int planted_missed(struct problem *p, double factor, int trials, uint64_t seed) {
  int missed = 0;
  for (int kind = 0; kind < 3; kind++)
    for (int t = 0; t < trials; t++) {
      const uint64_t rnd = random_u64(seed + (uint64_t)kind, (uint64_t)t);
      int64_t i, j;
      if (kind == 0) i = (t & 1) ? p->m - 1 : 0, j = (t & 2) ? p->n - 1 : 0;
      else if (kind == 1) i = tile_edge(rnd, p->m), j = tile_edge(rnd >> 20, p->n);
      else i = (int64_t)(rnd % (uint64_t)p->m), j = (int64_t)((rnd >> 32) % (uint64_t)p->n);
      const int64_t idx = i * p->n + j;
      struct bench_check c = problem_check(p, t % 4);
      double rtol, atol, ref, scale;
      check_tolerance(&c, &rtol, &atol);
      ref_gemm_elements(&c, &idx, 1, &ref, &scale);
      const double keep = dtype_load(p->c, (size_t)idx, p->t);
      const double bad = ref + ((rnd >> 63) ? 1 : -1) * factor * (atol + rtol * scale);
      dtype_store(p->c, (size_t)idx, p->t, bad);
      struct check_result r;
      if (check_output(&c, VERIFY_FAST, seed * 131 + (uint64_t)(kind * 64 + t), &r) != 0 ||
          strcmp(r.method, "sampled+freivalds") != 0 || r.pass) {
        missed++;
        fprintf(stderr, "  missed %gx at [%lld,%lld] %s layout %d (%s)\n", factor, (long long)i,
                (long long)j, dtype_name(p->t), t % 4, r.message);
      } else if (r.first_bad != idx) {
        missed++; /* caught, but the message must name the planted element */
        fprintf(stderr, "  %gx at [%lld,%lld] named %lld\n", factor, (long long)i, (long long)j,
                (long long)r.first_bad);
      }
      dtype_store(p->c, (size_t)idx, p->t, keep);
    }
  return missed;
}

/* Correct outputs pass in every layout and several seeds. */
static int false_positives(const struct problem *p, int seeds) {
  int fp = 0;
  for (int s = 0; s < seeds; s++) {
    struct bench_check c = problem_check(p, s % 4);
    struct check_result r;
    if (check_output(&c, VERIFY_FAST, 900 + (uint64_t)s, &r) != 0 || !r.pass || !r.checked) {
      fp++;
      fprintf(stderr, "  false positive %s %dx%dx%d: %s\n", dtype_name(p->t), p->m, p->n, p->k,
              r.message);
    }
  }
  return fp;
}

static void test_planted_20x_caught(void) {
  static const int sizes[][3] = {{96, 80, 300}, {256, 256, 256}, {512, 128, 512}};
  const enum bench_dtype types[] = {BENCH_F32, BENCH_F16, BENCH_BF16};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int t = 0; t < 3; t++) {
      struct problem p;
      problem_init(&p, sizes[s][0], sizes[s][1], sizes[s][2], types[t], ORDER_BLOCKED, 40 + s);
      CHECK(false_positives(&p, 4) == 0);
      CHECK(planted_missed(&p, 20, 8, 7 + s * 3 + (uint64_t)t) == 0);
      CHECK(planted_missed(&p, 100, 4, 70 + s * 3 + (uint64_t)t) == 0);
      problem_free(&p);
    }
}

/* The largest size the 20x guarantee is stated for: n = k = 2048 (the
 * check's block width and tolerances follow n and k; each row is tested on
 * its own, so 64 rows stand for 2048 and keep the test quick under ASan;
 * studies/gemm_check_rate.sh runs the full 2048^3). */
static void test_planted_20x_caught_2048(void) {
  const enum bench_dtype types[] = {BENCH_F32, BENCH_F16, BENCH_BF16};
  for (int t = 0; t < 3; t++) {
    struct problem p;
    problem_init(&p, 64, 2048, 2048, types[t], ORDER_ROWS, 60 + (uint64_t)t);
    CHECK(false_positives(&p, 4) == 0);
    CHECK(planted_missed(&p, 20, 3, 90 + (uint64_t)t) == 0);
    problem_free(&p);
  }
}

/* One column of B far larger than the rest raises only its own block's
 * noise bound: a 20x element in the other columns is still caught (a
 * bound from max_j |b_kj| over the whole row of B, as before, missed
 * them). */
static void test_planted_20x_hot_column(void) {
  const enum bench_dtype types[] = {BENCH_F32, BENCH_BF16};
  for (int t = 0; t < 2; t++) {
    struct problem p;
    problem_init_hot(&p, 128, 512, 512, types[t], ORDER_BLOCKED, 80 + (uint64_t)t, 511);
    CHECK(false_positives(&p, 4) == 0);
    int missed = 0;
    for (int trial = 0; trial < 12; trial++) {
      const uint64_t rnd = random_u64(300 + (uint64_t)t, (uint64_t)trial);
      const int64_t i = (int64_t)(rnd % 128), j = (int64_t)((rnd >> 32) % 384);
      const int64_t idx = i * p.n + j;
      struct bench_check c = problem_check(&p, trial % 4);
      double rtol, atol, ref, scale;
      check_tolerance(&c, &rtol, &atol);
      ref_gemm_elements(&c, &idx, 1, &ref, &scale);
      const double keep = dtype_load(p.c, (size_t)idx, p.t);
      dtype_store(p.c, (size_t)idx, p.t, ref + ((rnd >> 63) ? 1 : -1) * 20 * (atol + rtol * scale));
      struct check_result r;
      if (check_output(&c, VERIFY_FAST, 400 + (uint64_t)trial, &r) != 0 || r.pass ||
          r.first_bad != idx) {
        missed++;
        fprintf(stderr, "  hot column: missed 20x at [%lld,%lld] %s\n", (long long)i, (long long)j,
                dtype_name(p.t));
      }
      dtype_store(p.c, (size_t)idx, p.t, keep);
    }
    CHECK(missed == 0);
    problem_free(&p);
  }
}

/* Other accumulation orders and shapes (n not a multiple of the block,
 * k long against m and n) are never flagged. */
static void test_correct_orders_pass(void) {
  static const int sizes[][3] = {{70, 130, 1000}, {200, 333, 64}, {96, 600, 256}};
  const enum bench_dtype types[] = {BENCH_F32, BENCH_F16, BENCH_BF16};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int t = 0; t < 3; t++)
      for (int o = ORDER_BLOCKED; o <= ORDER_PAIRWISE; o++) {
        struct problem p;
        problem_init(&p, sizes[s][0], sizes[s][1], sizes[s][2], types[t], (enum order)o, 50 + s);
        CHECK(false_positives(&p, 4) == 0);
        problem_free(&p);
      }
}

TEST_MAIN(TEST_ENTRY(test_planted_20x_caught), TEST_ENTRY(test_planted_20x_caught_2048),
          TEST_ENTRY(test_planted_20x_hot_column),
          TEST_ENTRY(test_correct_orders_pass))
