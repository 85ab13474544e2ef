/* The per-case GPU sampler (gpu_sampler.h): a pthread that reads one device
 * every interval until told to stop. Two locks: `io` serialises the
 * library calls (the sampler's and read_now's), `mu` guards the folded
 * readings and the latest one, and is held only to copy them, so the
 * measuring thread never waits for a slow library call to ask. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gpu_sampler {
  const struct gpu_telemetry *t;
  int index;
  long interval_ns;
  pthread_t thread;
  pthread_mutex_t io; /* library calls */
  pthread_mutex_t mu; /* what follows */
  pthread_cond_t wake;
  int stop;
  struct gpu_accum acc;
  struct gpu_reading latest;
  uint64_t seq;
};

/* A reading of the device, folded in and made the latest. */
static void take_reading(struct gpu_sampler *s, struct gpu_reading *out) {
  struct gpu_reading r;
  pthread_mutex_lock(&s->io);
  gpu_telemetry_read(s->t, s->index, &r);
  pthread_mutex_lock(&s->mu);
  gpu_accum_add(&s->acc, &r);
  s->latest = r;
  s->seq++;
  pthread_mutex_unlock(&s->mu);
  pthread_mutex_unlock(&s->io);
  if (out) *out = r;
}

static void add_ns(struct timespec *ts, long ns) {
  ts->tv_nsec += ns % 1000000000L;
  ts->tv_sec += ns / 1000000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_nsec -= 1000000000L;
    ts->tv_sec++;
  }
}

/* Readings on a fixed beat from the start (a late reading does not shift
 * the next ones); a beat missed entirely (the thread was descheduled for
 * longer than a period) is skipped, not caught up in a burst. */
static void *sampler_main(void *arg) {
  struct gpu_sampler *s = arg;
  struct timespec next, now;
  clock_gettime(CLOCK_MONOTONIC, &next);
  pthread_mutex_lock(&s->mu);
  for (;;) {
    add_ns(&next, s->interval_ns);
    clock_gettime(CLOCK_MONOTONIC, &now);
    while (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
      add_ns(&next, s->interval_ns);
    }
    int rc = 0;
    while (!s->stop && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&s->wake, &s->mu, &next);
    if (s->stop) break;
    pthread_mutex_unlock(&s->mu);
    take_reading(s, NULL);
    pthread_mutex_lock(&s->mu);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

struct gpu_sampler *gpu_sampler_start(const struct gpu_telemetry *t, int index, double interval_ms,
                                      char *err, size_t err_len) {
  if (!t || index < 0 || index >= gpu_telemetry_count(t)) {
    snprintf(err, err_len, "gpu sampler: no device %d", index);
    return NULL;
  }
  struct gpu_sampler *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, err_len, "gpu sampler: out of memory");
    return NULL;
  }
  if (!(interval_ms >= GPU_SAMPLER_MIN_MS)) interval_ms = GPU_SAMPLER_MIN_MS;
  if (interval_ms > GPU_SAMPLER_MAX_MS) interval_ms = GPU_SAMPLER_MAX_MS;
  s->t = t;
  s->index = index;
  s->interval_ns = (long)(interval_ms * 1e6);
  gpu_accum_init(&s->acc);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->wake, &ca);
  pthread_condattr_destroy(&ca);
  pthread_mutex_init(&s->io, NULL);
  pthread_mutex_init(&s->mu, NULL);
  take_reading(s, NULL); /* the case's start */
  /* The thread takes no signal: the process's handlers and the system
   * calls they interrupt stay the measuring thread's. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&s->thread, NULL, sampler_main, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    snprintf(err, err_len, "gpu sampler: cannot start a thread: %s", strerror(rc));
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->io);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return NULL;
  }
  return s;
}

uint64_t gpu_sampler_latest(struct gpu_sampler *s, struct gpu_reading *r) {
  pthread_mutex_lock(&s->mu);
  *r = s->latest;
  uint64_t seq = s->seq;
  pthread_mutex_unlock(&s->mu);
  return seq;
}

void gpu_sampler_read_now(struct gpu_sampler *s, struct gpu_reading *r) { take_reading(s, r); }

void gpu_sampler_stop(struct gpu_sampler *s, struct gpu_accum *out) {
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->stop = 1;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  take_reading(s, NULL); /* the case's end */
  if (out) *out = s->acc;
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->io);
  pthread_mutex_destroy(&s->mu);
  free(s);
}
