/* bench compare's table, notes and JSON document (compare_table.h). */
#include "analyze/compare_table.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "core/util.h"

#define TM (TABLE_IN(TABLE_TEXT) | TABLE_IN(TABLE_MD))
#define CSV TABLE_IN(TABLE_CSV)
#define JS TABLE_IN(TABLE_JSON)

/* Every column of every format, in order; a format shows its own. */
enum {
  C_PLUGIN, C_PARAMS, C_PARAMS_RAW, C_TAG, C_OLD_STATUS, C_NEW_STATUS, C_OLD, C_NEW, C_OLD_JSON, C_NEW_JSON,
  C_TIMER, C_OLD_MEDIAN, C_NEW_MEDIAN, C_RATIO, C_RATIO_RAW, C_CI, C_CI_LO, C_CI_HI, C_P, C_P_RAW, C_VERDICT,
  C_FEW, C_UNSETTLED, C_OLD_RUNS, C_OLD_TERM, C_OLD_BETWEEN, C_NEW_RUNS, C_NEW_TERM, C_NEW_BETWEEN,
  C_OLD_MACHINE, C_NEW_MACHINE, C_OLD_THROTTLED, C_NEW_THROTTLED, C_COUNT
};
static const struct {
  const char *title;
  int right;
  unsigned formats;
} cols[C_COUNT] = {
    {"plugin", 0, TABLE_ALL},  {"params", 0, TM},          {"params", 0, CSV | JS},  {"tag", 0, TABLE_ALL},
    {"old_status", 0, CSV},    {"new_status", 0, CSV},     {"old", 1, TM},           {"new", 1, TM},
    {"old", 0, JS},            {"new", 0, JS},             {"timer", 0, JS},         {"old_median_ns", 0, CSV},
    {"new_median_ns", 0, CSV}, {"ratio", 1, TM},           {"ratio", 0, CSV | JS},   {"95% CI", 0, TM},
    {"ci_lo", 0, CSV | JS},    {"ci_hi", 0, CSV | JS},     {"p", 1, TM},             {"p", 0, CSV | JS},
    {"verdict", 0, TABLE_ALL}, {"few_samples", 0, JS},     {"unsettled", 0, JS},     {"old_runs", 0, CSV},
    {"old_term", 0, CSV},      {"old_between", 0, CSV},    {"new_runs", 0, CSV},     {"new_term", 0, CSV},
    {"new_between", 0, CSV},   {"old_machine", 0, CSV},    {"new_machine", 0, CSV},
    {"old_throttled", 0, CSV | JS}, {"new_throttled", 0, CSV | JS},
};

static const char *verdict_colour(enum verdict v) {
  switch (v) {
  case V_SLOWER: return "31";
  case V_FASTER: case V_FIXED: return "32";
  case V_NOISY: return "33";
  case V_MISSING: return "35";
  case V_NEW: return "36";
  case V_SAME: case V_SKIPPED: case V_NO_DATA: return NULL;
  default: return "1;31";
  }
}

static json_t *jnum_or_null(int have, double v) {
  return have && isfinite(v) ? json_real(v) : json_null();
}

/* v in fmt ("%.17g") when have, else "": a CSV number. */
static char *raw(int have, const char *fmt, double v) {
  return have ? xasprintf(fmt, v) : xstrdup("");
}

/* A side's time; "(throttled)" after it when a run of the side was
 * throttled (its speed verdict is held at NOISY). */
static char *time_text(const struct rs_entry *e, double median, int throttled) {
  if (!e) return xstrdup("-");
  char *t = isfinite(median) ? fmt_time_ns(median) : xstrdup(case_status_name(e->r->status));
  if (!throttled) return t;
  char *m = xasprintf("%s (throttled)", t);
  free(t);
  return m;
}

static char *ci_text(const struct case_compare *cc) {
  if (!cc->timed) return xstrdup("-");
  char *lo = fmt_fixed(cc->c.lo, 3), *hi = fmt_fixed(cc->c.hi, 3);
  char *s = xasprintf("[%s, %s]", lo, hi);
  free(lo);
  free(hi);
  return s;
}

static char *p_text(const struct case_compare *cc) {
  if (!cc->timed) return xstrdup("-");
  return cc->c.p < 0.001 ? xstrdup("<0.001") : xasprintf("%.3f", cc->c.p);
}

static json_t *side_json(const struct rs_entry *e, double median, const struct case_compare *cc,
                         const struct cs_noise *nz, int throttled) {
  if (!e) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "status", json_string(case_status_name(e->r->status)));
  json_object_set_new(o, "median_ns", jnum_or_null(1, median));
  json_object_set_new(o, "samples", json_integer((json_int_t)e->r->nsamples));
  json_object_set_new(o, "batch", json_integer(e->r->batch));
  json_object_set_new(o, "date", json_string(e->date));
  json_object_set_new(o, "file", json_string(e->path));
  json_object_set_new(o, "throttled", json_boolean(throttled));
  if (throttled && e->r->telemetry && *e->r->telemetry->throttled_by)
    json_object_set_new(o, "throttled_by", json_string(e->r->telemetry->throttled_by));
  if (cc->timed) {
    json_t *b = json_object();
    json_object_set_new(b, "term", json_string(cs_term_name(nz->term)));
    json_object_set_new(b, "sigma", json_real(nz->sigma));
    json_object_set_new(b, "machine", json_string(cs_machine_name(nz->machine)));
    json_object_set_new(b, "brief", json_boolean(nz->brief));
    json_object_set_new(b, "large", json_boolean(nz->large));
    if (nz->machine == CS_MACHINE_DEVICE_BUSY) { /* what the GPU's telemetry saw */
      json_t *why = json_array();
      for (int k = 0; k < CMP_DEV_BITS; k++)
        if (nz->device_why & (1u << k)) json_array_append_new(why, json_string(compare_device_why_name(1u << k)));
      json_object_set_new(b, "device_busy", why);
    }
    json_object_set_new(b, "df", isfinite(nz->df) ? json_real(nz->df) : json_null());
    json_object_set_new(b, "runs", json_integer((json_int_t)nz->runs));
    json_object_set_new(b, "history_runs", json_integer((json_int_t)nz->history));
    json_object_set_new(b, "samples", json_integer((json_int_t)nz->samples));
    json_object_set_new(o, "between_run", b);
  }
  return o;
}

static json_t *params_json(const struct rs_entry *e) {
  json_t *params = json_object();
  for (size_t k = 0; k < e->r->nparams; k++)
    json_object_set_new(params, e->r->params[k].key, json_string(e->r->params[k].value));
  return params;
}

static void add_row(struct text_table *t, const struct compare_row *r) {
  const struct rs_entry *e = compare_row_entry(r);
  const struct case_compare *cc = &r->cc;
  double mo = compare_row_median(r, 1), mn = compare_row_median(r, 0);
  const struct cs_noise *nz[2] = {&cc->old_noise, &cc->new_noise};
  char *c[C_COUNT] = {0};
  c[C_PLUGIN] = xstrdup(e->plugin);
  c[C_PARAMS] = xstrdup(*e->params ? e->params : "-");
  c[C_PARAMS_RAW] = xstrdup(e->params);
  c[C_TAG] = r->old && r->new_ && strcmp(r->old->tag, r->new_->tag) ? xasprintf("%s -> %s", r->old->tag, r->new_->tag)
                                                                     : xstrdup(e->tag);
  c[C_OLD_STATUS] = xstrdup(r->old ? case_status_name(r->old->r->status) : "");
  c[C_NEW_STATUS] = xstrdup(r->new_ ? case_status_name(r->new_->r->status) : "");
  c[C_OLD] = time_text(r->old, mo, cc->old_throttled);
  c[C_NEW] = time_text(r->new_, mn, cc->new_throttled);
  c[C_OLD_THROTTLED] = xstrdup(!r->old ? "" : cc->old_throttled ? "yes" : "no");
  c[C_NEW_THROTTLED] = xstrdup(!r->new_ ? "" : cc->new_throttled ? "yes" : "no");
  c[C_OLD_MEDIAN] = raw(isfinite(mo), "%.17g", mo);
  c[C_NEW_MEDIAN] = raw(isfinite(mn), "%.17g", mn);
  c[C_RATIO] = cc->timed ? fmt_fixed(cc->c.ratio, 3) : xstrdup("-");
  c[C_RATIO_RAW] = raw(cc->timed, "%.17g", cc->c.ratio);
  c[C_CI] = ci_text(cc);
  c[C_CI_LO] = raw(cc->timed, "%.17g", cc->c.lo);
  c[C_CI_HI] = raw(cc->timed, "%.17g", cc->c.hi);
  c[C_P] = p_text(cc);
  c[C_P_RAW] = raw(cc->timed, "%.6g", cc->c.p);
  c[C_VERDICT] = xstrdup(verdict_name(cc->verdict));
  for (int side = 0; side < 2; side++) {
    c[C_OLD_RUNS + 3 * side] = cc->timed ? xasprintf("%zu", nz[side]->runs) : xstrdup("");
    c[C_OLD_TERM + 3 * side] = xstrdup(cc->timed ? cs_term_name(nz[side]->term) : "");
    c[C_OLD_BETWEEN + 3 * side] = raw(cc->timed, "%.6g", nz[side]->sigma);
    /* the machine each side's newest run recorded (the default's choice) */
    c[C_OLD_MACHINE + side] = xstrdup(cc->timed ? cs_machine_name(nz[side]->machine) : "");
  }
  for (size_t k = 0; k < C_COUNT; k++)
    if (!c[k]) c[k] = xstrdup("");
  size_t row = table_add_row(t, c);
  table_set_colour(t, row, C_VERDICT, verdict_colour(cc->verdict));
  table_set_json(t, row, C_PARAMS_RAW, params_json(e));
  table_set_json(t, row, C_TAG, json_string(e->tag));
  table_set_json(t, row, C_OLD_JSON, side_json(r->old, mo, cc, &cc->old_noise, cc->old_throttled));
  table_set_json(t, row, C_NEW_JSON, side_json(r->new_, mn, cc, &cc->new_noise, cc->new_throttled));
  table_set_json(t, row, C_TIMER, cc->timed ? json_string(cc->device ? "device" : "host") : json_null());
  table_set_json(t, row, C_RATIO_RAW, jnum_or_null(cc->timed, cc->c.ratio));
  table_set_json(t, row, C_CI_LO, jnum_or_null(cc->timed, cc->c.lo));
  table_set_json(t, row, C_CI_HI, jnum_or_null(cc->timed, cc->c.hi));
  table_set_json(t, row, C_P_RAW, jnum_or_null(cc->timed, cc->c.p));
  table_set_json(t, row, C_FEW, json_boolean(cc->few_samples));
  table_set_json(t, row, C_UNSETTLED, json_boolean(cc->unsettled));
  table_set_json(t, row, C_OLD_THROTTLED, json_boolean(cc->old_throttled));
  table_set_json(t, row, C_NEW_THROTTLED, json_boolean(cc->new_throttled));
}

/* A note of the text and markdown output: the first after a blank line,
 * each a paragraph of its own in markdown unless an item. */
static void note(struct text_table *t, unsigned formats, unsigned style) {
  table_note(t, formats, style, t->nnotes == 0, !(style & NOTE_ITEM));
}

static void summary_notes(struct text_table *t, const struct compare_summary *s, size_t n, double threshold) {
  size_t unmatched = s->counts[V_MISSING] + s->counts[V_NEW];
  if (unmatched) {
    note(t, TM, 0);
    table_note_em(t, NOTE_EMPH);
    table_note_addf(t, "%zu unmatched: %zu only in old (MISSING), %zu only in new (NEW)", unmatched,
                    s->counts[V_MISSING], s->counts[V_NEW]);
  }
  note(t, TM, 0);
  table_note_em(t, NOTE_STRONG);
  table_note_addf(t, "%zu cases:", n);
  const char *sep = " ";
  for (int v = 0; v < V_COUNT; v++)
    if (s->counts[v]) {
      table_note_addf(t, "%s%zu %s", sep, s->counts[v], verdict_name((enum verdict)v));
      sep = ", ";
    }
  table_note_em(t, 0);
  table_note_addf(t, " (threshold %g%%, 95%% intervals)", threshold * 100);
  note(t, TM, 0);
  if (!s->ntimed_all) {
    table_note_addf(t, "geometric mean of new/old: no case timed on both sides");
    return;
  }
  table_note_addf(t, "geometric mean of new/old (cases timed on both sides):");
  for (size_t i = 0; i < s->nplugins; i++)
    if (s->ntimed[i]) {
      note(t, TM, NOTE_ITEM);
      table_note_user(t, s->plugins[i]);
      char *g = fmt_fixed(s->geomean[i], 3);
      table_note_addf(t, " %s (%zu)", g, s->ntimed[i]);
      free(g);
    }
  char *g = fmt_fixed(s->overall, 3);
  note(t, TM, NOTE_ITEM);
  table_note_em(t, NOTE_STRONG);
  table_note_addf(t, "overall %s (%zu)", g, s->ntimed_all);
  free(g);
}

/* A case timed with another batch (iterations per sample) on each side was
 * measured differently by the harness: say so, since its ratio may come
 * from the method and not from the kernel. */
static void batch_note(struct text_table *t, const struct compare_row *rows, size_t n, size_t count) {
  if (!count) return;
  note(t, TM, 0);
  table_note_addf(t,
                  "note: %zu case%s timed with a different batch (iterations per sample) in old and new, so their "
                  "ratio may come from how they were measured:",
                  count, count > 1 ? "s" : "");
  size_t shown = 0;
  for (size_t i = 0; i < n && shown < 10; i++)
    if (compare_row_batch_differs(&rows[i])) {
      const struct rs_entry *e = rows[i].new_;
      table_note_addf(t, "%s ", shown ? "," : "");
      table_note_user(t, e->plugin);
      if (*e->params) table_note_addf(t, " ");
      table_note_user(t, e->params);
      table_note_addf(t, " (%d -> %d)", rows[i].old->r->batch, e->r->batch);
      shown++;
    }
  table_note_addf(t, "%s", count > shown ? ", ..." : "");
}

/* "a% + b%/sqrt(samples)" of the default sigma of a backend's run on a
 * machine in state m (percentages to a tenth: "0.7% + 1%/sqrt(samples)"). */
static char *default_figure(const char *backend, enum cs_machine m) {
  double inf = cs_between_default_on(backend, (size_t)-1, m), one = cs_between_default_on(backend, 1, m);
  return xasprintf("%g%% + %g%%/sqrt(samples)", round(1000.0 * inf) / 10.0, round(1000.0 * (one - inf)) / 10.0);
}

/* Per side, the machine states its default-term runs took, in words. */
static void default_sides(struct text_table *t, const size_t dm[2][CMP_DM_KINDS], size_t all) {
  static const char *const word[CMP_DM_KINDS] = {"not recorded",  "busy",
                                                 "steady",        "steady, cases timed under",
                                                 "device-busy",   "device-steady",
                                                 "device-steady, cases timed under",
                                                 "steady, cases that outgrew the last-level cache"};
  for (int m = 0; m < CMP_DM_KINDS; m++)
    if (dm[0][m] && dm[1][m] && dm[0][m] + dm[1][m] == all) { /* both sides' runs in one state */
      table_note_addf(t, ": both runs %s", word[m]);
      if (m == CMP_DM_BRIEF || m == CMP_DM_DEVICE_BRIEF) table_note_addf(t, " %gs", CS_STEADY_MIN_TIMED_S);
      return;
    }
  static const char *const side_name[2] = {"old", "new"};
  const char *sep = ": ";
  for (int side = 0; side < 2; side++) {
    size_t kinds = 0, total = 0;
    for (int m = 0; m < CMP_DM_KINDS; m++) kinds += dm[side][m] > 0, total += dm[side][m];
    if (!total) continue;
    table_note_addf(t, "%s%s run%s ", sep, side_name[side], kinds == 1 ? "" : "s");
    const char *sep2 = "";
    for (int m = CMP_DM_KINDS - 1; m >= 0; m--)
      if (dm[side][m]) {
        if (kinds == 1) table_note_addf(t, "%s", word[m]);
        else table_note_addf(t, "%s%zu %s", sep2, dm[side][m], word[m]);
        if (m == CMP_DM_BRIEF || m == CMP_DM_DEVICE_BRIEF) table_note_addf(t, " %gs", CS_STEADY_MIN_TIMED_S);
        sep2 = ", ";
      }
    sep = "; ";
  }
}

/* The default term's figures and the machine each side's runs saw (their
 * headers' steadiness: a steady run takes the smaller figure, except for a
 * case it timed too briefly, compare_stats.h CS_STEADY_MIN_TIMED_S). */
static void default_note(struct text_table *t, const struct compare_terms *ct) {
  size_t all = 0;
  for (int m = 0; m < CMP_DM_KINDS; m++) all += ct->dm[0][m] + ct->dm[1][m];
  /* the sides by the figure they took: the CPU's steady one (a steady run,
   * or a steady GPU whose backend has no GPU figure), the GPU's, the busy
   * one (everything else) */
  size_t cpu_steady = ct->dm[0][CMP_DM_STEADY] + ct->dm[1][CMP_DM_STEADY];
  size_t steady = cpu_steady + ct->no_gpu_figure, gpu = ct->gpu_figure, busy = all - steady - gpu;
  size_t dev_busy = ct->dm[0][CMP_DM_DEVICE_BUSY] + ct->dm[1][CMP_DM_DEVICE_BUSY] + ct->dm[0][CMP_DM_DEVICE_BRIEF] +
                    ct->dm[1][CMP_DM_DEVICE_BRIEF];
  char *fs = default_figure("cpu", CS_MACHINE_STEADY), *fb = default_figure("cpu", CS_MACHINE_BUSY);
  char *fg = gpu ? default_figure(ct->gpu_backend, CS_MACHINE_DEVICE_STEADY) : NULL;
  table_note_addf(t, " (default: ");
  int kinds = (steady > 0) + (gpu > 0) + (busy > 0);
  const char *lead = kinds > 1 ? " of a run's median where" : " of a run's median";
  if (steady) {
    table_note_addf(t, "%s%s", fs, lead);
    if (kinds > 1 && cpu_steady) table_note_addf(t, " its run was steady");
    if (kinds > 1 && ct->no_gpu_figure)
      table_note_addf(t, "%s its GPU was steady on a backend without a GPU figure", cpu_steady ? " or" : "");
    lead = " where";
  }
  if (gpu) {
    table_note_addf(t, "%s%s%s", steady ? ", " : "", fg, lead);
    if (kinds > 1) table_note_addf(t, " its GPU was steady (%s's figure, measured on a GPU)", ct->gpu_backend);
    lead = " where";
  }
  if (busy) {
    table_note_addf(t, "%s%s%s", steady || gpu ? ", " : "", fb, lead);
    if (kinds > 1) {
      if (ct->dm[0][CMP_DM_LARGE] + ct->dm[1][CMP_DM_LARGE])
        table_note_addf(t, " busy, not recorded, the case timed under %gs or outgrew the last-level cache",
                        CS_STEADY_MIN_TIMED_S);
      else
        table_note_addf(t, " busy, not recorded or the case timed under %gs", CS_STEADY_MIN_TIMED_S);
      if (dev_busy) table_note_addf(t, " (its run's or its GPU's)");
    }
  }
  free(fs);
  free(fb);
  free(fg);
  default_sides(t, ct->dm, all);
  table_note_addf(t, "; earlier runs of a case in the folder, or several runs of it that day, replace it)");
}

/* Why sides were device-busy (the GPU's telemetry, compare_case.h
 * CMP_DEV_*), and the throttled sides held at NOISY. */
static void device_notes(struct text_table *t, const struct compare_terms *ct) {
  size_t busy[2] = {ct->dm[0][CMP_DM_DEVICE_BUSY], ct->dm[1][CMP_DM_DEVICE_BUSY]};
  if (busy[0] || busy[1]) {
    note(t, TM, 0);
    table_note_addf(t, "device-busy (read from the GPU's telemetry, not the CPU's loop):");
    static const char *const side_name[2] = {"old", "new"};
    const char *sep = " ";
    for (int side = 0; side < 2; side++) {
      if (!busy[side]) continue;
      table_note_addf(t, "%s%s %zu case%s", sep, side_name[side], busy[side], busy[side] > 1 ? "s" : "");
      const char *sep2 = " (";
      for (int b = 0; b < CMP_DEV_BITS; b++)
        if (ct->device_why[side][b]) {
          table_note_addf(t, "%s%s %zu", sep2, compare_device_why_name(1u << b), ct->device_why[side][b]);
          sep2 = ", ";
        }
      table_note_addf(t, "%s", *sep2 == ',' ? ")" : "");
      sep = "; ";
    }
  }
  if (ct->throttled_cases) {
    note(t, TM, 0);
    table_note_addf(t,
                    "note: %zu case%s NOISY whatever its interval: a side was throttled (most samples below the "
                    "throttle threshold of the device's clock; marked \"(throttled)\": old %zu, new %zu), so it "
                    "measured the clock, not the kernel",
                    ct->throttled_cases, ct->throttled_cases > 1 ? "s" : "", ct->throttled[0], ct->throttled[1]);
  }
}

/* Which between-run term widened the intervals (compare_stats.h), counted
 * per side, and the cases the minimum of samples held back. */
static void term_notes(struct text_table *t, const struct compare_terms *ct) {
  if (!ct->timed) return;
  note(t, TM, 0);
  table_note_addf(t, "between-run term (how far a run's level moves from run to run, added to each interval):");
  static const char *const side_name[2] = {"old", "new"};
  for (int side = 0; side < 2; side++) {
    table_note_addf(t, "%s %s", side ? ";" : "", side_name[side]);
    const char *sep = " ";
    for (int term = CS_TERM_POOLED; term >= CS_TERM_NONE; term--)
      if (ct->term[side][term]) {
        table_note_addf(t, "%s%zu %s", sep, ct->term[side][term], cs_term_name((enum cs_term)term));
        sep = ", ";
      }
  }
  if (ct->term[0][CS_TERM_DEFAULT] || ct->term[1][CS_TERM_DEFAULT]) default_note(t, ct);
  if (ct->few) {
    note(t, TM, 0);
    table_note_addf(t, "note: %zu case%s NOISY rather than FASTER/SLOWER: fewer than %d samples on a side", ct->few,
                    ct->few > 1 ? "s" : "", CS_MIN_SAMPLES);
  }
  if (ct->unsettled) {
    note(t, TM, 0);
    table_note_addf(t,
                    "note: %zu case%s NOISY rather than FASTER/SLOWER: a run that did not settle (reach its noise "
                    "target) and no earlier runs to show how far its level moves",
                    ct->unsettled, ct->unsettled > 1 ? "s" : "");
  }
  device_notes(t, ct);
}

static json_t *summary_json(const struct compare_summary *s) {
  json_t *sum = json_object(), *counts = json_object(), *gm = json_object();
  for (int v = 0; v < V_COUNT; v++)
    json_object_set_new(counts, verdict_name((enum verdict)v), json_integer((json_int_t)s->counts[v]));
  for (size_t i = 0; i < s->nplugins; i++)
    json_object_set_new(gm, s->plugins[i], jnum_or_null(s->ntimed[i] > 0, s->geomean[i]));
  json_object_set_new(sum, "counts", counts);
  json_object_set_new(sum, "geomean", gm);
  json_object_set_new(sum, "geomean_overall", jnum_or_null(s->ntimed_all > 0, s->overall));
  json_object_set_new(sum, "exit_status", json_integer(s->exit_status));
  json_t *tail = json_object();
  json_object_set_new(tail, "summary", sum);
  return tail;
}

static json_t *head_json(const struct compare_view *v) {
  json_t *root = json_object();
  json_object_set_new(root, "schema", json_string("bench-compare/1"));
  json_object_set_new(root, "old", json_string(v->old_path));
  json_object_set_new(root, "new", json_string(v->new_path));
  json_object_set_new(root, "threshold", json_real(v->threshold));
  json_object_set_new(root, "min_samples", json_integer(CS_MIN_SAMPLES));
  return root;
}

void compare_table_build(const struct compare_row *rows, size_t n, const struct compare_summary *s,
                         const struct compare_view *v, struct text_table *t) {
  const char *titles[C_COUNT];
  int right[C_COUNT];
  for (size_t c = 0; c < C_COUNT; c++) titles[c] = cols[c].title, right[c] = cols[c].right;
  table_init(t, C_COUNT, titles, right);
  for (size_t c = 0; c < C_COUNT; c++) table_show(t, c, cols[c].formats);
  /* the text table leaves out the tag column when no case has a tag */
  if (!compare_rows_any_tag(rows, n)) table_show(t, C_TAG, CSV | JS);
  for (size_t i = 0; i < n; i++) add_row(t, &rows[i]);
  struct compare_terms ct;
  compare_sets_terms(rows, n, &ct);
  summary_notes(t, s, n, v->threshold);
  note(t, TABLE_IN(TABLE_TEXT), 0);
  table_note_addf(t, "ratio = new/old median time per iteration (below 1 is faster); p: Mann-Whitney U");
  batch_note(t, rows, n, ct.batch_differs);
  term_notes(t, &ct);
  table_json_frame(t, "cases", head_json(v), summary_json(s));
}
