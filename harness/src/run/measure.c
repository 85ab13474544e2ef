/* The timing loop, run in the child. */
#include "run/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/abi.h"
#include "core/hash.h"
#include "run/host.h"
#include "core/stats.h"
#include "core/util.h"

#define MAX_BATCH (1 << 20)
#define CALIBRATION_RUNS 5

/* Turn a plugin's non-OK return into the case's status and message. */
static void record_failure(struct case_result *r, const struct host_state *h, int rc,
                           const char *where) {
  if (h->bug) {
    r->status = CASE_ERROR;
    free(r->message);
    r->message = xasprintf("%s: %s", where, h->message);
    return;
  }
  r->status = rc == BENCH_SKIP ? CASE_SKIPPED : CASE_ERROR;
  free(r->message);
  if (h->message[0])
    r->message = xstrdup(h->message);
  else if (rc == BENCH_SKIP || rc == BENCH_ERROR)
    r->message = xasprintf("%s() returned %s without a reason", where,
                           rc == BENCH_SKIP ? "BENCH_SKIP" : "BENCH_ERROR");
  else
    r->message = xasprintf("%s() returned an unknown status %d", where, rc);
}

/* One sample: `batch` iterations timed together. */
static int run_sample(const struct plugin *pl, struct host_state *h, void *state, int batch,
                      double *host_ns, double *dev_ns, int *dev_ok) {
  h->device_ns = 0;
  h->device_calls = 0;
  uint64_t t0 = now_ns();
  for (int i = 0; i < batch; i++) {
    int rc = pl->desc->run(&h->api, state);
    if (rc != BENCH_OK || h->bug) return rc != BENCH_OK ? rc : BENCH_ERROR;
  }
  uint64_t t1 = now_ns();
  *host_ns = (double)(t1 - t0) / batch;
  *dev_ok = h->device_calls == batch;
  *dev_ns = *dev_ok ? h->device_ns / batch : 0;
  return BENCH_OK;
}

/* One timed sample of `batch` iterations: through the plugin's run_batch
 * (one launch of the batch, one wait) when it has one and the policy is
 * warm, else through run_sample. Device time: the batch's total / batch. */
static int take_sample(const struct plugin *pl, struct host_state *h, void *state,
                       const struct run_policy *pol, int batch, double *host_ns, double *dev_ns,
                       int *dev_ok) {
  abi_run_batch_fn run_batch = abi_run_batch(pl->desc);
  if (!run_batch || pol->batch_cold)
    return run_sample(pl, h, state, batch, host_ns, dev_ns, dev_ok);
  h->device_ns = 0;
  h->device_calls = 0;
  uint64_t t0 = now_ns();
  int rc = run_batch(&h->api, state, batch);
  uint64_t t1 = now_ns();
  if (rc != BENCH_OK || h->bug) return rc != BENCH_OK ? rc : BENCH_ERROR;
  *host_ns = (double)(t1 - t0) / batch;
  *dev_ok = h->device_calls >= 1;
  *dev_ns = *dev_ok ? h->device_ns / batch : 0;
  return BENCH_OK;
}

struct samples {
  size_t n, cap;
  double *host, *dev;
  int dev_ok; /* every sample had a device time */
};

static void samples_add(struct samples *s, double host, double dev, int dev_ok) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->host = xrealloc(s->host, s->cap * sizeof *s->host);
    s->dev = xrealloc(s->dev, s->cap * sizeof *s->dev);
  }
  if (s->n == 0) s->dev_ok = dev_ok;
  s->dev_ok = s->dev_ok && dev_ok;
  s->host[s->n] = host;
  s->dev[s->n] = dev;
  s->n++;
}

/* Untimed warm-up; *iter_ns gets a per-iteration time estimate: the
 * median of the last warm-up iterations (the first may hold a JIT), on the
 * device timer when each of them had a device time (the timer the case's
 * statistics will use; a GPU's own time per iteration is steady where the
 * host's wait for it jitters with wake-ups), else on the host clock. */
static void warm_up(const struct plugin *pl, struct host_state *h, void *state,
                    const struct run_policy *pol, struct case_result *r, double *iter_ns, int *rc) {
  double t0 = now_s();
  int iters = 0;
  double last[CALIBRATION_RUNS] = {0}, last_dev[CALIBRATION_RUNS] = {0};
  int dev_ok[CALIBRATION_RUNS] = {0};
  *rc = BENCH_OK;
  while (iters < pol->warmup_iters || now_s() - t0 < pol->warmup_s) {
    double hn, dn;
    int dok;
    *rc = run_sample(pl, h, state, 1, &hn, &dn, &dok);
    if (*rc != BENCH_OK) return;
    last[iters % CALIBRATION_RUNS] = hn;
    last_dev[iters % CALIBRATION_RUNS] = dn;
    dev_ok[iters % CALIBRATION_RUNS] = dok && dn > 0;
    iters++;
    if (now_s() - t0 >= pol->max_time_s && iters >= 1) break; /* never warm longer than a case may sample */
  }
  r->warmup_iters = iters;
  size_t nl = iters < CALIBRATION_RUNS ? (size_t)iters : CALIBRATION_RUNS;
  int all_dev = nl > 0;
  for (size_t i = 0; i < nl; i++) all_dev = all_dev && dev_ok[i];
  struct stats st;
  stats_compute(all_dev ? last_dev : last, nl, &st);
  *iter_ns = st.median;
}

/* Iterations per sample for a short kernel: time CALIBRATION_RUNS runs of a
 * batch lasting about an eighth of batch_min_time each (single calls of a
 * 50 ns kernel are mostly clock overhead and preemption), and size the batch
 * from their median, each taken as the samples will be (run_batch when the
 * plugin has it), on the device timer when every run had a device time (as
 * iter_ns is; the batch then follows the kernel, not the host's wait for
 * it: on an H100 host-timed sizing gave cuBLAS f16 4096^3 batch 8 in four
 * runs and 1 in the fifth), else on the host clock. Untimed; counts as
 * warm-up. batch = cold: one iteration. */
static int pick_batch(const struct plugin *pl, struct host_state *h, void *state,
                      const struct run_policy *pol, struct case_result *r, double iter_ns, int *rc) {
  *rc = BENCH_OK;
  if (pol->batch_cold || pol->batch_min_s <= 0 || iter_ns <= 0 || iter_ns >= pol->batch_min_s * 1e9) return 1;
  double probe = pol->batch_min_s * 1e9 / 8 / iter_ns;
  int b = 1;
  while (b * 2 <= probe && b < MAX_BATCH / 2) b *= 2;
  double t[CALIBRATION_RUNS], d[CALIBRATION_RUNS];
  int all_dev = 1;
  for (int i = 0; i < CALIBRATION_RUNS; i++) {
    int dok;
    *rc = take_sample(pl, h, state, pol, b, &t[i], &d[i], &dok);
    if (*rc != BENCH_OK || h->bug) return 1;
    all_dev = all_dev && dok && d[i] > 0;
    r->warmup_iters += b;
  }
  return stats_batch_size(all_dev ? d : t, CALIBRATION_RUNS, pol->batch_min_s, MAX_BATCH);
}

/* Sample until the stopping rule holds. The rule looks at one timer for the
 * whole case: device times while every sample so far had one, else host
 * times of all samples (a plugin that stops reporting device time mid-run
 * falls back to host for the whole case, never a mix). */
static int sample_loop(const struct plugin *pl, struct host_state *h, void *state,
                       const struct run_policy *pol, struct case_result *r, struct samples *s) {
  double t0 = now_s();
  const char *why = NULL;
  size_t next_check = 0;
  double noise = INFINITY;
  for (;;) {
    double hn, dn;
    int dok, rc = take_sample(pl, h, state, pol, r->batch, &hn, &dn, &dok);
    if (rc != BENCH_OK) return rc;
    samples_add(s, hn, dn, dok);
    double el = now_s() - t0;
    int enough = (int)s->n >= pol->min_samples && el >= pol->min_time_s;
    /* The interval needs a sort: look again after every 1/16 more samples. */
    if (enough && s->n >= next_check) {
      if (stats_settled(s->dev_ok ? s->dev : s->host, s->n, pol->stop_rule == STOP_CV, pol->target_noise, &noise))
        break;
      next_check = s->n + (s->n / 16 > 1 ? s->n / 16 : 1);
    }
    if ((int)s->n >= pol->max_samples) {
      why = "max_samples";
      break;
    }
    if (el >= pol->max_time_s) {
      why = "max_time";
      break;
    }
  }
  /* Settled: enough samples and the noise target met, whichever rule
   * stopped the loop (max_samples may come before min_time for a fast case). */
  double el = now_s() - t0;
  int ok = stats_settled(s->dev_ok ? s->dev : s->host, s->n, pol->stop_rule == STOP_CV, pol->target_noise, &noise);
  const char *what = pol->stop_rule == STOP_CV ? "cv" : "median's 95% CI";
  if ((int)s->n < pol->min_samples)
    r->settle_note = xasprintf("did not settle: only %zu of %d samples within max_time %.3g s",
                               s->n, pol->min_samples, pol->max_time_s);
  else if (!ok) {
    /* Say when it is the level that moved (the block medians disagree), not
     * the spread of the samples: a longer run would not help, a quieter
     * machine would. */
    struct stats st;
    stats_compute(s->dev_ok ? s->dev : s->host, s->n, &st);
    char drift[96] = "";
    if (pol->stop_rule == STOP_CI && st.drift > pol->target_noise)
      snprintf(drift, sizeof drift, "; the level drifted during the run (block medians +-%.2f%%)",
               st.drift * 100);
    r->settle_note = xasprintf("did not settle: noise (%s) %.2f%% > target %.2f%% after %zu samples in %.3g s (%s)%s",
                               what, isfinite(noise) ? noise * 100 : 100.0, pol->target_noise * 100, s->n, el,
                               why ? why : "stopped", drift);
  } else
    r->settled = 1;
  return BENCH_OK;
}

/* verify() of an operation "none" plugin returned host->fail(): there is
 * no harness reference, so the plugin checked its output itself and found
 * it wrong (plugin.h states the rule). WRONG_ANSWER with the plugin's
 * reason, recorded as a failed check. */
static void record_self_check_failure(struct case_result *r, const struct host_state *h) {
  struct check_result *c = &r->check;
  memset(c, 0, sizeof *c);
  c->checked = 1;
  c->pass = 0;
  c->first_bad = -1;
  c->mismatches = 1;
  snprintf(c->method, sizeof c->method, "plugin-self");
  const char *why = h->message[0] ? h->message : "verify() failed its self-check without a reason";
  size_t len = strlen(why);
  if (len >= sizeof c->message) len = sizeof c->message - 1;
  memcpy(c->message, why, len);
  c->message[len] = '\0';
  r->status = CASE_WRONG_ANSWER;
  free(r->message);
  r->message = xstrdup(why);
}

static void verify_output(const struct plugin *pl, struct host_state *h, void *state,
                          const struct run_policy *pol, struct case_result *r) {
  if (!pl->desc->verify) return;
  host_reset_check(h, 0);
  int rc = pl->desc->verify(&h->api, state);
  if (rc == BENCH_ERROR && !h->bug && !h->ref_failed && strcmp(pl->desc->operation, "none") == 0) {
    record_self_check_failure(r, h);
    return;
  }
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "verify");
    return;
  }
  if (h->checks == 0 && strcmp(pl->desc->operation, "none") != 0) {
    r->status = CASE_ERROR;
    r->message = xstrdup("verify() returned without handing an output to host->check()");
    return;
  }
  snprintf(r->output_hash, sizeof r->output_hash, "%016llx", (unsigned long long)h->hash);
  if (r->check.checked && !r->check.pass) {
    r->status = CASE_WRONG_ANSWER;
    r->message = xstrdup(r->check.message[0] ? r->check.message : "output does not match the reference");
    return;
  }
  if (!pol->determinism) return;
  /* Same inputs once more: is the output bitwise the same? */
  uint64_t first = h->hash;
  double hn, dn;
  int dok;
  rc = run_sample(pl, h, state, 1, &hn, &dn, &dok);
  if (rc != BENCH_OK) {
    record_failure(r, h, rc, "run");
    return;
  }
  host_reset_check(h, 1);
  rc = pl->desc->verify(&h->api, state);
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "verify");
    return;
  }
  r->determinism = h->hash == first ? DET_BITWISE_EQUAL : DET_DIFFERS;
}

/* Point the host at a new case and its result (the address of h->api, which
 * a plugin may have kept from init, stays the same). */
static void host_bind(struct host_state *h, const struct case_def *c, struct case_result *r,
                      enum verify_level verify) {
  struct host_state fresh;
  host_init(&fresh, c, r, verify);
  fresh.api.host_data = h;
  *h = fresh;
}

int measure_init(struct plugin_run *pr, const struct plugin *pl) {
  memset(pr, 0, sizeof *pr);
  pr->pl = pl;
  case_result_init(&pr->init);
  host_init(&pr->h, NULL, &pr->init, VERIFY_NONE);
  pr->init.status = CASE_OK;
  char why[512];
  if (plugin_open(pl, &pr->opened, why, sizeof why) != 0) {
    pr->init.status = CASE_ERROR;
    pr->init.message = xstrdup(why);
    return BENCH_ERROR;
  }
  pl = pr->pl = &pr->opened;
  if (!pl->desc->init) return BENCH_OK;
  int rc = pl->desc->init(&pr->h.api, &pr->ctx);
  if (rc == BENCH_OK && !pr->h.bug) {
    pr->inited = 1;
    return BENCH_OK;
  }
  record_failure(&pr->init, &pr->h, rc, "init");
  /* init succeeded but misused the host: what it allocated is freed. */
  if (rc == BENCH_OK && pl->desc->deinit) pl->desc->deinit(&pr->h.api, pr->ctx);
  return pr->init.status == CASE_SKIPPED ? BENCH_SKIP : BENCH_ERROR;
}

void measure_deinit(struct plugin_run *pr) {
  if (pr->inited && pr->pl->desc->deinit) {
    host_bind(&pr->h, NULL, &pr->init, VERIFY_NONE);
    pr->pl->desc->deinit(&pr->h.api, pr->ctx);
  }
  pr->inited = 0;
  plugin_close(&pr->opened);
  case_result_release(&pr->init);
}

void measure_one(struct plugin_run *pr, const struct case_def *c, const struct run_policy *pol,
                 struct case_result *r) {
  const struct plugin *pl = pr->pl;
  struct host_state *h = &pr->h;
  host_bind(h, c, r, pol->verify);
  for (size_t i = 0; i < pr->init.ninfo; i++) /* what init said holds for every case */
    kv_list_add(&r->ninfo, &r->info, pr->init.info[i].key, pr->init.info[i].value);
  r->target_noise = pol->target_noise;
  snprintf(r->stop_rule, sizeof r->stop_rule, "%s", stop_rule_name(pol->stop_rule));
  r->check.pass = 1;
  snprintf(r->check.method, sizeof r->check.method, "none");
  void *state = NULL;
  struct samples s = {0};
  int rc = pl->desc->setup(&h->api, pr->ctx, &state);
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "setup");
    goto teardown;
  }
  double iter_ns;
  warm_up(pl, h, state, pol, r, &iter_ns, &rc);
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "run");
    goto teardown;
  }
  r->batch = pick_batch(pl, h, state, pol, r, iter_ns, &rc);
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "run");
    goto teardown;
  }
  rc = sample_loop(pl, h, state, pol, r, &s);
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "run");
    goto teardown;
  }
  r->nsamples = s.n;
  r->host_clock_ns = s.host;
  s.host = NULL;
  stats_compute(r->host_clock_ns, r->nsamples, &r->host_clock);
  if (s.dev_ok && s.n) {
    r->device_ns = s.dev;
    s.dev = NULL;
    stats_compute(r->device_ns, r->nsamples, &r->device);
  }
  r->status = CASE_OK;
  verify_output(pl, h, state, pol, r);
  if (pol->require_check && case_unchecked(r)) {
    r->status = CASE_ERROR;
    free(r->message);
    r->message = xstrdup(pol->verify == VERIFY_NONE
                             ? "unchecked: verify = none checked nothing (--require-check)"
                             : "unchecked: the plugin checked nothing (--require-check)");
  }
teardown:
  if (state && pl->desc->teardown) pl->desc->teardown(&h->api, state);
  free(s.host);
  free(s.dev);
}

int measure_begin(struct plugin_run *pr, const struct case_def *c, const struct run_policy *pol,
                  struct case_result *r, void **state) {
  const struct plugin *pl = pr->pl;
  struct host_state *h = &pr->h;
  host_bind(h, c, r, pol->verify);
  for (size_t i = 0; i < pr->init.ninfo; i++)
    kv_list_add(&r->ninfo, &r->info, pr->init.info[i].key, pr->init.info[i].value);
  r->target_noise = pol->target_noise;
  snprintf(r->stop_rule, sizeof r->stop_rule, "%s", stop_rule_name(pol->stop_rule));
  r->check.pass = 1;
  snprintf(r->check.method, sizeof r->check.method, "none");
  *state = NULL;
  int rc = pl->desc->setup(&h->api, pr->ctx, state);
  const char *where = "setup";
  if (rc == BENCH_OK && !h->bug) {
    double iter_ns;
    where = "run";
    warm_up(pl, h, *state, pol, r, &iter_ns, &rc);
    if (rc == BENCH_OK && !h->bug) r->batch = pick_batch(pl, h, *state, pol, r, iter_ns, &rc);
  }
  if (rc == BENCH_OK && !h->bug) return BENCH_OK;
  record_failure(r, h, rc, where);
  if (*state && pl->desc->teardown) pl->desc->teardown(&h->api, *state);
  *state = NULL;
  return BENCH_ERROR;
}

int measure_block(struct plugin_run *pr, void *state, const struct run_policy *pol,
                  struct case_result *r, size_t n, double *host, double *dev, int *dev_ok) {
  struct host_state *h = &pr->h;
  *dev_ok = 1;
  for (size_t i = 0; i < n; i++) {
    int dok, rc = take_sample(pr->pl, h, state, pol, r->batch, &host[i], &dev[i], &dok);
    if (rc != BENCH_OK || h->bug) {
      record_failure(r, h, rc, "run");
      return BENCH_ERROR;
    }
    *dev_ok = *dev_ok && dok;
  }
  return BENCH_OK;
}

void measure_end(struct plugin_run *pr, void *state, const struct run_policy *pol,
                 struct case_result *r, int ok) {
  const struct plugin *pl = pr->pl;
  if (ok) {
    r->status = CASE_OK;
    verify_output(pl, &pr->h, state, pol, r);
  }
  if (state && pl->desc->teardown) pl->desc->teardown(&pr->h.api, state);
}

void measure_case(const struct plugin *pl, const struct case_def *c,
                  const struct run_policy *pol, struct case_result *r) {
  struct plugin_run pr;
  if (measure_init(&pr, pl) != BENCH_OK) {
    r->status = pr.init.status;
    free(r->message);
    r->message = pr.init.message;
    pr.init.message = NULL;
    for (size_t i = 0; i < pr.init.ninfo; i++)
      kv_list_add(&r->ninfo, &r->info, pr.init.info[i].key, pr.init.info[i].value);
    case_result_release(&pr.init);
    return;
  }
  measure_one(&pr, c, pol, r);
  measure_deinit(&pr);
}

int probe_plugin(const struct plugin *pl, char *reason, size_t len) {
  struct plugin_run pr;
  int rc = measure_init(&pr, pl);
  snprintf(reason, len, "%s", rc == BENCH_OK || !pr.init.message ? "" : pr.init.message);
  measure_deinit(&pr);
  return rc;
}
