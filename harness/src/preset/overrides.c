/* The sampling policy from the command line (overrides.h). */
#include "preset/overrides.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "preset/diag.h"
#include "preset/values.h"

static const struct {
  const char *name;
  enum run_key_id key; /* --warmup: RUN_WARMUP_ITERS or RUN_WARMUP_TIME by its value */
} opts[SO_COUNT] = {
    [SO_WARMUP] = {"warmup", RUN_WARMUP_ITERS},
    [SO_MIN_SAMPLES] = {"min-samples", RUN_MIN_SAMPLES},
    [SO_MAX_SAMPLES] = {"max-samples", RUN_MAX_SAMPLES},
    [SO_MIN_TIME] = {"min-time", RUN_MIN_TIME},
    [SO_MAX_TIME] = {"max-time", RUN_MAX_TIME},
    [SO_TARGET_NOISE] = {"target-noise", RUN_TARGET_NOISE},
};

const char *sampling_opt_name(enum sampling_opt o) { return opts[o].name; }

int sampling_opt_find(const char *name) {
  for (int i = 0; i < SO_COUNT; i++)
    if (strcmp(opts[i].name, name) == 0) return i;
  return -1;
}

/* The key --warmup's value sets: a whole number is iterations, anything
 * else a duration, which must then carry its unit. -1 when neither. */
static int warmup_key(const char *arg) {
  int64_t v;
  if (parse_int64(arg, &v) == 0) return RUN_WARMUP_ITERS;
  double s;
  size_t n = strlen(arg);
  if (preset_parse_duration(arg, &s) == 0 && n && !(arg[n - 1] >= '0' && arg[n - 1] <= '9') && arg[n - 1] != '.')
    return RUN_WARMUP_TIME;
  return -1;
}

/* run_key_set for option o into pol: 0, or -1 with why. */
static int set_key(enum sampling_opt o, enum run_key_id key, const char *arg, struct run_policy *pol, char *why,
                   size_t len) {
  struct diags d = {0};
  int rc = run_key_set(pol, key, arg, &d, 0);
  if (rc != 0 && why && len) {
    /* "bad value 'X' for min_samples: ..." as the option's: "... for --min-samples: ..." */
    const char *msg = d.n ? d.v[0].msg : "bad value";
    char pat[64];
    snprintf(pat, sizeof pat, " for %s:", run_key_name(key));
    const char *at = strstr(msg, pat);
    if (at)
      snprintf(why, len, "%.*s for --%s:%s", (int)(at - msg), msg, opts[o].name, at + strlen(pat));
    else
      snprintf(why, len, "%s", msg);
  }
  for (size_t i = 0; i < d.n; i++) free(d.v[i].msg);
  free(d.v);
  return rc;
}

int sampling_override_check(enum sampling_opt o, const char *arg, char *why, size_t len) {
  struct run_policy scratch;
  run_policy_defaults(&scratch);
  if (o == SO_WARMUP) {
    int key = warmup_key(arg);
    if (key < 0) {
      snprintf(why, len,
               "bad value '%s' for --warmup: expected a whole number of warm-up iterations (3) or a duration "
               "with its unit (200ms, 1s)",
               arg);
      return -1;
    }
    return set_key(o, (enum run_key_id)key, arg, &scratch, why, len);
  }
  return set_key(o, opts[o].key, arg, &scratch, why, len);
}

int sampling_overrides_any(const struct sampling_overrides *so) {
  for (int i = 0; so && i < SO_COUNT; i++)
    if (so->arg[i]) return 1;
  return 0;
}

char *sampling_overrides_text(const struct sampling_overrides *so) {
  struct strbuf sb = STRBUF_INIT;
  for (int i = 0; so && i < SO_COUNT; i++)
    if (so->arg[i]) strbuf_addf(&sb, "%s--%s %s", sb.len ? " " : "", opts[i].name, so->arg[i]);
  if (!sb.len) strbuf_adds(&sb, "");
  return strbuf_detach(&sb);
}

/* "--min-samples 50" when the command line gave it, else "min_samples (20) of preset smoke". */
static char *origin(const struct sampling_overrides *so, enum sampling_opt o, const char *value,
                    const char *preset) {
  if (so->arg[o]) return xasprintf("--%s %s", opts[o].name, so->arg[o]);
  return xasprintf("%s (%s) of preset %s", run_key_name(opts[o].key), value, preset);
}

int sampling_overrides_apply(const struct sampling_overrides *so, struct run_policy *pol, const char *preset) {
  if (!sampling_overrides_any(so)) return 0;
  char why[512];
  for (int i = 0; i < SO_COUNT; i++) {
    const char *arg = so->arg[i];
    if (!arg) continue;
    enum run_key_id key = opts[i].key;
    if (i == SO_WARMUP) {
      int k = warmup_key(arg);
      if (k < 0) return error("bad value '%s' for --warmup", arg); /* checked when parsed */
      key = (enum run_key_id)k;
      /* the other warm-up key off: N iterations are N, 200ms is 200ms */
      if (key == RUN_WARMUP_ITERS) pol->warmup_s = 0;
      else pol->warmup_iters = 0;
      pol->from_cli |= 1u << RUN_WARMUP_ITERS | 1u << RUN_WARMUP_TIME;
    }
    if (set_key((enum sampling_opt)i, key, arg, pol, why, sizeof why) != 0) return error("%s", why);
    pol->from_cli |= 1u << key;
  }
  const char *name = preset && *preset ? preset : "-";
  char a[32], b[32];
  if (pol->min_samples > pol->max_samples) {
    snprintf(a, sizeof a, "%d", pol->min_samples);
    snprintf(b, sizeof b, "%d", pol->max_samples);
    char *lo = origin(so, SO_MIN_SAMPLES, a, name), *hi = origin(so, SO_MAX_SAMPLES, b, name);
    error("%s is more than %s: the minimum would never be reached", lo, hi);
    free(lo);
    free(hi);
    return -1;
  }
  if (pol->min_time_s > pol->max_time_s) {
    preset_duration_text(pol->min_time_s, a, sizeof a);
    preset_duration_text(pol->max_time_s, b, sizeof b);
    char *lo = origin(so, SO_MIN_TIME, a, name), *hi = origin(so, SO_MAX_TIME, b, name);
    error("%s is longer than %s: the minimum would never be reached", lo, hi);
    free(lo);
    free(hi);
    return -1;
  }
  if (so->arg[SO_WARMUP] && pol->warmup_s > pol->max_time_s) {
    preset_duration_text(pol->max_time_s, b, sizeof b);
    char *hi = origin(so, SO_MAX_TIME, b, name);
    error("--warmup %s is longer than %s, which bounds the warm-up: give a longer --max-time", so->arg[SO_WARMUP], hi);
    free(hi);
    return -1;
  }
  return 0;
}
