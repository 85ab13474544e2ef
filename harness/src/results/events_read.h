/* Reading an events file (the --events stream, or a log holding it) back
 * into suites and cases, for `bench events`. Lines that are not JSON
 * objects are skipped; numbers out of range are ignored, never cast. Work
 * and memory are linear in the input: cases are found by index through a
 * hash map, and a line longer than EVENTS_LINE_MAX is dropped as it
 * arrives (so /dev/zero costs time, not memory). */
#ifndef BENCH_EVENTS_READ_H
#define BENCH_EVENTS_READ_H

#include <stddef.h>
#include <stdio.h>

#include "core/strmap.h"
#include "core/util.h"

/* A longer line is no event of ours (the longest is a TEST_START with its
 * params and label, a few KiB). */
#define EVENTS_LINE_MAX (1u << 20)

enum { HAVE_WALL = 1, HAVE_MEDIAN = 2, HAVE_GFLOPS = 4, HAVE_GBPS = 8, HAVE_THROUGHPUT = 16,
       HAVE_PRIMARY = 32 /* the event says its primary figure (null: none): no fallback */ };

struct ev_case {
  int index;                     /* 0 .. INT_MAX - 1 */
  char *plugin, *label, *status; /* status "RUNNING" until TEST_END */
  double wall_s, median_ms, gflops, gbps;
  double throughput;             /* the case's primary figure (TEST_END "throughput") */
  char throughput_unit[48];      /* in this unit ("GB/s", "ns/load"; result.h case_figure) */
  unsigned have; /* HAVE_* */
};

struct ev_suite {
  char *preset, *tag;
  int total; /* SUITE_START's total_cases, 0 when unknown */
  struct ev_case *cases;
  size_t ncases;
  struct strmap by_index; /* decimal index -> position in cases */
  double start_ts, last_ts;
  int started, ended, interrupted;
  double wall_s;
  /* the latest HEARTBEAT, unless a case ended after it */
  int have_hb;
  double hb_percent, hb_eta;
};

struct ev_log {
  struct ev_suite *suites;
  size_t n;
  struct strbuf partial; /* bytes after the last newline */
  int skipping;          /* the current line grew past EVENTS_LINE_MAX: drop it */
  int changed;           /* a case started or ended, or a suite ended */
};

/* Add bytes read from the file; complete lines are applied, the rest waits. */
void ev_log_feed(struct ev_log *l, const char *data, size_t n);
/* At the end of the input: a last line without its newline counts when it
 * is a whole event, and is dropped when the writer stopped mid-line. */
void ev_log_feed_end(struct ev_log *l);
/* Sort a suite's cases by index (its lookup map follows). */
void ev_suite_sort(struct ev_suite *s);
void ev_log_release(struct ev_log *l);

/* The tables of every suite, as `bench events` prints them (cmd_events.c);
 * max_rows > 0 shows only the last max_rows cases of the last suite. */
void ev_log_print(FILE *f, struct ev_log *l, int max_rows);

#endif
