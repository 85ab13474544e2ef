/* Statistics for comparing two sets of timing samples (bench compare,
 * history, report and --baseline): the ratio of medians with a bootstrap
 * confidence interval, the Mann-Whitney U test, the verdict, and the
 * geometric mean of ratios. Everything is deterministic: the bootstrap uses
 * a fixed seed, so the same files give the same output. */
#ifndef BENCH_COMPARE_STATS_H
#define BENCH_COMPARE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Median of x[0..n) (the mean of the two middle values when n is even, as
 * stats_compute); NAN when n == 0. x is not modified. */
double cs_median(const double *x, size_t n);

/* Two-sided p-value of the Mann-Whitney U test of a against b, by the
 * normal approximation with tie correction and continuity correction.
 * 1 when either side is empty or every value is tied. */
double cs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* Percentile bootstrap interval of median(b) / median(a) at the given
 * level (0.95): `resamples` resamples of each side drawn with a generator
 * seeded by `seed` (each resample's median is drawn directly from the
 * distribution of the middle order statistics, O(1) whatever the size). 0, or -1 when a side is empty or a resampled median of
 * a is not positive (then *lo and *hi are NAN). */
int cs_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                          unsigned resamples, uint64_t seed, double level, double *lo, double *hi);

#define CS_RESAMPLES 2000
#define CS_SEED UINT64_C(0x62656e6368) /* "bench" */

/* new / old: the ratio of medians (times: above 1 is slower), its 95%
 * interval and the Mann-Whitney p-value. The interval is the bootstrap's,
 * widened to at least ratio * (1 +- h) where h combines both sides' drift
 * (stats_block_drift_rel over the samples in the order taken): samples whose
 * level moved during a run are not independent, and the bootstrap alone
 * would call a drift a change. */
struct cs_ratio {
  double old_median, new_median;
  double ratio, lo, hi;
  double p;
};
/* 0, or -1 when a side has no samples or the old median is not positive. */
int cs_compare(const double *old, size_t nold, const double *new_, size_t nnew, struct cs_ratio *out);

enum cs_verdict { CS_SAME, CS_FASTER, CS_SLOWER, CS_NOISY };
const char *cs_verdict_name(enum cs_verdict v); /* "SAME", "FASTER", "SLOWER", "NOISY" */
/* SAME when the whole interval lies within [1 - threshold, 1 + threshold];
 * SLOWER when it lies wholly above 1 + threshold and FASTER wholly below
 * 1 - threshold, each only when p < alpha too; NOISY otherwise (the
 * interval straddles a bound, or the test cannot tell). */
enum cs_verdict cs_verdict_of(const struct cs_ratio *c, double threshold, double alpha);

/* ---- between-run noise ------------------------------------------------------
 * Samples from one process cannot show how much a case's level moves from
 * one run (process) to the next: page placement, the cores a thread team
 * lands on, the machine's load. Comparing two single runs with the interval
 * above alone calls that movement a change. So each side's level gets a
 * between-run term: sigma, the relative (log-scale) standard deviation of
 * one run's median around the case's true level.
 *   pooled   the side has several runs of the case (same day, same plugin
 *            hash): runs are the unit, the level is the geometric mean of
 *            the runs' medians, sigma their spread (with the history's; the
 *            default below CS_MIN_RUNS runs) over sqrt(runs);
 *   history  one run, and earlier runs of the case with the same plugin hash
 *            in the same results (at least CS_MIN_RUNS - 1 of them): sigma
 *            is the spread of their medians (not of the run's own: a real
 *            change in it would widen its own interval and hide itself);
 *   default  one run and no history: cs_between_default;
 *   none     both sides are the very same runs (a folder against itself).
 * A pooled side's spread is estimated from its runs' and its history's
 * medians together once there are at least CS_MIN_RUNS of them (else the
 * default stands in),
 * floored at CS_MIN_SIGMA; the interval then takes Student's t quantile at
 * the Welch-Satterthwaite degrees of freedom (a default counts as known). */
enum cs_term { CS_TERM_NONE, CS_TERM_DEFAULT, CS_TERM_HISTORY, CS_TERM_POOLED };
const char *cs_term_name(enum cs_term t); /* "none", "default", "history", "pooled" */

#define CS_MIN_RUNS 3
#define CS_MIN_SIGMA 0.005
/* FASTER and SLOWER need at least this many samples on each side (pooled
 * runs counted together): nvbench's and hyperfine's minimum of 10. */
#define CS_MIN_SAMPLES 10

/* The default sigma of one run's median for a backend (its name; NULL or
 * unknown: the CPU's) and a run of n samples: a + b / sqrt(n), the figures
 * measured with repeated runs (backend/backends.c says which); the
 * conservative figure, for a busy machine or one whose steadiness is not
 * known. */
double cs_between_default(const char *backend, size_t n);

/* What a run's header says of the machine over the run (results/result.h
 * struct run_steady, classified by compare_case.c): steady runs take a
 * smaller default, busy and unknown ones the figure above. A device-timed
 * case whose run recorded the GPU's telemetry is classed from the device
 * instead (compare_case.h, compare_device_of): device-steady or
 * device-busy. */
enum cs_machine {
  CS_MACHINE_UNKNOWN, CS_MACHINE_BUSY, CS_MACHINE_STEADY, CS_MACHINE_DEVICE_BUSY, CS_MACHINE_DEVICE_STEADY
};
/* "unknown", "busy", "steady", "device-busy", "device-steady" */
const char *cs_machine_name(enum cs_machine m);
/* The default sigma for a run on a machine in state m: a + b / sqrt(n),
 * CS_STEADY_A and CS_STEADY_B when steady; on a steady device the
 * backend's GPU figure (backends.c device_noise_a/b), or CS_STEADY_A/B for
 * a backend without one; cs_between_default otherwise (busy, device-busy,
 * unknown). */
#define CS_STEADY_A 0.03
#define CS_STEADY_B 0.05
double cs_between_default_on(const char *backend, size_t n, enum cs_machine m);
/* 1 when the backend has a GPU-measured figure for device-steady runs. */
int cs_backend_has_device_figure(const char *backend);
/* The steady figure was measured on runs that timed each case for at least
 * the standard preset's 0.2 s after 0.1 s of warm-up; a case timed for less
 * than this (its samples times their batch added up: smoke's 3-20 single
 * iterations) moves from run to run as far as on a busy machine (15-28%
 * between smoke runs on a steady one, docs/comparing.md, "Between runs"), so it takes
 * cs_between_default however steady its run was. */
#define CS_STEADY_MIN_TIMED_S 0.1

/* Student's t distribution's 97.5% quantile for df degrees of freedom
 * (1.96 for INFINITY). */
double cs_t975(double df);

/* One side of a comparison: the samples of each of its runs (nruns >= 1),
 * the medians of earlier runs of the case (history, may be none) and the
 * default sigma for it. */
struct cs_side {
  size_t nruns;
  const double *const *x;
  const size_t *n;
  const double *hist_medians;
  size_t nhist;
  double prior;
  enum cs_machine machine; /* the newest run's, which chose prior */
  int brief;               /* steady, but the newest run timed the case under CS_STEADY_MIN_TIMED_S */
  int large;               /* steady, but the case's memory outgrew the last-level cache (compare_case.h) */
  unsigned device_why;     /* device-busy: why (compare_case.h CMP_DEV_*), else 0 */
};
/* What a side's between-run term was. */
struct cs_noise {
  enum cs_term term;
  size_t runs, history, samples;
  double sigma; /* relative spread of one run's level (0 for none) */
  double se;    /* of the side's level: sigma / sqrt(runs) */
  double df;    /* degrees of freedom of sigma (INFINITY: the default) */
  enum cs_machine machine; /* the side's newest run's machine (the default's choice) */
  int brief;               /* ... steady, but the case timed too briefly for the steady figure */
  int large;               /* ... steady, but the case's memory outgrew the last-level cache */
  unsigned device_why;     /* device-busy: why (compare_case.h CMP_DEV_*), else 0 */
};

/* new / old with the between-run terms: the ratio of the sides' levels
 * (the median of a single run, the geometric mean of the run medians of a
 * pooled side); the interval is cs_compare's within-run one (sides of one
 * run only) widened in quadrature on the log scale by t sqrt(se_old^2 +
 * se_new^2), t Student's 97.5% quantile; p is Mann-Whitney over all samples. same_runs: both sides are
 * the same measurements (term none). 0, or -1 as cs_compare. */
int cs_compare_sides(const struct cs_side *old, const struct cs_side *new_, int same_runs, struct cs_ratio *out,
                     struct cs_noise *nold, struct cs_noise *nnew);

/* exp(mean(log x)) over the positive finite values of x; NAN when none. */
double cs_geomean(const double *x, size_t n);

#endif
