/* bench --baseline PATH: each case of a run compared, as it finishes, with
 * the same case (plugin and parameters) in a baseline result file or folder,
 * the way bench compare PATH FILE compares it, FILE the run's result file:
 * the baseline's newest run of the case with the runs of its day pooled and
 * earlier ones as its history, its header's steadiness, and the new run
 * with its own (compare_sets.h, compare_case_sides: one verdict engine). */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <stddef.h>

#include "analyze/result_set.h"
#include "results/result.h"

struct baseline {
  struct result_set set;
  struct rs_group *groups; /* the runs of each key, sorted by key (rs_group_runs) */
  char **keys;
  size_t n;
};

/* Load path (a result .json or a results folder). 0, or -1 after error(). */
int baseline_load(struct baseline *b, const char *path);
void baseline_release(struct baseline *b);

/* Compare r with its baseline case and record the outcome in r's info
 * under "baseline" (so it reaches the .json, the .txt notes and the case
 * line): "ratio 1.012 [0.990, 1.030] SAME vs 2026-11-20", "CRASH vs
 * 2026-11-20", or "NEW (not in the baseline)"; a value already there is
 * replaced. steady: how steady the machine was over r's run (its result
 * file's header; while the run goes on, from its start to now; NULL:
 * unknown). Nothing when b is NULL. */
void baseline_annotate(const struct baseline *b, struct case_result *r, const struct run_steady *steady);

/* At the end of r's result file, with its header's steadiness (read at
 * the file's end): r's "baseline" again, as bench compare will read the
 * file. 1 when that changed what its line said (*was: the earlier text,
 * malloc'd), else 0 (*was NULL). */
int baseline_settle(const struct baseline *b, struct case_result *r, const struct run_steady *steady, char **was);

#endif
