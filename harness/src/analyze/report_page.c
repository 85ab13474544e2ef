/* bench report's page (report_page.h): the results, history, compare,
 * roofline and tuning data as one JSON object, inlined with Chart.js into
 * the embedded template. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/compare_case.h"
#include "analyze/compare_sets.h"
#include "analyze/history.h"
#include "analyze/report_page.h"
#include "analyze/report_tuning.h"
#include "analyze/roofs.h"
#include "core/stats.h"

/* Where Debian's libjs-chart.js puts its UMD build (it defines window.Chart). */
static const char *const chartjs_paths[] = {
    "/usr/share/javascript/chart.js/chart.min.js",
    "/usr/share/javascript/chart.js/chart.js",
    NULL,
};

int report_chartjs_load(const char *given, struct strbuf *js, const char **from) {
  const char *path = given;
  for (size_t i = 0; chartjs_paths[i] && !path; i++)
    if (access(chartjs_paths[i], R_OK) == 0) path = chartjs_paths[i];
  if (!path) return error("cannot find Chart.js: install Debian's libjs-chart.js or give --chartjs FILE");
  if (read_file(path, js) != 0) return error("cannot read Chart.js from %s", path);
  if (strstr(js->buf, "</script")) {
    strbuf_release(js);
    return error("%s holds '</script', which cannot be inlined into a page", path);
  }
  *from = path;
  return 0;
}

static const char report_template[] =
#include "report_template.inc"
    ;

static json_t *num_or_null(double v) {
  return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

static double entry_median(const struct rs_entry *e, double *cv) {
  size_t n;
  const double *x = rs_samples(e->r, rs_has_device(e->r), &n);
  *cv = NAN;
  if (!n) return NAN;
  struct stats st;
  stats_compute(x, n, &st);
  if (n >= 2) *cv = st.cv;
  return st.median;
}

static char *verify_text(const struct case_result *r) {
  const struct check_result *c = &r->check;
  if (!c->checked) {
    if (r->status == CASE_OK || r->status == CASE_WRONG_ANSWER) return xstrdup("not checked");
    return xstrdup(r->message && *r->message ? r->message : "-"); /* why it was SKIPPED, ERROR, ... */
  }
  return xasprintf("%s %s, max_abs_err %.2g", c->method[0] ? c->method : "check", c->pass ? "pass" : "FAIL",
                   c->max_abs_err);
}

/* bench ab's verdict of a case, from its new side's info (run/ab_suite.c:
 * ab_side, ab_verdict, and when both sides were timed ab_ratio, ab_ci and
 * ab_estimate): the object the page shows, or NULL for a case bench ab
 * did not write (or its old side). */
static json_t *ab_json(const struct case_result *r) {
  const char *side = kv_list_get(r->ninfo, r->info, "ab_side");
  const char *verdict = kv_list_get(r->ninfo, r->info, "ab_verdict");
  if (!side || strcmp(side, "new") != 0 || !verdict) return NULL;
  const char *ratio = kv_list_get(r->ninfo, r->info, "ab_ratio"), *ci = kv_list_get(r->ninfo, r->info, "ab_ci");
  const char *est = kv_list_get(r->ninfo, r->info, "ab_estimate");
  double x = NAN, lo = NAN, hi = NAN;
  if (ratio) x = strtod(ratio, NULL);
  if (ci && sscanf(ci, "%lf %lf", &lo, &hi) != 2) lo = hi = NAN;
  int timed = isfinite(x) && x > 0 && isfinite(lo) && isfinite(hi) && lo > 0 && lo <= x && x <= hi;
  json_t *o = json_object();
  json_object_set_new(o, "verdict", json_string(verdict));
  json_object_set_new(o, "ratio", timed ? json_real(x) : json_null());
  json_object_set_new(o, "lo", timed ? json_real(lo) : json_null());
  json_object_set_new(o, "hi", timed ? json_real(hi) : json_null());
  json_object_set_new(o, "estimate", est ? json_string(est) : json_null());
  return o;
}

/* 1 when e is the old side of a bench ab pair whose new side is among
 * the cases shown (its row carries the pair's verdict). */
static int ab_old_shown(const struct result_set *s, const size_t *idx, size_t n, const struct rs_entry *e) {
  const char *side = kv_list_get(e->r->ninfo, e->r->info, "ab_side");
  if (!side || strcmp(side, "old") != 0) return 0;
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *x = &s->entries[idx[i]];
    const char *xs = kv_list_get(x->r->ninfo, x->r->info, "ab_side");
    if (xs && strcmp(xs, "new") == 0 && strcmp(x->run, e->run) == 0 && strcmp(x->plugin, e->plugin) == 0 &&
        strcmp(x->params, e->params) == 0)
      return 1;
  }
  return 0;
}

static json_t *cases_json(const struct result_set *s, const size_t *idx, size_t n, const struct roof_set *roofs) {
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *e = &s->entries[idx[i]];
    const struct case_result *r = e->r;
    if (ab_old_shown(s, idx, n, e)) continue; /* its pair's row says it */
    double cv, med = entry_median(e, &cv);
    json_t *ab = ab_json(r);
    int ok = r->status == CASE_OK && med > 0;
    const char *device = case_device(e);
    json_t *o = json_object();
    json_object_set_new(o, "plugin", json_string(e->plugin));
    json_object_set_new(o, "params", json_string(e->params));
    json_object_set_new(o, "tag", json_string(e->tag));
    json_object_set_new(o, "date", json_string(e->date));
    json_object_set_new(o, "device", json_string(device));
    json_object_set_new(o, "backend", json_string(r->backend ? r->backend : ""));
    json_object_set_new(o, "status", json_string(case_status_name(r->status)));
    char *v = verify_text(r);
    json_object_set_new(o, "verify", json_string(v));
    free(v);
    json_object_set_new(o, "median_ns", ok ? json_real(med) : json_null());
    /* a bench ab side's samples are its rounds' interleaved runs: their cv is
     * not the case's noise, the pair's paired interval is */
    json_object_set_new(o, "cv", ok && !ab ? num_or_null(cv) : json_null());
    json_object_set_new(o, "label", json_string(e->label));
    json_object_set_new(o, "ab", ab ? ab : json_null());
    /* the one figure of what bounds the case (results/result.h case_primary),
     * beside every figure */
    struct case_figure pf;
    int has_pf = ok && case_primary(r, &pf);
    json_object_set_new(o, "primary", json_string(primary_name(case_primary_kind(r))));
    json_object_set_new(o, "throughput", has_pf ? json_real(pf.value) : json_null());
    json_object_set_new(o, "throughput_unit", has_pf ? json_string(pf.unit) : json_null());
    json_object_set_new(o, "gflops", ok && r->flops > 0 ? json_real(r->flops / med) : json_null());
    json_object_set_new(o, "gbps", ok && r->bytes > 0 ? json_real(r->bytes / med) : json_null());
    json_object_set_new(o, "ai", r->flops > 0 && r->bytes > 0 ? json_real(r->flops / r->bytes) : json_null());
    /* the case's own roof (roofs.h roof_choose: its dtype, its level) */
    struct roof_choice rc;
    int placed = roof_choose(roof_of(roofs, device), r, &rc);
    json_object_set_new(o, "pct_roof", placed == 0 ? num_or_null(rc.fraction) : json_null());
    json_object_set_new(o, "roof", placed >= 0 && rc.id ? json_string(rc.id) : json_null());
    json_object_set_new(o, "roof_value", placed == 0 ? json_real(rc.value) : json_null());
    json_object_set_new(o, "roof_unit", placed == 0 ? json_string(rc.unit) : json_null());
    json_object_set_new(o, "roof_source", placed == 0 ? json_string(rc.source) : json_null());
    json_object_set_new(o, "roof_note", rc.note ? json_string(rc.note) : json_null());
    roof_choice_release(&rc);
    json_array_append_new(arr, o);
  }
  return arr;
}

static json_t *history_json(const struct history *h) {
  json_t *o = json_object(), *dates = json_array(), *series = json_array(), *cols = json_array();
  for (size_t d = 0; d < h->ndates; d++) json_array_append_new(dates, json_string(h->dates[d]));
  for (size_t d = 0; d < h->ndates; d++) json_array_append_new(cols, json_string(h->heads[d]));
  for (size_t i = 0; i < h->nrows; i++) {
    const struct history_row *row = &h->rows[i];
    json_t *s = json_object(), *med = json_array(), *shift = json_array(), *status = json_array();
    json_object_set_new(s, "plugin", json_string(row->first->plugin));
    json_object_set_new(s, "params", json_string(row->first->params));
    json_object_set_new(s, "tag", json_string(row->first->tag));
    for (size_t d = 0; d < h->ndates; d++) {
      double cv, m = NAN;
      if (row->cells[d] && row->cells[d]->r->status == CASE_OK) m = entry_median(row->cells[d], &cv);
      json_array_append_new(med, num_or_null(m));
      json_array_append_new(status, row->cells[d] ? json_string(case_status_name(row->cells[d]->r->status)) : json_null());
      json_array_append_new(shift, json_boolean(row->shift[d] == V_FASTER || row->shift[d] == V_SLOWER));
    }
    json_object_set_new(s, "median_ns", med);
    json_object_set_new(s, "shift", shift);
    json_object_set_new(s, "status", status);
    json_array_append_new(series, s);
  }
  json_object_set_new(o, "dates", dates);   /* each column's date */
  json_object_set_new(o, "columns", cols);  /* each column's title: its run's label, else its date */
  json_object_set_new(o, "series", series);
  return o;
}

/* One compare row of the page. */
static json_t *compare_row_json(const struct rs_entry *e, const char *old_label, const char *new_label,
                                double ratio, double lo, double hi, double p, const char *verdict) {
  json_t *r = json_object();
  json_object_set_new(r, "plugin", json_string(e->plugin));
  json_object_set_new(r, "params", json_string(e->params));
  json_object_set_new(r, "tag", json_string(e->tag));
  json_object_set_new(r, "old_label", json_string(old_label));
  json_object_set_new(r, "new_label", json_string(new_label));
  json_object_set_new(r, "ratio", json_real(ratio));
  json_object_set_new(r, "lo", json_real(lo));
  json_object_set_new(r, "hi", json_real(hi));
  json_object_set_new(r, "p", isfinite(p) ? json_real(p) : json_null());
  json_object_set_new(r, "verdict", json_string(verdict));
  return r;
}

/* The bench ab pairs among the cases shown: each pair's paired estimate. */
static void ab_compare_rows(const struct result_set *s, const size_t *idx, size_t n, json_t *rows) {
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *e = &s->entries[idx[i]];
    json_t *ab = ab_json(e->r);
    if (!ab) continue;
    json_t *x = json_object_get(ab, "ratio");
    if (json_is_real(x)) {
      json_t *r = compare_row_json(e, "old", "new (bench ab, paired)", json_real_value(x),
                                   json_real_value(json_object_get(ab, "lo")),
                                   json_real_value(json_object_get(ab, "hi")), NAN,
                                   json_string_value(json_object_get(ab, "verdict")));
      json_object_set_new(r, "group", json_sprintf("%s · bench ab", e->plugin));
      json_object_set_new(r, "estimate", json_incref(json_object_get(ab, "estimate")));
      json_array_append_new(rows, r);
    }
    json_decref(ab);
  }
}

/* The last two selected labels' runs (--label A --label B: B against A),
 * as bench compare --old-label A --new-label B matches and pools them. */
static int label_compare_rows(const char *dir, const struct rs_select *sel, double threshold, json_t *rows) {
  struct rs_select so = *sel, sn = *sel;
  so.labels = &sel->labels[sel->nlabels - 2], sn.labels = &sel->labels[sel->nlabels - 1];
  so.nlabels = sn.nlabels = 1;
  struct result_set old, new_;
  if (result_set_load(dir, &so, &old) != 0) return -1;
  if (result_set_load(dir, &sn, &new_) != 0) {
    result_set_release(&old);
    return -1;
  }
  size_t n;
  struct compare_row *cr = compare_sets_match(&old, &new_, rs_tags_overlap(&old, &new_), threshold, &n);
  for (size_t i = 0; i < n; i++) {
    if (!cr[i].cc.timed) continue;
    json_array_append_new(rows, compare_row_json(compare_row_entry(&cr[i]), so.labels[0], sn.labels[0],
                                                 cr[i].cc.c.ratio, cr[i].cc.c.lo, cr[i].cc.c.hi, cr[i].cc.c.p,
                                                 verdict_name(cr[i].cc.verdict)));
  }
  free(cr);
  result_set_release(&new_);
  result_set_release(&old);
  return 0;
}

/* Each case's newest OK run against its OK run before that (or, with two
 * or more labels selected, the last two labels' runs), and bench ab's
 * pairs. */
static json_t *compare_json(const struct history *h, const struct result_set *s, const size_t *idx, size_t n,
                            const char *dir, const struct rs_select *sel, double threshold) {
  json_t *o = json_object(), *rows = json_array();
  int by_label = sel && sel->nlabels >= 2;
  if (by_label && label_compare_rows(dir, sel, threshold, rows) != 0) by_label = 0;
  for (size_t i = 0; i < h->nrows && !by_label; i++) {
    const struct history_row *row = &h->rows[i];
    const struct rs_entry *newest = NULL, *prev = NULL;
    size_t dn = 0, dp = 0;
    for (size_t d = h->ndates; d-- > 0;) {
      const struct rs_entry *e = row->cells[d];
      if (!e || e->r->status != CASE_OK) continue;
      if (!newest) newest = e, dn = d;
      else {
        prev = e, dp = d;
        break;
      }
    }
    if (!prev) continue;
    struct case_compare cc;
    history_compare(row, dp, dn, threshold, &cc);
    if (!cc.timed) continue;
    json_t *r = compare_row_json(row->first, h->heads[dp], h->heads[dn], cc.c.ratio, cc.c.lo, cc.c.hi, cc.c.p,
                                 verdict_name(cc.verdict));
    json_object_set_new(r, "old_date", json_string(prev->date));
    json_object_set_new(r, "new_date", json_string(newest->date));
    json_array_append_new(rows, r);
  }
  ab_compare_rows(s, idx, n, rows);
  json_object_set_new(o, "old_label", json_string(by_label ? sel->labels[sel->nlabels - 2] : "previous run"));
  json_object_set_new(o, "new_label", json_string(by_label ? sel->labels[sel->nlabels - 1] : "newest run"));
  json_object_set_new(o, "rows", rows);
  return o;
}

static const char *const kind_names[] = {"compute", "bandwidth", "latency"};
static const char *const origin_names[] = {"measured", "best case", "data sheet"};

/* Per device: its roofs (each line: id, kind, unit, value and interval,
 * capacity, the data sheet's figure, source), whether they were measured
 * (and the file), what is missing or was refused, and how to measure
 * them where they were not. */
static json_t *roofs_json(const struct roof_set *rs, const char *dir) {
  json_t *arr = json_array();
  for (size_t i = 0; i < rs->n; i++) {
    const struct roof *r = &rs->roofs[i];
    json_t *o = json_object(), *lines = json_array(), *notes = json_array();
    int measured = r->file && r->n;
    json_object_set_new(o, "device", json_string(r->device));
    json_object_set_new(o, "measured", json_boolean(measured));
    json_object_set_new(o, "file", r->file ? json_string(r->file) : json_null());
    for (size_t k = 0; k < r->n; k++) {
      const struct roof_line *l = &r->lines[k];
      json_t *j = json_object();
      json_object_set_new(j, "id", json_string(l->id));
      json_object_set_new(j, "kind", json_string(kind_names[l->kind]));
      json_object_set_new(j, "origin", json_string(origin_names[l->origin]));
      json_object_set_new(j, "unit", json_string(l->unit));
      json_object_set_new(j, "value", json_real(l->value));
      json_object_set_new(j, "low", l->low > 0 ? json_real(l->low) : json_null());
      json_object_set_new(j, "high", l->high > 0 ? json_real(l->high) : json_null());
      json_object_set_new(j, "capacity_bytes", l->capacity_bytes > 0 ? json_real(l->capacity_bytes) : json_null());
      json_object_set_new(j, "datasheet", l->datasheet > 0 ? json_real(l->datasheet) : json_null());
      json_object_set_new(j, "datasheet_how", json_string(l->datasheet_how));
      json_object_set_new(j, "source", json_string(l->source));
      json_array_append_new(lines, j);
    }
    for (size_t k = 0; k < r->nnotes; k++) json_array_append_new(notes, json_string(r->notes[k]));
    json_object_set_new(o, "roofs", lines);
    json_object_set_new(o, "notes", notes);
    char *how = measured ? NULL
                         : xasprintf("no measured roofs for this device%s: run 'bench peak --results-dir %s' to "
                                     "measure them",
                                     r->n ? " (these are its best cases and the data sheet)" : "", dir);
    json_object_set_new(o, "how", how ? json_string(how) : json_null());
    free(how);
    json_array_append_new(arr, o);
  }
  return arr;
}

/* The one encoder for data inlined into the page's <script>: root as JSON
 * where '<', '>' and '&' (which only occur inside strings) are written
 * \u003c, \u003e, \u0026 and U+2028/U+2029 as \u2028/\u2029. The data
 * then holds no '<' at all, so no "<!--", "<script" or "</script" in a
 * parameter or a device name can change how the HTML parser reads the
 * page, and the text is both JSON and a JavaScript literal. NULL when
 * root cannot be encoded. */
static char *html_safe_json(json_t *root) {
  char *json = json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(10));
  if (!json) return NULL;
  struct strbuf sb = STRBUF_INIT;
  for (const char *p = json; *p; p++) {
    if (*p == '<') strbuf_adds(&sb, "\\u003c");
    else if (*p == '>') strbuf_adds(&sb, "\\u003e");
    else if (*p == '&') strbuf_adds(&sb, "\\u0026");
    else if ((unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
             ((unsigned char)p[2] == 0xA8 || (unsigned char)p[2] == 0xA9)) {
      strbuf_adds(&sb, (unsigned char)p[2] == 0xA8 ? "\\u2028" : "\\u2029");
      p += 2;
    } else strbuf_add(&sb, p, 1);
  }
  free(json);
  return strbuf_detach(&sb);
}

/* The template with its two markers replaced; -1 after error() when the
 * template lacks one (a build problem). */
static int fill_template(struct strbuf *out, const char *chartjs, const char *data) {
  static const char *const marks[2] = {"/*BENCH_CHARTJS*/", "/*BENCH_DATA*/"};
  const char *fills[2] = {chartjs, data};
  const char *p = report_template;
  for (int i = 0; i < 2; i++) {
    const char *m = strstr(p, marks[i]);
    if (!m) return error("the report template lacks %s", marks[i]);
    strbuf_add(out, p, (size_t)(m - p));
    strbuf_adds(out, fills[i]);
    p = m + strlen(marks[i]);
  }
  strbuf_adds(out, p);
  return 0;
}

int report_page_build(const struct result_set *set, const char *dir, const struct rs_select *sel, double threshold,
                      const char *const *tuning, size_t ntuning, const char *chartjs, struct strbuf *page,
                      char **data_out, struct report_counts *counts) {
  size_t *idx, n;
  rs_latest(set, 1, &idx, &n);
  struct roof_set roofs;
  roofs_build(set, idx, n, dir, &roofs);
  struct history h;
  history_build(set, threshold, &h);

  json_t *root = json_object();
  char now[32];
  iso_time_utc(now);
  json_object_set_new(root, "generated", json_string(now));
  json_object_set_new(root, "results_dir", json_string(dir));
  json_object_set_new(root, "threshold", json_real(threshold));
  json_object_set_new(root, "cases", cases_json(set, idx, n, &roofs));
  json_object_set_new(root, "history", history_json(&h));
  json_object_set_new(root, "compare", compare_json(&h, set, idx, n, dir, sel, threshold));
  json_object_set_new(root, "roofs", roofs_json(&roofs, dir));
  char **tfiles;
  size_t ntfiles = report_tuning_files(tuning, ntuning, &tfiles);
  json_t *tj = report_tuning_json(tfiles, ntfiles, set, idx, n);
  *counts = (struct report_counts){.cases = n, .dates = h.ndates, .devices = roofs.n,
                                   .tuning = json_array_size(json_object_get(tj, "rows"))};
  for (size_t d = 0; d < h.ndates; d++) counts->by_run |= strcmp(h.runs[d], h.dates[d]) != 0;
  json_object_set_new(root, "tuning", tj);
  for (size_t i = 0; i < ntfiles; i++) free(tfiles[i]);
  free(tfiles);
  char *data = html_safe_json(root);
  json_decref(root);
  int rc = !data || fill_template(page, chartjs, data) != 0 ? -1 : 0;
  if (data_out && rc == 0) *data_out = data;
  else free(data);
  history_release(&h);
  roofs_release(&roofs);
  free(idx);
  return rc;
}
