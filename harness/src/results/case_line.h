/* The terminal's line for a finished case, as `bench` prints it while a run
 * goes on (one renderer per output: this line, the .txt in txt.c, the
 * events table in cli/cmd_events.c; all format numbers with core/units). */
#ifndef BENCH_CASE_LINE_H
#define BENCH_CASE_LINE_H

#include "results/result.h"

/* "[ 3/12] cpu_gemm m=64 n=64: OK  median 12.35 us +-0.91% (device)  cv
 * 0.64%  n=6  47.66 GFLOP/s ...\n", then indented lines for an unsettled
 * case, the plugin's note and a failed case's stderr tail. total is the
 * suite's case count (it sets the width of the number). Text from the
 * plugin is escaped (core/term.h). malloc'd. */
char *case_line(const struct case_result *r, const char *label, int total);

#endif
