/* One plugin's result file, from its header to its finish (result_file.h). */
#include "run/result_file.h"

#include <string.h>

#include "core/child.h"
#include "core/util.h"
#include "run/env.h"

void result_file_open(struct result_file *rf, const struct plugin *pl, const struct preset *p,
                      const char *tag, int debug, const char *dir, int argc, char **argv) {
  result_file_open_label(rf, pl, p, tag, NULL, debug, dir, argc, argv);
}

void result_file_open_label(struct result_file *rf, const struct plugin *pl, const struct preset *p,
                            const char *tag, const char *label, int debug, const char *dir, int argc,
                            char **argv) {
  memset(rf, 0, sizeof *rf);
  run_env_collect(&rf->f.env, argc, argv, p->name, p->sha256, tag, debug ? "debug" : "perf");
  run_env_sampling(&rf->f.env, &p->policy);
  rf->f.plugin = xstrdup(pl->desc->name);
  rf->f.plugin_path = xstrdup(pl->path);
  rf->f.plugin_sha256 = xstrdup(pl->sha256);
  run_env_label(&rf->f, pl->path, label);
  results_run_init(&rf->saver, dir);
  steady_read(&rf->start);
}

int result_file_add(struct result_file *rf, struct case_result *r) {
  rf->f.cases = xrealloc(rf->f.cases, (rf->f.ncases + 1) * sizeof *rf->f.cases);
  rf->f.cases[rf->f.ncases++] = *r; /* the file owns it now */
  case_result_init(r);
  if (rf->failed) return -1;
  if (results_run_add(&rf->saver, &rf->f) != 0) {
    rf->failed = 1; /* said once; the rest of the run still runs */
    return -1;
  }
  return 0;
}

int result_file_close(struct result_file *rf) { return result_file_close_keep(rf, NULL, NULL); }

int result_file_close_keep(struct result_file *rf, struct run_file *keep, char **source) {
  struct steady_reading end;
  /* the worker is told to go, not waited for: while it ends it is one more
   * runnable process, which made 5 of 40 quiet cpu_gemm runs "busy" */
  child_reap_ending(1.0);
  steady_read(&end);
  steady_between(&rf->start, &end, &rf->f.env.steady);
  if (rf->finishing) rf->finishing(rf->finishing_arg, &rf->f);
  rf->steady = rf->f.env.steady;
  if (!rf->failed && results_run_finish(&rf->saver, &rf->f) != 0) rf->failed = 1;
  if (source) { /* "<name>.json", the rollup's source column */
    const char *base = rf->saver.base ? strrchr(rf->saver.base, '/') : NULL;
    *source = rf->saver.base ? xasprintf("%s.json", base ? base + 1 : rf->saver.base) : xstrdup("");
  }
  results_run_release(&rf->saver);
  if (keep) {
    *keep = rf->f;
    memset(&rf->f, 0, sizeof rf->f);
  }
  run_file_release(&rf->f);
  return rf->failed ? -1 : 0;
}
