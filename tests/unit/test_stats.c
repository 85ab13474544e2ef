/* stats_compute against hand- and R-computed values (quantile type 7,
 * sd with n-1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "test.h"

#define EPS 1e-12

static void test_empty(void) {
  struct stats s;
  stats_compute(NULL, 0, &s);
  CHECK(s.n == 0);
  CHECK(s.min == 0 && s.max == 0 && s.median == 0 && s.q1 == 0 && s.q3 == 0);
  CHECK(s.mean == 0 && s.stddev == 0 && s.cv == 0);
}

static void test_one(void) {
  double x[] = {42.5};
  struct stats s;
  stats_compute(x, 1, &s);
  CHECK(s.n == 1);
  CHECK(s.min == 42.5 && s.max == 42.5);
  CHECK(s.q1 == 42.5 && s.median == 42.5 && s.q3 == 42.5);
  CHECK(s.mean == 42.5);
  CHECK(s.stddev == 0.0);
  CHECK(s.cv == 0.0);
}

static void test_two(void) {
  double x[] = {3.0, 1.0};
  struct stats s;
  stats_compute(x, 2, &s);
  CHECK(s.n == 2);
  CHECK(s.min == 1.0 && s.max == 3.0);
  CHECK_NEAR(s.median, 2.0, EPS);
  CHECK_NEAR(s.q1, 1.5, EPS);  /* R: quantile(c(1,3), .25) = 1.5 */
  CHECK_NEAR(s.q3, 2.5, EPS);
  CHECK_NEAR(s.mean, 2.0, EPS);
  CHECK_NEAR(s.stddev, sqrt(2.0), EPS); /* sd(c(1,3)) */
  CHECK_NEAR(s.cv, sqrt(2.0) / 2.0, EPS);
  CHECK(x[0] == 3.0 && x[1] == 1.0); /* input untouched */
}

static void test_odd(void) {
  double x[] = {5, 1, 4, 2, 3};
  struct stats s;
  stats_compute(x, 5, &s);
  CHECK_NEAR(s.median, 3.0, EPS);
  CHECK_NEAR(s.q1, 2.0, EPS);
  CHECK_NEAR(s.q3, 4.0, EPS);
  CHECK_NEAR(s.mean, 3.0, EPS);
  CHECK_NEAR(s.stddev, sqrt(2.5), EPS);
  CHECK(x[0] == 5 && x[1] == 1 && x[2] == 4 && x[3] == 2 && x[4] == 3);
}

static void test_even(void) {
  double x[] = {4, 3, 2, 1};
  struct stats s;
  stats_compute(x, 4, &s);
  CHECK_NEAR(s.median, 2.5, EPS);
  CHECK_NEAR(s.q1, 1.75, EPS); /* quantile(1:4, .25, type = 7) */
  CHECK_NEAR(s.q3, 3.25, EPS);
  CHECK_NEAR(s.stddev, sqrt(5.0 / 3.0), EPS);
}

static void test_r_type7(void) {
  /* x <- c(2, 4, 4, 4, 5, 5, 7, 9); quantile(x); sd(x); mean(x) */
  double x[] = {9, 4, 2, 5, 4, 7, 4, 5};
  struct stats s;
  stats_compute(x, 8, &s);
  CHECK(s.min == 2 && s.max == 9);
  CHECK_NEAR(s.q1, 4.0, EPS);
  CHECK_NEAR(s.median, 4.5, EPS);
  CHECK_NEAR(s.q3, 5.5, EPS);
  CHECK_NEAR(s.mean, 5.0, EPS);
  CHECK_NEAR(s.stddev, 2.1380899352993950, EPS);
  CHECK_NEAR(s.cv, 2.1380899352993950 / 5.0, EPS);

  /* quantile(c(1, 10, 20, ..., 100)) = 1, 25, 50, 75, 100 */
  double y[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 1};
  stats_compute(y, 11, &s);
  CHECK_NEAR(s.q1, 25.0, EPS);
  CHECK_NEAR(s.median, 50.0, EPS);
  CHECK_NEAR(s.q3, 75.0, EPS);

  /* quantile(c(0.1, 0.7, 0.3), c(.25, .75)) = 0.2, 0.5 */
  double z[] = {0.1, 0.7, 0.3};
  stats_compute(z, 3, &s);
  CHECK_NEAR(s.q1, 0.2, EPS);
  CHECK_NEAR(s.median, 0.3, EPS);
  CHECK_NEAR(s.q3, 0.5, EPS);
}

static void test_cv(void) {
  double x[] = {100, 102, 98, 100};
  struct stats s;
  stats_compute(x, 4, &s);
  CHECK_NEAR(s.mean, 100.0, EPS);
  CHECK_NEAR(s.stddev, sqrt(8.0 / 3.0), EPS);
  CHECK_NEAR(s.cv, sqrt(8.0 / 3.0) / 100.0, EPS);

  double zero[] = {0, 0, 0};
  stats_compute(zero, 3, &s);
  CHECK(s.cv == 0.0);
}

static void test_large_offset(void) {
  /* Samples near 1e9 ns with a spread of a few ns: no cancellation. */
  double x[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  struct stats s;
  stats_compute(x, 4, &s);
  CHECK_NEAR(s.mean, 1e9 + 10, 1e-6);
  CHECK_NEAR(s.stddev, sqrt(30.0), 1e-6);

}

/* ---- the median's confidence interval and the stopping rule ---------- */

static unsigned lcg_state = 2463534242u;
static double uniform01(void) { /* (0, 1) */
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return ((lcg_state >> 8) + 0.5) / 16777216.0;
}

static void test_median_ci_ranks(void) {
  /* 1..n sorted: the interval's ends are the order statistics themselves.
   * Exact binomial ranks (R: qbinom(0.025, n, 0.5)): n = 6 -> x(1), x(6);
   * n = 10 -> x(2), x(9); n = 20 -> x(6), x(15); n = 100 -> x(40), x(61). */
  double x[100];
  for (int i = 0; i < 100; i++) x[i] = i + 1;
  double lo, hi;
  stats_median_ci_sorted(x, 6, &lo, &hi);
  CHECK(lo == 1 && hi == 6);
  stats_median_ci_sorted(x, 10, &lo, &hi);
  CHECK(lo == 2 && hi == 9);
  stats_median_ci_sorted(x, 20, &lo, &hi);
  CHECK(lo == 6 && hi == 15);
  stats_median_ci_sorted(x, 100, &lo, &hi);
  CHECK(lo == 40 && hi == 61);
  stats_median_ci_sorted(x, 5, &lo, &hi); /* below 6: [min, max] */
  CHECK(lo == 1 && hi == 5);
  double noise;
  CHECK(!stats_settled(x, 1, 0, 1.0, &noise) && isinf(noise));
  struct stats st;
  stats_compute(x, 20, &st);
  CHECK(st.ci_lo == 6 && st.ci_hi == 15);
}

static void test_outliers(void) {
  double x[20];
  for (int i = 0; i < 20; i++) x[i] = 100.0 + (i % 5); /* 100..104, MAD 1 */
  x[3] = 1000.0;
  x[7] = 5.0;
  struct stats st;
  stats_compute(x, 20, &st);
  CHECK(st.outliers == 2);
  for (int i = 0; i < 20; i++) x[i] = 7.0; /* MAD 0: none counted */
  stats_compute(x, 20, &st);
  CHECK(st.outliers == 0);
}

/* A planted stream: 90% of the samples within +-0.5% of 1000 ns, 10% slow
 * by 2x to 50x (preemption, heavy tail). The median is tight, the CV is not. */
static void test_heavy_tail_settles(void) {
  double x[400];
  for (int i = 0; i < 400; i++) {
    double u = uniform01();
    x[i] = 1000.0 * (1.0 + 0.005 * (2 * uniform01() - 1));
    if (u < 0.1) {
      double slow = 2.0 / pow(uniform01(), 0.9); /* Pareto-like, from 2x */
      x[i] *= slow > 50 ? 50 : slow;
    }
  }
  double noise;
  CHECK(stats_settled(x, 400, 0, 0.005, &noise)); /* median CI within 0.5% */
  CHECK(noise < 0.002);
  CHECK(!stats_settled(x, 400, 1, 0.005, &noise)); /* the CV rule never gets there */
  CHECK(noise > 0.5);
}

/* Bimodal: half the samples near 1000 ns, half near 1500 ns, interleaved at
 * random. The median sits between the modes; its interval spans both. */
static void test_bimodal_does_not_settle(void) {
  double x[400];
  for (int i = 0; i < 400; i++)
    x[i] = (uniform01() < 0.5 ? 1000.0 : 1500.0) * (1.0 + 0.001 * uniform01());
  double noise;
  CHECK(!stats_settled(x, 400, 0, 0.005, &noise));
  CHECK(!stats_settled(x, 400, 0, 0.02, &noise));
  CHECK(noise > 0.05);
  CHECK(!stats_settled(x, 1, 0, 1.0, &noise)); /* one sample never settles */
}

/* Shuffle x[0..n) in place (Fisher-Yates on the test's LCG). */
static void shuffle(double *x, size_t n) {
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(uniform01() * (double)(i + 1));
    if (j > i) j = i;
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}

/* A level shift: tight samples (+-0.3%) at 1000 ns, except a stretch of a
 * quarter of the run at 1050 ns (another tenant came and went). Taken in
 * that order, the run does not settle at 1%: a longer or later run would not
 * agree. The same samples in random order (no drift) do. */
static void test_level_shift_does_not_settle(void) {
  double x[400];
  for (int i = 0; i < 400; i++)
    x[i] = (i >= 100 && i < 200 ? 1050.0 : 1000.0) * (1.0 + 0.003 * (2 * uniform01() - 1));
  double noise;
  CHECK(!stats_settled(x, 400, 0, 0.01, &noise));
  CHECK(noise > 0.01);
  struct stats st;
  stats_compute(x, 400, &st);
  CHECK(st.drift > 0.01);
  CHECK((st.ci_hi - st.ci_lo) / 2 / st.median >= st.drift * (1 - 1e-12)); /* the wider is shown */
  shuffle(x, 400);
  CHECK(stats_settled(x, 400, 0, 0.01, &noise));
  CHECK(noise < 0.005);
}

/* Drift beyond 100% of the median (steady at 100 ns, the last block at
 * 100 us: a stall): the widened interval would reach below 0; a time
 * interval never does (the result reader drops a case with a negative
 * bound, which compare then showed as NO_DATA). */
static void test_huge_drift_lower_bound_not_negative(void) {
  double x[32];
  for (int i = 0; i < 32; i++) x[i] = i < 30 ? 100.0 + (double)(i % 3) : 100000.0;
  struct stats st;
  stats_compute(x, 32, &st);
  CHECK(st.drift * st.median > st.median); /* the case this test is about */
  CHECK(st.ci_lo >= 0.0);
  CHECK(st.ci_hi >= st.median);
}

/* Autocorrelated noise: AR(1) with coefficient 0.98 around 1000 ns (a slow
 * wander, +-0.5% typical). The independent-sample interval of 600 samples
 * says +-0.06%; the samples hold about as much information as ~6 independent
 * ones, and the rule must not claim 0.12%. Shuffled, they do settle. (Over
 * random streams of this kind, about 1.6% settle in order and 0.8% fail
 * shuffled at this target; this stream is fixed by the test's seed.) */
static void test_autocorrelated_does_not_settle(void) {
  double x[600], e = 0.0;
  for (int i = 0; i < 600; i++) {
    double g = 0.0; /* about normal: the sum of 12 uniforms, minus 6 */
    for (int k = 0; k < 12; k++) g += uniform01();
    e = 0.98 * e + 0.001 * (g - 6.0);
    x[i] = 1000.0 * (1.0 + e);
  }
  double noise;
  CHECK(!stats_settled(x, 600, 0, 0.0012, &noise));
  shuffle(x, 600);
  CHECK(stats_settled(x, 600, 0, 0.0012, &noise));
}

/* Batch sizes from calibration runs of a ~55 ns kernel with 30% jitter and
 * one run in five preempted (10x): always a power of two, and over 1000
 * repetitions never more than 2x apart. */
static void test_batch_stable(void) {
  int lo = 1 << 30, hi = 0;
  for (int rep = 0; rep < 1000; rep++) {
    double t[5];
    for (int i = 0; i < 5; i++) t[i] = 55.0 * (0.85 + 0.3 * uniform01());
    t[rep % 5] *= 10.0;
    int b = stats_batch_size(t, 5, 1e-3, 1 << 20);
    CHECK((b & (b - 1)) == 0);
    if (b < lo) lo = b;
    if (b > hi) hi = b;
  }
  CHECK(lo >= 16384 && hi <= 2 * lo);
  double one[1] = {2e6};
  CHECK(stats_batch_size(one, 1, 1e-3, 1 << 20) == 1); /* 2 ms: no batching */
  CHECK(stats_batch_size(one, 1, 0, 1 << 20) == 1);    /* batching off */
  double tiny[1] = {0.001};
  CHECK(stats_batch_size(tiny, 1, 1e-3, 1 << 20) == 1 << 20); /* capped */
}

/* The order statistics every layer shares: sort, sorted copy, medians
 * (the middle or the mean of the two middle ones), type-7 quantiles. */
static void test_order_statistics(void) {
  double x[] = {5, -1, 3, 3, 0.5, 9};
  double *s = stats_sorted_copy(x, 6);
  double want[] = {-1, 0.5, 3, 3, 5, 9};
  for (int i = 0; i < 6; i++) CHECK(s[i] == want[i]);
  CHECK(x[0] == 5 && x[5] == 9); /* the copy, not x */
  CHECK(stats_median_sorted(s, 6) == 3.0);
  CHECK(stats_median_sorted(s, 5) == 3.0);
  CHECK(stats_median(x, 6) == 3.0);
  CHECK(stats_median(x, 2) == 2.0); /* {5, -1} */
  CHECK(isnan(stats_median(x, 0)));
  CHECK(stats_quantile_sorted(s, 6, 0.0) == -1.0);
  CHECK(stats_quantile_sorted(s, 6, 1.0) == 9.0);
  CHECK_NEAR(stats_quantile_sorted(s, 6, 0.25), 1.125, EPS); /* R: quantile(x, .25) */
  free(s);
  stats_sort(x, 6);
  for (int i = 0; i < 6; i++) CHECK(x[i] == want[i]);
  double none[1] = {7};
  stats_sort(none, 0); /* nothing to do, nothing read */
  s = stats_sorted_copy(NULL, 0);
  CHECK(s != NULL);
  free(s);
  /* selection gives what the sort gives, ties and all */
  double r[101], c[101];
  for (size_t n = 1; n <= 101; n += 10) {
    for (size_t i = 0; i < n; i++) r[i] = (double)(i * 37 % 11);
    double *sorted = stats_sorted_copy(r, n);
    const double ps[] = {0.0, 0.025, 0.25, 0.5, 0.975, 1.0};
    for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
      memcpy(c, r, n * sizeof *c);
      CHECK(stats_quantile_select(c, n, ps[k]) == stats_quantile_sorted(sorted, n, ps[k]));
    }
    free(sorted);
  }
}

TEST_MAIN(TEST_ENTRY(test_empty), TEST_ENTRY(test_order_statistics), TEST_ENTRY(test_one), TEST_ENTRY(test_two),
          TEST_ENTRY(test_odd), TEST_ENTRY(test_even), TEST_ENTRY(test_r_type7),
          TEST_ENTRY(test_cv), TEST_ENTRY(test_large_offset),
          TEST_ENTRY(test_median_ci_ranks), TEST_ENTRY(test_outliers),
          TEST_ENTRY(test_heavy_tail_settles), TEST_ENTRY(test_bimodal_does_not_settle),
          TEST_ENTRY(test_level_shift_does_not_settle),
          TEST_ENTRY(test_huge_drift_lower_bound_not_negative),
          TEST_ENTRY(test_autocorrelated_does_not_settle),
          TEST_ENTRY(test_batch_stable))
