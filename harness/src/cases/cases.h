/* Expanding plugins' parameters (tier defaults, overridden by a preset's
 * section) into the list of cases to run. */
#ifndef BENCH_CASES_H
#define BENCH_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"
#include "cases/param_decl.h"
#include "preset/preset.h"

/* One parameter value of a case, already checked against its declaration. */
struct case_value {
  const struct bench_param *param;
  char *text;    /* STRING: as written, trimmed; INT, FLOAT: normalised ("+064" is "64") */
  int64_t i;     /* INT */
  double f;      /* FLOAT (also set for INT) */
  int is_auto;   /* a tunable left at `auto` (1.4): the default until a tuning entry replaces it */
};

struct case_def {
  const struct bench_plugin *plugin;
  size_t plugin_index;       /* index in the list given to cases_expand */
  size_t nvalues;            /* one per declared parameter, declaration order */
  struct case_value *values;
  char *note;                /* "tuned (cache FILE)" / "default (no tuning entry)", or NULL */
};

struct case_list {
  size_t n;
  struct case_def *cases;
};

/* Build the cases of plugins[0..nplugins) under preset p (NULL: tier
 * standard, no overrides), in plugin order. Within a plugin, the axes are
 * crossed in declaration order, the first declared varying slowest (as
 * "for m: for n:"); a zip group is one axis, placed at its first member,
 * and a list of one value broadcasts over its group.
 * A section of p that names no plugin in the list is an error unless
 * `known` (the names of every plugin discovered, also ones not selected)
 * holds it; an unknown key, a bad value (not a number, out of range, not
 * one of the choices), an empty list or zipped lists of different lengths
 * is an error. Each problem is printed as "file:line: message" (for a bad
 * plugin default: "plugin NAME: parameter P: ..."). Returns 0, or -1. */
int cases_expand(const struct bench_plugin *const *plugins, size_t nplugins,
                 const char *const *known, size_t nknown,
                 const struct preset *p, struct case_list *out);
void case_list_release(struct case_list *l);

/* Check the sections of p that name one of plugins[0..nplugins) against
 * that plugin (unknown keys, bad values, zipped lists of different
 * lengths), as cases_expand does, without making cases: for plugins that
 * were found but not selected, so that a wrong section never waits for the
 * day its plugin is run. Problems printed as "file:line: message"; 0, or -1. */
int cases_check_preset(const struct bench_plugin *const *plugins, size_t nplugins,
                       const struct preset *p);

/* "m=64 n=64 k=64 variant=naive": the case's parameters, space-separated. */
char *case_label(const struct case_def *c);

/* The value of parameter `name` in case c, or NULL if it has none. */
const struct case_value *case_find(const struct case_def *c, const char *name);

#endif
