/* Runs use the tuning cache: a tunable left at `auto` takes the winner
 * `bench tune` recorded for the device and problem, else the plugin's
 * default; each such case says which in its note. */
#ifndef BENCH_TUNE_APPLY_H
#define BENCH_TUNE_APPLY_H

#include <stddef.h>

#include "cases/cases.h"
#include "plugin/plugin_loader.h"

/* For every case of cases whose plugin (plugins[c->plugin_index]) has a
 * tunable at auto: substitute the cached winner (note "tuned (cache
 * FILE)") or leave the defaults (note "default (no tuning entry)").
 * tuning_file: --tuning-file, or NULL for the device's file under
 * $XDG_CACHE_HOME/bench/tuning. The device is asked of the plugin's init()
 * in a child. Never fails: a foreign or corrupt file is ignored with one
 * warning naming it. */
void tune_apply(struct case_list *cases, const struct plugin *const *plugins, size_t nplugins,
                const char *tuning_file, double timeout_s, int debug);

#endif
