/* The lines a run prints as its cases end (results/case_line.c renders one
 * case). Tunables left at their defaults because the device has no tuning
 * entry are not shown on a line (the files keep them; the run's end counts
 * such cases once). A backend whose cases all end SKIPPED with one reason
 * (no CUDA device here) is one line, "cuda_* 10 plugins, 82 cases: SKIPPED,
 * REASON", printed when its last case ends; until then its SKIPPED lines
 * are held back, and printed one by one as soon as any of its cases does
 * something else. verbose: every case on its own line. */
#ifndef BENCH_RUN_LINES_H
#define BENCH_RUN_LINES_H

#include <stdio.h>

#include "plan/plan.h"
#include "results/case_line.h"
#include "results/result.h"

/* "default (no tuning entry)": the note of a case whose tunables were left
 * at their defaults (run/tune_apply.c). */
#define UNTUNED_NOTE "default (no tuning entry)"

struct skip_fold;
struct plugin_shown;

struct run_lines {
  FILE *out;
  const struct plan *plan;
  int total;
  int verbose;
  struct case_line_style style;   /* the run's: one label column, one status column */
  size_t nplugins;
  unsigned char **omit;           /* per selected plugin, per parameter: left out of its lines */
  struct plugin_shown *shown;     /* per selected plugin: its note line */
  int untuned;                    /* cases shown without their untuned tunables */
  struct skip_fold *folds;        /* per backend */
  size_t nfolds;
  char **telemetry_notes;         /* the telemetry notes printed (each once a run) */
  size_t ntelemetry_notes;
};

/* Lines fit the output's width (term_columns). Labels longer than the
 * width leaves leave out, last declared first, parameters all of their
 * plugin's cases share (never one that tells them apart); the plugin's
 * first line is then preceded by "cpu_attention, every case: f32
 * threads=0". One label column for the run: the status column is the same
 * on every line. */
void run_lines_init(struct run_lines *l, const struct plan *p, FILE *out, int colour, int verbose);
/* Case r (of p->cases.cases[r->index]) ended: print its line, or hold it.
 * A note of its telemetry (why the GPU could not be read: "no NVIDIA or
 * AMD management library: ...") is printed once a run, when first seen:
 * "gpu telemetry: NOTE". */
void run_lines_case(struct run_lines *l, const struct case_result *r);
/* Case index as its line names it before it ran (the plugin and the
 * parameters the line shows, as requested): for the PROGRESS line. malloc'd. */
char *run_lines_label(const struct run_lines *l, int index);
/* Case r (of p->cases.cases[r->index]) as its line names it: the values it
 * resolved (r's info under a parameter's name: threads=2 for a requested
 * threads=0) in place of the requested ones, as on its line (the same
 * parameters left out, the same values): for the PROGRESS line once the
 * case's setup has reported them (run/runner.h case_resolved_fn). malloc'd. */
char *run_lines_label_of(const struct run_lines *l, const struct case_result *r);
/* The run ended (maybe interrupted): print the lines still held. */
void run_lines_flush(struct run_lines *l);
void run_lines_release(struct run_lines *l);

#endif
