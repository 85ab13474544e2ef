/* The result file of one plugin in a run (bench run, each side of bench
 * ab): the header (the machine, the command, the preset), the steadiness
 * of the machine from its first case to its last, and every case saved as
 * it ends (journal and periodic rewrite, results/io.h), written whole at
 * the end. */
#ifndef BENCH_RESULT_FILE_H
#define BENCH_RESULT_FILE_H

#include "plugin/plugin_loader.h"
#include "preset/preset.h"
#include "results/io.h"
#include "run/steady.h"

struct result_file {
  struct run_file f;
  struct results_run saver;
  struct steady_reading start; /* the header's steadiness: read at open */
  int failed;                  /* a save failed (said once) */
  /* Called at the close, after the steadiness at the end is read and
   * before the file is written whole (NULL: nothing): what depends on the
   * header's steadiness (--baseline's verdicts) is set then. */
  void (*finishing)(void *arg, struct run_file *f);
  void *finishing_arg;
  struct run_steady steady;    /* the header's steadiness, once closed */
};

/* Start pl's file under dir: the header (tag, mode "debug" or "perf", the
 * command line argv) and the steadiness reading at its start. */
void result_file_open(struct result_file *rf, const struct plugin *pl, const struct preset *p,
                      const char *tag, int debug, const char *dir, int argc, char **argv);

/* The same with the run's label (NULL: the default, run/env.h
 * run_env_label), and the plugin's git commit where bench can tell. */
void result_file_open_label(struct result_file *rf, const struct plugin *pl, const struct preset *p,
                            const char *tag, const char *label, int debug, const char *dir, int argc,
                            char **argv);

/* Take the finished case *r into the file (r is left empty) and save it.
 * 0, or -1 after error() when it could not be saved (then, or before). */
int result_file_add(struct result_file *rf, struct case_result *r);

/* Read the steadiness at the end (after the ending workers are reaped: a
 * dying worker is still a runnable process), call finishing, write the file whole and
 * release it. 0, or -1 when it (or a case before) could not be written. */
int result_file_close(struct result_file *rf);
/* The same, handing the file over in *keep (when not NULL; a zeroed file
 * when nothing was kept) and the name it was saved as, "<name>.json", in
 * *source (malloc'd; "" when no case was saved), for bench run --export-*. */
int result_file_close_keep(struct result_file *rf, struct run_file *keep, char **source);

#endif
