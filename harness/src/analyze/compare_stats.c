/* Comparison statistics: medians, the bootstrap interval of a ratio of
 * medians, Mann-Whitney U, verdicts and geometric means. */
#include "analyze/compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n) {
  double *s = xmalloc((n ? n : 1) * sizeof *s);
  if (n) memcpy(s, x, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  return s;
}

static double median_sorted(const double *s, size_t n) {
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double cs_median(const double *x, size_t n) {
  if (!n) return NAN;
  double *s = sorted_copy(x, n);
  double m = median_sorted(s, n);
  free(s);
  return m;
}

/* ---- Mann-Whitney U ----------------------------------------------------- */

struct tagged {
  double v;
  int side; /* 0: a, 1: b */
};

static int cmp_tagged(const void *pa, const void *pb) {
  double a = ((const struct tagged *)pa)->v, b = ((const struct tagged *)pb)->v;
  return (a > b) - (a < b);
}

double cs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb) {
  if (!na || !nb) return 1.0;
  size_t n = na + nb;
  struct tagged *t = xmalloc(n * sizeof *t);
  for (size_t i = 0; i < na; i++) t[i] = (struct tagged){a[i], 0};
  for (size_t i = 0; i < nb; i++) t[na + i] = (struct tagged){b[i], 1};
  qsort(t, n, sizeof *t, cmp_tagged);
  double rank_a = 0.0, ties = 0.0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && t[j + 1].v == t[i].v) j++;
    double mid = 0.5 * ((double)i + (double)j) + 1.0; /* 1-based mid-rank */
    double cnt = (double)(j - i + 1);
    ties += cnt * cnt * cnt - cnt;
    for (size_t k = i; k <= j; k++)
      if (t[k].side == 0) rank_a += mid;
    i = j + 1;
  }
  free(t);
  double n1 = (double)na, n2 = (double)nb, N = (double)n;
  double u = rank_a - n1 * (n1 + 1.0) / 2.0;
  double mu = n1 * n2 / 2.0;
  double var = n1 * n2 / 12.0 * ((N + 1.0) - ties / (N * (N - 1.0)));
  if (!(var > 0.0)) return 1.0;
  double d = fabs(u - mu) - 0.5;
  if (d < 0.0) d = 0.0;
  double p = erfc(d / sqrt(var) / sqrt(2.0));
  return p > 1.0 ? 1.0 : p;
}

/* ---- bootstrap ---------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *rng) { /* in (0, 1) */
  return ((double)(splitmix64(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal01(uint64_t *rng) { /* Box-Muller, one of the pair */
  return sqrt(-2.0 * log(uniform01(rng))) * cos(6.283185307179586 * uniform01(rng));
}

/* Gamma(a, 1) for a >= 1 (Marsaglia and Tsang 2000). */
static double gamma_ge1(double a, uint64_t *rng) {
  double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x = normal01(rng), v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    double u = uniform01(rng);
    if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v;
  }
}

static double beta_ge1(double a, double b, uint64_t *rng) {
  double x = gamma_ge1(a, rng), y = gamma_ge1(b, rng);
  return x / (x + y);
}

static size_t index_of(double u, size_t n) {
  size_t j = (size_t)(u * (double)n);
  return j < n ? j : n - 1;
}

/* The median of one resample (n draws with replacement) of sorted s[0..n),
 * without drawing the resample: a draw is s[floor(n U)] with U uniform, so
 * the resample's middle order statistics are s[floor(n U_(m))] with U_(m)
 * the m-th smallest of n uniforms, Beta(m, n - m + 1); the next one above
 * it is U_(m) + (1 - U_(m)) (1 - V^(1 / (n - m))), the least of the n - m
 * uniforms left above U_(m). O(1) per resample whatever n. */
static double resampled_median(const double *s, size_t n, uint64_t *rng) {
  size_t m = (n + 1) / 2; /* 1-based rank of the (lower) middle */
  double u = beta_ge1((double)m, (double)(n - m + 1), rng);
  size_t j = index_of(u, n);
  if (n % 2) return s[j];
  double u2 = u + (1.0 - u) * (1.0 - pow(uniform01(rng), 1.0 / (double)(n - m)));
  return 0.5 * (s[j] + s[index_of(u2, n)]);
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

/* Quantile p of x[0..n) by linear interpolation (type 7), as a sort would
 * give, in O(n); x is rearranged. */
static double quantile_select(double *x, size_t n, double p) {
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)floor(h);
  select_kth(x, n, lo);
  if (lo + 1 >= n) return x[lo];
  double next = x[lo + 1];
  for (size_t i = lo + 2; i < n; i++)
    if (x[i] < next) next = x[i];
  return x[lo] + (h - (double)lo) * (next - x[lo]);
}

int cs_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                          unsigned resamples, uint64_t seed, double level, double *lo, double *hi) {
  *lo = *hi = NAN;
  if (!na || !nb || resamples == 0) return -1;
  double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
  double *ratios = xmalloc(resamples * sizeof *ratios);
  uint64_t rng = seed;
  int rc = 0;
  for (unsigned i = 0; i < resamples && rc == 0; i++) {
    double ma = resampled_median(sa, na, &rng);
    double mb = resampled_median(sb, nb, &rng);
    if (!(ma > 0.0)) rc = -1;
    else ratios[i] = mb / ma;
  }
  if (rc == 0) {
    double tail = (1.0 - level) / 2.0;
    *lo = quantile_select(ratios, resamples, tail);
    *hi = quantile_select(ratios, resamples, 1.0 - tail);
  }
  free(sa);
  free(sb);
  free(ratios);
  return rc;
}

/* ---- comparison and verdict --------------------------------------------- */

int cs_compare(const double *old, size_t nold, const double *new_, size_t nnew, struct cs_ratio *out) {
  memset(out, 0, sizeof *out);
  out->ratio = out->lo = out->hi = NAN;
  out->p = 1.0;
  if (!nold || !nnew) return -1;
  out->old_median = cs_median(old, nold);
  out->new_median = cs_median(new_, nnew);
  if (!(out->old_median > 0.0)) return -1;
  out->ratio = out->new_median / out->old_median;
  out->p = cs_mann_whitney_p(old, nold, new_, nnew);
  if (cs_bootstrap_ratio_ci(old, nold, new_, nnew, CS_RESAMPLES, CS_SEED, 0.95, &out->lo, &out->hi) != 0)
    return -1;
  /* The bootstrap takes the samples as independent; a side whose level
   * drifted during its run (stats.c's block-median term) knows its median
   * less well than that. Widen to ratio * (1 +- h), h the two drift terms
   * added in quadrature, as the stopping rule widens a case's interval. */
  double da = stats_block_drift_rel(old, nold, out->old_median);
  double db = stats_block_drift_rel(new_, nnew, out->new_median);
  double h = sqrt(da * da + db * db);
  if (out->lo > out->ratio * (1.0 - h)) out->lo = out->ratio * (1.0 - h);
  if (out->hi < out->ratio * (1.0 + h)) out->hi = out->ratio * (1.0 + h);
  /* (h = 0 keeps the point estimate inside its interval for tiny samples.) */
  return 0;
}

const char *cs_verdict_name(enum cs_verdict v) {
  switch (v) {
  case CS_SAME: return "SAME";
  case CS_FASTER: return "FASTER";
  case CS_SLOWER: return "SLOWER";
  default: return "NOISY";
  }
}

enum cs_verdict cs_verdict_of(const struct cs_ratio *c, double threshold, double alpha) {
  if (!(c->lo <= c->hi)) return CS_NOISY; /* NAN */
  if (c->lo >= 1.0 - threshold && c->hi <= 1.0 + threshold) return CS_SAME;
  if (c->lo > 1.0 + threshold && c->p < alpha) return CS_SLOWER;
  if (c->hi < 1.0 - threshold && c->p < alpha) return CS_FASTER;
  return CS_NOISY;
}

double cs_geomean(const double *x, size_t n) {
  double sum = 0.0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] > 0.0 && isfinite(x[i])) {
      sum += log(x[i]);
      k++;
    }
  return k ? exp(sum / (double)k) : NAN;
}
