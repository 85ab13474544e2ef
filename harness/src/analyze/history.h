/* The history of each case over the runs of a results folder: a grid of
 * one row per case (plugin, parameters, tag) and one column per run (its
 * run_id and label: bench ab's two labels are two columns; a file without
 * a run_id, from an older bench, stands for its date: the newest such run
 * of that day), with level shifts flagged. Columns in
 * the order of their label among the selected labels (rs_select), then
 * date and start time. Used by bench history and bench report. */
#ifndef BENCH_HISTORY_H
#define BENCH_HISTORY_H

#include <stddef.h>

#include "analyze/compare_case.h"
#include "analyze/result_set.h"

struct history_row {
  const struct rs_entry *first;  /* identity: plugin, params, tag */
  const struct rs_entry **cells; /* per date; NULL where the case did not run */
  enum verdict *shift;           /* per date: verdict against the previous OK run of
                                    the case (V_NO_DATA where there is none) */
  double *ratio;                 /* per date: median / that previous median, or NAN */
};

struct history {
  size_t ndates;      /* columns: one per run */
  const char **dates; /* each column's date; borrowed from the result set */
  const char **runs;  /* each column's run (rs_entry.run); borrowed */
  char **heads;       /* each column's title: its label, else its date; "#k" added
                         to a title that heads several columns */
  size_t nrows;
  struct history_row *rows; /* by plugin, tag, case index */
};

void history_build(const struct result_set *s, double threshold, struct history *h);
void history_release(struct history *h);

/* The run of row at date d against its OK run at date dp (dp < d) as bench
 * compare judges two single runs: each side's between-run term from the
 * row's OK runs before dp of that side's plugin hash (history), else the
 * backend's default (compare_case_sides). */
void history_compare(const struct history_row *row, size_t dp, size_t d, double threshold,
                     struct case_compare *out);

#endif
