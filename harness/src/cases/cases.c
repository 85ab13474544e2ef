/* Expanding plugins' parameters into cases: for each declared parameter the
 * preset's value, else the plugin's default for the preset's tier, else its
 * standard default; comma lists sweep an axis; axes are crossed in
 * declaration order (the first declared varies slowest), except that
 * parameters sharing a nonzero zip group advance together as one axis. */
#include "cases/cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/param_values.h"
#include "cases/tunables.h"

/* More cases than this from one plugin is surely a typo in a sweep. */
#define CASES_MAX_PER_PLUGIN 1000000u
/* Problems printed at most; then how many more there were. */
#define CASES_MAX_PROBLEMS 20

/* ---- expansion -------------------------------------------------------- */

static void add_case(struct case_list *out, const struct bench_plugin *pl, size_t index,
                     const struct param_values *pv, const size_t *pick, size_t nparams) {
  out->cases = grow_for_one(out->cases, out->n, sizeof *out->cases);
  struct case_def *c = &out->cases[out->n++];
  c->plugin = pl;
  c->plugin_index = index;
  c->nvalues = nparams;
  c->values = nparams ? xcalloc(nparams, sizeof *c->values) : NULL;
  for (size_t j = 0; j < nparams; j++) {
    c->values[j] = pv[j].v[pv[j].n == 1 ? 0 : pick[j]];
    c->values[j].text = xstrdup(c->values[j].text);
  }
  c->note = NULL;
}

/* The cases of one plugin whose values all parsed: an odometer over the
 * axes, the last axis fastest. Returns 0, or -1 when there are too many
 * (reported at the preset line of the sweep that went over, when the
 * preset made it). */
static int expand_plugin(const struct bench_plugin *pl, size_t index, const struct param_values *pv,
                         size_t nparams, struct case_list *out, struct diags *d) {
  const struct bench_param *params = pl->params;
  /* axis_of[j]: the axis parameter j moves with; an axis is a zip-0
   * parameter or a whole zip group, placed where its first member is. */
  size_t *axis_of = xcalloc(nparams ? nparams : 1, sizeof *axis_of);
  size_t *axis_len = xcalloc(nparams ? nparams : 1, sizeof *axis_len);
  size_t *pos = xcalloc(nparams ? nparams : 1, sizeof *pos);
  size_t *pick = xcalloc(nparams ? nparams : 1, sizeof *pick);
  size_t naxes = 0, total = 1;
  int rc = 0;
  for (size_t j = 0; j < nparams; j++) {
    size_t a = naxes;
    if (params[j].zip) {
      for (size_t i = 0; i < j; i++)
        if (params[i].zip == params[j].zip) {
          a = axis_of[i];
          break;
        }
    }
    if (a == naxes) axis_len[naxes++] = 1;
    axis_of[j] = a;
    if (pv[j].n > axis_len[a]) axis_len[a] = pv[j].n;
  }
  for (size_t a = 0; a < naxes; a++) {
    if (axis_len[a] > CASES_MAX_PER_PLUGIN / total) {
      /* The preset's line for this axis, else the last sweep line before it. */
      int line = 0;
      for (size_t j = 0; j < nparams; j++)
        if (axis_of[j] <= a && pv[j].n > 1 && pv[j].line && (axis_of[j] == a || !line))
          line = pv[j].line;
      if (line)
        diags_add(d, line, "plugin '%s': the parameter lists make more than %u cases", pl->name,
                 CASES_MAX_PER_PLUGIN);
      else
        error("plugin %s: the parameter lists make more than %u cases", pl->name,
              CASES_MAX_PER_PLUGIN);
      rc = -1;
      goto done;
    }
    total *= axis_len[a];
  }
  for (size_t k = 0; k < total; k++) {
    for (size_t j = 0; j < nparams; j++) pick[j] = pos[axis_of[j]];
    add_case(out, pl, index, pv, pick, nparams);
    for (size_t a = naxes; a-- > 0;) {
      if (++pos[a] < axis_len[a]) break;
      pos[a] = 0;
    }
  }
done:
  free(axis_of);
  free(axis_len);
  free(pos);
  free(pick);
  return rc;
}

static int name_in(const char *name, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], name) == 0) return 1;
  return 0;
}

static const struct bench_plugin *plugin_named(const struct bench_plugin *const *plugins,
                                               size_t nplugins, const char *name) {
  for (size_t i = 0; i < nplugins; i++)
    if (plugins[i]->name && strcmp(plugins[i]->name, name) == 0) return plugins[i];
  return NULL;
}

/* "cpu_gemm, vk_gemm": the known names, then the selected ones not among them. */
static char *known_names(const struct bench_plugin *const *plugins, size_t nplugins,
                         const char *const *known, size_t nknown) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < nknown; i++)
    if (known[i] && !name_in(known[i], known, i)) strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", known[i]);
  for (size_t i = 0; i < nplugins; i++) {
    const char *n = plugins[i]->name;
    if (!n || name_in(n, known, nknown)) continue;
    int seen = 0;
    for (size_t j = 0; j < i; j++)
      if (plugins[j]->name && strcmp(plugins[j]->name, n) == 0) seen = 1;
    if (!seen) strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", n);
  }
  if (!sb.len) strbuf_adds(&sb, "none");
  return strbuf_detach(&sb);
}

static char *param_names(const struct bench_plugin *pl) {
  struct strbuf sb = STRBUF_INIT;
  size_t n = count_params(pl);
  for (size_t j = 0; j < n; j++) strbuf_addf(&sb, "%s%s", j ? ", " : "", pl->params[j].name);
  if (!n) strbuf_adds(&sb, "none");
  return strbuf_detach(&sb);
}

/* The values of every parameter of one plugin; each problem reported. */
static int plugin_values(const struct bench_plugin *pl, const struct preset *p,
                         struct param_values *pv, size_t nparams, struct diags *d) {
  enum bench_tier tier = p ? p->policy.tier : BENCH_TIER_STANDARD;
  const struct preset_section *sec = preset_find_section(p, pl->name);
  int errors = 0;
  char err[512];

  if (sec) {
    for (size_t e = 0; e < sec->nentries; e++) {
      int found = 0;
      for (size_t j = 0; j < nparams; j++)
        if (strcmp(pl->params[j].name, sec->entries[e].key) == 0) found = 1;
      if (!found) {
        char *names = param_names(pl);
        diags_add(d, sec->entries[e].line, "unknown parameter '%s' for plugin '%s' (known: %s)",
                    sec->entries[e].key, pl->name, names);
        free(names);
        errors++;
      }
    }
  }

  for (size_t j = 0; j < nparams; j++) {
    const struct bench_param *bp = &pl->params[j];
    const struct preset_entry *entry = NULL;
    for (size_t e = 0; sec && e < sec->nentries; e++)
      if (strcmp(sec->entries[e].key, bp->name) == 0) entry = &sec->entries[e];
    if (entry) {
      pv[j].line = entry->line;
      if (parse_values(bp, entry->value, &pv[j], err, sizeof err) != 0) {
        diags_add(d, entry->line, "plugin '%s', parameter '%s': %s", pl->name, bp->name, err);
        errors++;
      }
      continue;
    }
    enum bench_tier used;
    const char *text = default_for(bp, tier, &used);
    if (!text) {
      error("plugin %s: parameter %s has no default", pl->name, bp->name);
      errors++;
    } else if (parse_values(bp, text, &pv[j], err, sizeof err) != 0) {
      error("plugin %s: parameter %s: default for tier %s: %s", pl->name, bp->name,
            tier_name(used), err);
      errors++;
    }
  }
  for (size_t j = 0; j < nparams && !errors; j++) {
    const struct bench_param *bp = &pl->params[j];
    if (!bp->tunable) continue;
    int pinned = 0; /* by the preset or --param */
    for (size_t e = 0; sec && e < sec->nentries; e++) pinned |= strcmp(sec->entries[e].key, bp->name) == 0;
    /* a tunable nobody pinned is `auto`, but for a sweep axis (zipped):
     * its defaults are cases, only an explicit `auto` tunes it */
    int any_auto = !pinned && !bp->zip;
    for (size_t v = 0; v < pv[j].n; v++) any_auto |= pv[j].v[v].is_auto;
    if (!any_auto) continue;
    struct param_values dv;
    if (tunable_candidates(bp, tier, &dv, err, sizeof err) != 0) {
      error("plugin %s: tunable %s: %s", pl->name, bp->name, err);
      errors++;
      continue;
    }
    for (size_t v = 0; v < pv[j].n; v++) {
      if ((pinned || bp->zip) && !pv[j].v[v].is_auto) continue;
      free(pv[j].v[v].text);
      pv[j].v[v] = dv.v[0];
      pv[j].v[v].text = xstrdup(dv.v[0].text);
      pv[j].v[v].is_auto = 1;
    }
    param_values_release(&dv);
  }
  if (errors) return -1;

  size_t *lens = xcalloc(nparams ? nparams : 1, sizeof *lens);
  for (size_t j = 0; j < nparams; j++) lens[j] = pv[j].n;
  size_t a, b;
  if (zip_mismatch(pl->params, lens, nparams, &a, &b)) {
    char msg[512];
    snprintf(msg, sizeof msg,
             "plugin '%s': parameters '%s' (%zu values) and '%s' (%zu values) share zip group %d "
             "but their lists differ in length (zipped lists need equal lengths, or one value)",
             pl->name, pl->params[a].name, lens[a], pl->params[b].name, lens[b], pl->params[a].zip);
    int line = pv[b].line ? pv[b].line : pv[a].line;
    if (line)
      diags_add(d, line, "%s", msg);
    else
      error("%s (from its defaults for tier %s)", msg, tier_name(tier));
    errors++;
  }
  free(lens);
  return errors ? -1 : 0;
}

int cases_expand(const struct bench_plugin *const *plugins, size_t nplugins,
                 const char *const *known, size_t nknown, const struct preset *p,
                 struct case_list *out) {
  int errors = 0;
  struct diags d = {0, NULL};
  memset(out, 0, sizeof *out);

  char *names = NULL;
  for (size_t s = 0; p && s < p->nsections; s++) {
    const struct preset_section *sec = &p->sections[s];
    if (plugin_named(plugins, nplugins, sec->name) || name_in(sec->name, known, nknown)) continue;
    if (!names) names = known_names(plugins, nplugins, known, nknown);
    diags_add(&d, sec->line, "unknown section [%s] (no plugin of that name; known: %s)",
                sec->name, names);
    errors++;
  }
  free(names);

  for (size_t i = 0; i < nplugins; i++) {
    const struct bench_plugin *pl = plugins[i];
    size_t nparams = count_params(pl);
    struct param_values *pv = xcalloc(nparams ? nparams : 1, sizeof *pv);
    if (plugin_values(pl, p, pv, nparams, &d) != 0 || expand_plugin(pl, i, pv, nparams, out, &d) != 0)
      errors++;
    for (size_t j = 0; j < nparams; j++) param_values_release(&pv[j]);
    free(pv);
  }

  diags_flush(&d, p ? p->path : "(no preset)", CASES_MAX_PROBLEMS);
  if (errors) {
    case_list_release(out);
    return -1;
  }
  return 0;
}

int cases_check_preset(const struct bench_plugin *const *plugins, size_t nplugins,
                       const struct preset *p) {
  int errors = 0;
  struct diags d = {0, NULL};
  for (size_t i = 0; p && i < nplugins; i++) {
    const struct bench_plugin *pl = plugins[i];
    if (!pl->name || !preset_find_section(p, pl->name)) continue;
    size_t nparams = count_params(pl);
    struct param_values *pv = xcalloc(nparams ? nparams : 1, sizeof *pv);
    if (plugin_values(pl, p, pv, nparams, &d) != 0) errors++;
    for (size_t j = 0; j < nparams; j++) param_values_release(&pv[j]);
    free(pv);
  }
  diags_flush(&d, p ? p->path : "(no preset)", CASES_MAX_PROBLEMS);
  return errors ? -1 : 0;
}

void case_list_release(struct case_list *l) {
  if (!l) return;
  for (size_t c = 0; c < l->n; c++) {
    for (size_t j = 0; j < l->cases[c].nvalues; j++) free(l->cases[c].values[j].text);
    free(l->cases[c].values);
    free(l->cases[c].note);
  }
  free(l->cases);
  l->cases = NULL;
  l->n = 0;
}

char *case_label(const struct case_def *c) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t j = 0; j < c->nvalues; j++)
    strbuf_addf(&sb, "%s%s=%s", j ? " " : "", c->values[j].param->name, c->values[j].text);
  return strbuf_detach(&sb);
}

const struct case_value *case_find(const struct case_def *c, const char *name) {
  for (size_t j = 0; j < c->nvalues; j++)
    if (strcmp(c->values[j].param->name, name) == 0) return &c->values[j];
  return NULL;
}
