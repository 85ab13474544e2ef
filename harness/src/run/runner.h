/* The cases of plugins in child processes: by default one worker for the
 * plugins of one backend, one plugin after the other (init once, then case
 * after case, each result streamed back as it ends and acknowledged once
 * the parent has it; a crash, hang or exit costs that case and a fresh
 * worker goes on with the next case, of the same or the next plugin), or
 * one worker per plugin (isolation = plugin), or one process per case
 * (isolation = case). The parent never calls the plugin's code itself.
 * Under --mode debug (or a preset's validation = true, which sets the
 * validation layers' variables alone: backends.h) a worker sends a
 * plugin's last case after deinit, so that Vulkan validation errors of
 * deinit fail that case (run/vk_validation.h). Each case that ran is
 * counted for the run summary's validation line (backend/validation_tally.h). */
#ifndef BENCH_RUNNER_H
#define BENCH_RUNNER_H

#include "cases/cases.h"
#include "core/child.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"
#include "results/result.h"

/* Called before case k (0-based within the plugin's cases) starts. */
typedef void (*case_begin_fn)(void *arg, size_t k);
/* Called once per case with its outcome; r is the callee's (release it). */
typedef void (*case_done_fn)(void *arg, size_t k, struct case_result *r);
/* Called while case k runs, once its setup has reported values it resolved
 * (set_info under the name of one of its parameters: threads=2 for a
 * requested threads=0): seen holds the case's identity and those values
 * as info (the line's label shows them: results/case_line.h). Not called
 * for a case that resolved none. */
typedef void (*case_resolved_fn)(void *arg, size_t k, const struct case_result *seen);

struct plugin_job {
  const struct plugin *pl;
  const struct case_def *cases; /* the plugin's cases, in order */
  size_t ncases;
  int first_index;              /* suite index of cases[0] */
  const struct run_policy *pol;
  int debug;
  child_tick_fn tick;           /* heartbeat of the running case */
  void *tick_arg;
  case_begin_fn begin;
  case_done_fn done;
  void *cb_arg;
  case_resolved_fn resolved;    /* or NULL; gets cb_arg too */
};

/* Run the cases of jobs[0..njobs) (plugins in run order, all of one
 * backend when iso is ISOLATION_BACKEND: those share a worker) until all
 * are done or the run is interrupted (the running case is then INTERRUPTED,
 * later ones are not started). */
void run_plugins_cases(const struct plugin_job *jobs, size_t njobs, enum isolation iso);

/* Run case c of plugin pl under pol in a child of its own; r receives the
 * identity and the outcome (never left without a status). on_note (or
 * NULL: not sent) gets the child's note of the values the case's setup
 * resolved, JSON of a result holding them as info. */
void run_case(const struct plugin *pl, const struct case_def *c, int index, const struct run_policy *pol,
              int debug, child_tick_fn tick, void *tick_arg, child_note_fn on_note, void *note_arg,
              struct case_result *r);

/* A fresh result holding only the case's identity (plugin, backend,
 * operation, index, parameters). */
void case_identity(struct case_result *r, const struct plugin *pl, const struct case_def *c,
                   int index);

/* Can pl run here? Calls init/deinit in a child. Returns BENCH_OK, or
 * BENCH_SKIP (init declined: no device, no driver...) or BENCH_ERROR (init
 * failed, crashed, hung or ended the process), with the reason in reason.
 * Only an explicit answer from the child counts as OK; then reason is the
 * device it named in init (set_info "device"), or "". */
int probe_in_child(const struct plugin *pl, double timeout_s, int debug, char *reason, size_t len);

#endif
