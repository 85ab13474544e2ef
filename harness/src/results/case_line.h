/* The terminal's line for a finished case, as `bench` prints it while a run
 * goes on (one renderer per output: this line, the .txt in txt.c, the
 * events table in cli/cmd_events.c; all format numbers with core/units). */
#ifndef BENCH_CASE_LINE_H
#define BENCH_CASE_LINE_H

#include "results/result.h"

/* The terminal's budget: a case line of the shipped presets fits it. */
#define CASE_LINE_COLUMNS 120

/* How a run's lines look; the same for every case of a plugin, so that its
 * lines line up in columns. */
struct case_line_style {
  int colour;        /* status in colour: OK green, SKIPPED dim, failures red bold */
  int label_width;   /* the plugin + case column, padded to this (0: as long as it is) */
  int settle_notes;  /* print "did not settle" under a case (preset perf or report_settle) */
  int determinism;   /* the preset checks determinism: room for it in the check column */
  int range;         /* the range column (min..max) is shown: the plugin's labels leave room
                        for it (run/run_lines.c; a label is never cut for it) */
};

/* A case as its line names it: "cpu_gemm variant=packed m=n=k=512 f32
 * threads=2 isa=avx512". The value the plugin reported it used (set_info
 * with the parameter's name: threads=0 ran as threads=2) replaces the
 * requested one, which the files keep; neighbouring parameters with the same
 * value share it ("m=n=k=512"); dtype shows its value alone ("f32"). Text
 * from the plugin is escaped. malloc'd. */
char *case_line_label(const struct case_result *r);

/* The label column's width for a style: the widest of the plugin's labels,
 * at most what the budget leaves (longer labels are cut with ".."). */
int case_line_label_width(int widest, int total, const struct case_line_style *st);

/* "[ 3/12] cpu_gemm m=n=k=64 f32      OK     12.35 us +-0.91%   47.66 GFLOP/s
 * err 2.8e-06\n": the case, its status, the median with the noise figure
 * the stopping rule bounded (+-x%: the 95% interval's half-width; cv x%
 * under stop = cv), the range of the samples (min..max, in the median's
 * unit; when the style has room for it), one throughput and the check; the CV, sample count and
 * timer are in the files. A case the throttle rule marked (its telemetry's
 * throttled) ends its line with "  THROTTLED: <why>". Then indented lines: the settle note (when the
 * style asks), the plugin's note, a failed case's stderr tail. total is the
 * suite's case count (it sets the width of the number). malloc'd. */
char *case_line(const struct case_result *r, int total, const struct case_line_style *st);

#endif
