/* A plugin's own parameter declarations, checked when it is loaded. */
#ifndef BENCH_PARAM_DECL_H
#define BENCH_PARAM_DECL_H

#include <stddef.h>

#include "bench/plugin.h"

/* Check a plugin's own parameter declarations (names, types, choices,
 * defaults for every tier parse). 0, or -1 with a message in err. */
int params_validate(const struct bench_plugin *p, char *err, size_t errlen);

#endif
