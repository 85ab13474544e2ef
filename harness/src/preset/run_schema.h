/* The run policy a preset's [run] section sets, and that section's schema
 * (keys, kinds, ranges): what a [run] key means is said here once. */
#ifndef BENCH_RUN_SCHEMA_H
#define BENCH_RUN_SCHEMA_H

#include "bench/plugin.h"
#include "check/check.h"
#include "preset/diag.h"

/* The stopping rule: which noise target_noise bounds. */
enum stop_rule { STOP_CI = 0, STOP_CV = 1 };
/* "ci", "cv" (as a preset's `stop` key and the result file write it). */
const char *stop_rule_name(enum stop_rule r);

/* isolation = backend (default): the selected plugins of one backend run in
 * one worker, one after the other; plugin: one worker per plugin; case: one
 * process per case. */
enum isolation { ISOLATION_BACKEND, ISOLATION_PLUGIN, ISOLATION_CASE };

/* "backend", "plugin" or "case" into *out: 0, or -1 for anything else. */
int isolation_parse(const char *s, enum isolation *out);

struct run_policy {
  enum bench_tier tier;     /* which plugin defaults apply */
  int warmup_iters;         /* at least this many warm-up iterations */
  double warmup_s;          /* and at least this long */
  int min_samples, max_samples;
  double min_time_s, max_time_s; /* sampling time (warm-up excluded) */
  double target_noise;      /* stop when relative noise <= this (0.02 = 2%) */
  double batch_min_s;       /* batch iterations until a sample lasts this long (0: never) */
  int batch_cold;           /* batch = cold: one run() per sample, never run_batch (warm: 0) */
  enum verify_level verify;
  int determinism;          /* run twice, compare outputs bitwise */
  double timeout_s;         /* per case, whole child */
  double heartbeat_s;       /* events HEARTBEAT interval */
  enum stop_rule stop_rule; /* what target_noise bounds: stop = ci (default), the
                               relative half-width of the median's 95% confidence
                               interval; stop = cv, the CV (the old rule) */
  enum isolation isolation; /* which cases share a worker process (isolation =
                               backend, the default | plugin | case) */
  int require_check;        /* a case that nothing checked (unchecked) is ERROR,
                               for CI (require_check = true, --require-check) */
  int report_settle;        /* "did not settle" notes on the case lines: 1 yes, 0 no
                               (then counted once in the summary), -1 (default) only
                               under tier perf */
  double throttle_threshold; /* a sample whose SM clock is below this share of the
                               device's default clock is throttled: discarded and
                               re-taken (0: never; default 0.75, nvbench's) */
  double throttle_recovery_s; /* the pause before re-taking a throttled sample,
                               doubling while throttling persists (default 0.05 s) */
  int telemetry;            /* read the GPU's management library during a case
                               that names its device (telemetry = on, the default) */
  int telemetry_interval_ms; /* its period (10 to 1000, default 50) */
  int validation;           /* validation = true: each case of a backend that has a
                               validation layer (Vulkan's) runs under it, a validation
                               error making the case ERROR, as --mode debug does,
                               without --mode debug's other settings (verify.ini) */
  unsigned from_cli;        /* bits 1u << enum run_key_id: the keys the command line
                               set (--min-samples, ...: preset/overrides.h), for the
                               result header; 0 for a preset alone */
};
/* The defaults used where a preset says nothing (those of "standard"). */
void run_policy_defaults(struct run_policy *p);

/* The [run] keys. A new key is one id here, one line in run_schema.c's
 * table, and its storing in run_key_set. */
enum run_key_id {
  RUN_TIER, RUN_WARMUP_ITERS, RUN_WARMUP_TIME, RUN_MIN_SAMPLES, RUN_MAX_SAMPLES,
  RUN_MIN_TIME, RUN_MAX_TIME, RUN_TARGET_NOISE, RUN_BATCH_MIN_TIME, RUN_VERIFY,
  RUN_DETERMINISM, RUN_TIMEOUT, RUN_HEARTBEAT, RUN_BATCH, RUN_STOP, RUN_ISOLATION,
  RUN_REQUIRE_CHECK, RUN_REPORT_SETTLE, RUN_THROTTLE_THRESHOLD, RUN_THROTTLE_RECOVERY,
  RUN_TELEMETRY, RUN_TELEMETRY_INTERVAL, RUN_VALIDATION, RUN_NKEYS
};

/* The id of [run] key `name`, or -1. */
int run_key_find(const char *name);
const char *run_key_name(enum run_key_id id);
/* "tier, warmup_iters, ...": every key, malloc'd. */
char *run_key_names(void);

/* Parse value (non-empty or not) for key id and store it in pol. 0, or -1
 * after one problem added to d at line ("bad value '...' for ...: ..."). */
int run_key_set(struct run_policy *pol, enum run_key_id id, const char *value, struct diags *d,
                int line);

/* min_samples <= max_samples and min_time <= max_time once each value is
 * good: set[id] is the line where key id was set (0: not), ok[id] the line
 * where it was set to a good value. A problem is added to d at the line of
 * the later key of the pair. */
void run_policy_check_ranges(const struct run_policy *pol, const int *set, const int *ok,
                             struct diags *d);

#endif
