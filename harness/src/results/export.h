/* One file for a whole run, whatever the plugins (bench run --export-json,
 * --export-csv, --export-md, as Google Benchmark's --benchmark_out and
 * hyperfine's --export-*): the run's result files as they were saved,
 * kept until the run ends, then written each to its file atomically
 * (a temporary name beside it, renamed). Schemas in docs/results.md:
 *   JSON      "bench-run/1" (results/io.h run_export_to_json): the header,
 *             the plugins and every case as in bench-result/1;
 *   CSV       the rollup's columns (rollup_csv_of), one row per case;
 *   Markdown  a table of the cases (plugin, case, status, median, noise,
 *             min, max, throughput, check, peak RSS) and a line saying
 *             where and how it ran, to paste into a pull request. */
#ifndef BENCH_EXPORT_H
#define BENCH_EXPORT_H

#include <stddef.h>

#include "results/result.h"

struct run_export {
  size_t n;
  struct run_file *files; /* owned, in run order */
  char **sources;         /* each file's result file name ("2026-11-24_cpu_gemm_smoke.json") */
};

/* Before the run: can path take the export (option names it in the
 * message: "--export-json")? A folder, or one that cannot take a new file,
 * is refused: 0, or -1 after one error(). */
int run_export_check(const char *option, const char *path);

/* Take f (left empty) and the name of the file it was saved as. */
void run_export_add(struct run_export *x, struct run_file *f, const char *source);

/* The Markdown form (malloc'd). */
char *run_export_to_md(const struct run_export *x);

/* Write the exports asked for (NULL: not asked): each is one file written
 * whole, or one error() naming it; the others are still written. 0, or -1
 * when any failed. */
int run_export_write(const struct run_export *x, const char *json, const char *csv, const char *md);

void run_export_release(struct run_export *x);

#endif
