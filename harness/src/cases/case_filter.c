/* --filter: the grammar is in case_filter.h. */
#include "cases/case_filter.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

struct cond {
  char *name;
  enum op op;
  size_t nalt;
  char **alt;  /* the alternatives, trimmed */
  double num;  /* <, <=, >, >=: the number */
};

struct case_filter {
  char *expr;
  size_t n;
  struct cond *conds;
};

void case_filter_free(struct case_filter *f) {
  if (!f) return;
  for (size_t i = 0; i < f->n; i++) {
    for (size_t a = 0; a < f->conds[i].nalt; a++) free(f->conds[i].alt[a]);
    free(f->conds[i].alt);
    free(f->conds[i].name);
  }
  free(f->conds);
  free(f->expr);
  free(f);
}

static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* One COND of length len at s into c; -1 after error(). */
static int parse_cond(const char *expr, const char *s, size_t len, struct cond *c) {
  char *text = trim(xstrndup(s, len));
  int rc = -1;
  size_t i = 0;
  while (is_name_char(text[i])) i++;
  if (i == 0) {
    error("--filter '%s': condition '%s' does not start with a parameter name (e.g. m>=512)",
          expr, text);
    goto out;
  }
  c->name = xstrndup(text, i);
  const char *o = text + i;
  while (*o == ' ' || *o == '\t') o++;
  static const struct {
    const char *s;
    enum op op;
  } ops[] = {{">=", OP_GE}, {"<=", OP_LE}, {"!=", OP_NE}, {"==", OP_EQ},
             {"=", OP_EQ},  {"<", OP_LT},  {">", OP_GT}};
  size_t olen = 0;
  for (size_t k = 0; k < sizeof ops / sizeof ops[0] && !olen; k++)
    if (strncmp(o, ops[k].s, strlen(ops[k].s)) == 0) {
      c->op = ops[k].op;
      olen = strlen(ops[k].s);
    }
  if (!olen) {
    error("--filter '%s': condition '%s' needs an operator after '%s' (=, !=, <, <=, >, >=)",
          expr, text, c->name);
    goto out;
  }
  const char *v = o + olen;
  for (;;) {
    const char *bar = strchr(v, '|');
    char *alt = trim(xstrndup(v, bar ? (size_t)(bar - v) : strlen(v)));
    if (!*alt) {
      free(alt);
      error("--filter '%s': condition '%s' has an empty value", expr, text);
      goto out;
    }
    c->alt = xrealloc(c->alt, (c->nalt + 1) * sizeof *c->alt);
    c->alt[c->nalt++] = alt;
    if (!bar) break;
    v = bar + 1;
  }
  if (c->op != OP_EQ && c->op != OP_NE) {
    if (c->nalt != 1 || parse_double(c->alt[0], &c->num) != 0) {
      error("--filter '%s': condition '%s' compares with <, <=, > or >=, which needs one number",
            expr, text);
      goto out;
    }
  }
  rc = 0;
out:
  free(text);
  return rc;
}

struct case_filter *case_filter_parse(const char *expr) {
  struct case_filter *f = xcalloc(1, sizeof *f);
  f->expr = xstrdup(expr ? expr : "");
  const char *s = f->expr;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    f->conds = xrealloc(f->conds, (f->n + 1) * sizeof *f->conds);
    struct cond *c = &f->conds[f->n++];
    memset(c, 0, sizeof *c);
    if (parse_cond(f->expr, s, len, c) != 0) {
      case_filter_free(f);
      return NULL;
    }
    if (!comma) break;
    s = comma + 1;
  }
  return f;
}

static int text_matches(const char *value, const char *alt) {
  double a, b;
  if (parse_double(value, &a) == 0 && parse_double(alt, &b) == 0) return a == b;
  return strcmp(value, alt) == 0;
}

static int cond_holds(const struct cond *c, const struct case_def *cd) {
  const struct case_value *v = case_find(cd, c->name);
  if (!v || !v->text) return 0;
  if (c->op == OP_EQ || c->op == OP_NE) {
    int any = 0;
    for (size_t a = 0; a < c->nalt && !any; a++) any = text_matches(v->text, c->alt[a]);
    return c->op == OP_EQ ? any : !any;
  }
  double x;
  if (parse_double(v->text, &x) != 0) return 0;
  switch (c->op) {
  case OP_LT: return x < c->num;
  case OP_LE: return x <= c->num;
  case OP_GT: return x > c->num;
  case OP_GE: return x >= c->num;
  case OP_EQ:
  case OP_NE: break;
  }
  return 0;
}

int case_filter_match(const struct case_filter *f, const struct case_def *c) {
  for (size_t i = 0; i < f->n; i++)
    if (!cond_holds(&f->conds[i], c)) return 0;
  return 1;
}

static int declared(const struct bench_plugin *const *plugins, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    for (const struct bench_param *bp = plugins[i]->params; bp && bp->name; bp++)
      if (strcmp(bp->name, name) == 0) return 1;
  return 0;
}

int case_filter_apply(const char *const *exprs, size_t nexprs,
                      const struct bench_plugin *const *plugins, size_t nplugins,
                      struct case_list *cases) {
  if (nexprs == 0) return 0;
  struct case_filter **f = xcalloc(nexprs, sizeof *f);
  int rc = 0;
  for (size_t i = 0; i < nexprs && rc == 0; i++) {
    f[i] = case_filter_parse(exprs[i]);
    if (!f[i]) rc = -1;
    for (size_t c = 0; f[i] && c < f[i]->n && rc == 0; c++)
      if (!declared(plugins, nplugins, f[i]->conds[c].name))
        rc = error("--filter '%s': no selected plugin has a parameter '%s'", exprs[i],
                   f[i]->conds[c].name);
  }
  size_t before = cases->n, kept = 0;
  for (size_t c = 0; c < cases->n && rc == 0; c++) {
    int keep = 1;
    for (size_t i = 0; i < nexprs && keep; i++) keep = case_filter_match(f[i], &cases->cases[c]);
    if (keep) {
      cases->cases[kept++] = cases->cases[c];
      continue;
    }
    for (size_t j = 0; j < cases->cases[c].nvalues; j++) free(cases->cases[c].values[j].text);
    free(cases->cases[c].values);
  }
  if (rc == 0) {
    cases->n = kept;
    if (kept == 0)
      rc = error("--filter matched none of the %zu cases (see bench --list --verbose for the "
                 "parameters)", before);
  }
  for (size_t i = 0; i < nexprs; i++) case_filter_free(f[i]);
  free(f);
  return rc;
}
