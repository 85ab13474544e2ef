/* Comparison statistics: medians, the bootstrap interval of a ratio of
 * medians, Mann-Whitney U, verdicts and geometric means. */
#include "analyze/compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backends.h"
#include "core/stats.h"
#include "core/util.h"

double cs_median(const double *x, size_t n) { return stats_median(x, n); }

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

int cs_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                          unsigned resamples, uint64_t seed, double level, double *lo, double *hi) {
  *lo = *hi = NAN;
  if (!na || !nb || resamples == 0) return -1;
  double *sa = stats_sorted_copy(a, na), *sb = stats_sorted_copy(b, nb);
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
    *lo = stats_quantile_select(ratios, resamples, tail);
    *hi = stats_quantile_select(ratios, resamples, 1.0 - tail);
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

/* ---- between-run noise -------------------------------------------------- */

const char *cs_term_name(enum cs_term t) {
  switch (t) {
  case CS_TERM_NONE: return "none";
  case CS_TERM_HISTORY: return "history";
  case CS_TERM_POOLED: return "pooled";
  default: return "default";
  }
}

/* The figures per backend, and how they were measured: backend/backends.c. */
double cs_between_default(const char *backend, size_t n) {
  const struct backend *b = backend_or_default(backend);
  return b->noise_a + b->noise_b / sqrt((double)(n ? n : 1));
}

const char *cs_machine_name(enum cs_machine m) {
  switch (m) {
  case CS_MACHINE_STEADY: return "steady";
  case CS_MACHINE_BUSY: return "busy";
  case CS_MACHINE_DEVICE_STEADY: return "device-steady";
  case CS_MACHINE_DEVICE_BUSY: return "device-busy";
  default: return "unknown";
  }
}

/* A steady run (results/result.h struct run_steady: no other runnable
 * thread, no steal, the calibration loop on its CPU and unchanged from the
 * start to the end) takes 3% + 5%/sqrt(n): the spread of one run's median
 * when nothing else moves the machine (docs/comparing.md, "Between runs", says where
 * it comes from); the figures above were measured on a loaded machine and
 * stay for busy and unknown runs. */
double cs_between_default_on(const char *backend, size_t n, enum cs_machine m) {
  double root = sqrt((double)(n ? n : 1));
  /* a steady GPU (its telemetry: no throttling, no other process, a
   * stable clock) takes the backend's GPU-measured figure (backends.c),
   * and the CPU's steady figure where none was measured yet (HIP) */
  if (m == CS_MACHINE_DEVICE_STEADY && cs_backend_has_device_figure(backend)) {
    const struct backend *b = backend_or_default(backend);
    return b->device_noise_a + b->device_noise_b / root;
  }
  if (m != CS_MACHINE_STEADY && m != CS_MACHINE_DEVICE_STEADY) return cs_between_default(backend, n);
  return CS_STEADY_A + CS_STEADY_B / root;
}

int cs_backend_has_device_figure(const char *backend) {
  const struct backend *b = backend_find(backend);
  return b && (b->device_noise_a > 0.0 || b->device_noise_b > 0.0);
}

double cs_t975(double df) {
  static const double t[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086};
  if (!(df >= 1.0)) return t[1];
  if (df <= 20.0) {
    size_t k = (size_t)df;
    double f = df - (double)k; /* between whole degrees of freedom, linearly */
    return k >= 20 ? t[20] : t[k] + f * (t[k + 1] - t[k]);
  }
  if (!isfinite(df)) return 1.959964;
  double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z; /* Cornish-Fisher, beyond the table */
  return z + (z3 + z) / (4.0 * df) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df);
}

/* The side's level and its noise; *pooled gets the samples of every run
 * (caller frees). */
static double side_level(const struct cs_side *s, int same_runs, struct cs_noise *nz, double **pooled,
                         size_t *npooled) {
  memset(nz, 0, sizeof *nz);
  size_t total = 0;
  for (size_t r = 0; r < s->nruns; r++) total += s->n[r];
  double *all = xmalloc((total ? total : 1) * sizeof *all);
  size_t k = 0;
  for (size_t r = 0; r < s->nruns; r++) {
    if (s->n[r]) memcpy(all + k, s->x[r], s->n[r] * sizeof *all);
    k += s->n[r];
  }
  *pooled = all;
  *npooled = total;
  nz->runs = s->nruns;
  nz->machine = s->machine;
  nz->brief = s->brief;
  nz->large = s->large;
  nz->device_why = s->device_why;
  nz->history = s->nhist;
  nz->samples = total;
  /* log medians of this side's runs and of its history */
  size_t nl = s->nruns + s->nhist, m = 0;
  double *l = xmalloc((nl ? nl : 1) * sizeof *l), sum_runs = 0.0;
  int bad = 0;
  /* A single run's own median stays out of its spread: a real change in
   * it would otherwise count as noise and hide itself. */
  for (size_t r = 0; r < s->nruns; r++) {
    double med = cs_median(s->x[r], s->n[r]);
    if (!(med > 0.0)) bad = 1;
    else if (s->nruns >= 2) sum_runs += (l[m++] = log(med));
  }
  for (size_t h = 0; h < s->nhist; h++)
    if (s->hist_medians[h] > 0.0) l[m++] = log(s->hist_medians[h]);
  double level = s->nruns == 1 || bad ? cs_median(all, total) : exp(sum_runs / (double)s->nruns);
  double var = s->prior * s->prior;
  nz->df = INFINITY;
  if (m >= (s->nruns >= 2 ? CS_MIN_RUNS : CS_MIN_RUNS - 1)) {
    double mean = 0.0, ss = 0.0;
    for (size_t i = 0; i < m; i++) mean += l[i];
    mean /= (double)m;
    for (size_t i = 0; i < m; i++) ss += (l[i] - mean) * (l[i] - mean);
    var = ss / (double)(m - 1);
    if (var < CS_MIN_SIGMA * CS_MIN_SIGMA) var = CS_MIN_SIGMA * CS_MIN_SIGMA;
    nz->df = (double)(m - 1);
  }
  free(l);
  nz->term = same_runs ? CS_TERM_NONE
             : s->nruns >= 2 && !bad ? CS_TERM_POOLED
             : isfinite(nz->df) ? CS_TERM_HISTORY : CS_TERM_DEFAULT;
  nz->sigma = same_runs ? 0.0 : sqrt(var);
  if (same_runs) nz->df = INFINITY;
  nz->se = nz->term == CS_TERM_POOLED ? nz->sigma / sqrt((double)s->nruns) : nz->sigma;
  return level;
}

int cs_compare_sides(const struct cs_side *old, const struct cs_side *new_, int same_runs, struct cs_ratio *out,
                     struct cs_noise *nold, struct cs_noise *nnew) {
  double *po, *pn;
  size_t npo, npn;
  double lo_level = side_level(old, same_runs, nold, &po, &npo);
  double ln_level = side_level(new_, same_runs, nnew, &pn, &npn);
  /* the within-run interval from the sides of one run; a pooled side
   * enters it as its level alone (its runs' spread holds its within-run
   * noise already) */
  int pool_o = nold->term == CS_TERM_POOLED, pool_n = nnew->term == CS_TERM_POOLED;
  int rc = cs_compare(pool_o ? &lo_level : po, pool_o ? 1 : npo, pool_n ? &ln_level : pn, pool_n ? 1 : npn, out);
  if (rc == 0) {
    out->old_median = lo_level;
    out->new_median = ln_level;
    double r0 = out->ratio, r = ln_level / lo_level;
    double wlo = log(r0 / out->lo), whi = log(out->hi / r0);
    if (!(wlo > 0.0)) wlo = 0.0;
    if (!(whi > 0.0)) whi = 0.0;
    double vo = nold->se * nold->se, vn = nnew->se * nnew->se;
    double den = (isfinite(nold->df) ? vo * vo / nold->df : 0.0) + (isfinite(nnew->df) ? vn * vn / nnew->df : 0.0);
    double df = den > 0.0 ? (vo + vn) * (vo + vn) / den : INFINITY;
    double b = cs_t975(df) * sqrt(vo + vn);
    out->ratio = r;
    out->lo = r * exp(-sqrt(wlo * wlo + b * b));
    out->hi = r * exp(sqrt(whi * whi + b * b));
    out->p = cs_mann_whitney_p(po, npo, pn, npn);
  }
  free(po);
  free(pn);
  return rc;
}
