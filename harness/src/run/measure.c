/* The timing loop, run in the child. */
#include "run/measure.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "plugin/abi.h"
#include "core/hash.h"
#include "machine/gpu_sampler.h"
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
  h->clock_sum = 0;
  h->clock_calls = 0;
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
  h->clock_sum = 0;
  h->clock_calls = 0;
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
  double *clock;        /* in-band SM clock of each sample, NaN where none */
  int dev_ok;           /* every sample had a device time */
  size_t nthr;          /* throttled samples among them */
};

static void samples_add(struct samples *s, double host, double dev, int dev_ok, double clock,
                        int throttled) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->host = xrealloc(s->host, s->cap * sizeof *s->host);
    s->dev = xrealloc(s->dev, s->cap * sizeof *s->dev);
    s->clock = xrealloc(s->clock, s->cap * sizeof *s->clock);
  }
  if (s->n == 0) s->dev_ok = dev_ok;
  s->dev_ok = s->dev_ok && dev_ok;
  s->host[s->n] = host;
  s->dev[s->n] = dev;
  s->clock[s->n] = clock;
  s->nthr += throttled != 0;
  s->n++;
}

static void samples_release(struct samples *s) {
  free(s->host);
  free(s->dev);
  free(s->clock);
  memset(s, 0, sizeof *s);
}

/* ---- the GPU's state over a case (bench.device/1, the throttle rule) ---- */

/* The longest recovery pause (nvbench lets its own grow; the case's
 * max_time bounds ours as well), unless the preset's first pause is longer. */
#define MAX_RECOVERY_S 1.0

struct case_gpu {
  struct case_telemetry *t;    /* r->telemetry; NULL: no device named, no clock (so far) */
  struct gpu_sampler *sampler; /* NULL: nothing reads the device */
  int rule;                    /* the throttle rule judges the samples */
  double limit_mhz;            /* below this a sample is throttled */
  double pause_s;              /* the next recovery pause */
  unsigned reasons;            /* throttle reasons read at throttled samples */
  double thr_clock_sum;        /* the clocks of the throttled samples */
  size_t thr_clock_n;
  int thr_inband;              /* some were judged by the in-band clock */
  /* the ab path (no discard): every sample's in-band clock, and counts */
  struct gpu_stat clk;
  size_t total, throttled;
};

static void sleep_s(double s) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  double end = (double)until.tv_sec + until.tv_nsec * 1e-9 + s;
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
  if (until.tv_nsec >= 1000000000L) until.tv_nsec = 999999999L;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
  }
}

/* At the end of warm-up: a case whose plugin named its device or reported
 * its clock gets its telemetry; the device is read from now on (the
 * library opened once per process, on the first such case) and the
 * throttle rule set up. Nothing at all for any other case. */
static void gpu_begin(struct case_gpu *g, const struct host_state *h, const struct run_policy *pol,
                      struct case_result *r) {
  memset(g, 0, sizeof *g);
  if (!h->device.named && !h->clock_seen) return;
  struct case_telemetry *t = r->telemetry = xcalloc(1, sizeof *r->telemetry);
  g->t = t;
  snprintf(t->bus_id, sizeof t->bus_id, "%s", h->device.bus_id);
  t->default_clock_mhz = h->device.default_clock_mhz;
  if (!h->device.named) {
    snprintf(t->note, sizeof t->note, "the plugin named no device (bench.device/1 set_device)");
  } else if (!pol->telemetry) {
    snprintf(t->note, sizeof t->note, "telemetry = off");
  } else if (!t->bus_id[0]) {
    snprintf(t->note, sizeof t->note, "the plugin named no PCI bus id for its device");
  } else {
    struct gpu_telemetry *lib = host_gpu_library(t->note, sizeof t->note);
    int index = lib ? gpu_telemetry_find(lib, t->bus_id) : -1;
    if (lib && index < 0)
      snprintf(t->note, sizeof t->note, "no device %s among the %d %s sees", t->bus_id,
               gpu_telemetry_count(lib), gpu_telemetry_library(lib));
    if (index >= 0) {
      gpu_telemetry_facts(lib, index, &t->facts);
      g->sampler = gpu_sampler_start(lib, index, pol->telemetry_interval_ms, t->note, sizeof t->note);
      if (g->sampler) {
        snprintf(t->library, sizeof t->library, "%s", gpu_telemetry_library(lib));
        t->interval_ms = pol->telemetry_interval_ms;
      }
    }
  }
  /* nvbench's rule: below threshold x the device's default clock */
  double ref = t->default_clock_mhz > 0              ? t->default_clock_mhz
               : t->facts.base_sm_clock_mhz.have ? t->facts.base_sm_clock_mhz.v
               : t->facts.max_sm_clock_mhz.have  ? t->facts.max_sm_clock_mhz.v
                                                 : 0;
  if (ref > 0 && pol->throttle_threshold > 0) {
    t->reference_mhz = ref;
    t->threshold = pol->throttle_threshold;
    g->rule = 1;
    g->limit_mhz = t->threshold * ref;
  }
  g->pause_s = pol->throttle_recovery_s;
}

/* The sample just taken: its in-band clock (NaN when the plugin gave
 * none) into *inband; 1 when the rule finds it throttled, judged by that
 * clock, else by the sampler's latest reading. */
static int gpu_judge(struct case_gpu *g, const struct host_state *h, double *inband) {
  *inband = h->clock_calls > 0 ? h->clock_sum / h->clock_calls : NAN;
  if (!g->rule) return 0;
  double clock = *inband;
  unsigned bits = 0;
  if (g->sampler) {
    struct gpu_reading lr;
    gpu_sampler_latest(g->sampler, &lr);
    if (isnan(clock) && lr.sm_clock_mhz.have) clock = lr.sm_clock_mhz.v;
    if (lr.throttle.have) bits = (unsigned)lr.throttle.v;
  }
  if (isnan(clock) || clock >= g->limit_mhz) return 0;
  g->reasons |= bits;
  g->thr_clock_sum += clock;
  g->thr_clock_n++;
  g->thr_inband |= !isnan(*inband);
  return 1;
}

/* After a throttled sample: pause (growing while throttling persists,
 * never past the case's max_time), then read the device afresh so that the
 * next sample is judged by a reading taken after the pause. */
static void gpu_recover(struct case_gpu *g, const struct run_policy *pol, double t0) {
  double left = t0 + pol->max_time_s - now_s();
  double p = g->pause_s < left ? g->pause_s : left;
  if (p > 0) {
    double a = now_s();
    sleep_s(p);
    g->t->recovery_s += now_s() - a;
  }
  double cap = pol->throttle_recovery_s > MAX_RECOVERY_S ? pol->throttle_recovery_s : MAX_RECOVERY_S;
  g->pause_s = g->pause_s * 2 < cap ? g->pause_s * 2 : cap;
  if (g->sampler) {
    struct gpu_reading r;
    gpu_sampler_read_now(g->sampler, &r);
  }
}

static void stat_add(struct gpu_stat *s, double v) {
  if (isnan(v)) return;
  if (s->n == 0 || v < s->min) s->min = v;
  if (s->n == 0 || v > s->max) s->max = v;
  s->sum += v;
  s->n++;
}

/* The end of the sample loop: stop reading the device and fill the case's
 * telemetry: what the readings came to, the in-band clock over the kept
 * samples clock[0..n) (NULL: over every sample the ab path saw), and why a
 * throttled case is marked. */
static void gpu_end(struct case_gpu *g, const struct host_state *h, struct case_result *r,
                    const double *clock, size_t n) {
  struct gpu_accum a;
  gpu_accum_init(&a);
  int read = g->sampler != NULL;
  gpu_sampler_stop(g->sampler, &a);
  g->sampler = NULL;
  if (!g->t && h->clock_seen) { /* the first set_clock came after warm-up */
    g->t = r->telemetry = xcalloc(1, sizeof *r->telemetry);
    snprintf(g->t->bus_id, sizeof g->t->bus_id, "%s", h->device.bus_id);
    g->t->default_clock_mhz = h->device.default_clock_mhz;
    snprintf(g->t->note, sizeof g->t->note, "the plugin named no device (bench.device/1 set_device)");
  }
  struct case_telemetry *t = g->t;
  if (!t) return;
  if (read) {
    t->readings = a.samples;
    t->sm_clock_mean = gpu_stat_mean(&a.sm_clock_mhz);
    t->sm_clock_min = gpu_stat_min(&a.sm_clock_mhz);
    t->sm_clock_max = gpu_stat_max(&a.sm_clock_mhz);
    t->mem_clock_mean = gpu_stat_mean(&a.mem_clock_mhz);
    t->mem_clock_min = gpu_stat_min(&a.mem_clock_mhz);
    t->mem_clock_max = gpu_stat_max(&a.mem_clock_mhz);
    t->nxcd = a.nxcd;
    for (int i = 0; i < a.nxcd && i < GPU_MAX_XCD; i++) {
      t->xcd_clock_mean[i] = gpu_stat_mean(&a.xcd_clock_mhz[i]);
      t->xcd_clock_min[i] = gpu_stat_min(&a.xcd_clock_mhz[i]);
    }
    t->power_mean = gpu_stat_mean(&a.power_w);
    t->power_max = gpu_stat_max(&a.power_w);
    t->power_limit = t->facts.power_limit_w;
    t->temp_max = gpu_stat_max(&a.temp_c);
    t->mem_temp_max = gpu_stat_max(&a.mem_temp_c);
    t->have_throttle = a.have_throttle;
    t->throttle = a.throttle;
    for (int i = 0; i < GPU_THR_TIMES; i++) t->throttle_ns[i] = gpu_accum_throttle_ns(&a, i);
    t->other_procs_max = gpu_stat_max(&a.other_procs);
  }
  struct gpu_stat clk = g->clk;
  if (clock) {
    memset(&clk, 0, sizeof clk);
    for (size_t i = 0; i < n; i++) stat_add(&clk, clock[i]);
    if (clk.n) {
      free(r->clock_mhz);
      r->clock_mhz = xmalloc(n * sizeof *clock);
      memcpy(r->clock_mhz, clock, n * sizeof *clock);
    }
  }
  t->clock_samples = clk.n;
  t->clock_mean = clk.n ? clk.sum / (double)clk.n : 0;
  t->clock_min = clk.n ? clk.min : 0;
  t->clock_max = clk.n ? clk.max : 0;
  if (!clock && g->throttled * 2 > g->total) t->throttled = 1; /* ab: marked, nothing discarded */
  if (t->throttled) {
    unsigned bits = g->reasons ? g->reasons : t->throttle;
    if (bits & ~(unsigned)GPU_THR_GPU_IDLE) bits &= ~(unsigned)GPU_THR_GPU_IDLE;
    char names[96] = "";
    gpu_throttle_names(bits, names, sizeof names);
    /* a long list of reasons may be cut here: telemetry.throttle_reasons has them all */
    if (snprintf(t->throttled_by, sizeof t->throttled_by, "%sclock %.0f MHz < %g%% of %.0f MHz%s%s%s",
                 g->thr_inband ? "in-band " : "", g->thr_clock_n ? g->thr_clock_sum / (double)g->thr_clock_n : 0,
                 t->threshold * 100, t->reference_mhz, names[0] ? " (" : "", names,
                 names[0] ? ")" : "") >= (int)sizeof t->throttled_by)
      t->throttled_by[sizeof t->throttled_by - 2] = ')';
  }
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
                       const struct run_policy *pol, struct case_result *r, struct samples *s,
                       struct case_gpu *g) {
  double t0 = now_s();
  const char *why = NULL;
  size_t next_check = 0, taken = 0;
  double noise = INFINITY;
  /* Under the throttle rule every sample also goes to `all` (in order):
   * the case keeps them all when most were throttled. */
  struct samples all = {0};
  for (;;) {
    double hn, dn, clock;
    int dok, rc = take_sample(pl, h, state, pol, r->batch, &hn, &dn, &dok);
    if (rc != BENCH_OK) {
      samples_release(&all);
      return rc;
    }
    int thr = gpu_judge(g, h, &clock);
    taken++;
    if (g->rule) samples_add(&all, hn, dn, dok, clock, thr);
    if (thr) { /* discarded (it still counts toward max_samples and max_time) */
      gpu_recover(g, pol, t0);
    } else {
      g->pause_s = pol->throttle_recovery_s;
      samples_add(s, hn, dn, dok, clock, 0);
    }
    double el = now_s() - t0;
    int enough = !thr && (int)s->n >= pol->min_samples && el >= pol->min_time_s;
    /* The interval needs a sort: look again after every 1/16 more samples. */
    if (enough && s->n >= next_check) {
      if (stats_settled(s->dev_ok ? s->dev : s->host, s->n, pol->stop_rule == STOP_CV, pol->target_noise, &noise))
        break;
      next_check = s->n + (s->n / 16 > 1 ? s->n / 16 : 1);
    }
    if ((int)taken >= pol->max_samples) {
      why = "max_samples";
      break;
    }
    if (el >= pol->max_time_s) {
      why = "max_time";
      break;
    }
  }
  /* A case never ends empty: when most samples were throttled it keeps
   * them all and is marked; else the throttled ones are discarded. */
  if (all.nthr > 0) {
    if (all.nthr * 2 > all.n) {
      samples_release(s);
      *s = all;
      memset(&all, 0, sizeof all);
      g->t->throttled = 1;
    } else {
      g->t->discarded = all.nthr;
    }
  }
  samples_release(&all);
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

/* ---- the process's memory over a case (result.h struct case_memory) ---- */

/* A "Vm...:  123 kB" line of /proc/self/status in bytes, or 0 when unknown. */
static uint64_t proc_status_kb(const char *key) {
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return 0;
  char line[256];
  size_t kl = strlen(key);
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, kl) == 0 && sscanf(line + kl, " %llu", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb * 1024;
}

/* Before the case's setup: reset the process's RSS high-water mark
 * (Linux: "5" into /proc/self/clear_refs sets VmHWM to the RSS now), so
 * that the case's peak is its own; where the kernel does not allow it the
 * peak read later is the process's since it started, and said so. */
static void memory_begin(struct case_memory *m) {
  memset(m, 0, sizeof *m);
  int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  int reset = fd >= 0 && write(fd, "5", 1) == 1;
  if (fd >= 0) close(fd);
  snprintf(m->method, sizeof m->method, "%s", reset ? "case" : "process");
  m->start_rss_bytes = proc_status_kb("VmRSS:");
}

/* After the last timed sample (before the harness's check, whose reference
 * buffers are not the plugin's): the high-water mark, else getrusage's. */
static void memory_end(struct case_memory *m) {
  m->peak_rss_bytes = proc_status_kb("VmHWM:");
  if (!m->peak_rss_bytes) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0) m->peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
    snprintf(m->method, sizeof m->method, "process"); /* never reset */
  }
  m->known = m->peak_rss_bytes > 0;
  if (m->peak_rss_bytes < m->start_rss_bytes) m->start_rss_bytes = m->peak_rss_bytes;
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
    pr->device = pr->h.device;
    return BENCH_OK;
  }
  record_failure(&pr->init, &pr->h, rc, "init");
  /* init succeeded but misused the host: what it allocated is freed. */
  if (rc == BENCH_OK && pl->desc->deinit) pl->desc->deinit(&pr->h.api, pr->ctx);
  return pr->init.status == CASE_SKIPPED ? BENCH_SKIP : BENCH_ERROR;
}

void measure_deinit(struct plugin_run *pr) {
  if (pr->gpu) { /* measure_begin without measure_end */
    gpu_sampler_stop(pr->gpu->sampler, NULL);
    free(pr->gpu);
    pr->gpu = NULL;
  }
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
  h->device = pr->device; /* what init named; setup may name another */
  void *state = NULL;
  struct samples s = {0};
  struct case_gpu g;
  memset(&g, 0, sizeof g);
  struct case_memory mem;
  memory_begin(&mem);
  int rc = pl->desc->setup(&h->api, pr->ctx, &state);
  if (rc != BENCH_OK || h->bug) {
    record_failure(r, h, rc, "setup");
    goto teardown;
  }
  if (pr->set_up) pr->set_up(pr->set_up_arg, r);
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
  gpu_begin(&g, h, pol, r);
  rc = sample_loop(pl, h, state, pol, r, &s, &g);
  memory_end(&mem);
  if (rc == BENCH_OK && s.n) r->memory = mem;
  gpu_end(&g, h, r, s.clock, s.n);
  if (rc != BENCH_OK || h->bug) {
    free(r->clock_mhz); /* no samples for it to go with */
    r->clock_mhz = NULL;
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
  samples_release(&s);
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
  h->device = pr->device;
  *state = NULL;
  memory_begin(&r->memory); /* known once measure_end reads the peak */
  int rc = pl->desc->setup(&h->api, pr->ctx, state);
  const char *where = "setup";
  if (rc == BENCH_OK && !h->bug) {
    double iter_ns;
    if (pr->set_up) pr->set_up(pr->set_up_arg, r);
    where = "run";
    warm_up(pl, h, *state, pol, r, &iter_ns, &rc);
    if (rc == BENCH_OK && !h->bug) r->batch = pick_batch(pl, h, *state, pol, r, iter_ns, &rc);
  }
  if (rc == BENCH_OK && !h->bug) {
    free(pr->gpu);
    pr->gpu = xcalloc(1, sizeof *pr->gpu);
    gpu_begin(pr->gpu, h, pol, r);
    return BENCH_OK;
  }
  record_failure(r, h, rc, where);
  memset(&r->memory, 0, sizeof r->memory);
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
    if (pr->gpu) { /* recorded and judged; nothing discarded (the ab path) */
      double clock;
      pr->gpu->throttled += gpu_judge(pr->gpu, h, &clock);
      pr->gpu->total++;
      stat_add(&pr->gpu->clk, clock);
    }
  }
  return BENCH_OK;
}

void measure_end(struct plugin_run *pr, void *state, const struct run_policy *pol,
                 struct case_result *r, int ok) {
  const struct plugin *pl = pr->pl;
  if (pr->gpu) {
    gpu_end(pr->gpu, &pr->h, r, NULL, 0);
    free(pr->gpu);
    pr->gpu = NULL;
  }
  if (ok) {
    memory_end(&r->memory); /* before the check, as measure_one */
    r->status = CASE_OK;
    verify_output(pl, &pr->h, state, pol, r);
  } else {
    memset(&r->memory, 0, sizeof r->memory);
  }
  if (state && pl->desc->teardown) pl->desc->teardown(&pr->h.api, state);
}

void measure_case(const struct plugin *pl, const struct case_def *c, const struct run_policy *pol,
                  measure_set_up_fn set_up, void *set_up_arg, struct case_result *r) {
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
  pr.set_up = set_up;
  pr.set_up_arg = set_up_arg;
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
