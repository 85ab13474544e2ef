/* Comparing each case of a run with a baseline as it finishes. */
#include "analyze/baseline.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/compare_sets.h"
#include "core/units.h"
#include "core/util.h"

int baseline_load(struct baseline *b, const char *path) {
  memset(b, 0, sizeof *b);
  if (result_set_load(path, NULL, &b->set) != 0) return -1;
  if (!b->set.n) {
    result_set_release(&b->set);
    return error("no results in baseline '%s'", path);
  }
  rs_group_runs(&b->set, 0, &b->groups, &b->n);
  b->keys = xcalloc(b->n ? b->n : 1, sizeof *b->keys);
  for (size_t i = 0; i < b->n; i++) b->keys[i] = rs_key(&b->set.entries[b->groups[i].newest], 0);
  return 0;
}

void baseline_release(struct baseline *b) {
  for (size_t i = 0; i < b->n; i++) free(b->keys[i]);
  free(b->keys);
  rs_groups_release(b->groups, b->n);
  result_set_release(&b->set);
  memset(b, 0, sizeof *b);
}

static const struct rs_group *find(const struct baseline *b, const char *key) {
  size_t lo = 0, hi = b->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(b->keys[mid], key);
    if (c == 0) return &b->groups[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* The text of r against its baseline case (malloc'd). */
static char *baseline_text(const struct baseline *b, const struct case_result *r, const struct run_steady *steady) {
  struct strbuf params = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    strbuf_addf(&params, "%s%s=%s", i ? " " : "", r->params[i].key, r->params[i].value);
  /* the key rs_key gives without a tag */
  struct rs_entry probe = {.plugin = r->plugin, .params = params.buf ? params.buf : (char *)""};
  char *key = rs_key(&probe, 0);
  const struct rs_group *g = find(b, key);
  free(key);
  strbuf_release(&params);
  if (!g) return xstrdup("NEW (not in the baseline)");
  /* the old side as bench compare takes it; the new one: this run alone,
   * no history (bench compare BASELINE FILE) */
  struct compare_side_runs so;
  compare_side_of_group(&b->set, g, &so);
  struct case_side sn = {&r, 1, NULL, 0, steady, cpu_caches()}; /* this run's machine */
  struct case_compare cc;
  compare_case_sides(&so.side, &sn, 0, COMPARE_DEFAULT_THRESHOLD, &cc);
  compare_side_release(&so);
  const struct rs_entry *e = &b->set.entries[g->newest];
  const char *date = *e->date ? e->date : e->path;
  if (!cc.timed) return xasprintf("%s vs %s", verdict_name(cc.verdict), date);
  char *ra = fmt_fixed(cc.c.ratio, 3), *lo = fmt_fixed(cc.c.lo, 3), *hi = fmt_fixed(cc.c.hi, 3);
  char *text = xasprintf("ratio %s [%s, %s] %s vs %s", ra, lo, hi, verdict_name(cc.verdict), date);
  free(ra);
  free(lo);
  free(hi);
  return text;
}

void baseline_annotate(const struct baseline *b, struct case_result *r, const struct run_steady *steady) {
  if (!b || !r->plugin) return;
  char *text = baseline_text(b, r, steady);
  kv_list_add(&r->ninfo, &r->info, "baseline", text);
  free(text);
}

int baseline_settle(const struct baseline *b, struct case_result *r, const struct run_steady *steady, char **was) {
  *was = NULL;
  if (!b || !r->plugin) return 0;
  const char *had = kv_list_get(r->ninfo, r->info, "baseline");
  char *before = had ? xstrdup(had) : NULL;
  baseline_annotate(b, r, steady);
  const char *now = kv_list_get(r->ninfo, r->info, "baseline");
  if (before && now && strcmp(before, now) != 0) {
    *was = before;
    return 1;
  }
  free(before);
  return 0;
}
