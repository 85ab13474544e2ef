/* What bench ab says of a pair of cases (run/ab_run.h): the two levels on
 * its line, which agree with the paired ratio that decides its verdict, and
 * a timed case's estimate in words that follow its verdict (a NOISY or SAME
 * case is never "NEW is X% faster"). */
#ifndef BENCH_AB_WORDS_H
#define BENCH_AB_WORDS_H

#include "analyze/compare_case.h"
#include "analyze/paired.h"
#include "run/ab_run.h"

/* The old and new level of a pair in ns per iteration. Timed: old is the
 * median of the old side's block medians over the rounds (device time when
 * the rounds' ratios are), new is old times the paired ratio, so new/old is
 * the one ratio shown. Not timed: each side's median of its samples (NAN
 * when it has none). */
void ab_levels(const struct ab_case *c, double *old_ns, double *new_ns);

/* An interval's level as its percentage, as short as it reads exactly to
 * 4 digits: "95%", "99.9%", "99.86%" (into buf of at least 16). */
const char *ab_level_text(double level, char buf[16]);

/* The estimate e (its interval at level: 0.95, or an early stop's) of a timed case
 * whose verdict is v, at the SAME band 1 +- threshold, in words:
 *   FASTER  "NEW is 4.1% faster than OLD, 95% CI 1.2-7.0%"
 *   SLOWER  "NEW is 41.4% slower than OLD, 99.8% CI 10.6-80.8%"
 *   SAME    "NEW is the same as OLD within 5%, 95% CI from 1.2% faster to 0.8% slower"
 *   NOISY   "not decided: NEW from 9.2% faster to 1.3% slower than OLD, 95% CI"
 * and "not decided: one pair, no interval" without an interval. malloc'd. */
char *ab_words(const struct paired_est *e, double level, enum verdict v, double threshold);

#endif
