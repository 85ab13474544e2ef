/* A GPU's readings over one case: a thread of its own reads one device of
 * a struct gpu_telemetry every interval (one reading when it starts, one
 * when it stops) and folds them into a struct gpu_accum; the thread that
 * measures asks for the latest reading (for the throttle rule) without
 * waiting for the library. Library calls are serialised (the sampler's own
 * and gpu_sampler_read_now's); nothing else may read the same telemetry
 * while a sampler runs on it. */
#ifndef BENCH_GPU_SAMPLER_H
#define BENCH_GPU_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_telemetry.h"

/* The period a preset may ask for (telemetry_interval_ms). */
#define GPU_SAMPLER_MIN_MS 10
#define GPU_SAMPLER_MAX_MS 1000
#define GPU_SAMPLER_DEFAULT_MS 50

struct gpu_sampler;

/* Takes the first reading of device `index` of t (t must outlive the
 * sampler), then starts the thread that reads every interval_ms (clamped
 * to GPU_SAMPLER_MIN_MS..GPU_SAMPLER_MAX_MS). NULL with a one-line reason
 * in err when the thread cannot start or the device is out of range. */
struct gpu_sampler *gpu_sampler_start(const struct gpu_telemetry *t, int index, double interval_ms,
                                      char *err, size_t err_len);

/* The latest reading into *r and its number (1 for the first; it grows by
 * one per reading), thread-safe and without a library call. */
uint64_t gpu_sampler_latest(struct gpu_sampler *s, struct gpu_reading *r);

/* One reading now, from the calling thread (folded in like the others,
 * and the latest from then on): after a pause, to see whether the device
 * recovered. Waits for a reading the thread has under way. */
void gpu_sampler_read_now(struct gpu_sampler *s, struct gpu_reading *r);

/* Stops the thread, takes the last reading, hands back everything folded
 * (out may be NULL) and frees s. NULL s is nothing. */
void gpu_sampler_stop(struct gpu_sampler *s, struct gpu_accum *out);

#endif
