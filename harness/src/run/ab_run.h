/* One case of bench ab: the old and the new build of a plugin measured in
 * interleaved rounds. Each side runs in its own worker (ab_worker.h), the
 * two never at the same time; a round is one block of samples on each side,
 * the order alternating within a pair from a random start, and its paired log-ratio is log(new / old) of the two
 * block medians (device time when both sides reported it for every
 * sample, else host time for all rounds); a block lasts about max_time/2000
 * (2-50 ms). After rounds_per_pair rounds, or more until the pair's rounds
 * took as long as starting its workers did (at most 8x), both workers
 * verify their output and are replaced by a fresh pair, so process state
 * is sampled too; the estimate takes the pair as its unit
 * (analyze/paired.h). After each pair, from min_pairs on, the case may stop
 * early once the interval decides (SAME, FASTER or SLOWER at the
 * threshold); each such look is paid for (Bonferroni over the looks): the
 * first pair's wall time gives the looks L that fit in max_time, and each of
 * at most L looks takes the interval at 1 - AB_EARLY_ALPHA / L, so that all
 * early looks together err with at most AB_EARLY_ALPHA (a fixed 99% at
 * every look would err more often the more looks a case takes); a look
 * stops the case only with the signed-rank interval (enough pairs to
 * reach its level: 7 for 98%, 12 for 99.95%), never on Student's t. Else the
 * case ends at max_time (wall time of the case, worker starts included)
 * with the 95% interval. */
#ifndef BENCH_AB_RUN_H
#define BENCH_AB_RUN_H

#include <stdint.h>

#include "analyze/paired.h"
#include "cases/cases.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"
#include "results/result.h"

/* What all early looks of a case may spend together (see above). */
#define AB_EARLY_ALPHA 0.02

struct ab_opts {
  double threshold;      /* the SAME band: 1 +- threshold */
  double max_time_s;     /* per case */
  int rounds_per_pair;   /* rounds before a fresh pair of workers */
  int min_pairs;         /* before an early stop */
  uint64_t seed;         /* the order of the sides in each round */
};

struct ab_round {
  int pair;
  int new_first;
  double old_host, new_host, old_dev, new_dev; /* block medians, ns per iteration */
  int dev_ok;            /* both blocks had device time */
};

struct ab_side {
  struct case_result r;  /* identity, status, samples of every worker, stats */
  size_t cap;
  int dev_ok;            /* every sample had device time */
};

struct ab_case {
  struct ab_side old, new_;
  struct ab_round *rounds;
  size_t nrounds;
  int timed;             /* both sides OK with rounds: est and verdict hold */
  int device;            /* the rounds' ratios are of device time */
  struct paired_est est;
  enum cs_verdict verdict;
  int early;             /* stopped before max_time because the interval decided */
  double level;          /* of est's interval: 1 - AB_EARLY_ALPHA / looks_max when it
                          * stopped early, else 0.95 */
  int looks, looks_max;  /* early looks taken, and the most it could take (L) */
  int pairs;             /* worker pairs started */
  double wall_s;
};

/* Run case oc of op (old) against nc of np (new) under pol; out's sides
 * get the identities (suite index `index`). Never exits; an interrupt
 * leaves the side that ran INTERRUPTED. */
void ab_run_case(const struct plugin *op, const struct case_def *oc, const struct plugin *np,
                 const struct case_def *nc, int index, const struct run_policy *pol,
                 const struct ab_opts *o, struct ab_case *out);
void ab_case_release(struct ab_case *c);
/* The rounds as text for the result file: "pair:order:ratio;..." with
 * order "on" (old first) or "no". malloc'd. */
char *ab_rounds_text(const struct ab_case *c);

#endif
