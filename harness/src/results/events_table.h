/* What `bench events` shows of a suite read back by events_read.h: its
 * cases as a table, and its counts and progress. */
#ifndef BENCH_EVENTS_TABLE_H
#define BENCH_EVENTS_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "results/events_read.h"

#define EVENTS_LABEL_MAX 60 /* case labels are cut to this many bytes */

/* A suite's counts and progress: cases done (ended) of total, how they
 * ended, the percentage and the ETA in seconds (-1: unknown): the latest
 * HEARTBEAT's, else from the mean wall time of the cases done. */
struct ev_tally {
  int done, ok, skipped, failed, total;
  double percent, eta;
};

void ev_suite_count(const struct ev_suite *s, struct ev_tally *t);

/* The cases of a suite from first on, as a text table (#, plugin, case cut
 * to EVENTS_LABEL_MAX bytes, status, wall s, median, throughput); a line
 * above the rows counts the ones before first. */
void ev_print_cases(FILE *f, const struct ev_suite *s, size_t first);

#endif
