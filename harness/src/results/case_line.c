/* The terminal's line for one finished case, like a test runner's. */
#include "results/case_line.h"

#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/units.h"

static void add_rate(struct strbuf *sb, double v, const char *unit) {
  char *s = fmt_rate(v, unit);
  strbuf_addf(sb, "  %s", s);
  free(s);
}

/* What the line says after the status of a case that ran to the end. */
static void add_measured(struct strbuf *sb, const struct case_result *r) {
  const struct stats *t = case_time(r);
  char *med = fmt_time_ns(t->median);
  strbuf_addf(sb, "  median %s", med);
  free(med);
  if (t->median > 0 && t->n >= 2) strbuf_addf(sb, " +-%.2f%%", (t->ci_hi - t->ci_lo) / 2 / t->median * 100);
  strbuf_addf(sb, " (%s)  cv %.2f%%  n=%zu", case_timer_name(r), t->cv * 100, r->nsamples);
  if (r->batch > 1) strbuf_addf(sb, "  batch %d", r->batch);
  /* Many outliers (hyperfine warns on them): the median is robust, the
   * machine was busy. */
  if (t->outliers >= 2 && t->outliers * 20 >= t->n)
    strbuf_addf(sb, "  outliers %zu (%.0f%%)", t->outliers, 100.0 * (double)t->outliers / (double)t->n);
  if (r->flops > 0) add_rate(sb, case_gflops(r), "GFLOP/s");
  if (r->bytes > 0) add_rate(sb, case_gbps(r), "GB/s");
  if (r->items > 0) {
    strbuf_addf(sb, "  %.3g ", case_items_per_s(r));
    term_escape_add(sb, r->item_unit);
    strbuf_addf(sb, "/s (%.3g ns each)", case_ns_per_item(r));
  }
  if (r->check.checked) {
    strbuf_addf(sb, "  max_abs_err %.2g (", r->check.max_abs_err);
    term_escape_add(sb, r->check.method);
    strbuf_adds(sb, ")");
  } else if (case_unchecked(r)) {
    strbuf_adds(sb, "  unchecked");
  }
  if (r->determinism != DET_NOT_CHECKED) strbuf_addf(sb, "  %s", determinism_name(r->determinism));
  const char *bl = kv_list_get(r->ninfo, r->info, "baseline");
  if (bl) strbuf_addf(sb, "  baseline: %s", bl);
  if (!r->settled) {
    strbuf_adds(sb, "\n      ");
    if (r->settle_note) term_escape_add(sb, r->settle_note);
    else strbuf_adds(sb, "did not settle");
  }
}

char *case_line(const struct case_result *r, const char *label, int total) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "[%*d/%d] ", total >= 100 ? 3 : 2, r->index + 1, total);
  term_escape_add(&sb, r->plugin);
  if (*label) {
    strbuf_adds(&sb, " ");
    term_escape_add(&sb, label);
  }
  strbuf_addf(&sb, ": %s", case_status_name(r->status));
  if (r->status == CASE_OK) {
    add_measured(&sb, r);
  } else if (r->message) {
    strbuf_adds(&sb, "  ");
    term_escape_add(&sb, r->message);
  }
  const char *bl = kv_list_get(r->ninfo, r->info, "baseline");
  if (r->status != CASE_OK && bl) strbuf_addf(&sb, "  (baseline: %s)", bl);
  strbuf_adds(&sb, "\n");
  const char *plugin_note = kv_list_get(r->ninfo, r->info, "note");
  if (plugin_note) {
    strbuf_adds(&sb, "      note: ");
    term_escape_add(&sb, plugin_note);
    strbuf_adds(&sb, "\n");
  }
  if (case_status_failed(r->status) && r->stderr_tail) {
    char *copy = xstrdup(r->stderr_tail), *save = NULL;
    for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
      strbuf_adds(&sb, "      | ");
      term_escape_add(&sb, ln);
      strbuf_adds(&sb, "\n");
    }
    free(copy);
  }
  return strbuf_detach(&sb);
}
