/* Statistics of bench compare: medians, Mann-Whitney U against known
 * values, the bootstrap interval (reproducible, covering the truth about
 * 95% of the time), verdicts and geometric means. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/compare_case.h"
#include "analyze/compare_stats.h"
#include "test.h"

static void test_median(void) {
  double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
  CHECK_NEAR(cs_median(odd, 3), 3.0, 0);
  CHECK_NEAR(cs_median(even, 4), 2.5, 0);
  CHECK(isnan(cs_median(odd, 0)));
  CHECK(odd[0] == 5); /* not modified */
}

static void test_mann_whitney(void) {
  /* scipy.stats.mannwhitneyu(a, b, method="asymptotic") gives 0.0121857803553448 */
  double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
  CHECK_NEAR(cs_mann_whitney_p(a, 5, b, 5), 0.012185780355344818, 1e-12);
  CHECK_NEAR(cs_mann_whitney_p(b, 5, a, 5), 0.012185780355344818, 1e-12);
  /* ties: mid-ranks and the tie-corrected variance (R: wilcox.test(exact=FALSE)) */
  double c[] = {1, 1, 2, 3}, d[] = {2, 3, 3, 4, 5};
  CHECK_NEAR(cs_mann_whitney_p(c, 4, d, 5), 0.078545850951190696, 1e-12);
  /* identical samples: no evidence at all */
  CHECK_NEAR(cs_mann_whitney_p(a, 5, a, 5), 1.0, 1e-12);
  double same[] = {7, 7, 7};
  CHECK_NEAR(cs_mann_whitney_p(same, 3, same, 3), 1.0, 0);
  CHECK_NEAR(cs_mann_whitney_p(a, 0, b, 5), 1.0, 0);
}

/* Deterministic pseudo-random samples around `center` with ~2% spread. */
static void fill(double *x, size_t n, double center, uint32_t *seed) {
  for (size_t i = 0; i < n; i++) {
    *seed = *seed * 1103515245u + 12345u;
    double u = (double)((*seed >> 8) & 0xffff) / 65536.0;
    *seed = *seed * 1103515245u + 12345u;
    double v = (double)((*seed >> 8) & 0xffff) / 65536.0;
    x[i] = center * (1.0 + 0.02 * (u + v - 1.0));
  }
}

static void test_bootstrap_reproducible(void) {
  double a[40], b[40];
  uint32_t seed = 1;
  fill(a, 40, 100, &seed);
  fill(b, 40, 150, &seed);
  double lo1, hi1, lo2, hi2;
  REQUIRE(cs_bootstrap_ratio_ci(a, 40, b, 40, 2000, 42, 0.95, &lo1, &hi1) == 0);
  REQUIRE(cs_bootstrap_ratio_ci(a, 40, b, 40, 2000, 42, 0.95, &lo2, &hi2) == 0);
  CHECK(lo1 == lo2 && hi1 == hi2);
  double ratio = cs_median(b, 40) / cs_median(a, 40);
  CHECK(lo1 < ratio && ratio < hi1);
  CHECK(lo1 > 1.4 && hi1 < 1.6);
  /* a wider level gives a wider interval */
  double lo3, hi3;
  REQUIRE(cs_bootstrap_ratio_ci(a, 40, b, 40, 2000, 42, 0.5, &lo3, &hi3) == 0);
  CHECK(lo3 >= lo1 && hi3 <= hi1 && hi3 - lo3 < hi1 - lo1);
  CHECK(cs_bootstrap_ratio_ci(a, 0, b, 40, 2000, 42, 0.95, &lo1, &hi1) == -1 && isnan(lo1));
}

/* Pairs drawn from one distribution: the 95% interval of the ratio holds 1
 * in most of them (about 95%; a loose band keeps the test from flaking,
 * yet an interval that is far too narrow or too wide fails it). */
static void test_bootstrap_coverage(void) {
  uint32_t seed = 7;
  int covered = 0, trials = 200;
  double width = 0;
  for (int t = 0; t < trials; t++) {
    double a[25], b[25], lo, hi;
    fill(a, 25, 10, &seed);
    fill(b, 25, 10, &seed);
    cs_bootstrap_ratio_ci(a, 25, b, 25, 1000, CS_SEED + (uint64_t)t, 0.95, &lo, &hi);
    covered += lo <= 1.0 && 1.0 <= hi;
    width += hi - lo;
  }
  CHECK(covered >= 180 && covered <= 199);
  CHECK(width / trials > 0.002 && width / trials < 0.03);
}

static void test_compare(void) {
  double a[30], b[30];
  uint32_t seed = 3;
  fill(a, 30, 200, &seed);
  fill(b, 30, 100, &seed);
  struct cs_ratio c;
  REQUIRE(cs_compare(a, 30, b, 30, &c) == 0);
  CHECK_NEAR(c.ratio, cs_median(b, 30) / cs_median(a, 30), 1e-15);
  CHECK(c.lo <= c.ratio && c.ratio <= c.hi);
  CHECK(c.p < 1e-6);
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_FASTER);
  REQUIRE(cs_compare(b, 30, a, 30, &c) == 0);
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_SLOWER);
  REQUIRE(cs_compare(a, 30, a, 30, &c) == 0);
  CHECK(c.ratio == 1.0 && c.p > 0.9);
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_SAME);
  CHECK(cs_compare(a, 30, b, 0, &c) == -1);
  double zero[] = {0, 0};
  CHECK(cs_compare(zero, 2, b, 30, &c) == -1);
}

static double uniform(uint32_t *seed) { /* [0, 1) */
  *seed = *seed * 1103515245u + 12345u;
  return (double)((*seed >> 8) & 0xffff) / 65536.0;
}

/* A new run 1.5% slower whose level wandered (AR(1), coefficient 0.98, +-2%)
 * against a steady old run: with the samples taken as independent the ratio
 * is sure to be above 1.01 (SLOWER); in the order taken, the drift widens
 * the interval and the verdict is NOISY. Shuffled, SLOWER again. */
static void test_compare_drift(void) {
  double a[600], b[600], e = 0.0;
  uint32_t seed = 11;
  fill(a, 600, 1000, &seed);
  for (int i = 0; i < 600; i++) {
    double g = 0.0;
    for (int k = 0; k < 12; k++) g += uniform(&seed);
    e = 0.98 * e + 0.004 * (g - 6.0);
    b[i] = 1015.0 * (1.0 + e);
  }
  struct cs_ratio c;
  REQUIRE(cs_compare(a, 600, b, 600, &c) == 0);
  CHECK(c.lo <= c.ratio && c.ratio <= c.hi);
  CHECK(cs_verdict_of(&c, 0.01, 0.05) == CS_NOISY);
  double wide = c.hi - c.lo;
  for (int i = 599; i > 0; i--) { /* shuffle: the same values, no drift */
    int j = (int)(uniform(&seed) * (i + 1));
    if (j > i) j = i;
    double t = b[i];
    b[i] = b[j];
    b[j] = t;
  }
  REQUIRE(cs_compare(a, 600, b, 600, &c) == 0);
  CHECK(c.hi - c.lo < wide / 2);
  CHECK(cs_verdict_of(&c, 0.01, 0.05) == CS_SLOWER);
}

static void test_verdict_rules(void) {
  struct cs_ratio c = {.ratio = 1.0, .lo = 0.97, .hi = 1.04, .p = 0.5};
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_SAME);
  c = (struct cs_ratio){.ratio = 1.2, .lo = 1.1, .hi = 1.3, .p = 0.001};
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_SLOWER);
  CHECK(cs_verdict_of(&c, 0.5, 0.05) == CS_SAME); /* a looser threshold */
  c.p = 0.2; /* beyond the threshold, but the rank test cannot tell */
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_NOISY);
  c = (struct cs_ratio){.ratio = 0.8, .lo = 0.7, .hi = 0.9, .p = 0.001};
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_FASTER);
  c = (struct cs_ratio){.ratio = 1.06, .lo = 1.01, .hi = 1.11, .p = 0.001};
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_NOISY); /* straddles 1.05 */
  c = (struct cs_ratio){.ratio = 1.0, .lo = 0.9, .hi = 1.1, .p = 0.9};
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_NOISY); /* straddles both */
  c = (struct cs_ratio){.ratio = NAN, .lo = NAN, .hi = NAN, .p = 1};
  CHECK(cs_verdict_of(&c, 0.05, 0.05) == CS_NOISY);
  CHECK_STR(cs_verdict_name(CS_SLOWER), "SLOWER");
}

static void test_between_run(void) {
  CHECK_NEAR(cs_t975(1), 12.706, 1e-9);
  CHECK_NEAR(cs_t975(30), 2.0423, 0.001); /* beyond the table */
  CHECK_NEAR(cs_t975(INFINITY), 1.96, 0.0001);
  CHECK(cs_t975(2.5) < 4.303 && cs_t975(2.5) > 3.182);
  CHECK_NEAR(cs_between_default("cpu", 4), 0.20, 1e-12);
  CHECK_NEAR(cs_between_default("no-such-backend", 4), cs_between_default("cpu", 4), 0);
  CHECK_STR(cs_term_name(CS_TERM_POOLED), "pooled");

  /* one run a side, no history: the default term, sigma = the prior */
  double a[40], b[40];
  for (int i = 0; i < 40; i++) a[i] = b[i] = 1000.0 + (double)(i % 5);
  const double *xa[] = {a}, *xb[] = {b};
  size_t n1[] = {40};
  struct cs_side so = {.nruns = 1, .x = xa, .n = n1, .prior = 0.1}, sn = so;
  sn.x = xb;
  struct cs_ratio r;
  struct cs_noise no, nn;
  REQUIRE(cs_compare_sides(&so, &sn, 0, &r, &no, &nn) == 0);
  CHECK(no.term == CS_TERM_DEFAULT && nn.term == CS_TERM_DEFAULT && no.sigma == 0.1 && isinf(no.df));
  CHECK_NEAR(r.ratio, 1.0, 1e-12);
  CHECK(r.lo <= exp(-1.959964 * sqrt(0.02)) + 1e-9 && r.hi >= exp(1.959964 * sqrt(0.02)) - 1e-9);
  /* the same runs on both sides: no term, only the within-run interval */
  REQUIRE(cs_compare_sides(&so, &so, 1, &r, &no, &nn) == 0);
  CHECK(no.term == CS_TERM_NONE && no.sigma == 0 && r.lo <= 1.0 && r.hi >= 1.0 && r.hi / r.lo < 1.01);

  /* three runs a side at 1000, 1020, 1040 and 1.2 times that: pooled, the
   * level the geometric mean, the spread theirs with 2 degrees of freedom */
  double p[3][10], q[3][10];
  const double *xp[3], *xq[3];
  size_t n10[] = {10, 10, 10};
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 10; i++) p[k][i] = 1000.0 + 20.0 * k, q[k][i] = 1.2 * p[k][i];
    xp[k] = p[k], xq[k] = q[k];
  }
  struct cs_side po = {.nruns = 3, .x = xp, .n = n10, .prior = 0.1}, pn = po;
  pn.x = xq;
  REQUIRE(cs_compare_sides(&po, &pn, 0, &r, &no, &nn) == 0);
  CHECK(no.term == CS_TERM_POOLED && no.df == 2 && no.runs == 3 && no.samples == 30);
  CHECK_NEAR(r.old_median, exp((log(1000) + log(1020) + log(1040)) / 3), 1e-9);
  CHECK_NEAR(r.ratio, 1.2, 1e-12);
  CHECK_NEAR(no.se, no.sigma / sqrt(3), 1e-15);
  CHECK(no.sigma > 0.015 && no.sigma < 0.025 && r.lo > 1.05 && r.hi < 1.35);
  /* one run with a history of medians: the history term */
  double hist[] = {1000, 1300, 700};
  struct cs_side sh = so;
  sh.hist_medians = hist, sh.nhist = 3;
  REQUIRE(cs_compare_sides(&sh, &sn, 0, &r, &no, &nn) == 0);
  CHECK(no.term == CS_TERM_HISTORY && no.df == 2 && no.sigma > 0.2 && no.history == 3);
  /* the run's own median is not in its spread: a tight history stays tight
   * whatever this run measured */
  double tight[] = {800, 801, 799}; /* this run is at 1000: 25% off them */
  sh.hist_medians = tight;
  REQUIRE(cs_compare_sides(&sh, &sn, 0, &r, &no, &nn) == 0);
  CHECK(no.term == CS_TERM_HISTORY && no.sigma < 0.006);
}

/* The default term follows the machine a run recorded: steady runs take
 * the small figure, busy and unknown ones the conservative one. */
static void test_machine_default(void) {
  CHECK_NEAR(cs_between_default_on("cpu", 4, CS_MACHINE_STEADY), CS_STEADY_A + CS_STEADY_B / 2, 1e-12);
  CHECK_NEAR(cs_between_default_on("cpu", 4, CS_MACHINE_BUSY), cs_between_default("cpu", 4), 0);
  CHECK_NEAR(cs_between_default_on("cpu", 4, CS_MACHINE_UNKNOWN), cs_between_default("cpu", 4), 0);
  struct run_steady quiet = {1, 10.0, 0.1, 0.1, 0.0, 0.1, 0.01, -0.01, 0.0};
  CHECK(compare_machine_of(&quiet) == CS_MACHINE_STEADY);
  CHECK(compare_machine_of(NULL) == CS_MACHINE_UNKNOWN);
  struct run_steady m = quiet;
  m.known = 0;
  CHECK(compare_machine_of(&m) == CS_MACHINE_UNKNOWN);
  m = quiet, m.steal = NAN;
  CHECK(compare_machine_of(&m) == CS_MACHINE_UNKNOWN);
  m = quiet, m.others_end = 0.5; /* one other thread runnable on 2 CPUs */
  CHECK(compare_machine_of(&m) == CS_MACHINE_BUSY);
  m = quiet, m.contention = 0.2;
  CHECK(compare_machine_of(&m) == CS_MACHINE_BUSY);
  m = quiet, m.drift = -0.1;
  CHECK(compare_machine_of(&m) == CS_MACHINE_BUSY);
  m = quiet, m.steal = 0.05;
  CHECK(compare_machine_of(&m) == CS_MACHINE_BUSY);
  m = quiet, m.others_start = NAN;
  CHECK(compare_machine_of(&m) == CS_MACHINE_BUSY);
  m = quiet, m.load_start = 5.0; /* recorded, not judged */
  CHECK(compare_machine_of(&m) == CS_MACHINE_STEADY);
  /* a 20% change from one run a side of 40 samples: SLOWER only when both
   * runs were steady */
  double a[40], b[40];
  for (int i = 0; i < 40; i++) a[i] = 1000 + (i % 5), b[i] = 1200 + (i % 5);
  const double *xa = a, *xb = b;
  size_t n = 40;
  struct cs_side so = {.nruns = 1, .x = &xa, .n = &n, .prior = cs_between_default_on("cpu", 40, CS_MACHINE_STEADY),
                       .machine = CS_MACHINE_STEADY};
  struct cs_side sn = so;
  sn.x = &xb;
  struct cs_ratio r;
  struct cs_noise no, nn;
  REQUIRE(cs_compare_sides(&so, &sn, 0, &r, &no, &nn) == 0);
  CHECK(cs_verdict_of(&r, 0.05, 0.05) == CS_SLOWER && no.machine == CS_MACHINE_STEADY);
  so.prior = cs_between_default_on("cpu", 40, CS_MACHINE_BUSY), so.machine = CS_MACHINE_BUSY;
  REQUIRE(cs_compare_sides(&so, &sn, 0, &r, &no, &nn) == 0);
  CHECK(cs_verdict_of(&r, 0.05, 0.05) == CS_NOISY && no.machine == CS_MACHINE_BUSY);
}

static void test_geomean(void) {
  double x[] = {2, 0.5}, y[] = {1, 4, NAN, -1, 0};
  CHECK_NEAR(cs_geomean(x, 2), 1.0, 1e-15);
  CHECK_NEAR(cs_geomean(y, 5), 2.0, 1e-15);
  CHECK(isnan(cs_geomean(y + 2, 3)));
}

TEST_MAIN(TEST_ENTRY(test_median), TEST_ENTRY(test_mann_whitney), TEST_ENTRY(test_bootstrap_reproducible),
          TEST_ENTRY(test_bootstrap_coverage), TEST_ENTRY(test_compare), TEST_ENTRY(test_compare_drift),
          TEST_ENTRY(test_verdict_rules), TEST_ENTRY(test_between_run), TEST_ENTRY(test_machine_default),
          TEST_ENTRY(test_geomean))
