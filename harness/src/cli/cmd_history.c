/* bench history [--results-dir DIR] [--plugin P] [selectors]: one row per
 * case, one column per run (median time, or GFLOP/s or GB/s) headed by its
 * label, and a flag where the level shifts: a run that compares FASTER or
 * SLOWER than the run before it (the same verdict as bench compare). With
 * --label A --label B...: the runs of those labels in that order, and a
 * column per pair of neighbours (B vs A) with bench compare's verdict of
 * the two labels' runs (analyze/compare_sets.h, the runs of a day pooled). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "analyze/compare_case.h"
#include "analyze/compare_sets.h"
#include "analyze/history.h"
#include "analyze/result_set.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"

struct history_opts {
  const char *dir, *metric, *format;
  double threshold;
  struct rs_select sel;
  const char **plugins, **labels;
  size_t nplugins, nlabels;
};

static const char *const history_metrics[] = {"median", "gflops", "gbps", NULL};
static const char *const history_formats[] = {"table", "csv", "md", NULL};

#define O struct history_opts
static const struct opt history_options[] = {
    OPT_RESULTS_DIR(O, dir),
    OPT_PLUGIN(O, plugins, nplugins),
    OPT_STRING("date", 0, O, sel.date, "D", "keep the runs of that date (YYYY-MM-DD or a prefix)"),
    OPT_SELECT_TAG(O, sel.tag),
    OPT_SELECT_LABEL(O, labels, nlabels),
    OPT_CHOICE("metric", O, metric, history_metrics, "what a cell shows: the median time (default), GFLOP/s or GB/s"),
    OPT_THRESHOLD(O, threshold),
    OPT_FORMAT(O, format, history_formats, "output (default table)"),
    OPT_END(),
};
#undef O

static const char *const history_usage[] = {
    "bench history [--results-dir DIR] [--plugin P]... [--date D] [--tag T] [--label L]...",
    "              [--metric median|gflops|gbps] [--threshold X] [--format table|csv|md]",
    NULL,
};

const struct cmd_spec spec_history = {
    "history", "one row per case, one column per dated run, level shifts marked", history_usage, NULL,
    "One row per case (plugin, parameters, tag), one column per run, headed by its\n"
    "label (bench run --label, else the plugin's short commit, else its start time;\n"
    "'#k' where several runs share one) and ordered by date and time (result files of\n"
    "an older bench, without a run id, make one column per date: the newest run of\n"
    "that day). A '*' marks a level shift: the run compares FASTER or SLOWER than the\n"
    "previous run of the case (95% interval beyond the threshold, default 5%); the\n"
    "'shifts' column names them. --label L (repeatable, exact or a glob) keeps the runs\n"
    "of those labels, ordered by label in the order given, then time; with two or more,\n"
    "a column 'B vs A' per neighbouring pair gives bench compare's ratio and verdict of\n"
    "label B's runs against label A's (the runs of a label's newest day pooled).",
    "Exit status: 0 shown; 2 usage error, or no results selected.\n",
    history_options, PARSE_NO_ARGS,
};

/* Label b's runs against label a's, as bench compare --old-label a
 * --new-label b judges them: the rows of compare_sets_match. */
struct label_pair {
  struct result_set old, new_;
  struct compare_row *rows;
  size_t n;
  int with_tag;
};

static int pair_load(const char *dir, const struct rs_select *base, const char *a, const char *b, double threshold,
                     struct label_pair *p) {
  memset(p, 0, sizeof *p);
  struct rs_select so = *base, sn = *base;
  so.labels = (const char *const *)&a, sn.labels = (const char *const *)&b;
  so.nlabels = sn.nlabels = 1;
  if (result_set_load(dir, &so, &p->old) != 0) return -1;
  if (result_set_load(dir, &sn, &p->new_) != 0) return -1;
  p->with_tag = rs_tags_overlap(&p->old, &p->new_);
  p->rows = compare_sets_match(&p->old, &p->new_, p->with_tag, threshold, &p->n);
  return 0;
}

static void pair_release(struct label_pair *p) {
  free(p->rows);
  result_set_release(&p->old);
  result_set_release(&p->new_);
}

/* The pair's cell for the case of e: "x1.002 SAME", the verdict alone
 * when untimed, "" when neither label ran it. */
static char *pair_cell(const struct label_pair *p, const struct rs_entry *e) {
  char *key = rs_key(e, p->with_tag), *out = NULL;
  for (size_t i = 0; i < p->n && !out; i++) {
    char *k = rs_key(compare_row_entry(&p->rows[i]), p->with_tag);
    if (strcmp(k, key) == 0) {
      const struct case_compare *cc = &p->rows[i].cc;
      if (cc->timed) {
        char *x = fmt_fixed(cc->c.ratio, 3);
        out = xasprintf("x%s %s", x, verdict_name(cc->verdict));
        free(x);
      } else {
        out = xstrdup(verdict_name(cc->verdict));
      }
    }
    free(k);
  }
  free(key);
  return out ? out : xstrdup("");
}

static char *cell_value(const struct rs_entry *e, const char *metric) {
  const struct case_result *r = e->r;
  if (r->status != CASE_OK) return xstrdup(case_status_name(r->status));
  size_t n;
  const double *x = rs_samples(r, rs_has_device(r), &n);
  if (!n) return xstrdup("-");
  double med = cs_median(x, n);
  if (strcmp(metric, "gflops") == 0) return r->flops > 0 && med > 0 ? fmt_sig4(r->flops / med) : xstrdup("-");
  if (strcmp(metric, "gbps") == 0) return r->bytes > 0 && med > 0 ? fmt_sig4(r->bytes / med) : xstrdup("-");
  return fmt_time_ns(med);
}

int cmd_history(int argc, char **argv) {
  struct history_opts o = {.dir = "results", .metric = "median", .format = "table",
                           .threshold = COMPARE_DEFAULT_THRESHOLD};
  int nargs, rc = parse_options(&spec_history, argc, argv, &o, &nargs);
  if (rc != 0) {
    free(o.plugins);
    free(o.labels);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  const char *dir = o.dir, *metric = o.metric, *format = o.format;
  double threshold = o.threshold;
  struct rs_select sel = o.sel;
  const char **plugins = o.plugins;
  size_t nplugins = o.nplugins;
  sel.plugins = plugins;
  sel.nplugins = nplugins;
  sel.labels = o.labels;
  sel.nlabels = o.nlabels;
  struct result_set set;
  if (result_set_load(dir, &sel, &set) != 0) {
    free(plugins);
    free(o.labels);
    return EXIT_USAGE;
  }
  if (!set.n) {
    error("no results in %s (check --plugin, --date, --tag and --label)", dir);
    result_set_release(&set);
    free(plugins);
    free(o.labels);
    return EXIT_USAGE;
  }
  struct history h;
  history_build(&set, threshold, &h);

  int tags = 0;
  for (size_t i = 0; i < h.nrows; i++) tags |= *h.rows[i].first->tag != '\0';
  /* the labels' neighbouring pairs: B vs A */
  size_t npairs = o.nlabels > 1 ? o.nlabels - 1 : 0;
  struct label_pair *pairs = xcalloc(npairs + 1, sizeof *pairs);
  char **pair_titles = xcalloc(npairs + 1, sizeof *pair_titles);
  for (size_t i = 0; i < npairs; i++) {
    struct rs_select base = sel;
    base.labels = NULL, base.nlabels = 0;
    if (pair_load(dir, &base, o.labels[i], o.labels[i + 1], threshold, &pairs[i]) != 0) warning("cannot compare the labels");
    pair_titles[i] = xasprintf("%s vs %s", o.labels[i + 1], o.labels[i]);
  }
  size_t ncols = 2 + (size_t)tags + h.ndates + npairs + 1;
  const char **titles = xcalloc(ncols, sizeof *titles);
  int *right = xcalloc(ncols, sizeof *right);
  size_t k = 0;
  titles[k++] = "plugin";
  titles[k++] = "params";
  if (tags) titles[k++] = "tag";
  for (size_t d = 0; d < h.ndates; d++) right[k] = 1, titles[k++] = h.heads[d];
  for (size_t i = 0; i < npairs; i++) right[k] = 1, titles[k++] = pair_titles[i];
  titles[k++] = "shifts";
  struct text_table t;
  table_init(&t, ncols, titles, right);
  size_t nshifts = 0;
  for (size_t i = 0; i < h.nrows; i++) {
    const struct history_row *row = &h.rows[i];
    char **cells = xcalloc(ncols, sizeof *cells);
    k = 0;
    cells[k++] = xstrdup(row->first->plugin);
    cells[k++] = xstrdup(*row->first->params ? row->first->params : "-");
    if (tags) cells[k++] = xstrdup(row->first->tag);
    struct strbuf shifts = STRBUF_INIT;
    for (size_t d = 0; d < h.ndates; d++) {
      const struct rs_entry *e = row->cells[d];
      if (!e) {
        cells[k++] = xstrdup("");
        continue;
      }
      char *v = cell_value(e, metric);
      enum verdict sh = row->shift[d];
      if (sh == V_FASTER || sh == V_SLOWER) {
        cells[k++] = xasprintf("%s *", v);
        free(v);
        char *x = fmt_fixed(row->ratio[d], 3);
        strbuf_addf(&shifts, "%s%s %s x%s", shifts.len ? "; " : "", h.heads[d], verdict_name(sh), x);
        free(x);
        nshifts++;
      } else {
        cells[k++] = v;
      }
    }
    for (size_t p = 0; p < npairs; p++) cells[k++] = pair_cell(&pairs[p], row->first);
    cells[k++] = strbuf_detach(&shifts);
    table_add_row(&t, cells);
    free(cells);
  }
  table_note(&t, TABLE_ALL, 0, 1, 1);
  int by_run = 0; /* a column of a run id (else each is a date of older files) */
  for (size_t d = 0; d < h.ndates; d++) by_run |= strcmp(h.runs[d], h.dates[d]) != 0;
  table_note_addf(&t, "%zu %s over %zu %s; %s; %zu level %s (*: FASTER or SLOWER than the run before, threshold %g%%)",
                  h.nrows, h.nrows == 1 ? "case" : "cases", h.ndates,
                  by_run ? (h.ndates == 1 ? "run" : "runs") : (h.ndates == 1 ? "date" : "dates"),
                  strcmp(metric, "median") == 0   ? "median time per iteration"
                  : strcmp(metric, "gflops") == 0 ? "GFLOP/s"
                                                  : "GB/s",
                  nshifts, nshifts == 1 ? "shift" : "shifts", threshold * 100);
  for (size_t i = 0; i < npairs; i++) {
    table_note(&t, TABLE_ALL, 0, 0, 1);
    table_note_user(&t, pair_titles[i]);
    table_note_addf(&t, ": the runs of label ");
    table_note_user(&t, o.labels[i + 1]);
    table_note_addf(&t, " against those of ");
    table_note_user(&t, o.labels[i]);
    table_note_addf(&t, " as bench compare --old-label/--new-label judges them (ratio new/old; the runs of "
                        "each label's newest day pooled)");
  }
  enum table_format f = TABLE_TEXT;
  table_format_parse(format, &f);
  char *text = table_render(&t, f, 0);
  fputs(text, stdout);
  free(text);
  table_release(&t);
  free(titles);
  free(right);
  for (size_t i = 0; i < npairs; i++) {
    pair_release(&pairs[i]);
    free(pair_titles[i]);
  }
  free(pairs);
  free(pair_titles);
  history_release(&h);
  result_set_release(&set);
  free(plugins);
  free(o.labels);
  return EXIT_OK;
}
