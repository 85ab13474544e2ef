/* Two sets of results side by side (bench compare): the cases of OLD and
 * NEW matched by key, each compared from its runs (compare_case_sides),
 * and what the comparison adds up to: verdict counts, geometric means of
 * new/old per plugin and overall, the exit status --fail-on asks for, and
 * the tallies the notes under the table report (batch changes, between-run
 * terms, the machine each side's default term assumed). */
#ifndef BENCH_COMPARE_SETS_H
#define BENCH_COMPARE_SETS_H

#include <stddef.h>

#include "analyze/compare_case.h"
#include "analyze/result_set.h"

/* One case: its newest run on each side (NULL: only on the other side). */
struct compare_row {
  const struct rs_entry *old, *new_;
  struct case_compare cc;
};

/* One side of a case as bench compare takes it from a result set: group
 * g's pooled runs (the newest last) and history, and the steadiness in the
 * newest run's header (compare_case.h struct case_side). An empty side
 * when g is NULL. --baseline builds its old side with it (baseline.h). */
struct compare_side_runs {
  const struct case_result **runs, **hist;
  struct case_side side;
};
void compare_side_of_group(const struct result_set *s, const struct rs_group *g, struct compare_side_runs *out);
void compare_side_release(struct compare_side_runs *s);

/* Merge-join the cases of each key (with_tag: the tag is part of the key)
 * on both sides: the newest run shown, the runs of its day pooled, earlier
 * ones as history. Rows in rs_entry_order; *n of them, malloc'd. */
struct compare_row *compare_sets_match(const struct result_set *old, const struct result_set *new_, int with_tag,
                                       double threshold, size_t *n);

/* The side a row has (new if both). */
const struct rs_entry *compare_row_entry(const struct compare_row *r);
/* A side's median time per iteration in ns (the compared timer's when
 * timed), NAN when the side is absent, failed or has no samples. */
double compare_row_median(const struct compare_row *r, int old_side);
/* Timed with another batch (iterations per sample) on each side. */
int compare_row_batch_differs(const struct compare_row *r);
/* Does a row have a tag? */
int compare_rows_any_tag(const struct compare_row *rows, size_t n);
/* Does verdict v make the exit status 1 under --fail-on? */
int compare_verdict_fails(enum verdict v, unsigned fail_on);

struct compare_summary {
  size_t counts[V_COUNT];
  size_t nplugins; /* in row order */
  char **plugins;
  double *geomean; /* per plugin: of the ratios of its timed cases */
  size_t *ntimed;
  double overall;
  size_t ntimed_all;
  int exit_status; /* 1 when a verdict is in fail_on (bench's EXIT_FAILED), else 0 */
};
void compare_sets_summarise(const struct compare_row *rows, size_t n, unsigned fail_on, struct compare_summary *s);
void compare_summary_release(struct compare_summary *s);

/* The machine state a side's default between-run term took: not recorded,
 * busy, steady, or steady but a case timed under CS_STEADY_MIN_TIMED_S;
 * the same read from the GPU's telemetry for a device-timed case
 * (compare_case.h compare_device_of); steady but the case outgrew the
 * last-level cache (compare_case.h COMPARE_LARGE_OF_LLC). */
enum {
  CMP_DM_UNKNOWN, CMP_DM_BUSY, CMP_DM_STEADY, CMP_DM_BRIEF,
  CMP_DM_DEVICE_BUSY, CMP_DM_DEVICE_STEADY, CMP_DM_DEVICE_BRIEF, CMP_DM_LARGE, CMP_DM_KINDS
};
/* The CMP_DM_* kind of a side's noise (its machine, brief and large flags). */
int compare_dm_kind(const struct cs_noise *nz);
struct compare_terms {
  size_t timed;           /* cases with a ratio */
  size_t term[2][4];      /* per side (0 old, 1 new): cases per enum cs_term */
  size_t dm[2][CMP_DM_KINDS]; /* per side: cases with the default term, by machine */
  size_t few, unsettled;  /* NOISY for too few samples, for an unsettled run */
  size_t batch_differs;
  /* per side: timed cases with a throttled run on that side, and cases
   * with any throttled side (held at NOISY) */
  size_t throttled[2], throttled_cases;
  /* per side: default-term cases on a device-busy GPU, by CMP_DEV_* bit */
  size_t device_why[2][CMP_DEV_BITS];
  /* default-term sides on a steady GPU that took the backend's GPU
   * figure, and the backend of the first (its figure in the notes);
   * device-steady sides whose backend has none (the CPU's steady figure) */
  size_t gpu_figure, no_gpu_figure;
  const char *gpu_backend;
};
void compare_sets_terms(const struct compare_row *rows, size_t n, struct compare_terms *out);

#endif
