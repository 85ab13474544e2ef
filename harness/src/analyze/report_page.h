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
  size_t cases, dates, devices, tuning;
};

/* The page for the results of set (the newest run of each case; dir its
 * folder), compare verdicts at threshold, the tuning caches
 * tuning[0..ntuning) (none: the *.tsv files of $XDG_CACHE_HOME/bench/tuning)
 * and the Chart.js text chartjs, into page. 0, or -1 (after error() when the template lacks a marker). */
int report_page_build(const struct result_set *set, const char *dir, double threshold, const char *const *tuning,
                      size_t ntuning, const char *chartjs, struct strbuf *page, struct report_counts *counts);

#endif
