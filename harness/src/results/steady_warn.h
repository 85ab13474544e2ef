/* Whether a run's steadiness record (results/result.h struct run_steady,
 * read by run/steady.c) says the machine was busy, and the figure that
 * says it most: the end of bench's run and the .txt header warn with it
 * (Google Benchmark warns of CPU scaling, pyperf records the load). The
 * limits are the one set: bench compare calls a run steady within them
 * (analyze/compare_case.c, compare_machine_of). */
#ifndef BENCH_STEADY_WARN_H
#define BENCH_STEADY_WARN_H

#include <stddef.h>

#include "results/result.h"

#define STEADY_WARN_OTHERS 0.25     /* other runnable threads per CPU, at the start or the end */
#define STEADY_WARN_CONTENTION 0.05 /* share of the calibration loop's time off its CPU */
#define STEADY_WARN_DRIFT 0.05      /* the calibration loop's change from start to end */
#define STEADY_WARN_STEAL 0.02      /* share of CPU time stolen by the hypervisor */

/* How far over its limit m's worst figure is (figure / limit; above 1:
 * busy), with that figure said in why ("7.5 other runnable threads per CPU
 * at its start (steady: at most 0.25)"). 0 and why "" when m is not
 * known or every figure is within its limit. */
double steady_warn_busy(const struct run_steady *m, char *why, size_t len);

#endif
