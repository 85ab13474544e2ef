/* The struct bench_host handed to a plugin in the measuring child: case
 * parameters, messages, work, device time, inputs and the reference check,
 * all recorded into the case's result. */
#ifndef BENCH_HOST_H
#define BENCH_HOST_H

#include <stdint.h>

#include "bench/plugin.h"
#include "cases/cases.h"
#include "machine/gpu_telemetry.h"
#include "check/check.h"
#include "results/result.h"
#include "core/util.h"

/* The largest device time set_device_time accepts (about 2.8 hours). */
#define HOST_MAX_DEVICE_NS 1e13

struct host_state {
  struct bench_host api;          /* handed to the plugin; api.host_data = this */
  const struct case_def *cdef;    /* NULL while only init/deinit run (--list) */
  struct case_result *result;
  char message[1024];             /* last skip/fail reason */
  int bug;                        /* the plugin misused the host (bad parameter name, ...) */
  double device_ns;               /* sum of set_device_time calls since reset */
  int device_calls;
  enum verify_level verify;
  uint64_t seed;                  /* for the check's random vectors and samples */
  int hash_only;                  /* check() only hashes (determinism rerun) */
  uint64_t hash;                  /* FNV-1a of every output handed to check() */
  int checks;                     /* check() calls since reset */
  double check_s;                 /* seconds the reference checks took since reset */
  int plugin_work;                /* the plugin called set_work: its figure stands */
  int op_checks;                  /* checks of the plugin's operation since reset */
  int ref_failed;                 /* a compare's ref_fn failed: an error, not a self-check */

  /* bench.device/1: the device the plugin named (init's call holds for the
   * process: measure.c copies it into each case; setup's for its case) */
  struct host_device {
    int named;                    /* set_device was called */
    char bus_id[GPU_BUS_ID_LEN];  /* normalised ("0000:3b:00.0"); "" when the API did not say */
    double default_clock_mhz;     /* 0: unknown */
  } device;
  double clock_sum;               /* set_clock calls since the sample began: their sum */
  int clock_calls;                /* and count */
  int clock_seen;                 /* set_clock was called in this case */
};

void host_init(struct host_state *h, const struct case_def *c, struct case_result *r,
               enum verify_level verify);
/* Run the release callbacks of this process's bench.process/1 slots (the
 * last put first) and empty them, and close the GPU management library
 * (host_gpu_library): the worker's last step. */
void host_process_release(void);
/* host_process_release, calling before(arg, key, file) ahead of each release callback:
 * the slot's key and the file its callback lies in (a plugin's .so), or
 * NULL when unknown; a worker tells the harness, so that a callback that
 * crashes is named. */
typedef void (*host_release_fn)(void *arg, const char *key, const char *file);
void host_process_release_each(host_release_fn before, void *arg);
/* The slots taken now (a plugin that put one may leave the threads of what
 * it keeps there running). */
size_t host_process_nslots(void);
/* The GPU management library of this process (machine/gpu_telemetry.h),
 * opened on the first call and kept until host_process_release; NULL when
 * it cannot open, with its one-line reason in note (the same reason on
 * every call). */
struct gpu_telemetry *host_gpu_library(char *note, size_t len);

/* Start hashing/checking afresh (before a verify call). */
void host_reset_check(struct host_state *h, int hash_only);

#endif
