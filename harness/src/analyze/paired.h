/* Paired statistics for bench ab: each round gives one paired log-ratio
 * log(new / old) of the two sides' block medians, and rounds belong to a
 * worker pair (fresh old and new processes). The unit is the worker pair:
 * the interquartile mean of each pair's round log-ratios (a quarter cut
 * from each end, so a round that another process hit as a whole does not
 * count, and the middle averaged, which scatters less than their median),
 * then Yuen's 20%-trimmed mean over the pairs with its winsorized standard
 * error and a Student t interval (h - 1 degrees of freedom, h the pairs
 * kept; plain t below 5 pairs); the ratio is exp of that mean. So the
 * interval counts the variation between processes (ASLR, page placement,
 * thread placement), which rounds within one process cannot show, and a
 * pair that landed badly as a whole does not decide the verdict. */
#ifndef BENCH_PAIRED_H
#define BENCH_PAIRED_H

#include <stddef.h>

#include "analyze/compare_stats.h"

/* The level of the t test behind FASTER and SLOWER (as bench compare). */
#define PAIRED_ALPHA 0.05

struct paired_est {
  size_t nrounds, npairs;
  double ratio, lo, hi; /* exp(mean), exp(mean -+ t * se): new / old */
  double p;             /* two-sided t test of mean == 0 (1 with fewer than 2 pairs) */
};

/* Two-sided p of Student's t with df degrees of freedom, and the quantile
 * t_{df, q} (q in (0.5, 1)). */
double paired_t_p(double t, double df);
double paired_t_quantile(double q, double df);

/* The estimate over logr[0..n) with the pair of each round in pair[0..n)
 * (ids need not be consecutive) at the given level (0.95). With fewer than
 * two pairs the interval is unbounded (lo 0, hi infinity). 0, or -1 when
 * n == 0. */
int paired_estimate(const double *logr, const int *pair, size_t n, double level,
                    struct paired_est *e);

/* The verdict of compare_stats.h on the estimate: SAME when the interval
 * lies within 1 +- threshold, SLOWER/FASTER when wholly outside it with
 * p < alpha, else NOISY. */
enum cs_verdict paired_verdict(const struct paired_est *e, double threshold, double alpha);

#endif
