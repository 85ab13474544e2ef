/* The plan of a command: a request (preset, plugin selection, --param,
 * --filter, plugin folders) turned into the loaded preset, the selected
 * plugins in run order and their expanded, filtered (and tuned) cases.
 * run, list, tune and both sides of ab build theirs here. */
#ifndef BENCH_PLAN_H
#define BENCH_PLAN_H

#include <stddef.h>

#include "cases/cases.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"

/* The tuning step (run/tune_apply.c, a layer above): tunables at auto take
 * the tuning cache's winner. Called on the filtered cases when set. */
typedef void (*plan_tune_fn)(struct case_list *cases, const struct plugin *const *plugins,
                             size_t nplugins, const char *tuning_file, double timeout_s, int debug);

struct plan_request {
  const char *preset;                /* name or .ini file; NULL: no preset, no cases (list) */
  const char *const *plugins;        /* --plugin patterns (names, comma lists, globs) */
  size_t nplugins;
  const char *const *plugin_dirs;    /* --plugin-dir (with BENCH_PLUGIN_PATH and the default) */
  size_t nplugin_dirs;
  /* One folder or .so file instead (a side of ab): only its plugins; a
   * pattern matching none of them is no error, nor is no plugin at all. */
  const char *side;
  const char *const *params;         /* --param NAME=VALUES */
  size_t nparams;
  const char *const *filters;        /* --filter EXPR */
  size_t nfilters;
  int allow_none;                    /* no plugin found is no error (list says so itself) */
  int rescan, verbose;               /* the scan cache (plugin_scan_configure) */
  int check_unselected;              /* check the preset's sections of plugins not selected */
  plan_tune_fn tune;                 /* NULL: tunables at auto stay as expanded */
  const char *tuning_file;           /* for tune: --tuning-file, or NULL */
  int debug;                         /* for tune: --mode debug */
};

struct plan {
  struct preset preset;
  struct plugin_set set;             /* every plugin found */
  const struct plugin **plugins;     /* the selected, in run order (into set) */
  size_t nplugins;
  struct case_list cases;
};

/* The presets folder next to the binary (<exe>/../share/bench/presets),
 * malloc'd. */
char *plan_preset_dir(void);

/* Load the preset and the plugins and select them. 0, or -1 after error(). */
int plan_load(const struct plan_request *rq, struct plan *p);
/* Expand, filter and tune the cases of the plan loaded. 0, or -1 after
 * error() (every problem printed). */
int plan_cases(const struct plan_request *rq, struct plan *p);
/* plan_load then plan_cases. */
int plan_build(const struct plan_request *rq, struct plan *p);
void plan_release(struct plan *p);

/* Keep only the cases for which keep(arg, plugin, case) returns 1, in
 * order, and the selected plugins that still have a case (bench peak's
 * plan: its peak plugins, less what is measured already). */
typedef int (*plan_keep_fn)(void *arg, const struct plugin *pl, const struct case_def *c);
void plan_keep_cases(struct plan *p, plan_keep_fn keep, void *arg);

/* The names of the selected plugins (an array of p->nplugins; free it). */
const char **plan_plugin_names(const struct plan *p);

#endif
