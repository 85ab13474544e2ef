/* The sampling policy from the command line: --warmup, --min-samples,
 * --max-samples, --min-time, --max-time and --target-noise override the
 * preset's [run] keys of those names, with the same value grammar and
 * ranges (run_schema.h), and the policy remembers which keys the command
 * line set (run_policy.from_cli), for the result header. */
#ifndef BENCH_OVERRIDES_H
#define BENCH_OVERRIDES_H

#include <stddef.h>

#include "preset/run_schema.h"

enum sampling_opt { SO_WARMUP, SO_MIN_SAMPLES, SO_MAX_SAMPLES, SO_MIN_TIME, SO_MAX_TIME, SO_TARGET_NOISE, SO_COUNT };

/* What the command line gave, as typed (NULL: not given). */
struct sampling_overrides {
  const char *arg[SO_COUNT];
};

/* "warmup", "min-samples", ...: the option's name without "--". */
const char *sampling_opt_name(enum sampling_opt o);
/* The option named so (without "--"), or -1. */
int sampling_opt_find(const char *name);

/* Is arg a good value for option o? 0, or -1 with a one-line reason in why
 * ("bad value '0' for --min-samples: expected an integer from 1 to
 * 1000000"). --warmup takes a whole number of iterations (hyperfine's
 * --warmup N) or a duration with its unit (200ms); the others the syntax
 * of their preset key: a count, a duration ("0.5s", "200ms", a plain
 * number is seconds), a fraction or percentage ("2%", "0.02"). */
int sampling_override_check(enum sampling_opt o, const char *arg, char *why, size_t len);

/* Store the overrides given into pol (the preset's, already loaded) and
 * mark their keys in pol->from_cli: --warmup N sets warmup_iters N and
 * warmup_time 0, --warmup DURATION warmup_time and warmup_iters 0 (what was
 * asked for is what runs). Then min <= max (samples and time) with the
 * preset's other value, and a warm-up time within max_time (which bounds
 * it): 0, or -1 after one error() naming the option and the preset's value
 * (preset: its name, for the message). */
int sampling_overrides_apply(const struct sampling_overrides *so, struct run_policy *pol, const char *preset);

/* 1 when any override is given. */
int sampling_overrides_any(const struct sampling_overrides *so);
/* "--min-samples 20 --max-time 1s": the overrides as given, in option
 * order; "" when none. malloc'd. */
char *sampling_overrides_text(const struct sampling_overrides *so);

#endif
