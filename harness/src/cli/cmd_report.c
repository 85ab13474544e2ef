/* bench report [--results-dir DIR] [-o FILE]: one self-contained HTML page
 * (no server, no network) with the results table, compare, history and
 * roofline charts (analyze/report_page.h builds it). Chart.js comes from
 * Debian's libjs-chart.js or --chartjs FILE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/compare_case.h"
#include "analyze/report_page.h"
#include "analyze/result_set.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "core/lockfile.h"
#include "core/term.h"
#include "core/util.h"

struct report_opts {
  const char *dir, *out, *chartjs;
  double threshold;
  struct rs_select sel;
  const char **plugins, **tuning, **labels;
  size_t nplugins, ntuning, nlabels;
};

#define O struct report_opts
static const struct opt report_options[] = {
    OPT_RESULTS_DIR(O, dir),
    OPT_STRING("output", 'o', O, out, "FILE", "the page to write (default DIR/report.html)"),
    OPT_PLUGIN(O, plugins, nplugins),
    OPT_SELECT_TAG(O, sel.tag),
    OPT_SELECT_LABEL(O, labels, nlabels),
    OPT_STRING("chartjs", 0, O, chartjs, "FILE", "Chart.js to inline (also $BENCH_CHARTJS)"),
    OPT_THRESHOLD(O, threshold),
    OPT_LIST("tuning-file", O, tuning, ntuning, "FILE",
             "a tuning cache to show instead of $XDG_CACHE_HOME/bench/tuning/*.tsv (repeatable)"),
    OPT_END(),
};
#undef O

static const char *const report_usage[] = {
    "bench report [--results-dir DIR] [-o FILE] [--plugin P]... [--tag T] [--label L]...",
    "             [--chartjs FILE] [--threshold X] [--tuning-file FILE]...",
    NULL,
};

const struct cmd_spec spec_report = {
    "report", "one HTML page of results, comparisons, history, rooflines and tuning", report_usage, NULL,
    "Writes one HTML file (default DIR/report.html) that opens from disk: a sortable\n"
    "results table with status, verification and % of roof (each case against its own\n"
    "roof: its dtype's compute roof and the memory level its working set fits in); compare\n"
    "charts (each case's newest run against the run before it; with --label A --label B,\n"
    "label B's runs against label A's as bench compare --old-label A --new-label B; each\n"
    "bench ab pair with its own verdict and paired interval, which its row in the table\n"
    "shows too, in place of the two sides' rows); history charts (one point per run,\n"
    "named by its label); a roofline\n"
    "per device from the measured roofs of DIR/roofs (bench peak), else its best cases and\n"
    "a published peak, saying so; a tuning table (bench tune's winners per device, plugin\n"
    "and problem: speedup over the default with its paired interval and verdict,\n"
    "candidates measured, disqualified and skipped, and the newest runs that took the\n"
    "winner or ran the defaults) from the tuning cache, $XDG_CACHE_HOME/bench/tuning/*.tsv,\n"
    "or each --tuning-file FILE.\n"
    "Chart.js comes from Debian's libjs-chart.js (/usr/share/javascript/chart.js) or\n"
    "--chartjs FILE (also $BENCH_CHARTJS) and is inlined into the page.",
    "Exit status: 0 written; 2 usage error, no results, or no Chart.js.\n",
    report_options, PARSE_NO_ARGS,
};

int cmd_report(int argc, char **argv) {
  struct report_opts o = {.dir = "results", .chartjs = getenv("BENCH_CHARTJS"),
                          .threshold = COMPARE_DEFAULT_THRESHOLD};
  int nargs, rc = parse_options(&spec_report, argc, argv, &o, &nargs);
  if (rc != 0) {
    free(o.plugins);
    free(o.tuning);
    free(o.labels);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  const char *dir = o.dir, *out = o.out, *chartjs = o.chartjs;
  double threshold = o.threshold;
  struct rs_select sel = o.sel;
  const char **plugins = o.plugins, **tuning = o.tuning;
  size_t ntuning = o.ntuning;
  sel.nplugins = o.nplugins;
  sel.plugins = plugins;
  sel.labels = o.labels;
  sel.nlabels = o.nlabels;
  struct strbuf js = STRBUF_INIT;
  if (rc == EXIT_OK && report_chartjs_load(chartjs, &js, &chartjs) != 0) rc = EXIT_USAGE;
  struct result_set set = {0};
  if (rc == EXIT_OK && result_set_load(dir, &sel, &set) != 0) rc = EXIT_USAGE;
  if (rc == EXIT_OK && !set.n) {
    error("no results in %s", dir);
    rc = EXIT_USAGE;
  }
  if (rc != EXIT_OK) {
    result_set_release(&set);
    strbuf_release(&js);
    free(plugins);
    free(tuning);
    free(o.labels);
    return rc;
  }

  struct strbuf page = STRBUF_INIT;
  struct report_counts n;
  char *path = out ? xstrdup(out) : xasprintf("%s/report.html", dir);
  if (report_page_build(&set, dir, &sel, threshold, tuning, ntuning, js.buf, &page, NULL, &n) != 0 ||
      write_file_atomic(path, page.buf, page.len) != 0) {
    rc = EXIT_FAILED;
  } else {
    printf("wrote %s (%zu case%s, %zu %s%s, %zu device%s", term_str(path), n.cases, n.cases == 1 ? "" : "s",
           n.dates, n.by_run ? "run" : "date", n.dates == 1 ? "" : "s", n.devices, n.devices == 1 ? "" : "s");
    if (n.tuning) printf(", %zu tuning entr%s", n.tuning, n.tuning == 1 ? "y" : "ies");
    printf("; Chart.js from %s)\n", term_str(chartjs));
  }
  free(path);
  strbuf_release(&page);
  result_set_release(&set);
  strbuf_release(&js);
  free(plugins);
  free(tuning);
  free(o.labels);
  return rc;
}
