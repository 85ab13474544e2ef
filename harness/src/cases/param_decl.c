/* Checking a plugin's own parameter declarations when it is loaded: names,
 * types, ranges, choices, zip groups, and defaults that parse in every tier. */
#include "cases/param_decl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/param_values.h"
#include "cases/tunables.h"

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
  return tunable_validate(bp, err, errlen);
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
