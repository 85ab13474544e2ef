/* The verdict on one case measured twice (old and new run): a failure on
 * either side is its own verdict and never a speed-up; otherwise the ratio
 * of medians with its interval decides (compare_stats.h). Shared by bench
 * compare, history, report and the run's --baseline. */
#ifndef BENCH_COMPARE_CASE_H
#define BENCH_COMPARE_CASE_H

#include "analyze/compare_stats.h"
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
  /* compare_case_sides only (compare_case leaves them zero): each side's
   * between-run term, and whether a FASTER/SLOWER was held back to NOISY
   * because a side had fewer than CS_MIN_SAMPLES samples */
  struct cs_noise old_noise, new_noise;
  int few_samples;
  /* ... or because a side with the default term is a run that did not
   * settle (reach its noise target): the default assumes a run measured
   * what it was asked, and no run-to-run spread is known for it */
  int unsettled;
};

/* Either side may be NULL (MISSING / NEW). */
void compare_case(const struct case_result *old, const struct case_result *new_, double threshold,
                  struct case_compare *out);

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
};

/* How steady a run's machine was, from its header (compare_stats.h): steady
 * when it was recorded and no other thread was runnable at the run's start
 * or end (on average, per CPU, at most COMPARE_STEADY_OTHERS), the
 * calibration loop was off its CPU at most COMPARE_STEADY_CONTENTION of its
 * time and moved at most COMPARE_STEADY_DRIFT from start to end, and steal
 * took at most COMPARE_STEADY_STEAL of the CPU time; busy otherwise;
 * unknown when not recorded (steal unknown too: no /proc/stat). */
#define COMPARE_STEADY_OTHERS 0.25
#define COMPARE_STEADY_CONTENTION 0.05
#define COMPARE_STEADY_DRIFT 0.05
#define COMPARE_STEADY_STEAL 0.02
enum cs_machine compare_machine_of(const struct run_steady *m);

/* compare_case with the between-run term (compare_stats.h): a side of one
 * run gets its history's spread or the backend's default, a side of
 * several runs is pooled with runs as the unit; same_runs: the two sides
 * are the same measurements (term none). FASTER and SLOWER need
 * CS_MIN_SAMPLES samples on each side, else NOISY (few_samples set), and
 * a settled run on each side that takes the default term (else NOISY,
 * unsettled set).
 * bench compare uses it; compare_case stays the within-run comparison of
 * two single runs. */
void compare_case_sides(const struct case_side *old, const struct case_side *new_, int same_runs, double threshold,
                        struct case_compare *out);

#endif
