/* Tunable parameters: candidate lists and the checks of their declaration. */
#include "cases/tunables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int has_text(const struct param_values *pv, const char *text) {
  for (size_t i = 0; i < pv->n; i++)
    if (strcmp(pv->v[i].text, text) == 0) return 1;
  return 0;
}

static void push(struct param_values *pv, const struct case_value *v) {
  pv->v = grow_for_one(pv->v, pv->n, sizeof *pv->v);
  pv->v[pv->n] = *v;
  pv->v[pv->n].text = xstrdup(v->text);
  pv->v[pv->n].is_auto = 0;
  pv->n++;
}

/* The declared list as text: candidates, else choices, else the range. */
static char *declared_list(const struct bench_param *bp, char *err, size_t errlen) {
  if (bp->candidates) return xstrdup(bp->candidates);
  if (bp->type == BENCH_PARAM_STRING) {
    if (bp->choices) return xstrdup(bp->choices);
    snprintf(err, errlen, "a STRING tunable needs candidates or choices");
    return NULL;
  }
  if (!(bp->step > 0) || !isfinite(bp->step) || (bp->min == 0 && bp->max == 0)) {
    snprintf(err, errlen, "a numeric tunable needs candidates, or min < max and a step > 0");
    return NULL;
  }
  double n = floor((bp->max - bp->min) / bp->step + 1e-9) + 1;
  if (n > TUNABLE_MAX_CANDIDATES) {
    snprintf(err, errlen, "its range by step makes more than %d candidates", TUNABLE_MAX_CANDIDATES);
    return NULL;
  }
  struct strbuf sb = STRBUF_INIT;
  for (long i = 0; i < (long)n; i++) {
    double x = bp->min + (double)i * bp->step;
    if (bp->type == BENCH_PARAM_INT)
      strbuf_addf(&sb, "%s%lld", i ? "," : "", (long long)llround(x));
    else
      strbuf_addf(&sb, "%s%.17g", i ? "," : "", x);
  }
  return strbuf_detach(&sb);
}

int tunable_candidates(const struct bench_param *bp, enum bench_tier t, struct param_values *out,
                       char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  enum bench_tier used = t;
  struct param_values d, all;
  char *list = declared_list(bp, err, errlen);
  if (!list) return -1;
  if (parse_values(bp, list, &all, err, errlen) != 0) {
    free(list);
    return -1;
  }
  /* A sweep axis (zipped): the tiers' lists are cases, the first declared
   * candidate is the default. */
  const char *dtext = bp->zip ? list : default_for(bp, t, &used);
  if (!dtext || parse_values(bp, dtext, &d, err, errlen) != 0) {
    if (!dtext) snprintf(err, errlen, "no default");
    param_values_release(&all);
    free(list);
    return -1;
  }
  free(list);
  if (d.n == 0 || d.v[0].is_auto || (!bp->zip && d.n != 1)) {
    param_values_release(&d);
    param_values_release(&all);
    if (bp->zip) snprintf(err, errlen, "'auto' cannot be a candidate");
    else snprintf(err, errlen, "its default for tier %s must be one value", tier_name(used));
    return -1;
  }
  push(out, &d.v[0]);
  for (size_t i = 0; i < all.n; i++) {
    if (all.v[i].is_auto) {
      snprintf(err, errlen, "'auto' cannot be a candidate");
      param_values_release(&d);
      param_values_release(&all);
      param_values_release(out);
      return -1;
    }
    if (!has_text(out, all.v[i].text)) push(out, &all.v[i]);
  }
  param_values_release(&d);
  param_values_release(&all);
  if (out->n > TUNABLE_MAX_CANDIDATES) {
    param_values_release(out);
    snprintf(err, errlen, "more than %d candidates", TUNABLE_MAX_CANDIDATES);
    return -1;
  }
  return 0;
}

int tunable_validate(const struct bench_param *bp, char *err, size_t errlen) {
  if (!bp->tunable) return 0;
  char why[300];
  for (int t = 0; t < BENCH_TIER_COUNT; t++) {
    struct param_values pv;
    if (tunable_candidates(bp, (enum bench_tier)t, &pv, why, sizeof why) != 0) {
      snprintf(err, errlen, "tunable '%s': %s", bp->name, why);
      return -1;
    }
    param_values_release(&pv);
  }
  return 0;
}

size_t tunables_count(const struct bench_plugin *p) {
  size_t n = 0;
  for (const struct bench_param *bp = p->params; bp && bp->name; bp++) n += bp->tunable != 0;
  return n;
}
