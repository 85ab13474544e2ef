/* The verdict on one case measured twice. */
#include "analyze/compare_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/result_set.h"
#include "core/util.h"
#include "results/steady_warn.h"

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

int compare_throttled(const struct case_result *r) {
  return r && r->telemetry && r->telemetry->throttled;
}

/* A throttled side holds any speed verdict at NOISY (compare_case.h). */
static void hold_throttled(struct case_compare *out) {
  if ((out->old_throttled || out->new_throttled) &&
      (out->verdict == V_SAME || out->verdict == V_FASTER || out->verdict == V_SLOWER))
    out->verdict = V_NOISY;
}

enum cs_machine compare_machine_of(const struct run_steady *m) {
  if (!m || !m->known || isnan(m->steal)) return CS_MACHINE_UNKNOWN;
  if (!(m->others_start <= STEADY_WARN_OTHERS) || !(m->others_end <= STEADY_WARN_OTHERS) ||
      !(m->contention <= STEADY_WARN_CONTENTION) || !(fabs(m->drift) <= STEADY_WARN_DRIFT) ||
      !(m->steal <= STEADY_WARN_STEAL))
    return CS_MACHINE_BUSY;
  return CS_MACHINE_STEADY;
}

const char *compare_device_why_name(unsigned bit) {
  switch (bit) {
  case CMP_DEV_REASONS: return "throttle_reasons";
  case CMP_DEV_THROTTLE_TIME: return "throttle_time";
  case CMP_DEV_OTHER_PROCS: return "other_processes";
  case CMP_DEV_CLOCK: return "clock_unstable";
  case CMP_DEV_THROTTLED: return "throttled_samples";
  case CMP_DEV_CLOCKS_MOVED: return "clocks_moved";
  default: return "?";
  }
}

int compare_device_known(const struct case_result *r) {
  return r && r->telemetry && (r->telemetry->readings > 0 || r->telemetry->clock_samples > 0);
}

/* Throttle reasons that do not slow a busy GPU's kernels: idle, the
 * application clock setting, display clocks, sync boost. */
#define BENIGN_THROTTLE (GPU_THR_GPU_IDLE | GPU_THR_APP_CLOCKS | GPU_THR_DISPLAY_CLOCKS | GPU_THR_SYNC_BOOST)

enum cs_machine compare_device_of(const struct case_result *r, double timed_ns, unsigned *why) {
  *why = 0;
  if (!compare_device_known(r)) return CS_MACHINE_UNKNOWN;
  const struct case_telemetry *t = r->telemetry;
  unsigned w = 0;
  if (t->readings > 0) {
    if (t->have_throttle && (t->throttle & ~(unsigned)BENIGN_THROTTLE)) w |= CMP_DEV_REASONS;
    static const int slowing[] = {GPU_THR_TIME_POWER, GPU_THR_TIME_THERMAL};
    for (size_t i = 0; i < sizeof slowing / sizeof slowing[0]; i++) {
      const struct gpu_value *v = &t->throttle_ns[slowing[i]];
      if (v->have && v->v > 0.0 && !(v->v <= COMPARE_DEVICE_THROTTLE_TIME * timed_ns)) w |= CMP_DEV_THROTTLE_TIME;
    }
    if (t->other_procs_max.have && t->other_procs_max.v > 0.0) w |= CMP_DEV_OTHER_PROCS;
    if (t->sm_clock_min.have && t->sm_clock_mean.have &&
        !(t->sm_clock_min.v >= COMPARE_DEVICE_CLOCK_MIN * t->sm_clock_mean.v))
      w |= CMP_DEV_CLOCK;
  }
  if (t->clock_samples > 0 && !(t->clock_min >= COMPARE_DEVICE_CLOCK_MIN * t->clock_mean)) w |= CMP_DEV_CLOCK;
  if (t->discarded > 0 || t->throttled) w |= CMP_DEV_THROTTLED;
  *why = w;
  return w ? CS_MACHINE_DEVICE_BUSY : CS_MACHINE_DEVICE_STEADY;
}

/* The mean SM clock of a case's device: the library's when both sides
 * have it, else the in-band one when both have that; 0 when not both. */
static void mean_clocks(const struct case_result *a, const struct case_result *b, double *ca, double *cb) {
  const struct case_telemetry *x = a->telemetry, *y = b->telemetry;
  *ca = *cb = 0.0;
  if (!x || !y) return;
  if (x->readings && y->readings && x->sm_clock_mean.have && y->sm_clock_mean.have)
    *ca = x->sm_clock_mean.v, *cb = y->sm_clock_mean.v;
  else if (x->clock_samples && y->clock_samples) *ca = x->clock_mean, *cb = y->clock_mean;
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

static void set_prior(struct cs_side *cs, const struct case_result *newest);

/* Whether r's memory grew past COMPARE_LARGE_OF_LLC times the last-level
 * cache of c while it ran (measured per case: a process-wide peak is an
 * upper bound that earlier cases may have set, so it never counts). */
static int outgrew_cache(const struct case_result *r, const struct cpu_caches *c) {
  if (!c || !c->llc || !r->memory.known || strcmp(r->memory.method, "case") != 0) return 0;
  int64_t llc = cpu_caches_bytes(c, c->llc);
  uint64_t grew = r->memory.peak_rss_bytes - r->memory.start_rss_bytes; /* peak >= start (measure.c) */
  return llc > 0 && (double)grew > COMPARE_LARGE_OF_LLC * (double)llc;
}

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
  /* how long the newest run timed the case: its samples (per iteration)
   * times their batch */
  double timed_ns = 0.0;
  for (size_t i = 0; i < a->n[s->nruns - 1]; i++) timed_ns += a->x[s->nruns - 1][i];
  timed_ns *= newest->batch > 1 ? newest->batch : 1;
  /* a device-timed case is as steady as its GPU was, when the run saw it
   * (the CPU's calibration loop says nothing of a kernel's clock) */
  unsigned why = 0;
  enum cs_machine m = device && compare_device_known(newest) ? compare_device_of(newest, timed_ns, &why)
                                                             : compare_machine_of(s->steady);
  *cs = (struct cs_side){.nruns = s->nruns,
                         .x = a->x,
                         .n = a->n,
                         .hist_medians = a->hist,
                         .nhist = nh,
                         .machine = m,
                         .device_why = why,
                         .brief = (m == CS_MACHINE_STEADY || m == CS_MACHINE_DEVICE_STEADY) &&
                                  timed_ns < CS_STEADY_MIN_TIMED_S * 1e9};
  cs->large = m == CS_MACHINE_STEADY && !cs->brief && outgrew_cache(newest, s->caches);
  set_prior(cs, newest);
  return 0;
}

/* The default sigma of a side in its machine state; a brief run, and a case
 * that outgrew the cache, take the busy figure however steady. */
static void set_prior(struct cs_side *cs, const struct case_result *newest) {
  size_t total = 0;
  for (size_t i = 0; i < cs->nruns; i++) total += cs->n[i];
  cs->prior = cs_between_default_on(newest->backend, total / cs->nruns, cs->brief || cs->large ? CS_MACHINE_BUSY : cs->machine);
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
  out->old_throttled = out->new_throttled = 0;
  for (size_t i = 0; i < old->nruns; i++) out->old_throttled |= compare_throttled(old->runs[i]);
  for (size_t i = 0; i < new_->nruns; i++) out->new_throttled |= compare_throttled(new_->runs[i]);
  int rc = side_of(old, out->device, &so, &ao);
  if (rc == 0) rc = side_of(new_, out->device, &sn, &an);
  else memset(&an, 0, sizeof an);
  if (rc == 0 && so.machine == CS_MACHINE_DEVICE_STEADY && sn.machine == CS_MACHINE_DEVICE_STEADY) {
    /* each GPU steady over its run, but at another clock than the other:
     * the clock moved between the runs, and the GPU figure (measured at
     * one clock) does not cover that */
    double co, cn;
    mean_clocks(o, n, &co, &cn);
    if (co > 0.0 && cn > 0.0 && fabs(cn / co - 1.0) > COMPARE_DEVICE_CLOCKS_APART) {
      so.machine = sn.machine = CS_MACHINE_DEVICE_BUSY;
      so.device_why = sn.device_why = CMP_DEV_CLOCKS_MOVED;
      so.brief = sn.brief = 0; /* busy: the brief rule is moot */
      set_prior(&so, o);
      set_prior(&sn, n);
    }
  }
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
  hold_throttled(out);
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
