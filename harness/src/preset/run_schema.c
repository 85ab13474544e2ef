/* The [run] section's schema: its keys, their kinds and ranges, storing a
 * value into the run policy, and the checks across keys (min <= max). */
#include "preset/run_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preset/values.h"

const char *stop_rule_name(enum stop_rule r) { return r == STOP_CV ? "cv" : "ci"; }

void run_policy_defaults(struct run_policy *p) {
  memset(p, 0, sizeof *p);
  p->tier = BENCH_TIER_STANDARD;
  p->warmup_iters = 2;
  p->warmup_s = 0.1;
  p->min_samples = 5;
  p->max_samples = 1000;
  p->min_time_s = 0.2;
  p->max_time_s = 5.0;
  p->target_noise = 0.02;
  p->batch_min_s = 1e-3;
  p->verify = VERIFY_FAST;
  p->determinism = 0;
  p->report_settle = -1;
  p->timeout_s = 120.0;
  p->heartbeat_s = 60.0;
  p->throttle_threshold = 0.75;
  p->throttle_recovery_s = 0.05;
  p->telemetry = 1;
  p->telemetry_interval_ms = 50;
}

enum run_kind { RK_TIER, RK_COUNT, RK_DURATION, RK_FRACTION, RK_VERIFY, RK_BOOL, RK_BATCH, RK_CHOICE };

/* One [run] key. A new key is one enum id (run_schema.h), one line here, and its
 * storing in run_key_set (a new kind also its parsing there). */
struct run_key {
  const char *name;
  enum run_kind kind;
  double min, max; /* RK_COUNT, RK_DURATION, RK_FRACTION: allowed range */
  int zero_ok;     /* RK_DURATION: 0 (off) is allowed below min */
};

#define HOUR 3600.0
#define WEEK (7 * 24 * HOUR)
#define MAX_COUNT 1000000

/* The ranges (documented in docs/running.md, "Presets"): a nonzero time
 * is at least 1 ns (what our clocks resolve); nothing lasts longer than a
 * week per case, so suite ETAs stay meaningful. */
static const struct run_key run_keys[RUN_NKEYS] = {
  [RUN_TIER] = {"tier", RK_TIER, 0, 0, 0},
  [RUN_WARMUP_ITERS] = {"warmup_iters", RK_COUNT, 0, MAX_COUNT, 0},
  [RUN_WARMUP_TIME] = {"warmup_time", RK_DURATION, 1e-9, HOUR, 1},
  [RUN_MIN_SAMPLES] = {"min_samples", RK_COUNT, 1, MAX_COUNT, 0},
  [RUN_MAX_SAMPLES] = {"max_samples", RK_COUNT, 1, MAX_COUNT, 0},
  [RUN_MIN_TIME] = {"min_time", RK_DURATION, 1e-9, HOUR, 1},
  [RUN_MAX_TIME] = {"max_time", RK_DURATION, 1e-9, HOUR, 1},
  [RUN_TARGET_NOISE] = {"target_noise", RK_FRACTION, 1e-5, 1, 0},
  [RUN_BATCH_MIN_TIME] = {"batch_min_time", RK_DURATION, 1e-9, 10, 1},
  [RUN_VERIFY] = {"verify", RK_VERIFY, 0, 0, 0},
  [RUN_DETERMINISM] = {"determinism", RK_BOOL, 0, 0, 0},
  [RUN_TIMEOUT] = {"timeout", RK_DURATION, 0.1, WEEK, 0},
  [RUN_HEARTBEAT] = {"heartbeat", RK_DURATION, 0.1, HOUR, 0},
  [RUN_BATCH] = {"batch", RK_BATCH, 0, 0, 0},
  [RUN_STOP] = {"stop", RK_CHOICE, 0, 0, 0},
  [RUN_ISOLATION] = {"isolation", RK_CHOICE, 0, 0, 0},
  [RUN_REQUIRE_CHECK] = {"require_check", RK_BOOL, 0, 0, 0},
  [RUN_REPORT_SETTLE] = {"report_settle", RK_BOOL, 0, 0, 0},
  [RUN_THROTTLE_THRESHOLD] = {"throttle_threshold", RK_FRACTION, 0, 1, 0},
  [RUN_THROTTLE_RECOVERY] = {"throttle_recovery_s", RK_DURATION, 1e-3, 10, 1},
  [RUN_TELEMETRY] = {"telemetry", RK_BOOL, 0, 0, 0},
  [RUN_TELEMETRY_INTERVAL] = {"telemetry_interval_ms", RK_COUNT, 10, 1000, 0},
  [RUN_VALIDATION] = {"validation", RK_BOOL, 0, 0, 0},
};

int run_key_find(const char *name) {
  for (int i = 0; i < RUN_NKEYS; i++)
    if (strcmp(name, run_keys[i].name) == 0) return i;
  return -1;
}

const char *run_key_name(enum run_key_id id) { return run_keys[id].name; }

char *run_key_names(void) {
  struct strbuf sb = STRBUF_INIT;
  for (int i = 0; i < RUN_NKEYS; i++) strbuf_addf(&sb, "%s%s", i ? ", " : "", run_keys[i].name);
  return strbuf_detach(&sb);
}

int isolation_parse(const char *s, enum isolation *out) {
  static const char *const names[] = {"backend", "plugin", "case"};
  for (int i = 0; i < 3; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (enum isolation)i;
      return 0;
    }
  return -1;
}

int run_key_set(struct run_policy *pol, enum run_key_id id, const char *value, struct diags *d,
                int line) {
  const struct run_key *k = &run_keys[id];
  const char *name = k->name;
  if (!*value) {
    diags_add(d, line, "missing value for '%s'", name);
    return -1;
  }
  switch (k->kind) {
  case RK_CHOICE: {
    /* stop = ci | cv; isolation = backend | plugin | case */
    if (id == RUN_ISOLATION) {
      enum isolation iso;
      if (isolation_parse(value, &iso) != 0) {
        diags_add(d, line, "bad value '%s' for isolation: expected backend, plugin or case", value);
        return -1;
      }
      pol->isolation = iso;
      return 0;
    }
    int v = strcmp(value, "ci") == 0 ? 0 : strcmp(value, "cv") == 0 ? 1 : -1;
    if (v < 0) {
      diags_add(d, line, "bad value '%s' for %s: expected ci or cv", value, name);
      return -1;
    }
    pol->stop_rule = v ? STOP_CV : STOP_CI;
    return 0;
  }
  case RK_TIER: {
    enum bench_tier t;
    if (tier_parse(value, &t) != 0) {
      diags_add(d, line, "bad value '%s' for tier: expected smoke, standard, perf or verify", value);
      return -1;
    }
    pol->tier = t;
    return 0;
  }
  case RK_VERIFY: {
    enum verify_level v;
    if (preset_parse_verify(value, &v) != 0) {
      diags_add(d, line, "bad value '%s' for verify: expected full, fast or none", value);
      return -1;
    }
    pol->verify = v;
    return 0;
  }
  case RK_BATCH: /* warm: batched samples (run_batch when the plugin has it); cold: one run() each */
    if (strcmp(value, "warm") != 0 && strcmp(value, "cold") != 0) {
      diags_add(d, line, "bad value '%s' for batch: expected warm or cold", value);
      return -1;
    }
    pol->batch_cold = strcmp(value, "cold") == 0;
    return 0;
  case RK_BOOL: {
    int b;
    if (preset_parse_bool(value, &b) != 0) {
      diags_add(d, line,
               "bad value '%s' for %s: expected true or false (also yes/no, on/off, 1/0)",
               value, name);
      return -1;
    }
    if (id == RUN_REQUIRE_CHECK) pol->require_check = b;
    else if (id == RUN_REPORT_SETTLE) pol->report_settle = b;
    else if (id == RUN_TELEMETRY) pol->telemetry = b;
    else if (id == RUN_VALIDATION) pol->validation = b;
    else pol->determinism = b;
    return 0;
  }
  case RK_COUNT: {
    int64_t v;
    if (parse_int64(value, &v) != 0 || v < (int64_t)k->min || v > (int64_t)k->max) {
      diags_add(d, line, "bad value '%s' for %s: expected an integer from %d to %d", value, name,
               (int)k->min, (int)k->max);
      return -1;
    }
    if (id == RUN_WARMUP_ITERS) pol->warmup_iters = (int)v;
    else if (id == RUN_MIN_SAMPLES) pol->min_samples = (int)v;
    else if (id == RUN_TELEMETRY_INTERVAL) pol->telemetry_interval_ms = (int)v;
    else pol->max_samples = (int)v;
    return 0;
  }
  case RK_DURATION: {
    double v;
    if (preset_parse_duration(value, &v) != 0) {
      diags_add(d, line,
               "bad value '%s' for %s: expected a duration (a number with an optional unit "
               "s, ms, us, ns or min, e.g. 15s, 500ms, 0.5)", value, name);
      return -1;
    }
    if (!(v >= k->min && v <= k->max) && !(k->zero_ok && v == 0)) {
      char lo[32], hi[32];
      preset_duration_text(k->min, lo, sizeof lo);
      preset_duration_text(k->max, hi, sizeof hi);
      diags_add(d, line, "bad value '%s' for %s: must be %sfrom %s to %s", value, name,
               k->zero_ok ? "0 or " : "", lo, hi);
      return -1;
    }
    if (id == RUN_WARMUP_TIME) pol->warmup_s = v;
    else if (id == RUN_MIN_TIME) pol->min_time_s = v;
    else if (id == RUN_MAX_TIME) pol->max_time_s = v;
    else if (id == RUN_BATCH_MIN_TIME) pol->batch_min_s = v;
    else if (id == RUN_TIMEOUT) pol->timeout_s = v;
    else if (id == RUN_THROTTLE_RECOVERY) pol->throttle_recovery_s = v;
    else pol->heartbeat_s = v;
    return 0;
  }
  case RK_FRACTION: {
    double v;
    if (preset_parse_fraction(value, &v) != 0) {
      diags_add(d, line,
               "bad value '%s' for %s: expected a percentage or a fraction (e.g. 2%% or 0.02)",
               value, name);
      return -1;
    }
    if (!(v >= k->min && v <= k->max)) {
      char hint[64] = "";
      if (v > 1 && v <= 100 && !strchr(value, '%'))
        snprintf(hint, sizeof hint, "; for %g percent write %g%%", v, v);
      diags_add(d, line, "bad value '%s' for %s: must be from %g%% to %g%% "
               "(e.g. 2%% or 0.02)%s", value, name, k->min * 100, k->max * 100, hint);
      return -1;
    }
    if (id == RUN_THROTTLE_THRESHOLD) pol->throttle_threshold = v;
    else pol->target_noise = v;
    return 0;
  }
  }
  return -1;
}

static char *fmt_seconds(double s) { return xasprintf("%gs", s); }

void run_policy_check_ranges(const struct run_policy *pol, const int *set, const int *ok,
                             struct diags *d) {
  struct {
    enum run_key_id lo, hi;
    int bad;
    char *lov, *hiv;
  } pairs[2] = {
    {RUN_MIN_SAMPLES, RUN_MAX_SAMPLES, pol->max_samples < pol->min_samples,
     xasprintf("%d", pol->min_samples), xasprintf("%d", pol->max_samples)},
    {RUN_MIN_TIME, RUN_MAX_TIME, pol->max_time_s < pol->min_time_s,
     fmt_seconds(pol->min_time_s), fmt_seconds(pol->max_time_s)},
  };
  for (int i = 0; i < 2; i++) {
    int lo = pairs[i].lo, hi = pairs[i].hi;
    int bad_value = (set[lo] && !ok[lo]) || (set[hi] && !ok[hi]);
    if (pairs[i].bad && !bad_value) {
      const char *lon = run_keys[lo].name, *hin = run_keys[hi].name;
      if (ok[hi] && ok[hi] >= ok[lo])
        diags_add(d, ok[hi], "%s (%s) is less than %s (%s%s)", hin, pairs[i].hiv, lon,
                 pairs[i].lov, ok[lo] ? "" : ", the default");
      else
        diags_add(d, ok[lo], "%s (%s) is greater than %s (%s%s)", lon, pairs[i].lov, hin,
                 pairs[i].hiv, ok[hi] ? "" : ", the default");
    }
    free(pairs[i].lov);
    free(pairs[i].hiv);
  }
}
