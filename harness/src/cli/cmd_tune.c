/* bench tune: search the tunable parameters of a plugin for each problem
 * case of the preset (and --param / --filter), keep every candidate's
 * measurement and the winner in the tuning cache, which runs then use for
 * tunables at auto. The search itself is run/tune_search.c. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "core/child.h"
#include "core/term.h"
#include "core/util.h"
#include "plan/plan.h"
#include "preset/preset.h"
#include "cases/tunables.h"
#include "plugin/tuning_cache.h"
#include "preset/values.h"
#include "run/tune_device.h"
#include "run/tune_search.h"

/* Every selected plugin must have something to tune: each one that has
 * not is named. 0, or -1. */
static int check_tunables(const struct plan *p) {
  int bad = 0;
  for (size_t i = 0; i < p->nplugins; i++)
    if (!tunables_count(p->plugins[i]->desc))
      bad = error("plugin %s declares no tunable parameters (nothing to tune)", p->plugins[i]->desc->name);
  return bad ? -1 : 0;
}

struct tune_args {
  enum tune_strategy strategy;
  double budget_s;
  size_t random_n;
};

/* What bench tune's command line fills: the run options it shares and its own. */
struct tune_cli {
  struct options o;
  const char *strategy; /* --strategy */
  double budget_s;      /* --budget */
  int random_n;         /* --random */
};

static const char *const strategy_words[] = {"grid", "random", "halving", NULL};

#define O struct tune_cli
static const struct opt tune_options[] = {
    OPT_PLUGIN(O, o.plugins, o.nplugins),
    OPT_PRESET(O, o.preset),
    OPT_PARAM(O, o.params, o.nparams),
    OPT_FILTER(O, o.filters, o.nfilters),
    OPT_CHOICE("strategy", O, strategy, strategy_words,
               "halving (default): race the candidates in rounds of doubling samples, dropping those "
               "whose median's interval lies above the leader's; grid: every candidate to the preset's "
               "noise target; random: grid over the default and a seeded random quarter (--random N)"),
    OPT_CALLBACK("budget", O, budget_s, "DURATION", NULL, opt_cb_budget,
                 "start no new measurement after this long (10m, 90s)"),
    OPT_INT("random", O, random_n, 1, INT_MAX, "N", "with --strategy random: the candidates to try"),
    OPT_TUNING_FILE(O, o.tuning_file),
    OPT_PLUGIN_DIR(O, o.plugin_dirs, o.nplugin_dirs),
    OPT_RESCAN(O, o.rescan),
    OPT_FLAG("verbose", 'v', O, o.verbose, "say more about the plugin scan"),
    OPT_MODE(O, o.debug),
    OPT_END(),
};
#undef O

static const char *const tune_usage[] = {
    "bench tune --plugin P [--preset PRESET] [--param NAME=VALUE]... [--filter EXPR]...",
    "           [--strategy grid|random|halving] [--budget DURATION] [--random N]",
    "           [--tuning-file FILE] [--plugin-dir DIR]...",
    NULL,
};

const struct cmd_spec spec_tune = {
    "tune", "search a plugin's tunable parameters; runs take the winners", tune_usage, NULL,
    "For each problem case of the preset (the plugin's parameters that are not\n"
    "tunable), search its tunable parameters: every candidate's output is checked\n"
    "against the reference (a wrong answer disqualifies it and is listed); the\n"
    "fastest correct candidate wins, and among those SAME to it within the noise\n"
    "the one the plugin declared first (its default first). The finalists, and then\n"
    "the winner and the default, are compared as bench ab does: each in its own\n"
    "worker, interleaved rounds, fresh worker pairs, a paired interval; the winner\n"
    "replaces the default only when FASTER. A sweep axis that is tunable (cpu_gemm's\n"
    "variant) is searched only when given as auto. Every measurement is\n"
    "kept in the tuning cache ($XDG_CACHE_HOME/bench/tuning/DEVICE.tsv, or\n"
    "--tuning-file): Ctrl-C keeps what was measured and a rerun resumes; runs\n"
    "give tunables left at auto the winner.",
    "Exit status: 0 a winner for every problem; 1 a problem without a correct candidate,\n"
    "or the cache could not be written; 2 usage; 130 interrupted (measurements kept).\n",
    tune_options, PARSE_NO_ARGS,
};

/* -1 on bad usage, 1 after --help, 0 to go on; o is to be released either way. */
static int tune_parse(int argc, char **argv, struct options *o, struct tune_args *a) {
  struct tune_cli cli;
  memset(&cli, 0, sizeof cli);
  cli.o.isolation = -1;
  cli.o.preset = "standard";
  cli.o.results_dir = "results";
  cli.strategy = "halving";
  int nargs, rc = parse_options(&spec_tune, argc, argv, &cli, &nargs);
  *o = cli.o;
  if (rc != 0) return rc;
  if (tune_strategy_parse(cli.strategy, &a->strategy) != 0) return -1;
  a->budget_s = cli.budget_s;
  a->random_n = (size_t)cli.random_n;
  if (o->nplugins == 0) return usage_error(&spec_tune, "bench tune needs --plugin P");
  return 0;
}

static void print_outcome(const char *plugin, const char *problem, const struct tune_outcome *r) {
  printf("%s %s: ", term_str(plugin), term_str(problem));
  if (!r->winner) {
    printf("no correct candidate (%zu tried)\n", r->tried);
  } else {
    printf("winner %s %.4g us [%.4g, %.4g]", term_str(r->winner), r->winner_ns / 1e3, r->winner_lo / 1e3,
           r->winner_hi / 1e3);
    if (r->unproven)
      printf("; the best measured, %s (%.4g us), was not compared with it before the budget ran out: "
             "nothing installed, runs keep the default (a rerun with a larger --budget resumes and compares them)",
             term_str(r->challenger), r->challenger_ns / 1e3);
    else if (r->versus && r->kept_default && strcmp(r->versus_verdict, "FAILED") == 0)
      printf("; the best, %s, could not be compared with it: the default kept", term_str(r->challenger));
    else if (r->versus && r->kept_default)
      printf("; the best, %s, against it: %.3fx [%.3f, %.3f] %s: the default kept", term_str(r->challenger),
             r->speedup, r->speedup_lo, r->speedup_hi, r->versus_verdict);
    else if (r->versus)
      printf(", speedup over the default %s %.3fx [%.3f, %.3f] FASTER", term_str(r->default_label),
             r->speedup, r->speedup_lo, r->speedup_hi);
    if (r->versus)
      printf(" (paired: %zu rounds, %zu pairs)", r->versus_rounds, r->versus_pairs);
    else if (r->default_ns > 0 && strcmp(r->winner, r->default_label) != 0)
      printf(", default %s %.4g us", term_str(r->default_label), r->default_ns / 1e3);
    printf("\n");
  }
  printf("  %zu of %zu candidates tried (%zu measured now), %zu disqualified, %zu skipped, %.1f s%s%s\n",
         r->tried, r->candidates, r->measured_now, r->disqualified + r->failed, r->skipped, r->wall_s,
         r->interrupted ? " (interrupted: measurements kept, rerun to resume)" : "",
         r->out_of_budget ? " (budget spent: the pick is among those measured)" : "");
  if (r->final_cmp)
    printf("  finalists: %zu compared with the leader through bench ab's driver (%zu rounds, %zu pairs)\n",
           r->final_cmp, r->final_rounds, r->final_pairs);
  if (r->disq_list) printf("  disqualified: %s\n", term_str(r->disq_list));
  if (r->skip_list) printf("  cannot run here: %s\n", term_str(r->skip_list));
  fflush(stdout);
}

/* The problems of one plugin: its cases, each key once. */
static int tune_plugin(const struct plugin *pl, const struct case_list *cases, size_t pi,
                       const struct preset *preset, const struct options *o,
                       const struct tune_args *a, double deadline, int *no_winner) {
  struct tune_device dev;
  char reason[300];
  int rc = tune_device_probe(pl, preset->policy.timeout_s, o->debug, &dev, reason, sizeof reason);
  if (rc == BENCH_SKIP) { /* no device: SKIPPED, as its cases are in a run */
    printf("bench tune: %s SKIPPED: %s (nothing tuned)\n", term_str(pl->desc->name), term_str(reason));
    fflush(stdout);
    return 0;
  }
  if (rc != BENCH_OK)
    return error("plugin %s cannot run here: %s", pl->desc->name, reason);
  char *path = o->tuning_file ? xstrdup(o->tuning_file) : tuning_cache_default_path(dev.name);
  if (!path) {
    tune_device_release(&dev);
    return error("no tuning cache folder (neither XDG_CACHE_HOME nor HOME is set): use --tuning-file");
  }
  /* the device name comes from a driver through the plugin, the path from the user: escaped */
  printf("bench tune: %s on %s, strategy %s, cache %s\n", term_str(pl->desc->name), term_str(dev.name),
         tune_strategy_name(a->strategy), term_str(path));
  fflush(stdout);
  char **done = NULL;
  size_t ndone = 0;
  int status = 0;
  for (size_t k = 0; k < cases->n && !child_interrupted(); k++) {
    const struct case_def *c = &cases->cases[k];
    if (c->plugin_index != pi) continue;
    char *key = tuning_key(dev.key, pl->desc->name, pl->sha256, c);
    int seen = 0;
    for (size_t i = 0; i < ndone; i++) seen |= strcmp(done[i], key) == 0;
    if (seen) {
      free(key);
      continue;
    }
    done = grow_for_one(done, ndone, sizeof *done);
    done[ndone++] = key;
    struct tune_opts to = {a->strategy, &preset->policy, deadline, a->random_n, path, key,
                           o->debug, stdout};
    struct tune_outcome res;
    const char *problem = strchr(key, '|') ? strrchr(key, '|') + 1 : key;
    if (tune_problem(pl, c, &to, &res) != 0) status = -1;
    print_outcome(pl->desc->name, problem, &res);
    if (!res.winner && !res.interrupted) *no_winner = 1;
    tune_outcome_release(&res);
  }
  for (size_t i = 0; i < ndone; i++) free(done[i]);
  free(done);
  free(path);
  tune_device_release(&dev);
  return status;
}

int cmd_tune(int argc, char **argv) {
  struct tune_args a = {0};
  struct options o;
  int exit_code = EXIT_USAGE;
  struct plan plan;
  memset(&plan, 0, sizeof plan);
  int rc = tune_parse(argc, argv, &o, &a);
  if (rc != 0) {
    exit_code = rc > 0 ? EXIT_OK : EXIT_USAGE;
    goto out;
  }
  struct plan_request rq = {
      .preset = o.preset, .plugins = o.plugins, .nplugins = o.nplugins,
      .plugin_dirs = o.plugin_dirs, .nplugin_dirs = o.nplugin_dirs,
      .params = o.params, .nparams = o.nparams, .filters = o.filters, .nfilters = o.nfilters,
      .rescan = o.rescan, .verbose = o.verbose};
  child_install_signal_handlers(); /* a signal from here on is said (cmd_interrupted_early) */
  if (plan_load(&rq, &plan) != 0 || check_tunables(&plan) != 0 || plan_cases(&rq, &plan) != 0 ||
      child_interrupted()) {
    if (child_interrupted()) exit_code = cmd_interrupted_early();
    goto out;
  }
  const double deadline = a.budget_s > 0 ? now_s() + a.budget_s : 0;
  int failed = 0, no_winner = 0;
  for (size_t i = 0; i < plan.nplugins && !child_interrupted(); i++)
    if (tune_plugin(plan.plugins[i], &plan.cases, i, &plan.preset, &o, &a, deadline, &no_winner) != 0)
      failed = 1;
  child_kill_descendants(NULL, 0);
  exit_code = child_interrupted() ? EXIT_INTERRUPTED : failed || no_winner ? EXIT_FAILED : EXIT_OK;
  if (child_interrupted())
    printf("bench tune: interrupted; the measurements so far are in the cache (rerun to resume)\n");
out:
  plan_release(&plan);
  options_release(&o);
  return exit_code;
}
