/* The value grammar of presets and --param: tiers, verify levels, booleans,
 * durations with units, fractions and percentages. */
#include "preset/values.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- names ------------------------------------------------------------ */

static const char *const tier_names[BENCH_TIER_COUNT] = {"smoke", "standard", "perf", "verify"};

const char *tier_name(enum bench_tier t) {
  return (unsigned)t < BENCH_TIER_COUNT ? tier_names[t] : "unknown";
}

int tier_parse(const char *s, enum bench_tier *out) {
  for (int t = 0; t < BENCH_TIER_COUNT; t++) {
    if (strcasecmp(s, tier_names[t]) == 0) {
      *out = (enum bench_tier)t;
      return 0;
    }
  }
  return -1;
}

const char *preset_verify_name(enum verify_level v) {
  switch (v) {
  case VERIFY_NONE: return "none";
  case VERIFY_FAST: return "fast";
  case VERIFY_FULL: return "full";
  }
  return "unknown";
}

int preset_parse_verify(const char *s, enum verify_level *out) {
  if (strcasecmp(s, "full") == 0) *out = VERIFY_FULL;
  else if (strcasecmp(s, "fast") == 0) *out = VERIFY_FAST;
  else if (strcasecmp(s, "none") == 0) *out = VERIFY_NONE;
  else return -1;
  return 0;
}

int preset_parse_bool(const char *s, int *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcasecmp(s, yes[i]) == 0) {
      *out = 1;
      return 0;
    }
    if (strcasecmp(s, no[i]) == 0) {
      *out = 0;
      return 0;
    }
  }
  return -1;
}

/* ---- numbers with units ----------------------------------------------- */

/* A plain decimal number at the start of s: [+-]digits[.digits][e[+-]digits]
 * (no hex, inf or nan, which strtod would take). Returns its length, 0 if
 * there is none. */
static size_t scan_number(const char *s) {
  size_t i = 0, digits = 0;
  if (s[i] == '+' || s[i] == '-') i++;
  while (isdigit((unsigned char)s[i])) i++, digits++;
  if (s[i] == '.') {
    i++;
    while (isdigit((unsigned char)s[i])) i++, digits++;
  }
  if (!digits) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (isdigit((unsigned char)s[j])) {
      while (isdigit((unsigned char)s[j])) j++;
      i = j;
    }
  }
  return i;
}

/* The number at the start of s and what follows it (blanks skipped). A
 * number too small for a double ("1e-310", "1e-400") reads as the smallest
 * one of its sign, never as 0, so that range checks refuse it like any
 * other value that is too small; one too large is no number. */
static int number_and_suffix(const char *s, double *v, const char **suffix) {
  size_t n = scan_number(s);
  if (!n || n > 63) return -1;
  char buf[64], *end;
  memcpy(buf, s, n);
  buf[n] = '\0';
  errno = 0;
  *v = strtod(buf, &end);
  if (*end || !isfinite(*v)) return -1;
  if (errno == ERANGE) {
    if (fabs(*v) >= DBL_MIN) return -1; /* overflow */
    *v = buf[0] == '-' ? -DBL_TRUE_MIN : DBL_TRUE_MIN;
  }
  s += n;
  while (isspace((unsigned char)*s)) s++;
  *suffix = s;
  return 0;
}

int preset_parse_duration(const char *s, double *seconds) {
  static const struct {
    const char *unit;
    double scale;
  } units[] = {{"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"min", 60.0}};
  double v;
  const char *suffix;
  if (!s || number_and_suffix(s, &v, &suffix) != 0) return -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(suffix, units[i].unit) == 0) {
      *seconds = v * units[i].scale;
      return isfinite(*seconds) ? 0 : -1;
    }
  }
  return -1;
}

int preset_parse_fraction(const char *s, double *out) {
  double v;
  const char *suffix;
  if (!s || number_and_suffix(s, &v, &suffix) != 0) return -1;
  if (strcmp(suffix, "%") == 0) v /= 100.0;
  else if (*suffix) return -1;
  *out = v;
  return 0;
}

/* "1ns", "100ms", "3600s": a duration as a preset may write it. */
void preset_duration_text(double s, char *out, size_t len) {
  if (s == 0) snprintf(out, len, "0");
  else if (s < 1e-6) snprintf(out, len, "%gns", s * 1e9);
  else if (s < 1e-3) snprintf(out, len, "%gus", s * 1e6);
  else if (s < 1) snprintf(out, len, "%gms", s * 1e3);
  else snprintf(out, len, "%gs", s);
}
