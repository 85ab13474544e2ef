/* bench history [--results-dir DIR] [--plugin P] [selectors]: one row per
 * case, one column per dated run (median time, or GFLOP/s or GB/s), and a
 * flag where the level shifts: a run that compares FASTER or SLOWER than
 * the run before it (the same verdict as bench compare). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "analyze/compare_case.h"
#include "analyze/history.h"
#include "analyze/result_set.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"

#define USAGE                                                                                   \
  "usage: bench history [--results-dir DIR] [--plugin P]... [--date D] [--tag T]\n"             \
  "                     [--metric median|gflops|gbps] [--threshold X] [--format table|csv|md]\n" \
  "\n"                                                                                          \
  "One row per case (plugin, parameters, tag), one column per date (the newest run\n"          \
  "of that day). A '*' marks a level shift: the run compares FASTER or SLOWER than\n"          \
  "the previous run of the case (95% interval beyond the threshold, default 5%);\n"             \
  "the 'shifts' column names them.\n"

static int usage_error(const char *what, const char *arg) {
  fprintf(stderr, "bench: error: %s '%s' (see bench history --help)\n", what, term_str(arg));
  return EXIT_USAGE;
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
  enum { O_DIR = 256, O_PLUGIN, O_DATE, O_TAG, O_METRIC, O_THRESHOLD, O_FORMAT, O_HELP };
  static const struct option longopts[] = {
      {"results-dir", required_argument, NULL, O_DIR}, {"plugin", required_argument, NULL, O_PLUGIN},
      {"date", required_argument, NULL, O_DATE},       {"tag", required_argument, NULL, O_TAG},
      {"metric", required_argument, NULL, O_METRIC},   {"threshold", required_argument, NULL, O_THRESHOLD},
      {"format", required_argument, NULL, O_FORMAT},   {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0}};
  const char *dir = "results", *metric = "median", *format = "table";
  double threshold = COMPARE_DEFAULT_THRESHOLD;
  struct rs_select sel = {0};
  const char **plugins = NULL;
  size_t nplugins = 0;
  int rc = EXIT_OK;
  opterr = 0;
  optind = 1;
  int c;
  while (rc == EXIT_OK && (c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
    switch (c) {
    case O_DIR: dir = optarg; break;
    case O_PLUGIN:
      plugins = xrealloc(plugins, (nplugins + 1) * sizeof *plugins);
      plugins[nplugins++] = optarg;
      break;
    case O_DATE: sel.date = optarg; break;
    case O_TAG: sel.tag = optarg; break;
    case O_METRIC:
      if (strcmp(optarg, "median") && strcmp(optarg, "gflops") && strcmp(optarg, "gbps"))
        rc = usage_error("--metric must be median, gflops or gbps, not", optarg);
      metric = optarg;
      break;
    case O_THRESHOLD:
      if (compare_parse_threshold(optarg, &threshold) != 0)
        rc = usage_error("--threshold must be a fraction or percentage below 100%, not", optarg);
      break;
    case O_FORMAT:
      if (strcmp(optarg, "table") && strcmp(optarg, "csv") && strcmp(optarg, "md"))
        rc = usage_error("--format must be table, csv or md, not", optarg);
      format = optarg;
      break;
    case 'h':
    case O_HELP: fputs(USAGE, stdout); free(plugins); return EXIT_OK;
    case ':': rc = usage_error("option needs a value:", argv[optind - 1]); break;
    default: rc = usage_error("unknown option", argv[optind - 1]); break;
    }
  }
  if (rc == EXIT_OK && optind < argc) rc = usage_error("unexpected argument", argv[optind]);
  if (rc != EXIT_OK) {
    free(plugins);
    return rc;
  }
  sel.plugins = plugins;
  sel.nplugins = nplugins;
  struct result_set set;
  if (result_set_load(dir, &sel, &set) != 0) {
    free(plugins);
    return EXIT_USAGE;
  }
  if (!set.n) {
    error("no results in %s (check --plugin, --date and --tag)", dir);
    result_set_release(&set);
    free(plugins);
    return EXIT_USAGE;
  }
  struct history h;
  history_build(&set, threshold, &h);

  int tags = 0;
  for (size_t i = 0; i < h.nrows; i++) tags |= *h.rows[i].first->tag != '\0';
  size_t ncols = 2 + (size_t)tags + h.ndates + 1;
  const char **titles = xcalloc(ncols, sizeof *titles);
  int *right = xcalloc(ncols, sizeof *right);
  size_t k = 0;
  titles[k++] = "plugin";
  titles[k++] = "params";
  if (tags) titles[k++] = "tag";
  for (size_t d = 0; d < h.ndates; d++) right[k] = 1, titles[k++] = h.dates[d];
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
        strbuf_addf(&shifts, "%s%s %s x%s", shifts.len ? "; " : "", h.dates[d], verdict_name(sh), x);
        free(x);
        nshifts++;
      } else {
        cells[k++] = v;
      }
    }
    cells[k++] = strbuf_detach(&shifts);
    table_add_row(&t, cells);
    free(cells);
  }
  table_note(&t, TABLE_ALL, 0, 1, 1);
  table_note_addf(&t, "%zu %s over %zu %s; %s; %zu level %s (*: FASTER or SLOWER than the run before, threshold %g%%)",
                  h.nrows, h.nrows == 1 ? "case" : "cases", h.ndates, h.ndates == 1 ? "date" : "dates",
                  strcmp(metric, "median") == 0   ? "median time per iteration"
                  : strcmp(metric, "gflops") == 0 ? "GFLOP/s"
                                                  : "GB/s",
                  nshifts, nshifts == 1 ? "shift" : "shifts", threshold * 100);
  enum table_format f = TABLE_TEXT;
  table_format_parse(format, &f);
  char *text = table_render(&t, f, 0);
  fputs(text, stdout);
  free(text);
  table_release(&t);
  free(titles);
  free(right);
  history_release(&h);
  result_set_release(&set);
  free(plugins);
  return EXIT_OK;
}
