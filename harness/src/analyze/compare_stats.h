/* Statistics for comparing two sets of timing samples (bench compare,
 * history, report and --baseline): the ratio of medians with a bootstrap
 * confidence interval, the Mann-Whitney U test, the verdict, and the
 * geometric mean of ratios. Everything is deterministic: the bootstrap uses
 * a fixed seed, so the same files give the same output. */
#ifndef BENCH_COMPARE_STATS_H
#define BENCH_COMPARE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Median of x[0..n) (the mean of the two middle values when n is even, as
 * stats_compute); NAN when n == 0. x is not modified. */
double cs_median(const double *x, size_t n);

/* Two-sided p-value of the Mann-Whitney U test of a against b, by the
 * normal approximation with tie correction and continuity correction.
 * 1 when either side is empty or every value is tied. */
double cs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* Percentile bootstrap interval of median(b) / median(a) at the given
 * level (0.95): `resamples` resamples of each side drawn with a generator
 * seeded by `seed` (each resample's median is drawn directly from the
 * distribution of the middle order statistics, O(1) whatever the size). 0, or -1 when a side is empty or a resampled median of
 * a is not positive (then *lo and *hi are NAN). */
int cs_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                          unsigned resamples, uint64_t seed, double level, double *lo, double *hi);

#define CS_RESAMPLES 2000
#define CS_SEED UINT64_C(0x62656e6368) /* "bench" */

/* new / old: the ratio of medians (times: above 1 is slower), its 95%
 * interval and the Mann-Whitney p-value. The interval is the bootstrap's,
 * widened to at least ratio * (1 +- h) where h combines both sides' drift
 * (stats_block_drift_rel over the samples in the order taken): samples whose
 * level moved during a run are not independent, and the bootstrap alone
 * would call a drift a change. */
struct cs_ratio {
  double old_median, new_median;
  double ratio, lo, hi;
  double p;
};
/* 0, or -1 when a side has no samples or the old median is not positive. */
int cs_compare(const double *old, size_t nold, const double *new_, size_t nnew, struct cs_ratio *out);

enum cs_verdict { CS_SAME, CS_FASTER, CS_SLOWER, CS_NOISY };
const char *cs_verdict_name(enum cs_verdict v); /* "SAME", "FASTER", "SLOWER", "NOISY" */
/* SAME when the whole interval lies within [1 - threshold, 1 + threshold];
 * SLOWER when it lies wholly above 1 + threshold and FASTER wholly below
 * 1 - threshold, each only when p < alpha too; NOISY otherwise (the
 * interval straddles a bound, or the test cannot tell). */
enum cs_verdict cs_verdict_of(const struct cs_ratio *c, double threshold, double alpha);

/* exp(mean(log x)) over the positive finite values of x; NAN when none. */
double cs_geomean(const double *x, size_t n);

#endif
