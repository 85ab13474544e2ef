/* The verdict on one case measured twice. */
#include "analyze/compare_case.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/result_set.h"
#include "core/util.h"

static const char *const names[V_COUNT] = {
    [V_SAME] = "SAME",       [V_FASTER] = "FASTER",     [V_SLOWER] = "SLOWER",
    [V_NOISY] = "NOISY",     [V_WRONG_ANSWER] = "WRONG_ANSWER", [V_CRASH] = "CRASH",
    [V_TIMEOUT] = "TIMEOUT", [V_ERROR] = "ERROR",       [V_INTERRUPTED] = "INTERRUPTED",
    [V_FIXED] = "FIXED",     [V_SKIPPED] = "SKIPPED",   [V_NO_DATA] = "NO_DATA",
    [V_MISSING] = "MISSING", [V_NEW] = "NEW",
};

const char *verdict_name(enum verdict v) {
  return v < V_COUNT ? names[v] : "?";
}

int verdict_is_failure(enum verdict v) {
  return v >= V_WRONG_ANSWER && v <= V_INTERRUPTED;
}

static enum verdict failure_of(enum case_status s) {
  switch (s) {
  case CASE_WRONG_ANSWER: return V_WRONG_ANSWER;
  case CASE_CRASH: return V_CRASH;
  case CASE_TIMEOUT: return V_TIMEOUT;
  case CASE_INTERRUPTED: return V_INTERRUPTED;
  default: return V_ERROR;
  }
}

void compare_case(const struct case_result *old, const struct case_result *new_, double threshold,
                  struct case_compare *out) {
  memset(out, 0, sizeof *out);
  out->c.ratio = out->c.lo = out->c.hi = NAN;
  out->c.p = 1.0;
  if (!new_) {
    out->verdict = V_MISSING;
    return;
  }
  if (!old) {
    out->verdict = V_NEW;
    return;
  }
  if (case_status_failed(new_->status)) {
    out->verdict = failure_of(new_->status);
    return;
  }
  if (case_status_failed(old->status)) {
    out->verdict = new_->status == CASE_OK ? V_FIXED : V_SKIPPED;
    return;
  }
  if (old->status != CASE_OK || new_->status != CASE_OK) {
    out->verdict = V_SKIPPED;
    return;
  }
  out->device = rs_has_device(old) && rs_has_device(new_);
  size_t no, nn;
  const double *xo = rs_samples(old, out->device, &no), *xn = rs_samples(new_, out->device, &nn);
  if (!no || !nn || cs_compare(xo, no, xn, nn, &out->c) != 0) {
    out->verdict = V_NO_DATA;
    return;
  }
  out->timed = 1;
  switch (cs_verdict_of(&out->c, threshold, COMPARE_ALPHA)) {
  case CS_SAME: out->verdict = V_SAME; break;
  case CS_FASTER: out->verdict = V_FASTER; break;
  case CS_SLOWER: out->verdict = V_SLOWER; break;
  default: out->verdict = V_NOISY; break;
  }
}

int compare_parse_threshold(const char *s, double *out) {
  char *copy = xstrdup(s);
  size_t len = strlen(copy);
  int pct = len && copy[len - 1] == '%';
  if (pct) copy[len - 1] = '\0';
  double v;
  int rc = parse_double(copy, &v);
  free(copy);
  if (rc != 0) return -1;
  if (pct) v /= 100.0;
  if (!(v >= 0.0 && v < 1.0)) return -1;
  *out = v;
  return 0;
}
