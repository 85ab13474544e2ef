/* Tunable parameters (ABI 1.4): their candidate values, in the plugin's
 * order of preference with the default first, and the checks of their
 * declaration. */
#ifndef BENCH_TUNABLES_H
#define BENCH_TUNABLES_H

#include <stddef.h>

#include "bench/plugin.h"
#include "cases/param_values.h"

/* More candidates than this for one tunable is a declaration bug. */
#define TUNABLE_MAX_CANDIDATES 4096

/* The candidates of tunable bp for tier t: its default for t first, then
 * `candidates` (else the choices, else min..max by step) in declared order,
 * each once. A zipped tunable is a sweep axis (cpu_gemm's variant): its
 * tiers' defaults are lists of cases, and its tuning default is its first
 * declared candidate. 0, or -1 with the reason in err. */
int tunable_candidates(const struct bench_param *bp, enum bench_tier t, struct param_values *out,
                       char *err, size_t errlen);

/* A tunable's declaration: one default value per tier (a list when zipped), a
 * candidate list that parses (or choices, or a range with step > 0).
 * 0 (also for a parameter that is not tunable), or -1 with err. */
int tunable_validate(const struct bench_param *bp, char *err, size_t errlen);

/* How many of p's parameters are tunable. */
size_t tunables_count(const struct bench_plugin *p);

#endif
