/* --param NAME=VALUE: checked against the selected plugins' declarations,
 * then written into the preset's plugin sections as if the preset said it
 * (line 0: the value came from the command line). */
#include "cases/param_cli.h"

#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "cases/param_values.h"
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

/* Was NAME given by one of the --param arguments? */
static int given(const char *name, const char *const *args, size_t nargs) {
  size_t len = strlen(name);
  for (size_t i = 0; i < nargs; i++) {
    const char *a = args[i];
    while (*a == ' ' || *a == '\t') a++;
    if (strncmp(a, name, len) != 0) continue;
    const char *rest = a + len;
    while (*rest == ' ' || *rest == '\t') rest++;
    if (*rest == '=') return 1;
  }
  return 0;
}

/* A zip group is one axis: a --param on any member replaces the whole
 * group, so each member the command line leaves out keeps only its first
 * value (that of the group's first case), and the members given sweep
 * together. Without this, --param m=512 --param n=512 --param k=512 on
 * cpu_gemm, whose variant is zipped with m, n, k, would cross the given
 * sizes with every variant of the group (and repeat one). */
static void collapse_zip_groups(struct preset *p, const struct bench_plugin *pl,
                                const char *const *args, size_t nargs) {
  for (const struct bench_param *bp = pl->params; bp && bp->name; bp++) {
    if (!bp->zip || given(bp->name, args, nargs)) continue;
    int touched = 0;
    for (const struct bench_param *q = pl->params; q->name && !touched; q++)
      touched = q->zip == bp->zip && given(q->name, args, nargs);
    if (!touched) continue;
    struct preset_section *sec = section_for(p, pl->name);
    const char *text = NULL;
    for (size_t e = 0; e < sec->nentries; e++)
      if (strcmp(sec->entries[e].key, bp->name) == 0) text = sec->entries[e].value;
    enum bench_tier used;
    if (!text) text = default_for(bp, p->policy.tier, &used);
    struct param_values pv = {0};
    char err[256];
    /* A value that does not parse is left for case expansion to report. */
    if (text && parse_values(bp, text, &pv, err, sizeof err) == 0 && pv.n > 1)
      set_entry(sec, bp->name, pv.v[0].text);
    param_values_release(&pv);
  }
}

int param_cli_apply(struct preset *p, const struct bench_plugin *const *plugins, size_t nplugins,
                    const char *const *args, size_t nargs) {
  int errors = 0;
  for (size_t i = 0; i < nargs; i++)
    if (apply_one(p, plugins, nplugins, args[i]) != 0) errors++;
  if (errors) return -1;
  for (size_t i = 0; i < nplugins; i++) collapse_zip_groups(p, plugins[i], args, nargs);
  return 0;
}
