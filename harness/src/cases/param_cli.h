/* --param name=value: one case (or a sweep) from the command line, without
 * writing a preset. Each --param overrides the preset's value (or the
 * plugin's default) of that parameter for every selected plugin that
 * declares it; a comma list sweeps it as in a preset. A zip group (e.g.
 * cpu_gemm's variant, m, n, k) is one axis: a --param on any of its members
 * replaces the whole group, the members given sweep together and every
 * other member keeps only its first value, so --param m=512 --param n=512
 * --param k=512 is one case of that group. */
#ifndef BENCH_PARAM_CLI_H
#define BENCH_PARAM_CLI_H

#include <stddef.h>

#include "bench/plugin.h"
#include "preset/preset.h"

/* Apply the --param arguments to p's plugin sections (adding sections and
 * entries as needed; a later --param of the same name wins). Each argument
 * must be NAME=VALUE; NAME must be declared by at least one selected plugin,
 * and VALUE must be valid for each of them. Every problem is printed as
 * "--param ARG: ..."; returns 0, or -1. */
int param_cli_apply(struct preset *p, const struct bench_plugin *const *plugins, size_t nplugins,
                    const char *const *args, size_t nargs);

#endif
