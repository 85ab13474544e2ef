/* The backend table: what the harness knows of each backend (cpu, vulkan,
 * hip, cuda) in one place, so the generic layers never name one.
 * Per backend: the variables --mode debug sets in the child (core/child.c
 * sets whatever its caller hands it), the prefix of the message a
 * validation layer's error gets (run/vk_validation.c reads the log; a
 * runner spots such an error by it), the device facts a plugin reports
 * among its info keys that a run's .txt header prints (results/txt.c), and
 * the default run-to-run noise of a median (analyze/compare_stats.c), and
 * the variables that turn its validation layer on alone (a preset's
 * validation = true). A new backend is one row in backends.c. */
#ifndef BENCH_BACKENDS_H
#define BENCH_BACKENDS_H

#include <stddef.h>

#include "core/child.h"

/* A device fact: the info key a plugin reports, and its label in a run's
 * .txt header. */
struct backend_fact {
  const char *key, *label;
};

struct backend {
  const char *name;                   /* as a plugin's descriptor names it */
  const struct child_env *debug_env;  /* --mode debug's variables, ended by a NULL name; or NULL */
  const char *validation_error;       /* the message of a validation layer's error starts
                                         with this (--mode debug), or NULL */
  const struct backend_fact *facts;   /* device facts for the .txt header, ended by a NULL key */
  double noise_a, noise_b;            /* default sigma of one run's median over n samples:
                                         a + b / sqrt(n) (busy or unknown machine) */
  double device_noise_a, device_noise_b; /* the same for a device-timed case whose GPU was
                                         steady over its run (analyze/compare_case.c,
                                         "device-steady"); 0, 0: no GPU figure yet (the
                                         CPU's steady figure stands in) */
  const struct child_env *validation_env; /* the validation layer's variables alone, which a
                                         preset's validation = true sets (verify.ini;
                                         --mode debug sets debug_env, which holds them), ended
                                         by a NULL name; or NULL: no validation layer */
  const char *validation_label;       /* "Vulkan": names the backend's cases in the run
                                         summary's validation line (validation_tally.h) */
  const char *validation_layer;       /* the layer and where to get it, for that line */
  const char *validation_info;        /* the info key a plugin sets to "on" when the layer
                                         runs and its own messenger fails the case on a
                                         message (vkh's "vk_validation": the user's
                                         VK_INSTANCE_LAYERS), so the case was validated */
};

/* Every backend, the table's order (the first is the CPU's: the default). */
size_t backends_count(void);
const struct backend *backends_at(size_t i);
/* The backend named name, or NULL (name NULL or unknown). */
const struct backend *backend_find(const char *name);
/* The backend named name, or the first (the CPU's) when there is none. */
const struct backend *backend_or_default(const char *name);

/* Every backend's debug variables in one list ended by a NULL name: what
 * a --mode debug child gets (one harness child may load plugins of any
 * backend, so each backend's runtime is told). */
const struct child_env *backends_debug_env(void);
/* Every backend's validation_env in one list ended by a NULL name: what a
 * child gets under a preset's validation = true without --mode debug. */
const struct child_env *backends_validation_env(void);
/* Whether the backend named name has a validation layer (validation_env). */
int backend_has_validation(const char *name);
/* Whether message is a validation layer's error that was logged outside a
 * case, in init() or deinit() ("<validation_error> in ..."). */
int backends_validation_error_outside_case(const char *message);

#endif
