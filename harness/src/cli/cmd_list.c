/* bench --list: every plugin found, whether it can run here, and why not.
 * --format tsv: for scripts, one line per plugin, tab-separated: name,
 * backend, operation, the parameter names as a comma list (empty when
 * none); nothing is probed. Everything a plugin wrote (names, descriptions,
 * choices, defaults, skip reasons) is printed escaped (term.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cases/tunables.h"
#include "plan/plan.h"
#include "plugin/probe_cache.h"
#include "preset/preset.h"
#include "run/runner.h"
#include "core/child.h"
#include "core/term.h"
#include "core/util.h"

#define PROBE_TIMEOUT_S 30.0
/* The status column ("runnable", or "not runnable: " and the reason,
 * wrapped within it), so that the descriptions line up after it. */
#define STATUS_WIDTH 46

/* Columns of the first n bytes of s (UTF-8 characters). */
static size_t term_width_n(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) w++;
  return w;
}

/* "name  backend  status  description": on a terminal the status wrapped
 * in its column, the description in what is left of the terminal's width
 * (term_columns); the status column narrows, down to a third of what the
 * name and backend leave, where the terminal is narrow; elsewhere one line
 * per plugin, the columns padded. */
static void print_row(const char *name, int wname, const char *backend, int wback, const char *status,
                      const char *description, int wrap) {
  if (!wrap) { /* a pipe or a file: one line per plugin, for grep and scripts */
    int pad = STATUS_WIDTH - (int)term_width_n(status, strlen(status));
    printf("%-*s  %-*s  %s%*s  %s\n", wname, name, wback, backend, status, pad > 0 ? pad : 0, "", description);
    return;
  }
  int avail = term_columns(STDOUT_FILENO) - (wname + 2 + wback + 2) - 2; /* status and description */
  int wstatus = STATUS_WIDTH;
  if (avail - wstatus < 40) wstatus = avail - 40 > avail / 3 ? avail - 40 : avail / 3;
  if (wstatus < 8) wstatus = 8;
  int wdesc = avail - wstatus > 8 ? avail - wstatus : 8;
  const char *st = status, *de = description;
  int first = 1;
  while (first || *st || *de) {
    const char *st_next, *de_next;
    size_t ns = term_wrap_piece(st, (size_t)wstatus, &st_next);
    size_t nd = term_wrap_piece(de, (size_t)wdesc, &de_next);
    int pad = wstatus - (int)term_width_n(st, ns);
    printf("%-*s  %-*s  %.*s", wname, first ? name : "", wback, first ? backend : "", (int)ns, st);
    if (nd) printf("%*s  %.*s", pad > 0 ? pad : 0, "", (int)nd, de);
    printf("\n");
    st = st_next;
    de = de_next;
    first = 0;
  }
}

static const char *type_name(enum bench_param_type t) {
  switch (t) {
  case BENCH_PARAM_INT: return "int";
  case BENCH_PARAM_FLOAT: return "float";
  case BENCH_PARAM_STRING: return "string";
  }
  return "?";
}

static void print_params(const struct bench_plugin *p) {
  for (const struct bench_param *q = p->params; q->name; q++) {
    printf("    %-12s %-6s", term_str(q->name), type_name(q->type));
    if (q->choices) printf(" {%s}", term_str(q->choices));
    if ((q->min != 0 || q->max != 0) && q->type == BENCH_PARAM_INT)
      printf(" [%lld, %lld]", (long long)q->min, (long long)q->max); /* integers as integers */
    else if (q->min != 0 || q->max != 0)
      printf(" [%g, %g]", q->min, q->max);
    if (q->zip) printf(" zip %d", q->zip);
    printf("  %s\n", q->description ? term_str(q->description) : "");
    printf("    %-12s        defaults:", "");
    for (int t = 0; t < BENCH_TIER_COUNT; t++)
      printf(" %s=%s", tier_name((enum bench_tier)t), q->defaults[t] ? term_str(q->defaults[t]) : "(standard)");
    printf("\n");
    if (q->tunable) { /* 1.4: bench tune searches it; runs leave it at auto */
      struct param_values pv;
      char err[200];
      printf("    %-12s        tunable (auto): candidates", "");
      if (tunable_candidates(q, BENCH_TIER_STANDARD, &pv, err, sizeof err) == 0) {
        for (size_t i = 0; i < pv.n; i++) printf("%s%s", i ? "," : " ", term_str(pv.v[i].text));
        param_values_release(&pv);
      }
      printf("\n");
    }
  }
}

/* One --format tsv line. */
static void print_tsv(const struct bench_plugin *p) {
  printf("%s\t%s\t%s\t", term_str(p->name), term_str(p->backend), term_str(p->operation ? p->operation : ""));
  for (const struct bench_param *q = p->params; q && q->name; q++)
    printf("%s%s", q == p->params ? "" : ",", term_str(q->name));
  printf("\n");
}

int cmd_list(const struct options *o) {
  int tsv = o->format && strcmp(o->format, "tsv") == 0;
  if (tsv && o->verbose) {
    error("--format tsv and --verbose do not go together (tsv names the parameters)");
    return EXIT_USAGE;
  }
  struct plan plan;
  struct plan_request rq = {.plugins = o->plugins, .nplugins = o->nplugins, .plugin_dirs = o->plugin_dirs,
                            .nplugin_dirs = o->nplugin_dirs, .rescan = o->rescan, .verbose = o->verbose,
                            .allow_none = 1};
  if (plan_load(&rq, &plan) != 0) {
    plan_release(&plan);
    return EXIT_USAGE;
  }
  const struct plugin **sel = plan.plugins;
  size_t nsel = plan.nplugins;
  if (tsv) {
    for (size_t i = 0; i < nsel; i++) print_tsv(sel[i]->desc);
    if (nsel == 0) fprintf(stderr, "bench: no plugins found (see --plugin-dir and BENCH_PLUGIN_PATH)\n");
    fflush(stdout);
    plan_release(&plan);
    return EXIT_OK;
  }
  size_t wname = 4, wback = 7;
  for (size_t i = 0; i < nsel; i++) {
    if (strlen(term_str(sel[i]->desc->name)) > wname) wname = strlen(term_str(sel[i]->desc->name));
    if (strlen(term_str(sel[i]->desc->backend)) > wback) wback = strlen(term_str(sel[i]->desc->backend));
  }
  /* Verdicts are cached for this boot and environment (probe_cache.h);
   * --mode debug (the validation layer) always asks. */
  struct probe_cache pc;
  probe_cache_load(&pc);
  for (size_t i = 0; i < nsel; i++) {
    const struct bench_plugin *p = sel[i]->desc;
    char reason[512];
    char *cached = NULL;
    int rc;
    if (!o->debug && probe_cache_get(&pc, sel[i], &rc, &cached)) {
      snprintf(reason, sizeof reason, "%s", cached);
      free(cached);
    } else {
      rc = probe_in_child(sel[i], PROBE_TIMEOUT_S, o->debug, reason, sizeof reason);
      if (!o->debug && !child_interrupted()) probe_cache_put(&pc, sel[i], rc, reason);
    }
    int ok = rc == BENCH_OK;
    char *status = !ok ? xasprintf("not runnable: %s", reason)
                   : *reason ? xasprintf("runnable on %s", reason) : xstrdup("runnable");
    print_row(term_str(p->name), (int)wname, term_str(p->backend), (int)wback, term_str(status),
              term_str(p->description), isatty(STDOUT_FILENO));
    free(status);
    if (o->verbose) {
      printf("    file: %s\n", term_str(sel[i]->path));
      print_params(p);
    }
  }
  probe_cache_save(&pc);
  probe_cache_release(&pc);
  if (nsel == 0) fprintf(stderr, "bench: no plugins found (see --plugin-dir and BENCH_PLUGIN_PATH)\n");
  fflush(stdout);
  plan_release(&plan);
  return EXIT_OK;
}
