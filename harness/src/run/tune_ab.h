/* bench tune's final comparisons through bench ab's driver (run/ab_run.h):
 * two candidate configurations of one plugin, each in its own worker (never
 * running at once), in interleaved rounds with a fresh worker pair every
 * few rounds, judged by the paired interval over the pairs. The search
 * uses it for the leader against each finalist and for the winner against
 * the default, so the pick does not rest on samples taken minutes apart. */
#ifndef BENCH_TUNE_AB_H
#define BENCH_TUNE_AB_H

#include <stddef.h>

#include "analyze/compare_stats.h"
#include "cases/cases.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"

/* Rounds per worker pair and pairs before an early stop: fewer than bench
 * ab's own (4, 6): a tuning compares several finalists. */
#define TUNE_AB_ROUNDS_PER_PAIR 4
#define TUNE_AB_MIN_PAIRS 3

struct tune_ab {
  int timed;               /* both sides ran correctly with rounds: the rest holds */
  double ratio, lo, hi;    /* time of the challenger / time of the incumbent, and its interval */
  double level;            /* of the interval (0.99 after an early stop, else 0.95) */
  enum cs_verdict verdict; /* FASTER: the challenger is faster (at threshold) */
  size_t rounds, pairs;
  double wall_s;           /* of the comparison, worker starts included */
  int interrupted;
  char *why;               /* not timed: which side failed and how (malloc'd) */
};

/* Compare challenger against incumbent (cases of pl) under pol: SAME band
 * 1 +- threshold, at most max_time_s. Never fails: out->timed says whether
 * it measured. */
void tune_ab_compare(const struct plugin *pl, const struct case_def *incumbent,
                     const struct case_def *challenger, const struct run_policy *pol,
                     double threshold, double max_time_s, struct tune_ab *out);
void tune_ab_release(struct tune_ab *a);

#endif
