/* bench compare's output as one table (core/text_table.h) that every
 * renderer takes: the text and markdown columns (times, ratio, 95% CI, p,
 * verdict) with the notes under them (unmatched cases, verdict counts,
 * geometric means, batch changes, the between-run terms), the CSV columns
 * (raw numbers, each side's term and machine) and the JSON document
 * ("bench-compare/1": each case's sides, the summary). */
#ifndef BENCH_COMPARE_TABLE_H
#define BENCH_COMPARE_TABLE_H

#include "analyze/compare_sets.h"
#include "core/text_table.h"

struct compare_view {
  const char *old_path, *new_path; /* as given on the command line */
  double threshold;
};

void compare_table_build(const struct compare_row *rows, size_t n, const struct compare_summary *s,
                         const struct compare_view *v, struct text_table *t);

#endif
