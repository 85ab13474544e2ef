/* The end of a run on the terminal: the counts, the failed cases by name,
 * how many did not settle, and per plugin a hyperfine-style relative line
 * for cases that differ only in an implementation parameter. */
#ifndef BENCH_RUN_SUMMARY_H
#define BENCH_RUN_SUMMARY_H

#include <stdio.h>

#include "bench/plugin.h"
#include "results/result.h"

struct run_summary {
  size_t n;
  struct summary_case *cases;
};

/* Keep what the summary needs of a finished case (copied). */
void run_summary_add(struct run_summary *s, const struct bench_plugin *pl, const struct case_result *r);

/* "1 case", "3 cases". */
const char *plural(long n, const char *one, const char *many);

/* Print the failed cases ("  FAILED WRONG_ANSWER [ 3/12] cpu_gemm ..."),
 * the cases measured on a throttled GPU ("  THROTTLED [ 3/12] cuda_gemm
 * ... (why)"; they take no part in the relative lines), the unsettled count (when the case lines did not say it) and the relative
 * lines ("cpu_gemm: variant=packed is 3.12x faster than naive (m=n=k=512,
 * f32)"). colour: failures in red bold. */
void run_summary_print(const struct run_summary *s, FILE *out, int total, int colour, int settle_said);

void run_summary_release(struct run_summary *s);

#endif
