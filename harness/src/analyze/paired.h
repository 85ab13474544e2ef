/* Paired statistics for bench ab: each round gives one paired log-ratio
 * log(new / old) of the two sides' block medians, and rounds belong to a
 * worker pair (fresh old and new processes). The unit is the worker pair:
 * the interquartile mean of each pair's round log-ratios (a quarter cut
 * from each end, so a round that another process hit as a whole does not
 * count, and the middle averaged, which scatters less than their median),
 * then the pairs' levels combined by Hodges-Lehmann (the median of their
 * Walsh averages) with the Wilcoxon signed-rank interval, inverted exactly
 * (the normal approximation past PAIRED_EXACT_MAX pairs); the ratio is exp
 * of that location. So the interval counts the variation between processes
 * (ASLR, page placement, thread placement), which rounds within one process
 * cannot show; it holds for any symmetric spread of the pairs' levels (the
 * random order of spawns and rounds makes it symmetric: old and new are
 * exchangeable but for the change) with no assumption of normality, so
 * neither a pair that landed badly as a whole nor a spread with several
 * modes (a memory-bound kernel's processes fast or slow by where their
 * pages landed) decides the verdict. (Yuen's 20%-trimmed mean, used before,
 * cut the pairs that disagreed with a cluster and called two identical
 * builds 15% apart.) With too few pairs for the rank interval to reach the
 * level (2^-n > alpha / 2: 6 pairs for 95%, 11 for 99.9%) the interval is
 * Student's t over the pairs' levels. */
#ifndef BENCH_PAIRED_H
#define BENCH_PAIRED_H

#include <stddef.h>

#include "analyze/compare_stats.h"

/* The level of the test behind FASTER and SLOWER (as bench compare). */
#define PAIRED_ALPHA 0.05
/* The signed-rank distribution is exact up to this many pairs; the Walsh
 * averages are formed up to PAIRED_WALSH_MAX (n(n+1)/2 of them), past it the
 * t interval stands in. */
#define PAIRED_EXACT_MAX 100
#define PAIRED_WALSH_MAX 1000

struct paired_est {
  size_t nrounds, npairs;
  double ratio, lo, hi; /* new / old: exp of the location and of the interval's ends */
  double p;             /* two-sided test of no change (signed-rank, or t; 1 with fewer than 2 pairs) */
  int rank;             /* the interval is the signed-rank one (else Student's t stood in) */
  double se;            /* of the plain mean of the pairs' log levels (NAN with fewer than 2
                         * pairs): what the studies read the resolution from */
  /* The variance components behind se (log scale, method of moments over
   * plain means): sd_within, one round's log-ratio around its pair's level
   * (pooled over pairs of 2 or more rounds); sd_between, the pairs' levels
   * around the true one beyond what sd_within explains (0 when it explains
   * it all). NAN where the rounds cannot tell. What limits a case: with P
   * pairs of R rounds, se^2 ~ sd_between^2 / P + sd_within^2 / (P R). */
  double sd_within, sd_between;
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
