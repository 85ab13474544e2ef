/* The end of a run on the terminal: the counts, the failed cases by name,
 * how many did not settle, and per plugin a hyperfine-style relative line
 * for cases that differ only in an implementation parameter. */
#ifndef BENCH_RUN_SUMMARY_H
#define BENCH_RUN_SUMMARY_H

#include <stdio.h>

#include "bench/plugin.h"
#include "results/case_line.h"
#include "results/result.h"

struct run_summary {
  size_t n;
  struct summary_case *cases;
  double busy;          /* the busiest steadiness record's figure over its limit (0: none busy) */
  char busy_why[160];   /* ... that figure, said (steady_warn_busy) */
};

/* Keep what the summary needs of a finished case (copied). */
void run_summary_add(struct run_summary *s, const struct bench_plugin *pl, const struct case_result *r);

/* "1 case", "3 cases". */
const char *plural(long n, const char *one, const char *many);

/* A result file's steadiness record (one per plugin): the busiest one is
 * what the run's warning line says. */
void run_summary_steady(struct run_summary *s, const struct run_steady *m);

/* Print the failed cases ("  FAILED WRONG_ANSWER [ 3/12] cpu_gemm ..."),
 * the cases measured on a throttled GPU ("  THROTTLED [ 3/12] cuda_gemm
 * ... (why)"; they take no part in the relative lines), the cases that did
 * not reach their noise target by name with their figures ("  NOISY [ 3/12]
 * cpu_gemm ...  +-565% (target 10%)"; NOISY in the warning colour: over
 * CASE_NOISY_FACTOR times the target; when the lines said which did not
 * settle, st->settle_notes, only the noisy ones), the relative lines
 * ("cpu_gemm: variant=packed is 3.12x faster than naive (m=n=k=512,
 * f32)"), and, when a steadiness record says the machine was busy, one
 * warning line with its figure. Lines fit st->columns; colour as st's. */
void run_summary_print(const struct run_summary *s, FILE *out, int total, const struct case_line_style *st);

void run_summary_release(struct run_summary *s);

#endif
