/* The verdict on one case measured twice. */
#include "analyze/compare_case.h"

#include <math.h>
#include <stdio.h>
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

/* The verdict from the two sides' statuses; 1 when that decides it (out
 * set), 0 when both are OK and the timing must. */
static int status_verdict(const struct case_result *old, const struct case_result *new_, struct case_compare *out) {
  memset(out, 0, sizeof *out);
  out->c.ratio = out->c.lo = out->c.hi = NAN;
  out->c.p = 1.0;
  if (!new_) {
    out->verdict = V_MISSING;
    return 1;
  }
  if (!old) {
    out->verdict = V_NEW;
    return 1;
  }
  if (case_status_failed(new_->status)) {
    out->verdict = failure_of(new_->status);
    return 1;
  }
  if (case_status_failed(old->status)) {
    out->verdict = new_->status == CASE_OK ? V_FIXED : V_SKIPPED;
    return 1;
  }
  if (old->status != CASE_OK || new_->status != CASE_OK) {
    out->verdict = V_SKIPPED;
    return 1;
  }
  return 0;
}

static enum verdict speed_verdict(enum cs_verdict v) {
  switch (v) {
  case CS_SAME: return V_SAME;
  case CS_FASTER: return V_FASTER;
  case CS_SLOWER: return V_SLOWER;
  default: return V_NOISY;
  }
}

void compare_case(const struct case_result *old, const struct case_result *new_, double threshold,
                  struct case_compare *out) {
  if (status_verdict(old, new_, out)) return;
  out->device = rs_has_device(old) && rs_has_device(new_);
  size_t no, nn;
  const double *xo = rs_samples(old, out->device, &no), *xn = rs_samples(new_, out->device, &nn);
  if (!no || !nn || cs_compare(xo, no, xn, nn, &out->c) != 0) {
    out->verdict = V_NO_DATA;
    return;
  }
  out->timed = 1;
  out->verdict = speed_verdict(cs_verdict_of(&out->c, threshold, COMPARE_ALPHA));
}

enum cs_machine compare_machine_of(const struct run_steady *m) {
  if (!m || !m->known || isnan(m->steal)) return CS_MACHINE_UNKNOWN;
  if (!(m->others_start <= COMPARE_STEADY_OTHERS) || !(m->others_end <= COMPARE_STEADY_OTHERS) ||
      !(m->contention <= COMPARE_STEADY_CONTENTION) || !(fabs(m->drift) <= COMPARE_STEADY_DRIFT) ||
      !(m->steal <= COMPARE_STEADY_STEAL))
    return CS_MACHINE_BUSY;
  return CS_MACHINE_STEADY;
}

static int all_device(const struct case_side *s) {
  for (size_t i = 0; i < s->nruns; i++)
    if (!rs_has_device(s->runs[i])) return 0;
  for (size_t i = 0; i < s->nhistory; i++)
    if (!rs_has_device(s->history[i])) return 0;
  return 1;
}

/* The cs_side of a case_side (arrays owned by the caller's holder). */
struct side_arrays {
  const double **x;
  size_t *n;
  double *hist;
};

static int side_of(const struct case_side *s, int device, struct cs_side *cs, struct side_arrays *a) {
  a->x = xcalloc(s->nruns + 1, sizeof *a->x);
  a->n = xcalloc(s->nruns + 1, sizeof *a->n);
  a->hist = xcalloc(s->nhistory + 1, sizeof *a->hist);
  memset(cs, 0, sizeof *cs);
  size_t total = 0;
  for (size_t i = 0; i < s->nruns; i++) {
    a->x[i] = rs_samples(s->runs[i], device, &a->n[i]);
    if (!a->n[i]) return -1;
    total += a->n[i];
  }
  size_t nh = 0;
  for (size_t i = 0; i < s->nhistory; i++) {
    size_t n;
    const double *x = rs_samples(s->history[i], device, &n);
    double m = n ? cs_median(x, n) : NAN;
    if (m > 0.0) a->hist[nh++] = m;
  }
  const struct case_result *newest = s->runs[s->nruns - 1];
  enum cs_machine m = compare_machine_of(s->steady);
  /* how long the newest run timed the case: its samples (per iteration)
   * times their batch */
  double timed_ns = 0.0;
  for (size_t i = 0; i < a->n[s->nruns - 1]; i++) timed_ns += a->x[s->nruns - 1][i];
  timed_ns *= newest->batch > 1 ? newest->batch : 1;
  int brief = m == CS_MACHINE_STEADY && timed_ns < CS_STEADY_MIN_TIMED_S * 1e9;
  *cs = (struct cs_side){.nruns = s->nruns,
                         .x = a->x,
                         .n = a->n,
                         .hist_medians = a->hist,
                         .nhist = nh,
                         .prior = cs_between_default_on(newest->backend, total / s->nruns,
                                                        brief ? CS_MACHINE_BUSY : m),
                         .machine = m,
                         .brief = brief};
  return 0;
}

static void side_arrays_release(struct side_arrays *a) {
  free(a->x);
  free(a->n);
  free(a->hist);
}

void compare_case_sides(const struct case_side *old, const struct case_side *new_, int same_runs, double threshold,
                        struct case_compare *out) {
  const struct case_result *o = old && old->nruns ? old->runs[old->nruns - 1] : NULL;
  const struct case_result *n = new_ && new_->nruns ? new_->runs[new_->nruns - 1] : NULL;
  if (status_verdict(o, n, out)) return;
  out->device = all_device(old) && all_device(new_);
  struct cs_side so, sn;
  struct side_arrays ao, an;
  int rc = side_of(old, out->device, &so, &ao);
  if (rc == 0) rc = side_of(new_, out->device, &sn, &an);
  else memset(&an, 0, sizeof an);
  if (rc == 0) rc = cs_compare_sides(&so, &sn, same_runs, &out->c, &out->old_noise, &out->new_noise);
  side_arrays_release(&ao);
  side_arrays_release(&an);
  if (rc != 0) {
    out->verdict = V_NO_DATA;
    return;
  }
  out->timed = 1;
  out->verdict = speed_verdict(cs_verdict_of(&out->c, threshold, COMPARE_ALPHA));
  if ((out->verdict == V_FASTER || out->verdict == V_SLOWER) &&
      (out->old_noise.samples < CS_MIN_SAMPLES || out->new_noise.samples < CS_MIN_SAMPLES)) {
    out->verdict = V_NOISY;
    out->few_samples = 1;
  }
  if ((out->verdict == V_FASTER || out->verdict == V_SLOWER) &&
      ((out->old_noise.term == CS_TERM_DEFAULT && !o->settled) ||
       (out->new_noise.term == CS_TERM_DEFAULT && !n->settled))) {
    out->verdict = V_NOISY;
    out->unsettled = 1;
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

int compare_parse_fail_on(const char *s, unsigned *out, char *bad, size_t len) {
  char *list = xstrdup(s), *save = NULL;
  unsigned v = 0;
  int rc = 0;
  for (char *p = strtok_r(list, ",", &save); p && rc == 0; p = strtok_r(NULL, ",", &save)) {
    p = trim(p);
    if (strcmp(p, "slower") == 0) v |= FAIL_SLOWER;
    else if (strcmp(p, "wrong") == 0) v |= FAIL_WRONG;
    else if (strcmp(p, "missing") == 0) v |= FAIL_MISSING;
    else if (strcmp(p, "noisy") == 0) v |= FAIL_NOISY;
    else if (strcmp(p, "none") != 0) {
      if (len) snprintf(bad, len, "%s", p);
      rc = -1;
    }
  }
  free(list);
  *out = v;
  return rc;
}
