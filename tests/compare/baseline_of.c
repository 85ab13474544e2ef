/* baseline_of [--line-busy] BASELINE FILE...: the "baseline" text bench
 * --baseline BASELINE records on each case of the result file FILE at the
 * file's end (analyze/baseline.h, with the steadiness of FILE's header),
 * one line per case: "PLUGIN PARAMS<tab>TEXT" (PARAMS "-" without
 * parameters). --line-busy: the case's line was judged on a busy machine
 * (as a case that ended during a load spike), then the file's end settles
 * it (baseline_settle): "PLUGIN PARAMS<tab>TEXT<tab>was LINE" where that
 * changed the text. For the test that --baseline, compare, history and
 * report agree on recorded files (t_one_verdict.sh). Exit 0, or 1 after a
 * message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/baseline.h"
#include "core/util.h"
#include "results/io.h"

int main(int argc, char **argv) {
  int first = 1, line_busy = argc > 1 && strcmp(argv[1], "--line-busy") == 0;
  first += line_busy;
  if (argc < first + 2) {
    fprintf(stderr, "usage: baseline_of [--line-busy] BASELINE FILE...\n");
    return 1;
  }
  struct baseline b;
  if (baseline_load(&b, argv[first]) != 0) return 1;
  /* a busy machine: other threads runnable on every CPU */
  const struct run_steady busy = {.known = 1, .wall_s = 1, .others_start = 1, .others_end = 1, .steal = 0};
  int rc = 0;
  for (int a = first + 1; a < argc && rc == 0; a++) {
    struct run_file f;
    char err[512];
    if (results_read_file(argv[a], &f, err, sizeof err) != 0) {
      fprintf(stderr, "baseline_of: %s: %s\n", argv[a], err);
      rc = 1;
      break;
    }
    for (size_t i = 0; i < f.ncases; i++) {
      struct case_result *r = &f.cases[i];
      char *was = NULL;
      if (line_busy) {
        baseline_annotate(&b, r, &busy);
        baseline_settle(&b, r, &f.env.steady, &was);
      } else {
        baseline_annotate(&b, r, &f.env.steady);
      }
      struct strbuf params = STRBUF_INIT;
      for (size_t k = 0; k < r->nparams; k++)
        strbuf_addf(&params, "%s%s=%s", k ? " " : "", r->params[k].key, r->params[k].value);
      printf("%s %s\t%s%s%s\n", r->plugin ? r->plugin : f.plugin, params.buf ? params.buf : "-",
             kv_list_get(r->ninfo, r->info, "baseline"), was ? "\twas " : "", was ? was : "");
      free(was);
      strbuf_release(&params);
    }
    run_file_release(&f);
  }
  baseline_release(&b);
  return rc;
}
