/* bench --baseline PATH: each case of a run compared, as it finishes, with
 * the same case (plugin and parameters) in a baseline result file or folder
 * (its newest run of each case). */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <stddef.h>

#include "results/result.h"
#include "analyze/result_set.h"

struct baseline {
  struct result_set set;
  size_t *latest; /* newest entry per key, sorted by key */
  char **keys;
  size_t n;
};

/* Load path (a result .json or a results folder). 0, or -1 after error(). */
int baseline_load(struct baseline *b, const char *path);
void baseline_release(struct baseline *b);

/* Compare r with its baseline case and record the outcome in r's info
 * under "baseline" (so it reaches the .json, the .txt notes and the case
 * line): "ratio 1.012 [0.990, 1.030] SAME vs 2026-11-20", "CRASH vs
 * 2026-11-20", or "NEW (not in the baseline)". Nothing when b is NULL. */
void baseline_annotate(const struct baseline *b, struct case_result *r);

#endif
