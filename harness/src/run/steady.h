/* How steady the machine was over a run, read at its start and its end:
 * the load average, other runnable threads (procs_running, sampled), CPU
 * steal from /proc/stat, and a short fixed calibration loop timed at both
 * ends (its drift, and the share of its wall time it spent off a CPU).
 * Recorded in the result header (results/result.h struct run_steady);
 * bench compare picks its default between-run term from it. */
#ifndef BENCH_STEADY_H
#define BENCH_STEADY_H

#include "results/result.h"

/* One end's reading. */
struct steady_reading {
  int ok;                     /* /proc/stat was read */
  double t;                   /* monotonic seconds */
  unsigned long long busy, total, steal;
  int have_steal;
  double load, others;        /* per CPU */
  double loop_ns, contention; /* calibration loop: its fastest time, the share off a CPU */
};

/* Take a reading now (about 5 ms: the calibration loop). */
void steady_read(struct steady_reading *r);

/* The run between two readings. known 0 when either could not read /proc. */
void steady_between(const struct steady_reading *start, const struct steady_reading *end, struct run_steady *out);

#endif
