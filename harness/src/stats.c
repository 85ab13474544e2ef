/* Summary statistics of timing samples: order statistics, mean, sample
 * standard deviation, relative noise. */
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

/* Largest k (1-based, k <= n/2 + 1) with P(Bin(n, 1/2) <= k - 1) <= 0.025:
 * then [x_(k), x_(n-k+1)] covers the median with probability >= 95%. 0 when
 * none does (n < 6). */
static size_t ci_rank(size_t n) {
  if (n > 1000) {
    double k = floor(((double)n - 1.959964 * sqrt((double)n)) / 2.0);
    return k < 1 ? 1 : (size_t)k;
  }
  double cdf = 0.0, lfn = lgamma((double)n + 1.0), l2 = (double)n * log(2.0);
  size_t k = 0;
  for (size_t j = 0; j <= n / 2; j++) {
    cdf += exp(lfn - lgamma((double)j + 1.0) - lgamma((double)(n - j) + 1.0) - l2);
    if (cdf > 0.025) break;
    k = j + 1; /* P(B <= j) <= 0.025: k = j + 1 works */
  }
  return k;
}

void stats_median_ci_sorted(const double *x, size_t n, double *lo, double *hi) {
  *lo = *hi = 0.0;
  if (n == 0) return;
  size_t k = ci_rank(n);
  if (k == 0) k = 1;
  *lo = x[k - 1];
  *hi = x[n - k];
}

double stats_median_ci_rel(const double *x, size_t n) {
  if (n < 2) return INFINITY;
  double *s = xmalloc(n * sizeof *s);
  memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double lo, hi, med = quantile_sorted(s, n, 0.5);
  stats_median_ci_sorted(s, n, &lo, &hi);
  free(s);
  if (!(med > 0.0)) return INFINITY;
  return (hi - lo) / 2.0 / med;
}

/* Modified z-scores above 3.5 in sorted s[0..n). */
static size_t count_outliers(const double *s, size_t n, double median) {
  if (n < 3) return 0;
  double *dev = xmalloc(n * sizeof *dev);
  for (size_t i = 0; i < n; i++) dev[i] = fabs(s[i] - median);
  qsort(dev, n, sizeof *dev, cmp_double);
  double mad = quantile_sorted(dev, n, 0.5);
  size_t count = 0;
  if (mad > 0.0)
    for (size_t i = 0; i < n; i++)
      if (0.6745 * dev[i] / mad > 3.5) count++;
  free(dev);
  return count;
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
  stats_median_ci_sorted(s, n, &out->ci_lo, &out->ci_hi);
  out->outliers = count_outliers(s, n, out->median);

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

int stats_settled(const double *x, size_t n, int use_cv, double target, double *noise) {
  if (use_cv) {
    struct stats st;
    stats_compute(x, n, &st);
    *noise = n >= 2 ? st.cv : INFINITY;
  } else {
    *noise = stats_median_ci_rel(x, n);
  }
  return n >= 2 && *noise <= target;
}

int stats_batch_size(const double *iter_ns, size_t n, double batch_min_s, int max_batch) {
  if (batch_min_s <= 0 || n == 0) return 1;
  double *s = xmalloc(n * sizeof *s);
  memcpy(s, iter_ns, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double est = quantile_sorted(s, n, 0.5);
  free(s);
  if (!(est > 0)) return 1;
  double want = batch_min_s * 1e9 / est;
  if (want <= 1) return 1;
  int b = 1;
  while (b < want && b <= max_batch / 2) b *= 2;
  return b;
}
