/* bench ab OLD NEW: two builds of the same plugins measured in one
 * interleaved run (run/ab_run.h), case by case, with the verdict words,
 * thresholds, --fail-on and exit codes of bench compare. The suite (pairing,
 * verdicts, result files) is run/ab_suite.h's; here the options and what is
 * printed as it goes. Each side's cases
 * are saved as ordinary result files tagged old and new (so compare,
 * history and report read them); the new side's results carry the rounds
 * and the paired verdict in their info (ab_*). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/compare_case.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "core/child.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"
#include "core/version.h"
#include "plan/plan.h"
#include "results/io.h"
#include "run/ab_run.h"
#include "run/ab_suite.h"
#include "run/ab_words.h"

struct ab_cli {
  const char *old_dir, *new_dir;
  const char *preset;
  const char **plugins, **params, **filters;
  size_t nplugins, nparams, nfilters;
  const char *results_dir;
  double threshold;
  unsigned fail_on;
  const char *format; /* --format text|md */
  int md;
  struct ab_opts ab;
  struct sampling_overrides sampling; /* --warmup, --max-time: what ab's policy uses */
  const char *label[2];               /* --old-label, --new-label (NULL: run/env.h's default) */
};

static int seed_cb(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  char *end;
  unsigned long long v = strtoull(arg, &end, 10);
  if (!*arg || *end || v == 0 || *arg == '-') return usage_error(cmd, "--seed takes a whole number > 0, not '%s'", arg);
  *(uint64_t *)field = v;
  return 0;
}

static const char *const ab_formats[] = {"text", "md", NULL};

#define O struct ab_cli
static const struct opt ab_options[] = {
    OPT_PRESET(O, preset),
    OPT_PLUGIN(O, plugins, nplugins),
    OPT_PARAM(O, params, nparams),
    OPT_FILTER(O, filters, nfilters),
    OPT_THRESHOLD(O, threshold),
    OPT_FAIL_ON(O, fail_on),
    OPT_INT("rounds-per-pair", O, ab.rounds_per_pair, 1, 1000000, "N",
            "rounds before fresh workers (at least; default 4)"),
    OPT_INT("min-pairs", O, ab.min_pairs, 2, 1000000, "N", "worker pairs before an early stop (default 6)"),
    OPT_CALLBACK("seed", O, ab.seed, "N", NULL, seed_cb, "the sides' order in the rounds (default: random)"),
    OPT_WARMUP(O, sampling),
    OPT_MAX_TIME(O, sampling),
    OPT_CALLBACK("old-label", O, label[0], "TEXT", NULL, opt_cb_label,
                 "name the OLD build in its result files (default: the short git commit of the "
                 "plugin's work tree, else the run's start time); history, report and compare select "
                 "runs by it"),
    OPT_CALLBACK("new-label", O, label[1], "TEXT", NULL, opt_cb_label,
                 "name the NEW build in its result files (the default as --old-label's)"),
    OPT_RESULTS_DIR(O, results_dir),
    OPT_FORMAT(O, format, ab_formats, "terminal table as text (default) or Markdown"),
    OPT_END(),
};
#undef O

static const char *const ab_usage[] = {"bench ab OLD NEW [options]", NULL};

const struct cmd_spec spec_ab = {
    "ab", "two builds of the same plugins measured in one interleaved run", ab_usage, NULL,
    "Measure two builds of the same plugins in one interleaved run: for each case an\n"
    "old and a new worker (never running at once) take short blocks of samples in\n"
    "rounds (the order alternating from a random start); the verdict comes from\n"
    "the rounds' paired log-ratios new/old of block medians (device time when both\n"
    "sides report it), with the worker pair as the unit (a fresh pair every\n"
    "--rounds-per-pair rounds).\n"
    "OLD and NEW are plugin folders or single .so files; plugins pair by name, cases\n"
    "by parameters (one side only: MISSING or NEW). The preset is the sampling policy:\n"
    "its max_time is the wall budget of one case, its warm-up that of each worker.",
    "Verdicts: SAME (95% interval within 1 +- threshold), FASTER/SLOWER (wholly\n"
    "outside it, signed-rank test p < 0.05), NOISY; a case stops early once its\n"
    "interval decides (after --min-pairs pairs), each early look at 1 - 2%/L (L the\n"
    "looks that fit in max_time: the looks are paid for), else at max_time with the\n"
    "95% interval.\n"
    "A failed NEW side is WRONG_ANSWER, CRASH, TIMEOUT, ERROR (no ratio); FIXED when\n"
    "only OLD failed.\n"
    "\n"
    "Exit status: 0 no regression; 1 a case in --fail-on; 2 usage; 130 interrupted.\n",
    ab_options, PARSE_PERMUTE,
};

/* -1 on bad usage, 1 after --help, 0 to go on. */
static int parse(int argc, char **argv, struct ab_cli *o) {
  memset(o, 0, sizeof *o);
  o->preset = "standard";
  o->results_dir = "results";
  o->threshold = COMPARE_DEFAULT_THRESHOLD;
  o->fail_on = FAIL_SLOWER | FAIL_WRONG;
  o->format = "text";
  o->ab.rounds_per_pair = 4;
  o->ab.min_pairs = 6;
  o->ab.seed = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
  int nargs, rc = parse_options(&spec_ab, argc, argv, o, &nargs);
  if (rc != 0) return rc;
  if (nargs != 2) return usage_error(&spec_ab, "bench ab takes two plugin folders or .so files, OLD and NEW");
  o->old_dir = argv[0];
  o->new_dir = argv[1];
  o->md = strcmp(o->format, "md") == 0;
  o->ab.threshold = o->threshold;
  return 0;
}

/* Discover, select and expand one side. 0, or -1 after error(). */
static int side_load(struct plan *s, const char *what, const char *dir, const struct ab_cli *o) {
  struct stat st;
  if (stat(dir, &st) != 0 || (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)))
    return error("%s '%s': no such folder or .so file", what, term_str(dir));
  struct plan_request rq = {.preset = o->preset, .side = dir, .plugins = o->plugins, .nplugins = o->nplugins,
                            .params = o->params, .nparams = o->nparams, .filters = o->filters,
                            .nfilters = o->nfilters, .sampling = &o->sampling};
  return plan_build(&rq, s);
}

/* One Markdown table row of the seven columns, a one-row table rendered
 * without its titles (cmd_ab prints them once). The plugin, case and
 * verdict cells (names and messages from plugins) are escaped, so a '|' in
 * them cannot split the row; the others are bench's own text. bold: the
 * plugin name in bold (a closing row). */
static void md_row(const char *plugin, int bold, const char *label, const char *ot, const char *nt, const char *ratio,
                   const char *verdict, const char *rounds) {
  static const char *const titles[] = {"plugin", "case", "old", "new", "new/old [95% CI]", "verdict", "rounds"};
  const char *text[] = {plugin, label, ot, nt, ratio, verdict, rounds};
  char *cells[7];
  for (int c = 0; c < 7; c++) cells[c] = xstrdup(text[c]);
  struct text_table t;
  table_init(&t, 7, titles, NULL);
  t.rows_only = 1;
  table_add_row(&t, cells);
  if (bold) table_set_flags(&t, 0, 0, CELL_STRONG);
  for (int c = 2; c < 7; c++)
    if (c != 5) table_set_flags(&t, 0, (size_t)c, CELL_OWN);
  char *row = table_render(&t, TABLE_MD, 0);
  fputs(row, stdout);
  free(row);
  table_release(&t);
  fflush(stdout);
}

/* A plugin or case on one side only: MISSING (in OLD only) or NEW. */
static void print_one_sided(void *arg, const char *plugin, const char *label, int k, enum verdict v) {
  const struct ab_cli *o = arg;
  const char *where = v == V_MISSING ? "in OLD only" : "in NEW only";
  if (o->md) {
    char *what = xasprintf("%s %s", label ? "case" : "plugin", where);
    md_row(plugin, 0, label ? label : "(all cases)", "-", "-", "-", verdict_name(v), what);
    free(what);
  } else if (!label) {
    printf("%s: %s (%s)\n", term_str(plugin), verdict_name(v), where);
  } else if (v == V_NEW) {
    printf("[%d] %s %s: NEW (case %s)\n", k, term_str(plugin), term_str(label), where);
  } else {
    printf("    %s %s: MISSING (case %s)\n", term_str(plugin), term_str(label), where);
  }
  fflush(stdout);
}

static void print_row(void *arg, const char *plugin, const char *label, int k, int total, const struct ab_case *c,
                      enum verdict v) {
  const struct ab_cli *o = arg;
  char ratio[96] = "-", rounds[96] = "";
  /* the levels of the paired estimate: new/old is the ratio shown */
  double old_ns, new_ns;
  ab_levels(c, &old_ns, &new_ns);
  char *ot = fmt_time_ns_fixed(old_ns), *nt = fmt_time_ns_fixed(new_ns);
  if (c->timed) {
    char lv[16], level[24] = "";
    if (c->level > 0.95) snprintf(level, sizeof level, " (%s)", ab_level_text(c->level, lv));
    if (isfinite(c->est.hi))
      snprintf(ratio, sizeof ratio, "%.4f [%.4f, %.4f]%s", c->est.ratio, c->est.lo, c->est.hi, level);
    else
      snprintf(ratio, sizeof ratio, "%.4f [one pair: no interval]", c->est.ratio);
  }
  snprintf(rounds, sizeof rounds, "%zu rounds, %d pairs%s%s, %.1f s", c->nrounds, c->pairs,
           c->timed && c->early ? ", stopped early" : "", c->timed && c->device ? ", device time" : "",
           c->wall_s);
  const char *why = NULL;
  if (verdict_is_failure(v)) why = c->new_.r.message;
  else if (v == V_FIXED) why = c->old.r.message;
  if (o->md) {
    /* a failure's message goes into the verdict cell: a row stays a row */
    char *verdict = why ? xasprintf("%s: %s", verdict_name(v), why) : xstrdup(verdict_name(v));
    md_row(plugin, 0, label, ot, nt, ratio, verdict, rounds);
    free(verdict);
  } else {
    printf("[%d/%d] %s %s: old %s, new %s, new/old %s  %s  (%s)\n", k, total, term_str(plugin),
           term_str(label), ot, nt, ratio, verdict_name(v), rounds);
    if (why) printf("      %s\n", term_str(why));
  }
  free(ot);
  free(nt);
  fflush(stdout);
}

/* The closing line of a plugin in words; in Markdown a row of the table
 * (the words under new/old, the counts under verdict). */
static void closing_line(void *arg, const char *plugin, const struct ab_tally *t) {
  const struct ab_cli *o = arg;
  struct strbuf words = {0}, counts = {0};
  if (t->timed == 1) {
    /* one case: its estimate in the words of its verdict */
    char *w = ab_words(&t->one, t->level, t->one_verdict, o->threshold);
    strbuf_adds(&words, w);
    free(w);
  } else if (t->timed > 0) {
    double g = exp(t->logsum / t->timed);
    /* a summary of ratios, not a verdict: the counts that follow are those */
    strbuf_addf(&words, "the geometric mean of the %d cases' new/old: %.1f%% %s", t->timed, fabs(g - 1) * 100,
                g >= 1 ? "slower" : "faster");
  } else {
    strbuf_adds(&words, "no case was timed on both sides");
  }
  const char *sep = "";
  for (int v = 0; v < V_COUNT; v++)
    if (t->n[v]) {
      strbuf_addf(&counts, "%s%d %s", sep, t->n[v], verdict_name((enum verdict)v));
      sep = ", ";
    }
  if (o->md) {
    md_row(plugin, 1, "(all cases)", "", "", words.buf, counts.buf ? counts.buf : "", "");
  } else {
    printf("%s: %s%s%s\n", term_str(plugin), words.buf, counts.buf ? ": " : "", counts.buf ? counts.buf : "");
  }
  strbuf_release(&words);
  strbuf_release(&counts);
}

int cmd_ab(int argc, char **argv) {
  struct ab_cli o;
  int rc = parse(argc, argv, &o);
  if (rc != 0) {
    free(o.plugins);
    free(o.params);
    free(o.filters);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  struct plan S[2];
  memset(S, 0, sizeof S);
  int exit_code = EXIT_USAGE;
  /* From here a signal is a flag: one before the first case is said
   * (cmd_interrupted_early), not a silent death. */
  child_install_signal_handlers();
  if (side_load(&S[0], "OLD", o.old_dir, &o) != 0 || side_load(&S[1], "NEW", o.new_dir, &o) != 0) {
    if (child_interrupted()) exit_code = cmd_interrupted_early();
    goto out;
  }
  {
    struct stat a, b;
    if (stat(o.old_dir, &a) == 0 && stat(o.new_dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
      warning("OLD and NEW are one %s ('%s'): each plugin is measured against itself", S_ISDIR(a.st_mode) ? "folder" : "file",
              term_str(o.old_dir));
  }
  if (S[0].nplugins == 0 && S[1].nplugins == 0) {
    error("no plugins selected in '%s' or '%s'", term_str(o.old_dir), term_str(o.new_dir));
    goto out;
  }
  {
    const char *tags[2] = {"old", "new"};
    for (int s = 0; s < 2; s++) {
      const char **names = plan_plugin_names(&S[s]);
      rc = results_check_dir(o.results_dir, names, S[s].nplugins, S[s].preset.name, tags[s]);
      free(names);
      if (rc != 0) goto out;
    }
  }
  if (child_interrupted()) {
    exit_code = cmd_interrupted_early();
    goto out;
  }
  o.ab.max_time_s = S[1].preset.policy.max_time_s;
  exit_code = EXIT_OK;
  char *overridden = sampling_overrides_text(&o.sampling);
  printf("bench %s ab: %s (old) against %s (new), preset %s%s%s%s, threshold %.3g%%, max %.3g s per case\n",
         bench_version(), term_str(o.old_dir), term_str(o.new_dir), term_str(S[1].preset.name),
         *overridden ? " (overridden: " : "", term_str(overridden), *overridden ? ")" : "", o.threshold * 100,
         o.ab.max_time_s);
  free(overridden);
  if (o.md) {
    printf("| plugin | case | old | new | new/old [95%% CI] | verdict | rounds |\n");
    printf("|---|---|---|---|---|---|---|\n");
  }
  struct ab_suite_opts so = {.results_dir = o.results_dir, .fail_on = o.fail_on, .ab = o.ab, .argc = argc,
                              .argv = argv, .label = {o.label[0], o.label[1]}};
  struct ab_observer obs = {&o, print_one_sided, print_row, closing_line};
  if (ab_suite_run(&S[0], &S[1], &so, &obs) != 0) exit_code = EXIT_FAILED;
  if (child_interrupted()) exit_code = EXIT_INTERRUPTED;
out:
  plan_release(&S[0]);
  plan_release(&S[1]);
  free(o.plugins);
  free(o.params);
  free(o.filters);
  return exit_code;
}
