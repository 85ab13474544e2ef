/* run/ab_words.c: bench ab's line shows one ratio, the paired one that
 * decides the verdict, with old and new levels that agree with it (not the
 * pooled medians of all samples, which can point the other way: "old
 * 894.78 us, new 927.61 us, new/old 0.9588"), and the words of a one-case
 * plugin follow its verdict (a NOISY case is never "NEW is 4.1% faster"). */
#include "run/ab_words.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* A timed pair whose pooled medians (new above old) contradict its paired
 * ratio (0.9588: new faster), as in the issue. */
static void make_case(struct ab_case *c) {
  memset(c, 0, sizeof *c);
  c->timed = 1;
  c->est = (struct paired_est){.nrounds = 5, .npairs = 5, .ratio = 0.9588, .lo = 0.90, .hi = 1.02, .p = 0.2};
  c->level = 0.95;
  c->old.r.nsamples = c->new_.r.nsamples = 50;
  c->old.r.host_clock.median = 894.78e3;
  c->new_.r.host_clock.median = 927.61e3;
  static struct ab_round rounds[5];
  const double old_blocks[5] = {900e3, 910e3, 905e3, 930e3, 890e3};
  for (int i = 0; i < 5; i++)
    rounds[i] = (struct ab_round){.pair = i, .old_host = old_blocks[i], .new_host = old_blocks[i] * 0.96};
  c->rounds = rounds;
  c->nrounds = 5;
}

static void test_levels_follow_the_ratio(void) {
  struct ab_case c;
  make_case(&c);
  double o, n;
  ab_levels(&c, &o, &n);
  CHECK_NEAR(o, 905e3, 1e-6); /* the median of the old side's blocks */
  CHECK_NEAR(n / o, c.est.ratio, 1e-12);
  CHECK(n < o); /* the ratio says faster: so do the levels */
  /* device time when the rounds' ratios are of device time */
  for (size_t i = 0; i < c.nrounds; i++) c.rounds[i].old_dev = 2.0 * c.rounds[i].old_host;
  c.device = 1;
  ab_levels(&c, &o, &n);
  CHECK_NEAR(o, 1810e3, 1e-6);
  CHECK_NEAR(n / o, c.est.ratio, 1e-12);
  /* not timed: each side's own median */
  c.timed = 0;
  ab_levels(&c, &o, &n);
  CHECK(o == 894.78e3 && n == 927.61e3);
  c.old.r.nsamples = 0;
  ab_levels(&c, &o, &n);
  CHECK(isnan(o));
}

static int has(const char *s, const char *part) { return strstr(s, part) != NULL; }

static void test_words_follow_the_verdict(void) {
  struct paired_est e = {.nrounds = 5, .npairs = 5, .ratio = 0.9588, .lo = 0.908, .hi = 1.013, .p = 0.2};
  char *w = ab_words(&e, 0.95, V_NOISY, 0.05);
  CHECK(strcmp(w, "not decided: NEW from 9.2% faster to 1.3% slower than OLD, 95% CI") == 0);
  CHECK(!has(w, "NEW is"));
  free(w);
  /* NOISY with an interval wholly on one side (a throttled side): still not decided */
  e = (struct paired_est){.ratio = 1.2, .lo = 1.1, .hi = 1.3, .npairs = 6};
  w = ab_words(&e, 0.95, V_NOISY, 0.05);
  CHECK(strcmp(w, "not decided: NEW from 10.0% slower to 30.0% slower than OLD, 95% CI") == 0);
  free(w);
  w = ab_words(&e, 0.99, V_SLOWER, 0.05);
  CHECK(strcmp(w, "NEW is 20.0% slower than OLD, 99% CI 10.0-30.0%") == 0);
  free(w);
  e = (struct paired_est){.ratio = 0.8, .lo = 0.7, .hi = 0.9, .npairs = 6};
  w = ab_words(&e, 0.95, V_FASTER, 0.05);
  CHECK(strcmp(w, "NEW is 20.0% faster than OLD, 95% CI 10.0-30.0%") == 0);
  free(w);
  /* SAME: within the band, not "2% faster" */
  e = (struct paired_est){.ratio = 0.98, .lo = 0.97, .hi = 0.99, .npairs = 6};
  w = ab_words(&e, 0.95, V_SAME, 0.05);
  CHECK(strcmp(w, "NEW is the same as OLD within 5%, 95% CI from 3.0% faster to 1.0% faster") == 0);
  free(w);
  /* one pair: no interval, nothing decided */
  e = (struct paired_est){.ratio = 0.9, .lo = 0, .hi = INFINITY, .npairs = 1};
  w = ab_words(&e, 0.95, V_NOISY, 0.05);
  CHECK(strcmp(w, "not decided: one pair, no interval") == 0);
  free(w);
}

TEST_MAIN(TEST_ENTRY(test_levels_follow_the_ratio), TEST_ENTRY(test_words_follow_the_verdict))
