/* Order statistics (sorting, medians, quantiles) and summary statistics of
 * a set of timing samples. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

struct stats {
  size_t n;
  double min, q1, median, q3, max; /* quartiles by linear interpolation (type 7) */
  double mean, stddev;             /* sample standard deviation (n-1); 0 if n < 2 */
  double cv;                       /* stddev / mean: relative noise; 0 if mean == 0 */
  double ci_lo, ci_hi;             /* 95% confidence interval of the median: the wider of
                                      the order-statistic interval (binomial; [min, max]
                                      below 6 samples) and median +- drift */
  double drift;                    /* relative half-width of the 95% interval from the
                                      medians of up to 16 consecutive blocks of the
                                      samples in the order taken (Student's t over the
                                      block medians, "batch means"): it widens when the
                                      level moves during the run, which the order-
                                      statistic interval, assuming independent samples,
                                      does not see. 0 below 16 samples */
  size_t outliers;                 /* samples with a modified z-score |0.6745 (x - median)
                                      / MAD| above 3.5 (Iglewicz-Hoaglin; hyperfine's idea) */
};

/* Order statistics: the one home of sorting and medians of doubles (every
 * layer above calls these rather than keeping its own comparator). */
/* Sort x[0..n) ascending in place. */
void stats_sort(double *x, size_t n);
/* A sorted copy of x[0..n) (malloc'd; never NULL, also for n == 0). */
double *stats_sorted_copy(const double *x, size_t n);
/* Quantile p (0..1) of sorted x[0..n), n >= 1: R's type 7 (linear
 * interpolation between the order statistics at h = (n-1)p); struct stats'
 * quartiles and median. */
double stats_quantile_sorted(const double *x, size_t n, double p);
/* stats_quantile_sorted's value for x[0..n) in any order, n >= 1, in O(n)
 * (Hoare's select) rather than a sort; x is rearranged. */
double stats_quantile_select(double *x, size_t n, double p);
/* The median of sorted s[0..n) as the middle value, or the mean of the two
 * middle ones (the comparisons' median); NAN when n == 0. */
double stats_median_sorted(const double *s, size_t n);
/* stats_median_sorted of x[0..n) in any order (x is not modified). */
double stats_median(const double *x, size_t n);

/* Compute stats over x[0..n), in the order the samples were taken (the drift
 * term reads the order). n == 0 gives all zeros. x is not modified. */
void stats_compute(const double *x, size_t n, struct stats *out);

/* The 95% confidence interval of the median of sorted x[0..n): the order
 * statistics x[k-1], x[n-k] with the largest k whose binomial coverage is at
 * least 95% (exact up to 1000 samples, the normal approximation above); for
 * n < 6 no k reaches 95% and [min, max] is given. n == 0: zeros. */
void stats_median_ci_sorted(const double *x, size_t n, double *lo, double *hi);
/* The drift term of struct stats over x[0..n) in the order taken, relative
 * to median; 0 when n < 16 (fewer than 8 blocks of 2). */
double stats_block_drift_rel(const double *x, size_t n, double median);

/* Has a timing settled? noise gets the stopping statistic over x[0..n), in
 * the order the samples were taken: use_cv: the coefficient of variation;
 * else the relative half-width of the median's 95% confidence interval, the
 * larger of the order-statistic one and the block-median drift term (so
 * samples that are tight but drifting, autocorrelated, do not settle early).
 * Returns 1 when n >= 2 and noise <= target. Heavy tails with a tight median
 * settle under the interval rule, not under the CV. */
int stats_settled(const double *x, size_t n, int use_cv, double target, double *noise);

/* Iterations per sample so that a sample lasts at least batch_min_s, from
 * per-iteration times of several calibration runs (their median: one slow
 * run does not move it), rounded up to a power of two (so repeated runs
 * agree or differ by 2x at a boundary), at most max_batch. 1 when batching
 * is off (batch_min_s <= 0) or the iteration is long enough. */
int stats_batch_size(const double *iter_ns, size_t n, double batch_min_s, int max_batch);

#endif
