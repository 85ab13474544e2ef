/* What saving costs per case as a run grows: N cases of a realistic size
 * (100 samples each) saved one after the other into DIR, the way bench run
 * saves them; prints the time of the save after case 1, 1000, 2000, ...
 * (mean of 10 saves around it) and the total.
 *   save_overhead N DIR [rewrite|journal]
 * rewrite: results_save of the whole run file after each case (bench before
 * the journal); journal: results_run_add per case and results_run_finish at
 * the end (bench now). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/io.h"

static void fill_case(struct case_result *r, int index) {
  case_result_init(r);
  r->plugin = xstrdup("cpu_noop");
  r->backend = xstrdup("cpu");
  r->operation = xstrdup("noop");
  char v[32];
  snprintf(v, sizeof v, "%d", index);
  kv_list_add(&r->nparams, &r->params, "n", v);
  kv_list_add(&r->nparams, &r->params, "variant", "plain");
  r->index = index;
  r->exit_code = 0;
  r->wall_s = 0.05;
  r->batch = 1;
  r->nsamples = 100;
  r->host_clock_ns = xmalloc(r->nsamples * sizeof *r->host_clock_ns);
  for (size_t i = 0; i < r->nsamples; i++) r->host_clock_ns[i] = 1000.0 + (double)((i * 7919) % 113) / 7.0;
  stats_compute(r->host_clock_ns, r->nsamples, &r->host_clock);
  r->settled = 1;
  r->target_noise = 0.01;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: save_overhead N DIR [rewrite|journal]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  const char *dir = argv[2];
  const char *mode = argc > 3 ? argv[3] : "journal";
  int journal = strcmp(mode, "journal") == 0;
  struct run_file f;
  memset(&f, 0, sizeof f);
  f.env.date = xstrdup("2026-11-24");
  f.env.hostname = xstrdup("bench-host");
  f.env.preset = xstrdup("save-overhead");
  f.env.tag = xstrdup(mode);
  f.plugin = xstrdup("cpu_noop");
  f.cases = xcalloc((size_t)n, sizeof *f.cases);
  double *cost = xcalloc((size_t)n, sizeof *cost);
  char *base = NULL;
  struct results_run w;
  results_run_init(&w, dir);
  double t0 = now_s();
  for (int i = 0; i < n; i++) {
    fill_case(&f.cases[f.ncases++], i);
    double t = now_s();
    int rc = journal ? results_run_add(&w, &f) : results_save(dir, &f, &base);
    cost[i] = now_s() - t;
    if (rc) return 1;
  }
  double tf = now_s();
  if (journal && results_run_finish(&w, &f)) return 1;
  double finish = now_s() - tf, total = now_s() - t0;
  printf("mode %s, %d cases:", mode, n);
  for (int at = 1; at <= n; at = at == 1 ? 1000 : at + 1000) {
    int lo = at - 5 < 1 ? 1 : at - 5, hi = at + 4 > n ? n : at + 4;
    double sum = 0;
    for (int k = lo; k <= hi; k++) sum += cost[k - 1];
    printf(" case %d %.2f ms;", at, 1e3 * sum / (hi - lo + 1));
  }
  double worst = 0;
  for (int i = 0; i < n; i++) worst = cost[i] > worst ? cost[i] : worst;
  printf(" worst %.1f ms; finish %.1f ms; total %.2f s (%.2f ms per case)\n", 1e3 * worst,
         1e3 * finish, total, 1e3 * total / n);
  results_run_release(&w);
  run_file_release(&f);
  free(cost);
  free(base);
  return 0;
}
