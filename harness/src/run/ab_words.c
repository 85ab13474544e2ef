/* What bench ab says of a pair of cases (ab_words.h). */
#include "run/ab_words.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

static double sample_median(const struct case_result *r) {
  if (!r->nsamples) return NAN;
  return r->device_ns ? r->device.median : r->host_clock.median;
}

void ab_levels(const struct ab_case *c, double *old_ns, double *new_ns) {
  if (!c->timed || !c->nrounds) {
    *old_ns = sample_median(&c->old.r);
    *new_ns = sample_median(&c->new_.r);
    return;
  }
  double *x = xcalloc(c->nrounds, sizeof *x);
  for (size_t i = 0; i < c->nrounds; i++) x[i] = c->device ? c->rounds[i].old_dev : c->rounds[i].old_host;
  *old_ns = cs_median(x, c->nrounds);
  *new_ns = *old_ns * c->est.ratio;
  free(x);
}

/* One end of an interval of new/old: "9.2% faster", "1.3% slower" (malloc'd). */
static char *bound(double r) {
  if (r < 1.0) return xasprintf("%.1f%% faster", (1.0 - r) * 100);
  if (r > 1.0) return xasprintf("%.1f%% slower", (r - 1.0) * 100);
  return xstrdup("no change");
}

const char *ab_level_text(double level, char buf[16]) {
  snprintf(buf, 16, "%.4g%%", level * 100);
  return buf;
}

char *ab_words(const struct paired_est *e, double level, enum verdict v, double threshold) {
  if (!isfinite(e->hi)) return xstrdup("not decided: one pair, no interval");
  char lv[16];
  const char *pct = ab_level_text(level, lv);
  double r = e->ratio, lo = e->lo, hi = e->hi;
  if (v == V_SLOWER)
    return xasprintf("NEW is %.1f%% slower than OLD, %s CI %.1f-%.1f%%", (r - 1) * 100, pct, (lo - 1) * 100,
                     (hi - 1) * 100);
  if (v == V_FASTER)
    return xasprintf("NEW is %.1f%% faster than OLD, %s CI %.1f-%.1f%%", (1 - r) * 100, pct, (1 - hi) * 100,
                     (1 - lo) * 100);
  char *a = bound(lo), *b = bound(hi), *text;
  if (v == V_SAME)
    text = xasprintf("NEW is the same as OLD within %.3g%%, %s CI from %s to %s", threshold * 100, pct, a, b);
  else
    text = xasprintf("not decided: NEW from %s to %s than OLD, %s CI", a, b, pct);
  free(a);
  free(b);
  return text;
}
