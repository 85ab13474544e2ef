/* Summary statistics of timing samples: order statistics, mean, sample
 * standard deviation, relative noise; and Welford's running variance. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Quantile p of sorted x[0..n), n >= 1: R's type 7 (linear interpolation
 * between the order statistics at h = (n-1)p). */
static double quantile_sorted(const double *x, size_t n, double p) {
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)floor(h);
  if (lo + 1 >= n) return x[n - 1];
  double frac = h - (double)lo;
  return x[lo] + frac * (x[lo + 1] - x[lo]);
}

void stats_compute(const double *x, size_t n, struct stats *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return;

  double *s = xmalloc(n * sizeof *s);
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);

  out->n = n;
  out->min = s[0];
  out->max = s[n - 1];
  out->q1 = quantile_sorted(s, n, 0.25);
  out->median = quantile_sorted(s, n, 0.5);
  out->q3 = quantile_sorted(s, n, 0.75);

  /* Two passes: the mean, then the squared deviations from it (stable for
   * samples with a large common offset). */
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += s[i];
  out->mean = sum / (double)n;
  if (n >= 2) {
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
      double d = s[i] - out->mean;
      ss += d * d;
    }
    out->stddev = sqrt(ss / (double)(n - 1));
  }
  out->cv = out->mean != 0.0 ? out->stddev / fabs(out->mean) : 0.0;
  free(s);
}

void running_stats_add(struct running_stats *r, double x) {
  r->n++;
  double delta = x - r->mean;
  r->mean += delta / (double)r->n;
  r->m2 += delta * (x - r->mean);
}

double running_stats_cv(const struct running_stats *r) {
  if (r->n < 2 || r->mean == 0.0) return 0.0;
  double var = r->m2 / (double)(r->n - 1);
  if (var < 0.0) var = 0.0;
  return sqrt(var) / fabs(r->mean);
}
