/* Measuring one case inside the child process: init, setup, warm-up,
 * batched timed samples until the preset's stopping rule, verification of
 * the timed output, the optional determinism rerun, teardown. */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include "cases/cases.h"
#include "run/host.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"
#include "results/result.h"

struct case_gpu; /* the GPU's state over the case under way (measure.c) */

/* Called in the measuring process right after a case's setup returned OK,
 * before its warm-up: r holds the case's identity and what init and setup
 * reported (set_info), the values it resolved among them (threads for a
 * requested threads=0). */
typedef void (*measure_set_up_fn)(void *arg, const struct case_result *r);

/* A plugin initialised once in this process (a worker), then measured case
 * after case. */
struct plugin_run {
  const struct plugin *pl; /* &opened once init ran */
  struct plugin opened;    /* the plugin loaded in this process (plugin_open) */
  struct host_state h;     /* one host for the process: its address stays */
  void *ctx;               /* init's */
  int inited;              /* init returned OK: deinit is owed */
  struct case_result init; /* init's outcome (status, message) and set_info facts */
  struct host_device device; /* what init named with bench.device/1: every case's */
  struct case_gpu *gpu;    /* between measure_begin and measure_end: its sampler */
  measure_set_up_fn set_up; /* after each case's setup (NULL: none); set after measure_init */
  void *set_up_arg;
};
/* Load the plugin in this process (plugin_open: a file that changed since
 * it was scanned is an ERROR) and call init. Returns BENCH_OK, or
 * BENCH_SKIP/BENCH_ERROR with pr->init's status and message saying why
 * (deinit already called when init returned OK but misused the host). Call
 * measure_deinit in every case. */
int measure_init(struct plugin_run *pr, const struct plugin *pl);
/* Setup, warm-up, samples, verify, teardown of case c into r (which holds
 * the identity); init's facts are copied into r. A case whose plugin named
 * its device (bench.device/1) or reported its clock gets r->telemetry: the
 * device read by its management library (opened once per process) from
 * the end of warm-up to the last sample, and the throttle rule applied to
 * its samples (preset keys throttle_threshold, throttle_recovery_s,
 * telemetry, telemetry_interval_ms). */
void measure_one(struct plugin_run *pr, const struct case_def *c, const struct run_policy *pol,
                 struct case_result *r);
void measure_deinit(struct plugin_run *pr);

/* measure_one in three steps, for a driver that asks for samples in blocks
 * (bench ab): measure_begin sets up case c (setup, warm-up, batch size into
 * r->batch) and returns BENCH_OK with *state set, or not OK with r's status
 * and message saying why (teardown done); measure_block takes n timed samples
 * of r->batch iterations into host[0..n) and dev[0..n) (*dev_ok: every one
 * had a device time), BENCH_OK or r's status set; measure_end verifies the
 * output (when ok) and tears down. The device is read from the end of
 * measure_begin to measure_end and the in-band clock of every sample is
 * recorded into r->telemetry, but no sample is discarded: the case is only
 * marked throttled when most of its samples were. */
int measure_begin(struct plugin_run *pr, const struct case_def *c, const struct run_policy *pol,
                  struct case_result *r, void **state);
int measure_block(struct plugin_run *pr, void *state, const struct run_policy *pol,
                  struct case_result *r, size_t n, double *host, double *dev, int *dev_ok);
void measure_end(struct plugin_run *pr, void *state, const struct run_policy *pol,
                 struct case_result *r, int ok);

/* Fill r (already holding the case identity) with the outcome. Never exits;
 * whatever the plugin does short of crashing or hanging ends up in r.
 * set_up (or NULL) is called after the case's setup, as pr->set_up. */
void measure_case(const struct plugin *pl, const struct case_def *c, const struct run_policy *pol,
                  measure_set_up_fn set_up, void *set_up_arg, struct case_result *r);

/* Only init/deinit: can this plugin run here? Returns BENCH_OK, or
 * BENCH_SKIP/BENCH_ERROR with the reason in reason. */
int probe_plugin(const struct plugin *pl, char *reason, size_t len);

#endif
