/* --param NAME=VALUE: checked against the selected plugins' declarations,
 * then written into the preset's plugin sections as if the preset said it
 * (line 0: the value came from the command line). */
#include "plan/param_cli.h"

#include <stdlib.h>
#include <string.h>

#include "plan/cases.h"
#include "plan/param_values.h"
#include "core/util.h"

static struct preset_section *section_for(struct preset *p, const char *name) {
  for (size_t i = 0; i < p->nsections; i++)
    if (strcmp(p->sections[i].name, name) == 0) return &p->sections[i];
  p->sections = xrealloc(p->sections, (p->nsections + 1) * sizeof *p->sections);
  struct preset_section *s = &p->sections[p->nsections++];
  memset(s, 0, sizeof *s);
  s->name = xstrdup(name);
  return s;
}

static void set_entry(struct preset_section *s, const char *key, const char *value) {
  for (size_t i = 0; i < s->nentries; i++) {
    if (strcmp(s->entries[i].key, key) != 0) continue;
    free(s->entries[i].value);
    s->entries[i].value = xstrdup(value);
    s->entries[i].line = 0;
    return;
  }
  s->entries = xrealloc(s->entries, (s->nentries + 1) * sizeof *s->entries);
  struct preset_entry *e = &s->entries[s->nentries++];
  e->key = xstrdup(key);
  e->value = xstrdup(value);
  e->line = 0;
}

static const struct bench_param *find_param(const struct bench_plugin *pl, const char *name) {
  for (const struct bench_param *bp = pl->params; bp && bp->name; bp++)
    if (strcmp(bp->name, name) == 0) return bp;
  return NULL;
}

/* "m, n, k, variant": every parameter of the selected plugins, once. */
static char *all_names(const struct bench_plugin *const *plugins, size_t n) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < n; i++)
    for (const struct bench_param *bp = plugins[i]->params; bp && bp->name; bp++) {
      int seen = 0;
      for (size_t j = 0; j < i && !seen; j++) seen = find_param(plugins[j], bp->name) != NULL;
      for (const struct bench_param *q = plugins[i]->params; !seen && q != bp; q++)
        seen = strcmp(q->name, bp->name) == 0;
      if (!seen) strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", bp->name);
    }
  if (!sb.len) strbuf_adds(&sb, "none");
  return strbuf_detach(&sb);
}

static int apply_one(struct preset *p, const struct bench_plugin *const *plugins, size_t n,
                     const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg)
    return error("--param %s: expected NAME=VALUE (e.g. --param m=512 or --param m=256,512)", arg);
  char *name = trim(xstrndup(arg, (size_t)(eq - arg)));
  char *value = trim(xstrdup(eq + 1));
  int rc = 0, users = 0;
  char err[512];
  for (size_t i = 0; i < n && rc == 0; i++) {
    const struct bench_param *bp = find_param(plugins[i], name);
    if (!bp) continue;
    users++;
    if (param_value_check(bp, value, err, sizeof err) != 0)
      rc = error("--param %s: plugin '%s', parameter '%s': %s", arg, plugins[i]->name, name, err);
  }
  if (rc == 0 && users == 0) {
    char *names = all_names(plugins, n);
    rc = error("--param %s: no selected plugin has a parameter '%s' (known: %s)", arg, name, names);
    free(names);
  }
  for (size_t i = 0; i < n && rc == 0; i++)
    if (find_param(plugins[i], name)) set_entry(section_for(p, plugins[i]->name), name, value);
  free(name);
  free(value);
  return rc;
}

int param_cli_apply(struct preset *p, const struct bench_plugin *const *plugins, size_t nplugins,
                    const char *const *args, size_t nargs) {
  int errors = 0;
  for (size_t i = 0; i < nargs; i++)
    if (apply_one(p, plugins, nplugins, args[i]) != 0) errors++;
  return errors ? -1 : 0;
}
