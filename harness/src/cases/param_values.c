/* A parameter's values: a comma list split into items, each checked
 * against the parameter's declaration and its text normalised; a plugin's
 * default for a tier; zip groups whose lists differ in length. Shared by
 * case expansion (cases.c) and the declaration checks (param_decl.c). */
#include "cases/param_values.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lists and items -------------------------------------------------- */


void item_list_release(struct item_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

/* Split "64, 128" into trimmed items. -1 with err when an item is empty. */
int split_list(const char *text, struct item_list *out, char *err, size_t errlen) {
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
  if (bp->tunable && strcmp(item, "auto") == 0) {
    v->is_auto = 1; /* cases.c gives it the tier's default; tuning may replace it */
    return 0;
  }
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


void param_values_release(struct param_values *pv) {
  for (size_t i = 0; i < pv->n; i++) free(pv->v[i].text);
  free(pv->v);
  memset(pv, 0, sizeof *pv);
}

int parse_values(const struct bench_param *bp, const char *text, struct param_values *out,
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

size_t count_params(const struct bench_plugin *p) {
  size_t n = 0;
  if (p->params)
    while (p->params[n].name) n++;
  return n;
}

/* The plugin default of bp for tier t (falling back to standard), or NULL. */
const char *default_for(const struct bench_param *bp, enum bench_tier t, enum bench_tier *used) {
  if ((unsigned)t < BENCH_TIER_COUNT && bp->defaults[t]) {
    *used = t;
    return bp->defaults[t];
  }
  *used = BENCH_TIER_STANDARD;
  return bp->defaults[BENCH_TIER_STANDARD];
}

/* First pair of parameters in one zip group whose lists differ in length
 * (neither of length 1). Returns 1 and sets *a, *b if there is one. */
int zip_mismatch(const struct bench_param *params, const size_t *lens, size_t n, size_t *a,
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
