/* One pipeline from a request to the cases a command runs (plan.h). */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/child.h"
#include "core/util.h"
#include "cases/case_filter.h"
#include "cases/param_cli.h"
#include "plugin/plugin_select.h"

#ifndef BENCH_REL_PRESET_DIR
#define BENCH_REL_PRESET_DIR "share/bench/presets"
#endif

char *plan_preset_dir(void) {
  char *ed = exe_dir();
  char *d = xasprintf("%s/../%s", ed, BENCH_REL_PRESET_DIR);
  free(ed);
  return d;
}

static int load_preset(const char *arg, struct preset *out) {
  char *pdir = plan_preset_dir();
  const char *dirs[] = {pdir};
  char *path = preset_resolve(arg, dirs, 1);
  free(pdir);
  if (!path) return -1;
  int rc = preset_load(path, out);
  free(path);
  return rc;
}

static int load_plugins(const struct plan_request *rq, struct plan *p) {
  if (!rq->side) {
    if (plugins_load(rq->plugin_dirs, rq->nplugin_dirs, &p->set) != 0) return -1;
    if (child_interrupted()) return -1; /* the scan was cut short: the caller says so, nothing else */
    if (plugins_select(&p->set, rq->plugins, rq->nplugins, &p->plugins, &p->nplugins) != 0) return -1;
    if (p->nplugins == 0 && !rq->allow_none) return error("no plugins found (see --plugin-dir and BENCH_PLUGIN_PATH)");
    return 0;
  }
  char *dirs[] = {(char *)rq->side};
  plugins_discover(dirs, 1, &p->set);
  if (child_interrupted()) return -1;
  p->plugins = xcalloc(p->set.n + 1, sizeof *p->plugins);
  for (size_t i = 0; i < p->set.n; i++)
    if (!rq->nplugins || plugin_name_selected(p->set.items[i].desc->name, rq->plugins, rq->nplugins))
      p->plugins[p->nplugins++] = &p->set.items[i];
  return 0;
}

int plan_load(const struct plan_request *rq, struct plan *p) {
  memset(p, 0, sizeof *p);
  if (rq->preset && load_preset(rq->preset, &p->preset) != 0) return -1;
  plugin_scan_configure(rq->rescan, rq->verbose);
  return load_plugins(rq, p);
}

static int is_selected(const struct plan *p, const char *name) {
  for (size_t i = 0; i < p->nplugins; i++)
    if (strcmp(p->plugins[i]->desc->name, name) == 0) return 1;
  return 0;
}

/* The preset's sections of plugins found but not selected: checked too, so
 * a wrong section never waits for the day its plugin is run. */
static int check_unselected(const struct plan *p) {
  const struct bench_plugin **others = xcalloc(p->set.n + 1, sizeof *others);
  size_t n = 0;
  for (size_t i = 0; i < p->set.n; i++)
    if (!is_selected(p, p->set.items[i].desc->name)) others[n++] = p->set.items[i].desc;
  int rc = cases_check_preset(others, n, &p->preset);
  free(others);
  return rc;
}

int plan_cases(const struct plan_request *rq, struct plan *p) {
  int checked = rq->check_unselected ? check_unselected(p) : 0;
  const struct bench_plugin **descs = xcalloc(p->nplugins + 1, sizeof *descs);
  const char **known = xcalloc(p->set.n + 1, sizeof *known);
  for (size_t i = 0; i < p->nplugins; i++) descs[i] = p->plugins[i]->desc;
  for (size_t i = 0; i < p->set.n; i++) known[i] = p->set.items[i].desc->name;
  int rc = param_cli_apply(&p->preset, descs, p->nplugins, rq->params, rq->nparams);
  if (rc == 0) rc = cases_expand(descs, p->nplugins, known, p->set.n, &p->preset, &p->cases);
  /* a side without cases (its plugins not selected) has nothing to filter */
  if (rc == 0 && (!rq->side || p->cases.n))
    rc = case_filter_apply(rq->filters, rq->nfilters, descs, p->nplugins, &p->cases);
  if (rc == 0 && rq->tune)
    rq->tune(&p->cases, p->plugins, p->nplugins, rq->tuning_file, p->preset.policy.timeout_s, rq->debug);
  free(descs);
  free(known);
  return rc != 0 || checked != 0 ? -1 : 0;
}

int plan_build(const struct plan_request *rq, struct plan *p) {
  if (plan_load(rq, p) != 0) return -1;
  return plan_cases(rq, p);
}

void plan_release(struct plan *p) {
  case_list_release(&p->cases);
  preset_release(&p->preset);
  free(p->plugins);
  plugin_set_release(&p->set);
  memset(p, 0, sizeof *p);
}

void plan_keep_cases(struct plan *p, plan_keep_fn keep, void *arg) {
  size_t *newidx = xcalloc(p->nplugins + 1, sizeof *newidx);
  int *kept = xcalloc(p->nplugins + 1, sizeof *kept);
  struct case_list drop = {0, xcalloc(p->cases.n + 1, sizeof(struct case_def))};
  size_t n = 0;
  for (size_t i = 0; i < p->cases.n; i++) {
    struct case_def *c = &p->cases.cases[i];
    if (keep(arg, p->plugins[c->plugin_index], c)) {
      kept[c->plugin_index] = 1;
      p->cases.cases[n++] = *c;
    } else {
      drop.cases[drop.n++] = *c;
    }
  }
  p->cases.n = n;
  case_list_release(&drop);
  size_t np = 0;
  for (size_t j = 0; j < p->nplugins; j++)
    if (kept[j]) {
      newidx[j] = np;
      p->plugins[np++] = p->plugins[j];
    }
  p->nplugins = np;
  for (size_t i = 0; i < p->cases.n; i++) p->cases.cases[i].plugin_index = newidx[p->cases.cases[i].plugin_index];
  free(newidx);
  free(kept);
}

const char **plan_plugin_names(const struct plan *p) {
  const char **names = xcalloc(p->nplugins + 1, sizeof *names);
  for (size_t i = 0; i < p->nplugins; i++) names[i] = p->plugins[i]->desc->name;
  return names;
}
