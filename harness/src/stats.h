/* Summary statistics of a set of timing samples. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

struct stats {
  size_t n;
  double min, q1, median, q3, max; /* quartiles by linear interpolation (type 7) */
  double mean, stddev;             /* sample standard deviation (n-1); 0 if n < 2 */
  double cv;                       /* stddev / mean: relative noise; 0 if mean == 0 */
};

/* Compute stats over x[0..n). n == 0 gives all zeros. x is not modified. */
void stats_compute(const double *x, size_t n, struct stats *out);

/* Running mean/variance (Welford) for the stopping rule while sampling. */
struct running_stats {
  size_t n;
  double mean, m2;
};
/* Start from {0} (struct running_stats r = {0};). */
void running_stats_add(struct running_stats *r, double x);
/* Sample standard deviation (n-1) / mean, as stats_compute: 0 while n < 2
 * or when the mean is 0. */
double running_stats_cv(const struct running_stats *r);

#endif
