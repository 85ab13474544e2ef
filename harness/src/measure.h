/* Measuring one case inside the child process: init, setup, warm-up,
 * batched timed samples until the preset's stopping rule, verification of
 * the timed output, the optional determinism rerun, teardown. */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include "cases.h"
#include "plugin_loader.h"
#include "preset.h"
#include "result.h"

/* Fill r (already holding the case identity) with the outcome. Never exits;
 * whatever the plugin does short of crashing or hanging ends up in r. */
void measure_case(const struct plugin *pl, const struct case_def *c,
                  const struct run_policy *pol, struct case_result *r);

/* Only init/deinit: can this plugin run here? Returns BENCH_OK, or
 * BENCH_SKIP/BENCH_ERROR with the reason in reason. */
int probe_plugin(const struct plugin *pl, char *reason, size_t len);

#endif
