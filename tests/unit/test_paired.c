/* analyze/paired.c: Student t quantiles and p-values against published
 * values, the pair as the unit of the interval, and the verdicts. */
#include "analyze/paired.h"

#include <math.h>

#include "test.h"

static void test_t_quantiles(void) {
  /* two-sided 95% and 99% critical values of Student's t */
  CHECK_NEAR(paired_t_quantile(0.975, 1), 12.706, 2e-3);
  CHECK_NEAR(paired_t_quantile(0.975, 3), 3.182, 1e-3);
  CHECK_NEAR(paired_t_quantile(0.975, 10), 2.228, 1e-3);
  CHECK_NEAR(paired_t_quantile(0.995, 3), 5.841, 2e-3);
  CHECK_NEAR(paired_t_quantile(0.975, 1000), 1.962, 2e-3);
  CHECK_NEAR(paired_t_p(2.228, 10), 0.05, 1e-3);
  CHECK_NEAR(paired_t_p(0, 5), 1.0, 1e-9);
  CHECK(paired_t_p(50, 5) < 1e-6);
}

static void test_pairs_are_the_unit(void) {
  /* three pairs of three rounds; the rounds within a pair agree tightly but
   * the pairs differ: the interval follows the pairs' spread */
  double lr[9];
  int pair[9];
  const double level[3] = {0.01, 0.03, 0.02};
  for (int i = 0; i < 9; i++) {
    pair[i] = 10 + i / 3;
    lr[i] = level[i / 3] + (i % 3 - 1) * 1e-5;
  }
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 9, 0.95, &e) == 0);
  CHECK(e.npairs == 3 && e.nrounds == 9);
  CHECK_NEAR(log(e.ratio), 0.02, 1e-9);
  /* sd of the pair medians 0.01, se 0.01/sqrt(3), t(0.975, 2) 4.303 */
  double half = 4.303 * 0.01 / sqrt(3.0);
  CHECK_NEAR(log(e.hi) - 0.02, half, 1e-3);
  CHECK_NEAR(0.02 - log(e.lo), half, 1e-3);
  /* a round hit as a whole by another process counts once: the median */
  lr[4] = 1.0;
  REQUIRE(paired_estimate(lr, pair, 9, 0.95, &e) == 0);
  CHECK_NEAR(log(e.ratio), 0.02, 1e-4);
}

static void test_one_pair_has_no_interval(void) {
  double lr[3] = {0.1, 0.1, 0.1};
  int pair[3] = {0, 0, 0};
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 3, 0.95, &e) == 0);
  CHECK(isinf(e.hi));
  CHECK(paired_verdict(&e, 0.05, PAIRED_ALPHA) == CS_NOISY);
  CHECK(paired_estimate(lr, pair, 0, 0.95, &e) == -1);
}

static void test_verdicts(void) {
  double lr[12];
  int pair[12];
  for (int i = 0; i < 12; i++) {
    pair[i] = i / 2;
    lr[i] = log(1.30) + ((i % 4) - 1.5) * 0.002;
  }
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 12, 0.95, &e) == 0);
  CHECK(paired_verdict(&e, 0.05, PAIRED_ALPHA) == CS_SLOWER);
  for (int i = 0; i < 12; i++) lr[i] = -lr[i];
  REQUIRE(paired_estimate(lr, pair, 12, 0.95, &e) == 0);
  CHECK(paired_verdict(&e, 0.05, PAIRED_ALPHA) == CS_FASTER);
  for (int i = 0; i < 12; i++) lr[i] = ((i % 4) - 1.5) * 0.002;
  REQUIRE(paired_estimate(lr, pair, 12, 0.95, &e) == 0);
  CHECK(paired_verdict(&e, 0.01, PAIRED_ALPHA) == CS_SAME);
  /* a 1% change inside a 5% band is SAME, not SLOWER */
  for (int i = 0; i < 12; i++) lr[i] = log(1.01) + ((i % 4) - 1.5) * 0.002;
  REQUIRE(paired_estimate(lr, pair, 12, 0.95, &e) == 0);
  CHECK(paired_verdict(&e, 0.05, PAIRED_ALPHA) == CS_SAME);
  CHECK(paired_verdict(&e, 0.002, PAIRED_ALPHA) == CS_SLOWER);
}

TEST_MAIN(TEST_ENTRY(test_t_quantiles), TEST_ENTRY(test_pairs_are_the_unit),
          TEST_ENTRY(test_one_pair_has_no_interval), TEST_ENTRY(test_verdicts))
