/* stats_compute against hand- and R-computed values (quantile type 7,
 * sd with n-1), and Welford's running stats against it. */
#include <math.h>
#include <stdlib.h>

#include "stats.h"
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

  struct running_stats r = {0};
  for (int i = 0; i < 4; i++) running_stats_add(&r, x[i]);
  CHECK_NEAR(r.mean, 1e9 + 10, 1e-6);
  CHECK_NEAR(running_stats_cv(&r), sqrt(30.0) / (1e9 + 10), 1e-12);
}

static void test_running(void) {
  struct running_stats r = {0};
  CHECK(running_stats_cv(&r) == 0.0);
  running_stats_add(&r, 5.0);
  CHECK(r.n == 1);
  CHECK(running_stats_cv(&r) == 0.0); /* n < 2 */

  double x[200];
  unsigned seed = 12345;
  r = (struct running_stats){0};
  for (int i = 0; i < 200; i++) {
    seed = seed * 1103515245u + 12345u;
    x[i] = 1000.0 + (double)(seed >> 16 & 0x7fff) / 327.68;
    running_stats_add(&r, x[i]);
  }
  struct stats s;
  stats_compute(x, 200, &s);
  CHECK(r.n == 200);
  CHECK_NEAR(r.mean, s.mean, 1e-9);
  CHECK_NEAR(running_stats_cv(&r), s.cv, 1e-12);
}

TEST_MAIN(TEST_ENTRY(test_empty), TEST_ENTRY(test_one), TEST_ENTRY(test_two),
          TEST_ENTRY(test_odd), TEST_ENTRY(test_even), TEST_ENTRY(test_r_type7),
          TEST_ENTRY(test_cv), TEST_ENTRY(test_large_offset), TEST_ENTRY(test_running))
