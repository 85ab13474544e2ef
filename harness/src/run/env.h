/* What a result header records about the machine and the run. */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include "preset/run_schema.h"
#include "results/result.h"

/* Fill e: date, time, host, CPU, OS, bench version and git revision, the
 * command line (shell-quoted). preset/tag/mode are copied. */
void run_env_collect(struct run_env *e, int argc, char **argv, const char *preset,
                     const char *preset_sha256, const char *tag, const char *mode);

/* The sampling policy the run's cases run under into e->sampling (the
 * header's "sampling": the preset's keys after --min-samples & co., and
 * which of them the command line set). */
void run_env_sampling(struct run_env *e, const struct run_policy *pol);

#include "core/version.h" /* bench_version(), bench_git_revision() */

#endif
