/* One case, or one plugin probe, in its own child process: what the child
 * measured, or what became of it (crash, timeout, interrupt). */
#ifndef BENCH_RUNNER_H
#define BENCH_RUNNER_H

#include "cases.h"
#include "child.h"
#include "plugin_loader.h"
#include "preset.h"
#include "result.h"

/* Run case c of plugin pl under pol in a child; r receives the identity and
 * the outcome (never left without a status). tick/tick_arg: heartbeat. */
void run_case(const struct plugin *pl, const struct case_def *c, int index,
              const struct run_policy *pol, int debug, child_tick_fn tick, void *tick_arg,
              struct case_result *r);

/* A fresh result holding only the case's identity (plugin, backend,
 * operation, index, parameters). */
void case_identity(struct case_result *r, const struct plugin *pl, const struct case_def *c,
                   int index);

/* Can pl run here? Calls init/deinit in a child. Returns BENCH_OK,
 * BENCH_SKIP (init declined: no device, no driver...) or BENCH_ERROR (init
 * failed, crashed or hung), with the reason in reason. */
int probe_in_child(const struct plugin *pl, double timeout_s, int debug, char *reason, size_t len);

#endif
