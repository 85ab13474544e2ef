/* Comparing each case of a run with a baseline as it finishes. */
#include "analyze/baseline.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/compare_case.h"
#include "core/units.h"
#include "core/util.h"

int baseline_load(struct baseline *b, const char *path) {
  memset(b, 0, sizeof *b);
  if (result_set_load(path, NULL, &b->set) != 0) return -1;
  if (!b->set.n) {
    result_set_release(&b->set);
    return error("no results in baseline '%s'", path);
  }
  rs_latest(&b->set, 0, &b->latest, &b->n);
  b->keys = xcalloc(b->n ? b->n : 1, sizeof *b->keys);
  for (size_t i = 0; i < b->n; i++) b->keys[i] = rs_key(&b->set.entries[b->latest[i]], 0);
  return 0;
}

void baseline_release(struct baseline *b) {
  for (size_t i = 0; i < b->n; i++) free(b->keys[i]);
  free(b->keys);
  free(b->latest);
  result_set_release(&b->set);
  memset(b, 0, sizeof *b);
}

static const struct rs_entry *find(const struct baseline *b, const char *key) {
  size_t lo = 0, hi = b->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(b->keys[mid], key);
    if (c == 0) return &b->set.entries[b->latest[mid]];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

void baseline_annotate(const struct baseline *b, struct case_result *r) {
  if (!b || !r->plugin) return;
  struct strbuf params = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    strbuf_addf(&params, "%s%s=%s", i ? " " : "", r->params[i].key, r->params[i].value);
  /* the key rs_key gives without a tag */
  struct rs_entry probe = {.plugin = r->plugin, .params = params.buf ? params.buf : (char *)""};
  char *key = rs_key(&probe, 0);
  const struct rs_entry *e = find(b, key);
  free(key);
  strbuf_release(&params);
  char *text;
  if (!e) {
    text = xstrdup("NEW (not in the baseline)");
  } else {
    struct case_compare cc;
    compare_case(e->r, r, COMPARE_DEFAULT_THRESHOLD, &cc);
    const char *date = *e->date ? e->date : e->path;
    if (cc.timed) {
      char *ra = fmt_fixed(cc.c.ratio, 3), *lo = fmt_fixed(cc.c.lo, 3), *hi = fmt_fixed(cc.c.hi, 3);
      text = xasprintf("ratio %s [%s, %s] %s vs %s", ra, lo, hi, verdict_name(cc.verdict), date);
      free(ra);
      free(lo);
      free(hi);
    } else
      text = xasprintf("%s vs %s", verdict_name(cc.verdict), date);
  }
  kv_list_add(&r->ninfo, &r->info, "baseline", text);
  free(text);
}
