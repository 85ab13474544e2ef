/* What a result header records about the machine and the run. */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include "preset/run_schema.h"
#include "results/result.h"

/* Fill e: date, time, host, CPU, OS, bench version and git revision, the
 * command line (shell-quoted). preset/tag/mode are copied. */
void run_env_collect(struct run_env *e, int argc, char **argv, const char *preset,
                     const char *preset_sha256, const char *tag, const char *mode);

/* The invocation's id, the same for every call in one process: the UTC
 * time of the first call and the pid ("2026-12-01T23:14:05Z-4711"). */
const char *run_env_run_id(void);

/* The git work tree the plugin file at plugin_path lies in, into
 * f->plugin_commit/plugin_dirty/plugin_describe (left NULL where git is
 * absent, the file is in no work tree, or git takes over 3 s: never an
 * error). git runs with GIT_TERMINAL_PROMPT=0 and GIT_OPTIONAL_LOCKS=0 and
 * stdin and stderr on /dev/null. Then the run's label: label when given,
 * else the short commit ("-dirty" added when dirty), else the
 * invocation's start time; and env.run_id. */
void run_env_label(struct run_file *f, const char *plugin_path, const char *label);

/* The sampling policy the run's cases run under into e->sampling (the
 * header's "sampling": the preset's keys after --min-samples & co., and
 * which of them the command line set). */
void run_env_sampling(struct run_env *e, const struct run_policy *pol);

#include "core/version.h" /* bench_version(), bench_git_revision() */

#endif
