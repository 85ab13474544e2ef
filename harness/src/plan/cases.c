/* Expanding plugins' parameters into cases: for each declared parameter the
 * preset's value, else the plugin's default for the preset's tier, else its
 * standard default; comma lists sweep an axis; axes are crossed in
 * declaration order (the first declared varies slowest), except that
 * parameters sharing a nonzero zip group advance together as one axis. */
#include "plan/cases.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More cases than this from one plugin is surely a typo in a sweep. */
#define CASES_MAX_PER_PLUGIN 1000000u
/* Problems printed at most; then how many more there were. */
#define CASES_MAX_PROBLEMS 20

/* ---- lists and items -------------------------------------------------- */

struct item_list {
  size_t n;
  char **items;
};

static void item_list_release(struct item_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

/* Split "64, 128" into trimmed items. -1 with err when an item is empty. */
static int split_list(const char *text, struct item_list *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  const char *s = text;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    char *item = trim(xstrndup(s, n));
    if (!*item) {
      free(item);
      item_list_release(out);
      if (!comma && s == text)
        snprintf(err, errlen, "empty value");
      else
        snprintf(err, errlen, "empty item in list '%s'", text);
      return -1;
    }
    out->items = xrealloc(out->items, (out->n + 1) * sizeof *out->items);
    out->items[out->n++] = item;
    if (!comma) return 0;
    s = comma + 1;
  }
}

/* Is item one of the comma list `choices`? */
static int in_choices(const char *choices, const char *item) {
  size_t len = strlen(item);
  const char *s = choices;
  for (;;) {
    while (isspace((unsigned char)*s)) s++;
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n == len && strncmp(s, item, n) == 0) return 1;
    if (!comma) return 0;
    s = comma + 1;
  }
}

static char *choices_text(const char *choices) {
  struct strbuf sb = STRBUF_INIT;
  struct item_list l;
  char err[8];
  if (split_list(choices, &l, err, sizeof err) != 0) return xstrdup(choices);
  for (size_t i = 0; i < l.n; i++) strbuf_addf(&sb, "%s%s", i ? ", " : "", l.items[i]);
  item_list_release(&l);
  return strbuf_detach(&sb);
}

/* The shortest text that reads back as v exactly: without an exponent from
 * 1e-4 to 1e17 ("0.1", "1000", "2.5"), else with a short one ("1e-5", "1e20"). */
static char *float_text(double v) {
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  char *e = strchr(buf, 'e');
  if (e && fabs(v) >= 1e-4 && fabs(v) < 1e17) {
    for (int dec = 0; dec <= 21; dec++) {
      snprintf(buf, sizeof buf, "%.*f", dec, v);
      if (strtod(buf, NULL) == v) break;
    }
  } else if (e) {
    /* "1e-05" -> "1e-5", "1e+20" -> "1e20" */
    char *d = e + 1, *q = e + 1;
    if (*q == '+') q++;
    else if (*q == '-') *d++ = *q++;
    while (*q == '0' && q[1]) q++;
    memmove(d, q, strlen(q) + 1);
  }
  return xstrdup(buf);
}

/* Check one item against its declaration and fill v. INT and FLOAT values
 * get their text normalised ("+064" is "64", "1.50" is "1.5", "1e3" is
 * "1000"), so one value is one case label and one rollup row however it
 * was written; other text is left for the caller to set. FLOAT takes
 * decimal numbers only: hex floats ("0x1p4"), inf and nan are refused. */
static int check_item(const struct bench_param *bp, const char *item, struct case_value *v,
                      char *err, size_t errlen) {
  memset(v, 0, sizeof *v);
  v->param = bp;
  int ranged = !(bp->min == 0 && bp->max == 0);
  switch (bp->type) {
  case BENCH_PARAM_INT:
    if (parse_int64(item, &v->i) != 0) {
      snprintf(err, errlen, "'%s' is not an integer", item);
      return -1;
    }
    v->f = (double)v->i;
    break;
  case BENCH_PARAM_FLOAT:
    if (strspn(item, "0123456789+-.eE") != strlen(item) || parse_double(item, &v->f) != 0) {
      snprintf(err, errlen, "'%s' is not a decimal number", item);
      return -1;
    }
    break;
  case BENCH_PARAM_STRING:
    if (bp->choices && !in_choices(bp->choices, item)) {
      char *c = choices_text(bp->choices);
      snprintf(err, errlen, "'%s' is not one of: %s", item, c);
      free(c);
      return -1;
    }
    return 0;
  default:
    snprintf(err, errlen, "unknown parameter type %d", (int)bp->type);
    return -1;
  }
  if (ranged && (v->f < bp->min || v->f > bp->max)) {
    snprintf(err, errlen, "'%s' is out of range [%.17g, %.17g]", item, bp->min, bp->max);
    return -1;
  }
  v->text = bp->type == BENCH_PARAM_INT ? xasprintf("%" PRId64, v->i) : float_text(v->f);
  return 0;
}

/* A parameter's values: the items of its list, checked. */
struct param_values {
  size_t n;
  struct case_value *v;
  int line; /* preset line it came from, 0 for a plugin default */
};

static void param_values_release(struct param_values *pv) {
  for (size_t i = 0; i < pv->n; i++) free(pv->v[i].text);
  free(pv->v);
  memset(pv, 0, sizeof *pv);
}

static int parse_values(const struct bench_param *bp, const char *text, struct param_values *out,
                        char *err, size_t errlen) {
  struct item_list l;
  out->n = 0;
  out->v = NULL;
  if (split_list(text, &l, err, errlen) != 0) return -1;
  out->v = xcalloc(l.n, sizeof *out->v);
  for (size_t i = 0; i < l.n; i++) {
    if (check_item(bp, l.items[i], &out->v[i], err, errlen) != 0) {
      item_list_release(&l);
      param_values_release(out);
      return -1;
    }
    if (!out->v[i].text) {
      out->v[i].text = l.items[i];
      l.items[i] = NULL;
    }
    out->n = i + 1;
  }
  item_list_release(&l);
  return 0;
}

int param_value_check(const struct bench_param *bp, const char *text, char *err, size_t errlen) {
  struct param_values pv;
  if (parse_values(bp, text, &pv, err, errlen) != 0) return -1;
  param_values_release(&pv);
  return 0;
}

static size_t count_params(const struct bench_plugin *p) {
  size_t n = 0;
  if (p->params)
    while (p->params[n].name) n++;
  return n;
}

/* The plugin default of bp for tier t (falling back to standard), or NULL. */
static const char *default_for(const struct bench_param *bp, enum bench_tier t, enum bench_tier *used) {
  if ((unsigned)t < BENCH_TIER_COUNT && bp->defaults[t]) {
    *used = t;
    return bp->defaults[t];
  }
  *used = BENCH_TIER_STANDARD;
  return bp->defaults[BENCH_TIER_STANDARD];
}

/* First pair of parameters in one zip group whose lists differ in length
 * (neither of length 1). Returns 1 and sets *a, *b if there is one. */
static int zip_mismatch(const struct bench_param *params, const size_t *lens, size_t n, size_t *a,
                        size_t *b) {
  for (size_t j = 0; j < n; j++) {
    if (!params[j].zip || lens[j] == 1) continue;
    for (size_t i = 0; i < j; i++) {
      if (params[i].zip == params[j].zip && lens[i] != 1 && lens[i] != lens[j]) {
        *a = i;
        *b = j;
        return 1;
      }
    }
  }
  return 0;
}

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

/* ---- a plugin's own declarations -------------------------------------- */

static int lower_identifier(const char *s) {
  if (!(*s >= 'a' && *s <= 'z')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

static int validate_param(const struct bench_param *params, size_t j, char *err, size_t errlen) {
  const struct bench_param *bp = &params[j];
  char why[400];
  if (!*bp->name) {
    snprintf(err, errlen, "parameter %zu has an empty name", j + 1);
    return -1;
  }
  if (!lower_identifier(bp->name)) {
    snprintf(err, errlen, "parameter '%s': the name must be a lower-case identifier ([a-z][a-z0-9_]*)",
             bp->name);
    return -1;
  }
  for (size_t i = 0; i < j; i++) {
    if (strcmp(params[i].name, bp->name) == 0) {
      snprintf(err, errlen, "parameter '%s' is declared twice", bp->name);
      return -1;
    }
  }
  if (bp->type != BENCH_PARAM_INT && bp->type != BENCH_PARAM_FLOAT && bp->type != BENCH_PARAM_STRING) {
    snprintf(err, errlen, "parameter '%s': unknown type %d", bp->name, (int)bp->type);
    return -1;
  }
  if (bp->choices) {
    struct item_list l;
    if (bp->type != BENCH_PARAM_STRING) {
      snprintf(err, errlen, "parameter '%s': choices are only for STRING parameters", bp->name);
      return -1;
    }
    if (split_list(bp->choices, &l, why, sizeof why) != 0) {
      snprintf(err, errlen, "parameter '%s': bad choices '%s': %s", bp->name, bp->choices, why);
      return -1;
    }
    item_list_release(&l);
  }
  if (bp->type == BENCH_PARAM_STRING && (bp->min != 0 || bp->max != 0)) {
    snprintf(err, errlen, "parameter '%s': min and max are only for INT and FLOAT parameters",
             bp->name);
    return -1;
  }
  if (!(bp->min <= bp->max)) {
    snprintf(err, errlen, "parameter '%s': min (%g) is greater than max (%g)", bp->name, bp->min,
             bp->max);
    return -1;
  }
  if (bp->zip < 0) {
    snprintf(err, errlen, "parameter '%s': negative zip group %d", bp->name, bp->zip);
    return -1;
  }
  if (!bp->defaults[BENCH_TIER_STANDARD]) {
    snprintf(err, errlen, "parameter '%s' has no default for tier standard (required)", bp->name);
    return -1;
  }
  for (int t = 0; t < BENCH_TIER_COUNT; t++) {
    struct param_values pv;
    if (!bp->defaults[t]) continue;
    if (parse_values(bp, bp->defaults[t], &pv, why, sizeof why) != 0) {
      snprintf(err, errlen, "parameter '%s': default for tier %s ('%s'): %s", bp->name,
               tier_name((enum bench_tier)t), bp->defaults[t], why);
      return -1;
    }
    param_values_release(&pv);
  }
  return 0;
}

int params_validate(const struct bench_plugin *p, char *err, size_t errlen) {
  if (!p) {
    snprintf(err, errlen, "no plugin");
    return -1;
  }
  size_t n = count_params(p);
  for (size_t j = 0; j < n; j++)
    if (validate_param(p->params, j, err, errlen) != 0) return -1;

  /* Zipped defaults must fit together in every tier. */
  size_t *lens = xcalloc(n ? n : 1, sizeof *lens);
  int rc = 0;
  for (int t = 0; t < BENCH_TIER_COUNT && rc == 0; t++) {
    for (size_t j = 0; j < n; j++) {
      enum bench_tier used;
      struct item_list l;
      char why[8];
      const char *text = default_for(&p->params[j], (enum bench_tier)t, &used);
      lens[j] = 0;
      if (split_list(text, &l, why, sizeof why) == 0) {
        lens[j] = l.n;
        item_list_release(&l);
      }
    }
    size_t a, b;
    if (zip_mismatch(p->params, lens, n, &a, &b)) {
      snprintf(err, errlen,
               "tier %s: parameters '%s' (%zu values) and '%s' (%zu values) share zip group %d "
               "but their default lists differ in length",
               tier_name((enum bench_tier)t), p->params[a].name, lens[a], p->params[b].name,
               lens[b], p->params[a].zip);
      rc = -1;
    }
  }
  free(lens);
  return rc;
}
