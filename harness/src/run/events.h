/* The --events stream: one JSON object per line, each with "event" and
 * "ts" (Unix time in seconds), flushed as it happens. */
#ifndef BENCH_EVENTS_H
#define BENCH_EVENTS_H

#include <stdio.h>

#include "results/result.h"

struct events {
  FILE *f;       /* NULL: events off */
  int owned;     /* close f at the end */
  FILE *also;    /* a second file the same events go to (bench run --serve's), or NULL */
};

/* path "-" is stdout. 0, or -1 after error(). */
int events_open(struct events *ev, const char *path);
/* The same events to path too (created with its folder's parent there). 0, or -1 after error(). */
int events_open_also(struct events *ev, const char *path);
void events_close(struct events *ev);

void events_suite_start(struct events *ev, int total_cases, const char *const *plugins,
                        size_t nplugins, const char *preset, const char *tag);
void events_test_start(struct events *ev, const struct case_result *identity, const char *label,
                       int index, int total, double timeout_s);
void events_heartbeat(struct events *ev, const char *plugin, const char *label, int index,
                      double elapsed_s, double case_percent, double case_eta_s,
                      double suite_percent, double suite_eta_s);
void events_test_end(struct events *ev, const struct case_result *r, const char *label);
void events_suite_end(struct events *ev, int completed, int failed, int skipped, int total,
                      double wall_s, int interrupted);

#endif
