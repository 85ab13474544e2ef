/* analyze/paired.c: Student t quantiles and p-values against published
 * values, the pair as the unit of the interval, and the verdicts. */
#include "analyze/paired.h"

#include <math.h>
#include <stdint.h>

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

/* One pair of ten that landed badly as a whole (every round of it 30% off)
 * does not move the ratio (Hodges-Lehmann) nor the interval's lower end: a
 * 1% change is still SLOWER at a 0.5% threshold. The upper end reaches
 * toward that pair (it is a pair the data has), as it should. */
static void test_outlier_pair_does_not_decide(void) {
  double lr[40];
  int pair[40];
  for (int i = 0; i < 40; i++) {
    pair[i] = i / 4;
    lr[i] = log(1.01) + ((i % 4) - 1.5) * 0.001 + ((i / 4) % 3 - 1) * 0.0005;
  }
  for (int i = 12; i < 16; i++) lr[i] = log(1.30);
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 40, 0.95, &e) == 0);
  CHECK(e.npairs == 10);
  CHECK_NEAR(log(e.ratio), log(1.01), 1e-3);
  CHECK(e.lo > 1.005 && e.lo < 1.01);
  CHECK(paired_verdict(&e, 0.005, PAIRED_ALPHA) == CS_SLOWER);
}

/* The rank interval against the table: ten pairs at 1..10 (one round
 * each), 95%: the signed-rank critical value is 8, so the interval runs
 * from the 9th smallest of the 55 Walsh averages (3.0) to the 9th largest
 * (8.0), around their median 5.5. */
static void test_rank_interval_table(void) {
  double lr[10];
  int pair[10];
  for (int i = 0; i < 10; i++) {
    pair[i] = i;
    lr[i] = (i + 1) * 0.01;
  }
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 10, 0.95, &e) == 0);
  CHECK_NEAR(log(e.ratio), 0.055, 1e-12);
  CHECK_NEAR(log(e.lo), 0.030, 1e-12);
  CHECK_NEAR(log(e.hi), 0.080, 1e-12);
  /* every value positive: exact p = 2 / 2^10 */
  CHECK_NEAR(e.p, 2.0 / 1024, 1e-12);
  /* 99.9% needs 2^-n <= 0.0005: not with 10 pairs, so Student's t stands
   * in (mean 0.055, sd 0.0303, t(0.9995, 9) 4.781) */
  CHECK(e.rank);
  REQUIRE(paired_estimate(lr, pair, 10, 0.999, &e) == 0);
  CHECK(!e.rank);
  CHECK_NEAR(log(e.hi) - 0.055, 4.781 * 0.030277 / sqrt(10.0), 2e-3);
  /* six pairs reach 95% by ranks (2^-6 <= 0.025) but not 98% */
  REQUIRE(paired_estimate(lr, pair, 6, 0.95, &e) == 0);
  CHECK(e.rank);
  REQUIRE(paired_estimate(lr, pair, 6, 0.98, &e) == 0);
  CHECK(!e.rank);
}

/* Pairs from a memory-bound kernel on a shared VM (identical builds; each
 * process fast or slow by where its pages landed): eight of ten pairs near
 * +15%, two at -13% and -26%. Yuen's trimmed mean cut the two and called it
 * SLOWER at 99.85%; these pairs cannot tell. */
static void test_modes_are_not_a_change(void) {
  const double pct[10] = {21.2, -13.5, 14.8, 16.2, 14.6, -26.2, 12.4, 17.1, 14.3, 9.3};
  double lr[10];
  int pair[10];
  for (int i = 0; i < 10; i++) {
    pair[i] = i;
    lr[i] = pct[i] / 100;
  }
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 10, 0.9985, &e) == 0);
  CHECK(paired_verdict(&e, 0.005, 0.0015) == CS_NOISY);
  CHECK(e.lo < 1.0);
}

/* Coverage by simulation: no change, pair levels from a two-mode mixture
 * (+-8% with probability 1/2 each, plus 1% normal noise), 20 pairs; the 95%
 * interval holds the true ratio 1 in at least 93% of 4000 experiments and
 * no verdict is FASTER or SLOWER in more than 5.5%. */
static uint64_t rng_state = 0x243f6a8885a308d3ull;
static double uniform(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static void test_coverage_of_modes(void) {
  int covered = 0, alarms = 0, runs = 4000;
  for (int r = 0; r < runs; r++) {
    double lr[20];
    int pair[20];
    for (int i = 0; i < 20; i++) {
      double z = sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
      pair[i] = i;
      lr[i] = (uniform() < 0.5 ? -0.08 : 0.08) + 0.01 * z;
    }
    struct paired_est e;
    REQUIRE(paired_estimate(lr, pair, 20, 0.95, &e) == 0);
    covered += e.lo <= 1 && 1 <= e.hi;
    enum cs_verdict v = paired_verdict(&e, 0.005, PAIRED_ALPHA);
    alarms += v == CS_FASTER || v == CS_SLOWER;
  }
  CHECK(covered >= 0.93 * runs);
  CHECK(alarms <= 0.055 * runs);
}

/* The variance components: pairs at 0 and 0.1 alternately (between), each
 * of four rounds +-0.01 around its level (within). */
static void test_variance_components(void) {
  double lr[80];
  int pair[80];
  for (int i = 0; i < 80; i++) {
    pair[i] = i / 4;
    lr[i] = ((i / 4) % 2) * 0.1 + ((i % 2) ? 0.01 : -0.01);
  }
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 80, 0.95, &e) == 0);
  /* within: sd of +-0.01 with 3 df a pair: sqrt(4 * 1e-4 / 3) */
  CHECK_NEAR(e.sd_within, sqrt(4e-4 / 3), 1e-9);
  /* between: var of the levels 0.05^2 * 20/19, less within^2 / 4 */
  CHECK_NEAR(e.sd_between, sqrt(0.0025 * 20.0 / 19 - 4e-4 / 3 / 4), 1e-9);
  CHECK_NEAR(e.se, sqrt(0.0025 * 20.0 / 19 / 20), 1e-9);
}

/* Within a pair the interquartile mean: with 8 rounds the middle 4 are
 * averaged, the two largest and two smallest cut. */
static void test_pair_unit_is_interquartile_mean(void) {
  double lr[16] = {5, 0.01, 0.02, 0.03, 0.04, -5, 0.14, 9,  /* pair 0 */
                   5, 0.01, 0.02, 0.03, 0.04, -5, 0.14, 9}; /* pair 1 */
  int pair[16];
  for (int i = 0; i < 16; i++) pair[i] = i / 8;
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 16, 0.95, &e) == 0);
  /* sorted: -5 .01 .02 .03 .04 .14 5 9: cut 2 each end -> mean(.02 .03 .04
   * .14) = .0575 (the median would be .035) */
  CHECK_NEAR(log(e.ratio), 0.0575, 1e-12);
}

/* p of a large t is tiny for any df: the rule once read 0.2 at t = 5000
 * (df 33), and an exact 4x difference between two tunings was NOISY. */
static void test_large_t_has_tiny_p(void) {
  const double ts[] = {3, 10, 60, 500, 2000, 5000, 9000, 2e4, 1e8};
  for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
    CHECK(paired_t_p(ts[i], 33) < 0.01);
    CHECK(paired_t_p(-ts[i], 33) < 0.01);
  }
  CHECK(paired_t_p(5000, 1) < 0.001); /* Cauchy: 2/(pi 5000) */
  CHECK_NEAR(paired_t_p(60, 1), 0.0106, 5e-4); /* 1 - 2 atan(60)/pi */
  CHECK_NEAR(paired_t_p(2.0345, 33), 0.05, 2e-3);
  double lr[40];
  int pair[40];
  for (int i = 0; i < 40; i++) {
    pair[i] = i / 4;
    lr[i] = log(0.255) + ((i * 7) % 5 - 2) * 2e-5; /* nearly exact */
  }
  struct paired_est e;
  REQUIRE(paired_estimate(lr, pair, 40, 0.95, &e) == 0);
  CHECK(paired_verdict(&e, 0.2, PAIRED_ALPHA) == CS_FASTER);
}

TEST_MAIN(TEST_ENTRY(test_t_quantiles), TEST_ENTRY(test_large_t_has_tiny_p), TEST_ENTRY(test_outlier_pair_does_not_decide),
          TEST_ENTRY(test_rank_interval_table), TEST_ENTRY(test_modes_are_not_a_change),
          TEST_ENTRY(test_coverage_of_modes), TEST_ENTRY(test_variance_components),
          TEST_ENTRY(test_pair_unit_is_interquartile_mean), TEST_ENTRY(test_pairs_are_the_unit),
          TEST_ENTRY(test_one_pair_has_no_interval), TEST_ENTRY(test_verdicts))
