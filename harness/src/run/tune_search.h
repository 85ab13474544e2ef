/* Searching the tunables of one problem case (bench tune): every candidate
 * configuration runs as a case of the plugin in one worker (init once),
 * its output checked against the reference (a wrong answer disqualifies
 * it), its per-iteration times kept as a record of the tuning cache (so an
 * interrupted search resumes, and a new candidate measures only itself).
 *
 * A candidate already in the cache is not measured again by grid or random
 * (halving adds the samples a round asks for).
 *
 * Strategies: grid measures every candidate to the preset's noise target;
 * random does that for a seeded random subset (the default always in it);
 * halving races them: rounds of 6, 12, 24, ... samples per live candidate,
 * after each round a candidate whose median's 95% interval lies wholly
 * above the leader's is dropped, until the leader's interval is within
 * the noise target (or samples run out).
 *
 * The pick, for every strategy: the leader is the lowest median among the
 * correct candidates; the finalists are the candidates whose interval
 * reaches the leader's (at most TUNE_FINALISTS, lowest medians first).
 * Each finalist is then compared with the leader through bench ab's driver
 * (run/tune_ab.h: separate workers, fresh pairs, paired interval; SAME band
 * the preset's noise target, 1% to 20%): SLOWER (or NOISY with its whole
 * interval above 1) drops it, FASTER (or NOISY wholly below 1) makes it the
 * leader (the others are compared again), SAME or an interval holding 1
 * ties. A tie
 * goes to the one the plugin declared first (the default first), so a
 * rerun picks the same configuration. The winner is then compared with the
 * default the same way, and kept only when FASTER. */
#ifndef BENCH_TUNE_SEARCH_H
#define BENCH_TUNE_SEARCH_H

#include <stdio.h>

#include "cases/cases.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"

enum tune_strategy { TUNE_GRID, TUNE_RANDOM, TUNE_HALVING };
int tune_strategy_parse(const char *s, enum tune_strategy *out); /* 0, or -1 */
const char *tune_strategy_name(enum tune_strategy s);

struct tune_opts {
  enum tune_strategy strategy;
  const struct run_policy *pol; /* the preset's: noise target, sample limits, timeout */
  double deadline;              /* now_s() after which no new measurement starts (0: none) */
  size_t random_n;              /* random: candidates to try (0: a quarter, at least 8) */
  const char *cache_path;
  const char *key;              /* the problem's tuning key (tuning_key) */
  int debug;
  FILE *out;                    /* progress lines */
};

struct tune_outcome {
  char *winner;          /* candidate label, or NULL when no candidate was correct */
  char *default_label;
  double winner_ns, default_ns; /* medians (default_ns 0 when the default failed) */
  double winner_lo, winner_hi;  /* the winner's median interval */
  int versus;            /* the winner was compared with the default through bench ab's driver: */
  double speedup, speedup_lo, speedup_hi; /* default / winner time, its paired interval */
  const char *versus_verdict; /* FASTER (the winner kept), SAME, NOISY, SLOWER (the default
                                 kept), FAILED (a side failed: the default kept) */
  size_t versus_rounds, versus_pairs;
  int kept_default;      /* that comparison did not find the winner FASTER */
  char *challenger;      /* the search's best, compared with the default (when versus) */
  size_t final_cmp, final_rounds, final_pairs; /* the leader against the finalists */
  size_t candidates, tried, measured_now, resumed, disqualified, skipped, failed;
  char *disq_list;       /* "tx=8 ty=1 (WRONG_ANSWER: ...); ..." or NULL */
  char *skip_list;
  int interrupted, out_of_budget;
  int unproven;          /* the budget ran out before the search's best (challenger,
                            challenger_ns) was compared with the default: the default kept */
  double challenger_ns;
  double wall_s;
};
void tune_outcome_release(struct tune_outcome *o);

/* Search the tunables of `problem` (a case of pl, tunables at their
 * defaults) as o says. 0 with *res filled (a winner recorded in the cache
 * when the search ended), -1 after error() (the cache could not be written;
 * what was measured before is kept). */
int tune_problem(const struct plugin *pl, const struct case_def *problem, const struct tune_opts *o,
                 struct tune_outcome *res);

#endif
