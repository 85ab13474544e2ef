/* Paired log-ratio statistics of bench ab (paired.h). */
#include "analyze/paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"

/* Density of Student's t with df degrees of freedom. */
static double t_pdf(double x, double df) {
  return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
             (df + 1) / 2 * log1p(x * x / df));
}

/* The integrand of the tail beyond T0 after t = T0 / u (u in (0, 1]):
 * smooth, where the density itself would need a step far finer than x/n. */
#define T0 50.0
static double t_tail_integrand(double u, double df) {
  if (u <= 0) return 0;
  return t_pdf(T0 / u, df) * T0 / (u * u);
}

/* P(0 <= T <= x) (x >= 0) by Simpson's rule: on [0, min(x, 50)] in 2000
 * steps, and the rest of [50, x] after t = 50/u in 400 steps. (One rule
 * over [0, x] with a fixed count was far too coarse for large x: its p
 * could read 0.2 at t = 5000, making an exact difference NOISY.) */
static double t_half_mass(double x, double df) {
  if (x <= 0) return 0;
  double x1 = x < T0 ? x : T0;
  int n = 2000;
  double h = x1 / n, s = t_pdf(0, df) + t_pdf(x1, df);
  for (int i = 1; i < n; i++) s += t_pdf(i * h, df) * (i % 2 ? 4 : 2);
  double m = s * h / 3;
  if (x > T0) {
    double a = T0 / x;
    int k = 400;
    double g = (1.0 - a) / k, st = t_tail_integrand(a, df) + t_tail_integrand(1.0, df);
    for (int i = 1; i < k; i++) st += t_tail_integrand(a + i * g, df) * (i % 2 ? 4 : 2);
    m += st * g / 3;
  }
  return m > 0.5 ? 0.5 : m;
}

double paired_t_p(double t, double df) {
  if (!(df > 0) || isnan(t)) return 1;
  if (isinf(t)) return 0;
  double p = 1 - 2 * t_half_mass(fabs(t), df);
  return p < 0 ? 0 : p;
}

double paired_t_quantile(double q, double df) {
  double lo = 0, hi = 1;
  while (0.5 + t_half_mass(hi, df) < q && hi < 1e4) hi *= 2;
  for (int i = 0; i < 60; i++) {
    double mid = (lo + hi) / 2;
    if (0.5 + t_half_mass(mid, df) < q) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/* ---- the Wilcoxon signed-rank interval over the pairs' levels ---------- */

/* The null distribution of the signed-rank statistic T+ for n values: its
 * probabilities P(T+ = t), t = 0 .. n(n+1)/2 (malloc'd). */
static double *signed_rank_pmf(size_t n) {
  size_t m = n * (n + 1) / 2;
  double *p = xcalloc(m + 1, sizeof *p);
  p[0] = 1;
  size_t top = 0;
  for (size_t r = 1; r <= n; r++) {
    for (size_t t = top + r; t >= r; t--) p[t] = (p[t] + p[t - r]) / 2;
    for (size_t t = r; t-- > 0;) p[t] /= 2;
    top += r;
  }
  return p;
}

/* The largest k with P(T+ <= k) <= alpha / 2: the interval at 1 - alpha
 * runs from the (k+1)-th smallest Walsh average to the (k+1)-th largest
 * (walsh[k] .. walsh[m-1-k]). -1 when even the whole range does not
 * reach the level (too few values: P(T+ = 0) = 2^-n > alpha / 2). Exact up
 * to PAIRED_EXACT_MAX values, else the normal approximation. */
static int signed_rank_k(size_t n, double alpha) {
  if (n < 1) return -1;
  double half = alpha / 2;
  if (n <= PAIRED_EXACT_MAX) {
    double *p = signed_rank_pmf(n), cum = 0;
    size_t m = n * (n + 1) / 2;
    int k = -1;
    for (size_t t = 0; t <= m / 2; t++) {
      cum += p[t];
      if (cum > half) break;
      k = (int)t; /* P(T+ <= t) <= alpha/2: the interval may start above walsh[t] */
    }
    free(p);
    return k;
  }
  double nn = (double)n, mu = nn * (nn + 1) / 4, sd = sqrt(nn * (nn + 1) * (2 * nn + 1) / 24);
  /* z_{1 - alpha/2}: Student's t at a huge df is the normal quantile */
  double z = paired_t_quantile(1 - half, 1e7);
  double k = floor(mu - z * sd - 0.5);
  return k < 0 ? -1 : (int)k;
}

/* The n(n+1)/2 Walsh averages (x_i + x_j) / 2, i <= j, sorted (malloc'd). */
static double *signed_rank_walsh(const double *x, size_t n) {
  size_t m = n * (n + 1) / 2, w = 0;
  double *a = xcalloc(m ? m : 1, sizeof *a);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i; j < n; j++) a[w++] = (x[i] + x[j]) / 2;
  stats_sort(a, m);
  return a;
}

/* Two-sided p of the signed-rank test of median 0 (exact, zeros dropped,
 * ties at mid-ranks rounded down; the normal approximation beyond
 * PAIRED_EXACT_MAX). */
static double signed_rank_p(const double *x, size_t n) {
  double *a = xcalloc(n ? n : 1, sizeof *a);
  size_t nz = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != 0) a[nz++] = x[i];
  if (nz == 0) {
    free(a);
    return 1;
  }
  double *mag = xcalloc(nz, sizeof *mag);
  for (size_t i = 0; i < nz; i++) mag[i] = fabs(a[i]);
  stats_sort(mag, nz);
  double tplus = 0;
  for (size_t i = 0; i < nz; i++) {
    if (a[i] <= 0) continue;
    /* the mid-rank of |a[i]| among the magnitudes */
    size_t lo = 0, hi = nz;
    while (lo < nz && mag[lo] < fabs(a[i])) lo++;
    hi = lo;
    while (hi < nz && mag[hi] == fabs(a[i])) hi++;
    tplus += (double)(lo + 1 + hi) / 2;
  }
  free(mag);
  free(a);
  double m = (double)nz * (double)(nz + 1) / 2, t = tplus < m - tplus ? tplus : m - tplus;
  double p;
  if (nz <= PAIRED_EXACT_MAX) {
    double *pmf = signed_rank_pmf(nz), cum = 0;
    for (size_t s = 0; (double)s <= floor(t); s++) cum += pmf[s];
    free(pmf);
    p = 2 * cum;
  } else {
    double nn = (double)nz, mu = m / 2, sd = sqrt(nn * (nn + 1) * (2 * nn + 1) / 24);
    p = paired_t_p((t - mu + 0.5) / sd, 1e7);
  }
  return p > 1 ? 1 : p;
}

/* The interquartile mean of v[0..m) (sorted here): a quarter of the values
 * cut from each end (rounded up: the median of 3), the middle averaged. */
static double iq_mean(double *v, size_t m) {
  stats_sort(v, m);
  size_t cut = (m + 1) / 4;
  double sum = 0;
  for (size_t k = cut; k < m - cut; k++) sum += v[k];
  return sum / (double)(m - 2 * cut);
}

int paired_estimate(const double *logr, const int *pair, size_t n, double level,
                    struct paired_est *e) {
  memset(e, 0, sizeof *e);
  e->nrounds = n;
  e->p = 1;
  e->lo = 0;
  e->hi = INFINITY;
  e->se = e->sd_within = e->sd_between = NAN;
  if (n == 0) {
    e->ratio = NAN;
    return -1;
  }
  /* each pair's interquartile mean log-ratio, pairs in order of first
   * appearance */
  int *id = xcalloc(n, sizeof *id);
  double *unit = xcalloc(n, sizeof *unit), *vals = xcalloc(n, sizeof *vals);
  size_t np = 0;
  /* the variance components: within-pair sums of squares, the pairs' plain
   * means and their rounds */
  double ss_within = 0, inv_m = 0, sum_means = 0, sum_means2 = 0;
  size_t df_within = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < np && id[j] != pair[i]) j++;
    if (j < np) continue;
    id[np] = pair[i];
    size_t m = 0;
    double sum = 0;
    for (size_t k = i; k < n; k++)
      if (pair[k] == pair[i]) sum += vals[m++] = logr[k];
    double mean_k = sum / (double)m;
    for (size_t k = 0; k < m; k++) ss_within += (vals[k] - mean_k) * (vals[k] - mean_k);
    df_within += m - 1;
    inv_m += 1.0 / (double)m;
    sum_means += mean_k;
    sum_means2 += mean_k * mean_k;
    unit[np++] = iq_mean(vals, m);
  }
  e->npairs = np;
  if (df_within > 0) {
    double vw = ss_within / (double)df_within;
    e->sd_within = sqrt(vw);
    if (np >= 2) {
      double mm = sum_means / (double)np;
      double vm = (sum_means2 - (double)np * mm * mm) / (double)(np - 1);
      double vb = vm - vw * inv_m / (double)np;
      e->sd_between = vb > 0 ? sqrt(vb) : 0;
    }
  }
  stats_sort(unit, np);
  double mean = 0;
  for (size_t j = 0; j < np; j++) mean += unit[j];
  mean /= (double)np;
  if (np >= 2) {
    double ss = 0;
    for (size_t j = 0; j < np; j++) ss += (unit[j] - mean) * (unit[j] - mean);
    e->se = sqrt(ss / (double)(np - 1) / (double)np);
  }
  double *walsh = np <= PAIRED_WALSH_MAX ? signed_rank_walsh(unit, np) : NULL;
  int k = walsh ? signed_rank_k(np, 1 - level) : -1;
  if (k >= 0) {
    /* Hodges-Lehmann: the median of the Walsh averages, the interval
     * between the (k+1)-th smallest and the (k+1)-th largest */
    size_t m = np * (np + 1) / 2;
    double hl = m % 2 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
    e->ratio = exp(hl);
    e->lo = exp(walsh[k]);
    e->hi = exp(walsh[m - 1 - (size_t)k]);
    e->p = signed_rank_p(unit, np);
    e->rank = 1;
  } else {
    /* too few pairs for the rank interval at this level (or too many for
     * its table): Student's t over the pairs' levels */
    e->ratio = exp(mean);
    if (np >= 2) {
      double df = (double)(np - 1), t = paired_t_quantile(0.5 + level / 2, df);
      e->lo = exp(mean - t * e->se);
      e->hi = exp(mean + t * e->se);
      e->p = e->se > 0 ? paired_t_p(mean / e->se, df) : (mean != 0 ? 0 : 1);
    }
  }
  free(walsh);
  free(id);
  free(unit);
  free(vals);
  return 0;
}

enum cs_verdict paired_verdict(const struct paired_est *e, double threshold, double alpha) {
  struct cs_ratio c = {1, e->ratio, e->ratio, e->lo, e->hi, e->p};
  if (!isfinite(e->ratio) || !isfinite(e->hi)) return CS_NOISY;
  return cs_verdict_of(&c, threshold, alpha);
}
