/* Summary statistics of timing samples: order statistics, mean, sample
 * standard deviation, relative noise. */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- order statistics: the one sort and median of the harness ---------- */

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

void stats_sort(double *x, size_t n) {
  if (n > 1) qsort(x, n, sizeof *x, cmp_double);
}

double *stats_sorted_copy(const double *x, size_t n) {
  double *s = xmalloc((n ? n : 1) * sizeof *s);
  if (n) memcpy(s, x, n * sizeof *s);
  stats_sort(s, n);
  return s;
}

double stats_median_sorted(const double *s, size_t n) {
  if (!n) return NAN;
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double stats_median(const double *x, size_t n) {
  if (!n) return NAN;
  double *s = stats_sorted_copy(x, n);
  double m = stats_median_sorted(s, n);
  free(s);
  return m;
}

double stats_quantile_sorted(const double *x, size_t n, double p) {
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)floor(h);
  if (lo + 1 >= n) return x[n - 1];
  double frac = h - (double)lo;
  return x[lo] + frac * (x[lo + 1] - x[lo]);
}

/* Rearrange x[0..n) so that x[k] is the value a sort would put there, the
 * ones before it no larger and the ones after no smaller (Hoare's select). */
static void select_kth(double *x, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = x[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i <= j) {
        double t = x[i];
        x[i] = x[j];
        x[j] = t;
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

double stats_quantile_select(double *x, size_t n, double p) {
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)floor(h);
  select_kth(x, n, lo);
  if (lo + 1 >= n) return x[lo];
  double next = x[lo + 1];
  for (size_t i = lo + 2; i < n; i++)
    if (x[i] < next) next = x[i];
  return x[lo] + (h - (double)lo) * (next - x[lo]);
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

#define DRIFT_BLOCKS 16
#define DRIFT_MIN_BLOCKS 8 /* fewer blocks say little about drift (t's tail grows) */

/* Two-sided 95% quantile of Student's t with df = 7..15 degrees of freedom. */
static const double t975[DRIFT_BLOCKS] = {0,     0,     0,     0,     0,     0,     0,     2.365,
                                          2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131};

/* Batch medians: cut x (in the order taken) into B = min(16, n/2) blocks of
 * consecutive samples (no term below 8 blocks, i.e. 16 samples), take each
 * block's median, and the t interval of their mean: t(B-1) * sd / sqrt(B).
 * Independent samples give about the order-statistic interval; a level that
 * moves between blocks (another tenant, a clock change) widens it, as it
 * should: a longer run would not agree. */
double stats_block_drift_rel(const double *x, size_t n, double median) {
  size_t nb = n / 2 < DRIFT_BLOCKS ? n / 2 : DRIFT_BLOCKS;
  if (nb < DRIFT_MIN_BLOCKS || !(median > 0.0)) return 0.0;
  double bm[DRIFT_BLOCKS], mean = 0.0, ss = 0.0;
  double *tmp = xmalloc((n / nb + 1) * sizeof *tmp);
  for (size_t b = 0; b < nb; b++) {
    size_t lo = b * n / nb, hi = (b + 1) * n / nb;
    memcpy(tmp, x + lo, (hi - lo) * sizeof *tmp);
    stats_sort(tmp, hi - lo);
    bm[b] = stats_quantile_sorted(tmp, hi - lo, 0.5);
    mean += bm[b];
  }
  free(tmp);
  mean /= (double)nb;
  for (size_t b = 0; b < nb; b++) ss += (bm[b] - mean) * (bm[b] - mean);
  double sd = sqrt(ss / (double)(nb - 1));
  return t975[nb - 1] * sd / sqrt((double)nb) / median;
}

/* Modified z-scores above 3.5 in sorted s[0..n). */
static size_t count_outliers(const double *s, size_t n, double median) {
  if (n < 3) return 0;
  double *dev = xmalloc(n * sizeof *dev);
  for (size_t i = 0; i < n; i++) dev[i] = fabs(s[i] - median);
  stats_sort(dev, n);
  double mad = stats_quantile_sorted(dev, n, 0.5);
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

  double *s = stats_sorted_copy(x, n);

  out->n = n;
  out->min = s[0];
  out->max = s[n - 1];
  out->q1 = stats_quantile_sorted(s, n, 0.25);
  out->median = stats_quantile_sorted(s, n, 0.5);
  out->q3 = stats_quantile_sorted(s, n, 0.75);
  stats_median_ci_sorted(s, n, &out->ci_lo, &out->ci_hi);
  out->drift = stats_block_drift_rel(x, n, out->median);
  double half = out->drift * out->median;
  if (out->median - half < out->ci_lo) out->ci_lo = out->median - half;
  if (out->median + half > out->ci_hi) out->ci_hi = out->median + half;
  /* A time is never negative: drift over 100% of the median would put the
   * widened lower bound below 0 (and the reader drops such a case). */
  if (out->ci_lo < 0.0) out->ci_lo = 0.0;
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
  *noise = INFINITY;
  if (n < 2) return 0;
  struct stats st;
  stats_compute(x, n, &st);
  if (use_cv)
    *noise = st.cv;
  else if (st.median > 0.0) /* the interval the case line shows: order statistics and drift */
    *noise = (st.ci_hi - st.ci_lo) / 2.0 / st.median;
  return *noise <= target;
}

int stats_batch_size(const double *iter_ns, size_t n, double batch_min_s, int max_batch) {
  if (batch_min_s <= 0 || n == 0) return 1;
  double *s = stats_sorted_copy(iter_ns, n);
  double est = stats_quantile_sorted(s, n, 0.5);
  free(s);
  if (!(est > 0)) return 1;
  double want = batch_min_s * 1e9 / est;
  if (want <= 1) return 1;
  int b = 1;
  while (b < want && b <= max_batch / 2) b *= 2;
  return b;
}
