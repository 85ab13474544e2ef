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
  if (n == 0) {
    e->ratio = NAN;
    return -1;
  }
  /* each pair's interquartile mean log-ratio, pairs in order of first
   * appearance */
  int *id = xcalloc(n, sizeof *id);
  double *unit = xcalloc(n, sizeof *unit), *vals = xcalloc(n, sizeof *vals);
  size_t np = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < np && id[j] != pair[i]) j++;
    if (j < np) continue;
    id[np] = pair[i];
    size_t m = 0;
    for (size_t k = i; k < n; k++)
      if (pair[k] == pair[i]) vals[m++] = logr[k];
    unit[np++] = iq_mean(vals, m);
  }
  e->npairs = np;
  /* Yuen's trimmed mean over the pairs: g = 20% of them cut from each end,
   * the standard error from the winsorized variance, h - 1 degrees of
   * freedom (h = np - 2g pairs kept). With fewer than 5 pairs nothing is
   * cut (Student's t). */
  stats_sort(unit, np);
  size_t g = np >= 5 ? (size_t)(0.2 * (double)np) : 0, h = np - 2 * g;
  double mean = 0;
  for (size_t j = g; j < np - g; j++) mean += unit[j];
  mean /= (double)h;
  e->ratio = exp(mean);
  if (np >= 2 && h >= 2) {
    double wmean = 0, ss = 0;
    for (size_t j = 0; j < np; j++) wmean += unit[j < g ? g : j >= np - g ? np - g - 1 : j];
    wmean /= (double)np;
    for (size_t j = 0; j < np; j++) {
      double w = unit[j < g ? g : j >= np - g ? np - g - 1 : j] - wmean;
      ss += w * w;
    }
    double df = (double)(h - 1);
    double se = sqrt(ss / (double)(np - 1)) / (((double)h / (double)np) * sqrt((double)np));
    double t = paired_t_quantile(0.5 + level / 2, df);
    e->lo = exp(mean - t * se);
    e->hi = exp(mean + t * se);
    e->p = se > 0 ? paired_t_p(mean / se, df) : (mean != 0 ? 0 : 1);
  }
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
