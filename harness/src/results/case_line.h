/* The terminal's line for a finished case, as `bench` prints it while a run
 * goes on (one renderer per output: this line, the .txt in txt.c, the
 * events table in cli/cmd_events.c; all format numbers with core/units). */
#ifndef BENCH_CASE_LINE_H
#define BENCH_CASE_LINE_H

#include "results/result.h"

/* How a run's lines look: one style for every case of the run (run/run_lines.c),
 * so that the status column is the same on every line. */
struct case_line_style {
  int colour;        /* status in colour: OK green (the warning colour when noisy), SKIPPED dim,
                        failures red bold */
  int columns;       /* the width lines are fitted to (term_columns); 0: TERM_DEFAULT_COLUMNS */
  int label_width;   /* the plugin + case column, padded to this; a longer label goes on a line of
                        its own, the status under the status column on the next */
  int label_line;    /* no room for a label column: every label on its own line, the status
                        line indented to the label */
  int settle_notes;  /* print "did not settle" under a case (preset perf or report_settle) */
  int determinism;   /* the preset checks determinism: room for it in the check column */
  int range;         /* the range column (min..max) is shown: the labels leave room for it
                        (run/run_lines.c; a label is never cut for it) */
};

/* A case is noisy when the noise its stopping rule bounded (the figure on
 * its line) is over this many times its target (smoke's 10% target: over
 * +-50%; standard's 2%: over +-10%): its status and figure take the warning
 * colour and the run's summary names it. */
#define CASE_NOISY_FACTOR 5

/* The figure on the line as a fraction (0.0091 for +-0.91%): the 95%
 * interval's relative half-width, or the CV under stop = cv; NAN below two
 * samples. */
double case_line_noise(const struct case_result *r);
/* "+-0.91%", "cv 4.1%", "" when none. malloc'd. */
char *case_line_noise_text(const struct case_result *r);
/* OK, and its noise over CASE_NOISY_FACTOR times its target_noise. */
int case_line_noisy(const struct case_result *r);

/* "[ 3/12] ": the columns the case number takes for a run of total cases. */
int case_line_prefix_width(int total);
/* The columns after the label: status, median, noise, range (st->range),
 * rate, check (and det). */
int case_line_rest_width(const struct case_line_style *st);

/* A case as its line names it: "cpu_gemm variant=packed m=n=k=512 f32
 * threads=2 isa=avx512". The value the plugin reported it used (set_info
 * with the parameter's name: threads=0 ran as threads=2) replaces the
 * requested one, which the files keep; neighbouring parameters with the same
 * value share it ("m=n=k=512"); dtype shows its value alone ("f32"). Text
 * from the plugin is escaped. malloc'd. */
char *case_line_label(const struct case_result *r);

/* "[ 3/12] cpu_gemm m=n=k=64 f32      OK     12.35 us +-0.91%   47.66 GFLOP/s
 * err 2.8e-06\n": the case, its status, the median with the noise figure
 * the stopping rule bounded (+-x%: the 95% interval's half-width; cv x%
 * under stop = cv), the range of the samples (min..max, in the median's
 * unit; when the style has room for it), one throughput and the check; the CV, sample count and
 * timer are in the files. A noisy case (case_line_noisy) has its status and
 * figure in the warning colour. The line is fitted to st->columns
 * (term_fit_add: between columns, or at a message's word boundaries, and
 * never inside a number); a failure's or skip's message is whole. A case the throttle rule marked (its telemetry's
 * throttled) ends its line with "  THROTTLED: <why>". Then indented lines: the settle note (when the
 * style asks), the plugin's note, a failed case's stderr tail. total is the
 * suite's case count (it sets the width of the number). malloc'd. */
char *case_line(const struct case_result *r, int total, const struct case_line_style *st);

#endif
