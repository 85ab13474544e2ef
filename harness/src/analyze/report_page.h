/* The page of bench report: one self-contained HTML file (no server, no
 * network) with the results table, compare, history, roofline and tuning
 * data. It is the template harness/report/report.html, embedded at build
 * time, with Chart.js and the data as JSON inlined into it. */
#ifndef BENCH_REPORT_PAGE_H
#define BENCH_REPORT_PAGE_H

#include <stddef.h>

#include "analyze/result_set.h"
#include "core/util.h"

/* What the page shows, for the command's closing line. */
struct report_counts {
  size_t cases, dates, devices, tuning; /* dates: the history's columns */
  int by_run;                           /* a column is a run (run id), not a date of older files */
};

/* The page for the results of set (the newest run of each case; dir its
 * folder, sel what selected it: with two or more labels the compare
 * charts are the last two labels' runs, as bench compare --old-label
 * --new-label; bench ab's pairs show their own verdict and paired
 * interval), compare verdicts at threshold, the tuning caches
 * tuning[0..ntuning) (none: the *.tsv files of $XDG_CACHE_HOME/bench/tuning)
 * and the Chart.js text chartjs, into page; the data object alone (as it is
 * inlined) into *data_out when data_out is not NULL (caller frees). 0, or -1 (after error() when the template lacks a marker). */
int report_page_build(const struct result_set *set, const char *dir, const struct rs_select *sel, double threshold,
                      const char *const *tuning, size_t ntuning, const char *chartjs, struct strbuf *page,
                      char **data_out, struct report_counts *counts);

/* Chart.js's text into *js: from given, else Debian's libjs-chart.js;
 * *from is the file read. 0, or -1 after error() (none found, unreadable,
 * or a text that cannot be inlined into a page). */
int report_chartjs_load(const char *given, struct strbuf *js, const char **from);

#endif
