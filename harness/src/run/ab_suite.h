/* The bench ab suite: the plugins of two plans, OLD and NEW, paired by
 * name (in name order over both sides) and their cases by label (the new
 * side's cases in order, then the old side's it lacks). A plugin or case on
 * one side only is MISSING (OLD only) or NEW; a pair of cases is measured
 * by ab_run_case (ab_run.h) and gets compare's verdict words: the paired
 * estimate's when both sides were timed, else compare_case_sides' failure
 * verdicts. Both sides' results go to ordinary result files tagged old and
 * new (run/result_file.h), each under its side's label, the new side's info
 * holding the rounds and the verdict (ab_*). What is shown is the observer's. */
#ifndef BENCH_AB_SUITE_H
#define BENCH_AB_SUITE_H

#include "analyze/compare_case.h"
#include "analyze/paired.h"
#include "plan/plan.h"
#include "run/ab_run.h"

/* A plugin's counts, for its closing line. */
struct ab_tally {
  int n[V_COUNT];
  double logsum;         /* of the timed cases' ratios */
  int timed;
  struct paired_est one; /* the estimate when one case was timed */
  enum verdict one_verdict; /* and its verdict */
  double level;          /* its interval's */
};

/* What the suite shows as it goes; arg is the observer's. k numbers the
 * cases of the new side from 1 (0 for a case in OLD only), total is the
 * new side's number of cases. */
struct ab_observer {
  void *arg;
  /* A plugin (label NULL) or a case on one side only: V_MISSING or V_NEW. */
  void (*one_sided)(void *arg, const char *plugin, const char *label, int k, enum verdict v);
  /* A pair of cases measured, with its verdict. */
  void (*case_row)(void *arg, const char *plugin, const char *label, int k, int total, const struct ab_case *c,
                   enum verdict v);
  /* The end of a plugin present on both sides. */
  void (*plugin_done)(void *arg, const char *plugin, const struct ab_tally *t);
};

struct ab_suite_opts {
  const char *results_dir;
  unsigned fail_on;      /* FAIL_* */
  struct ab_opts ab;     /* its threshold is compare's too */
  int argc;              /* the command line, for the result files */
  char **argv;
  const char *label[2];  /* each side's label, old then new (NULL: run/env.h run_env_label's default) */
};

/* Run the suite of old against new until done or interrupted, then write
 * the rollup of results_dir. 1 when a verdict is in fail_on or results
 * could not be written (after error()), else 0; an interrupt shows in
 * child_interrupted(). */
int ab_suite_run(const struct plan *old, const struct plan *new_, const struct ab_suite_opts *o,
                 const struct ab_observer *obs);

#endif
