#include "run/steady.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/compare_stats.h"
#include "core/stats.h"
#include "core/util.h"
#include "results/steady_warn.h"

#define LOOP_REPS 9
#define LOOP_ITERS 400000u
/* Steal is a share of /proc/stat's ticks (100 a second a CPU): over fewer
 * than this many (100), one stolen tick is more than half the warning line
 * (a 10 ms run on 2 CPUs has 2 or 3 ticks: one stolen read as 33%), so a
 * shorter run records no steal figure rather than a false one. */
#define STEAL_MIN_TICKS ((unsigned long long)(2.0 / STEADY_WARN_STEAL))

static double clock_s(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The aggregate "cpu" line of /proc/stat: busy (user, nice, system, irq,
 * softirq), total (all but guest, counted in user already) and steal (the
 * eighth field; absent on old kernels). 0, or -1. */
static int read_stat(struct steady_reading *r) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return -1;
  unsigned long long v[8] = {0};
  int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                 &v[6], &v[7]);
  fclose(f);
  if (n < 4) return -1;
  r->busy = v[0] + v[1] + v[2] + v[5] + v[6];
  r->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  r->steal = v[7];
  r->have_steal = n >= 8;
  return 0;
}

/* procs_running of /proc/stat: runnable threads now, this one included. */
static int procs_running(void) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return -1;
  char line[256];
  int n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "procs_running %d", &n) == 1) break;
  fclose(f);
  return n;
}

static double load1(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double l = NAN;
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = NAN;
    fclose(f);
  }
  return l;
}

void steady_read(struct steady_reading *r) {
  memset(r, 0, sizeof *r);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  /* The calibration loop: LOOP_REPS timings of a fixed integer chain, with
   * procs_running read before each. Wall time beyond the thread's CPU
   * time is time another thread (or the hypervisor) held this CPU. Both
   * figures are the median over the reps: one preemption (a kernel
   * thread, our own worker exiting) hits one rep, not the machine's state. */
  double wall[LOOP_REPS], offshare[LOOP_REPS], others[LOOP_REPS];
  int nrun = 0;
  for (int i = 0; i < LOOP_REPS; i++) {
    int pr = procs_running();
    if (pr >= 1) others[nrun++] = pr - 1; /* less this thread */
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    volatile unsigned x = (unsigned)i + 1u;
    unsigned y = x;
    for (unsigned k = 0; k < LOOP_ITERS; k++) y = y * 1664525u + 1013904223u;
    x = y;
    (void)x;
    double c1 = clock_s(CLOCK_THREAD_CPUTIME_ID), w1 = clock_s(CLOCK_MONOTONIC);
    wall[i] = (w1 - w0) * 1e9;
    offshare[i] = w1 - w0 > c1 - c0 && w1 > w0 ? ((w1 - w0) - (c1 - c0)) / (w1 - w0) : 0.0;
  }
  r->contention = cs_median(offshare, LOOP_REPS);
  r->others = nrun ? cs_median(others, (size_t)nrun) / (double)cpus : NAN;
  stats_sort(wall, LOOP_REPS);
  r->loop_ns = wall[0];
  double l = load1();
  r->load = isnan(l) ? NAN : l / (double)cpus;
  r->t = clock_s(CLOCK_MONOTONIC);
  r->ok = read_stat(r) == 0 && nrun > 0;
}

void steady_between(const struct steady_reading *a, const struct steady_reading *b, struct run_steady *out) {
  memset(out, 0, sizeof *out);
  out->steal = NAN;
  if (!a->ok || !b->ok) return;
  out->known = 1;
  out->wall_s = b->t - a->t;
  out->load_start = a->load;
  out->load_end = b->load;
  out->others_start = a->others;
  out->others_end = b->others;
  out->contention = a->contention > b->contention ? a->contention : b->contention;
  out->drift = a->loop_ns > 0.0 ? b->loop_ns / a->loop_ns - 1.0 : 0.0;
  if (a->have_steal && b->have_steal && b->total >= a->total + STEAL_MIN_TICKS)
    out->steal = (double)(b->steal - a->steal) / (double)(b->total - a->total);
}
