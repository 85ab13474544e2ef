/* The verdict on one case measured twice (old and new run): a failure on
 * either side is its own verdict and never a speed-up; otherwise the ratio
 * of medians with its interval decides (compare_stats.h), widened by each
 * side's between-run term. compare_case_sides is the one verdict engine:
 * bench compare, history, report, the run's --baseline and the failure
 * verdicts of bench ab all reach theirs through it, so two result files
 * get the same verdict and interval wherever they are compared. */
#ifndef BENCH_COMPARE_CASE_H
#define BENCH_COMPARE_CASE_H

#include "analyze/compare_stats.h"
#include "machine/cpu_caches.h"
#include "results/result.h"

enum verdict {
  V_SAME, V_FASTER, V_SLOWER, V_NOISY,      /* both OK with samples: by speed */
  V_WRONG_ANSWER, V_CRASH, V_TIMEOUT, V_ERROR, V_INTERRUPTED, /* the new run failed */
  V_FIXED,     /* the old run failed, the new one is OK */
  V_SKIPPED,   /* skipped on a side, failed on neither */
  V_NO_DATA,   /* OK on both sides but without samples to compare */
  V_MISSING,   /* in the old run only */
  V_NEW,       /* in the new run only */
  V_COUNT
};
const char *verdict_name(enum verdict v);
int verdict_is_failure(enum verdict v); /* WRONG_ANSWER ... INTERRUPTED */

#define COMPARE_DEFAULT_THRESHOLD 0.05
#define COMPARE_ALPHA 0.05

/* --threshold: a fraction ("0.05") or a percentage ("5%"), in [0, 1).
 * 0, or -1 when it is neither. */
int compare_parse_threshold(const char *s, double *out);

/* --fail-on: which verdicts make the exit status 1 (bench compare, bench ab). */
enum compare_fail_on {
  FAIL_SLOWER = 1, FAIL_WRONG = 2, FAIL_MISSING = 4, FAIL_NOISY = 8
};
/* A comma list of slower, wrong, missing, noisy or none into *out.
 * 0, or -1 with the first unknown word copied to bad[0..len). */
int compare_parse_fail_on(const char *s, unsigned *out, char *bad, size_t len);

struct case_compare {
  enum verdict verdict;
  int timed;          /* c holds a ratio (both OK with samples) */
  int device;         /* the device timer was compared (both had it) */
  struct cs_ratio c;  /* new / old */
  /* each side's between-run term, and whether a FASTER/SLOWER was held back to NOISY
   * because a side had fewer than CS_MIN_SAMPLES samples */
  struct cs_noise old_noise, new_noise;
  int few_samples;
  /* ... or because a side with the default term is a run that did not
   * settle (reach its noise target): the default assumes a run measured
   * what it was asked, and no run-to-run spread is known for it */
  int unsettled;
  /* a run of the side was throttled (its telemetry: most samples below
   * the throttle threshold of the device's clock, kept and marked): such
   * a side measured the clock, not the kernel, so the verdict is NOISY
   * however the interval lies (never FASTER, SLOWER or SAME: a SAME could
   * hide a change as large as the throttle's slowdown). */
  int old_throttled, new_throttled;
};

/* 1 when r's telemetry marks it throttled (results/result.h
 * case_telemetry.throttled). */
int compare_throttled(const struct case_result *r);

/* One side of a case for compare_case_sides: its runs to pool (the newest,
 * whose status decides failures, last; nruns 0 for an absent side) and its
 * earlier runs with the same plugin hash (history, OK ones with samples). */
struct case_side {
  const struct case_result *const *runs;
  size_t nruns;
  const struct case_result *const *history;
  size_t nhistory;
  /* the newest run's header: how steady the machine was (NULL: unknown) */
  const struct run_steady *steady;
  /* ... and its caches (NULL or llc 0: unknown), for COMPARE_LARGE_OF_LLC */
  const struct cpu_caches *caches;
};

/* A case whose memory grew by more than this times the last-level cache
 * while it ran (results/result.h case_memory: the resident set's peak over
 * its start, measured per case) moves from one process to the next by
 * where its pages landed, as far as on a busy machine: a memory-bound
 * stream or a pointer chase over twice the cache on a steady 2-vCPU VM, a
 * run's median 4-9% from one process to the next (docs/measurements.md,
 * "How far to trust a verdict"), against the steady figure's 3%. So a
 * steady run of such a case takes the busy figure (its side "large"), as
 * a case timed too briefly does. */
#define COMPARE_LARGE_OF_LLC 1.0

/* How steady a run's machine was, from its header (compare_stats.h): steady
 * when it was recorded and no other thread was runnable at the run's start
 * or end (on average, per CPU, at most STEADY_WARN_OTHERS), the calibration
 * loop was off its CPU at most STEADY_WARN_CONTENTION of its time and moved
 * at most STEADY_WARN_DRIFT from start to end, and steal took at most
 * STEADY_WARN_STEAL of the CPU time (results/steady_warn.h: the one set of
 * limits, which the run's busy warning uses too); busy otherwise; unknown
 * when not recorded (steal unknown too: no /proc/stat). */
enum cs_machine compare_machine_of(const struct run_steady *m);

/* How steady the GPU was over one device-timed case, from its telemetry
 * (results/result.h struct case_telemetry), for a case that has some:
 * readings of the management library or an in-band clock
 * (compare_device_known). Device-steady when none of these was seen, else
 * device-busy with the CMP_DEV_* bits of what was in *why:
 *   CMP_DEV_REASONS   a throttle reason other than gpu_idle, app_clocks,
 *                     display_clocks and sync_boost (power cap, thermal,
 *                     HW slowdown, power brake, an unknown bit);
 *   CMP_DEV_THROTTLE_TIME  the library's power or thermal throttle time
 *                     over the case above COMPARE_DEVICE_THROTTLE_TIME of
 *                     the time the case was timed (timed_ns: its samples
 *                     times their batch; a smaller span than the sampler's
 *                     window, so the bound is the stricter one);
 *   CMP_DEV_OTHER_PROCS  another process on the device;
 *   CMP_DEV_CLOCK     the SM clock moved within the case: the library's
 *                     minimum, or the in-band clock's, below
 *                     COMPARE_DEVICE_CLOCK_MIN of its mean;
 *   CMP_DEV_THROTTLED a throttled sample was discarded and re-taken, or
 *                     the case was marked throttled.
 * compare_case_sides adds CMP_DEV_CLOCKS_MOVED: both sides device-steady
 * but their mean SM clocks more than COMPARE_DEVICE_CLOCKS_APART apart
 * (the clock moved between the runs: both are classed device-busy). */
#define COMPARE_DEVICE_CLOCK_MIN 0.97
#define COMPARE_DEVICE_THROTTLE_TIME 0.01
#define COMPARE_DEVICE_CLOCKS_APART 0.02
enum {
  CMP_DEV_REASONS = 1u << 0,
  CMP_DEV_THROTTLE_TIME = 1u << 1,
  CMP_DEV_OTHER_PROCS = 1u << 2,
  CMP_DEV_CLOCK = 1u << 3,
  CMP_DEV_THROTTLED = 1u << 4,
  CMP_DEV_CLOCKS_MOVED = 1u << 5,
  CMP_DEV_BITS = 6
};
/* "throttle_reasons", "throttle_time", "other_processes", "clock_unstable",
 * "throttled_samples", "clocks_moved" for one CMP_DEV_* bit ("?" else). */
const char *compare_device_why_name(unsigned bit);
/* 1 when r has telemetry to class its device by (readings > 0 or an
 * in-band clock). */
int compare_device_known(const struct case_result *r);
/* CS_MACHINE_DEVICE_STEADY or CS_MACHINE_DEVICE_BUSY (why set; 0 when
 * steady); CS_MACHINE_UNKNOWN when !compare_device_known(r). */
enum cs_machine compare_device_of(const struct case_result *r, double timed_ns, unsigned *why);

/* The verdict with the between-run term (compare_stats.h): a side of one
 * run gets its history's spread or the backend's default, a side of
 * several runs is pooled with runs as the unit; same_runs: the two sides
 * are the same measurements (term none). FASTER and SLOWER need
 * CS_MIN_SAMPLES samples on each side, else NOISY (few_samples set), and
 * a settled run on each side that takes the default term (else NOISY,
 * unsettled set); a throttled run on a side makes any speed verdict NOISY
 * (old_throttled / new_throttled set).
 * The default's machine: for a device-timed case (both sides timed by the
 * device) whose newest run has telemetry, the device's state
 * (compare_device_of), else the run header's (compare_machine_of).
 * A side may be NULL or have nruns 0 (MISSING / NEW). */
void compare_case_sides(const struct case_side *old, const struct case_side *new_, int same_runs, double threshold,
                        struct case_compare *out);

#endif
