/* bench [--preset P] [--plugin X]...: run the selected plugins' cases under a
 * preset, each in its own child, and keep every result as it comes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/baseline.h"
#include "analyze/roofs.h"
#include "cli/commands.h"
#include "core/child.h"
#include "core/progress.h"
#include "core/term.h"
#include "core/util.h"
#include "core/version.h"
#include "plan/plan.h"
#include "results/export.h"
#include "results/io.h"
#include "results/run_summary.h"
#include "run/eta.h"
#include "run/events.h"
#include "run/live_server.h"
#include "run/result_file.h"
#include "run/steady.h"
#include "run/run_lines.h"
#include "run/runner.h"
#include "run/tune_apply.h"

/* Everything one run holds. */
struct suite {
  const struct options *opt;
  struct plan plan;              /* preset, selected plugins in run order, cases */
  struct events events;
  struct live_server live;       /* --serve's bench serve */
  struct progress progress;
  struct run_lines lines;        /* the per-case lines */
  FILE *out;                     /* human-readable per-case lines */
  double t0;
  int total, done, failed, skipped;
  /* the case running now, for heartbeats */
  const char *cur_plugin;
  const char *cur_label;
  char *cur_shown;               /* ... as its line names it (the PROGRESS line's) */
  int cur_shown_printed;         /* a PROGRESS line named it so (not a terminal: a whole line) */
  double cur_t0;                 /* when it began */
  int cur_index;
  struct baseline *baseline;     /* --baseline, or NULL */
  enum isolation isolation;      /* which cases share a worker process */
  struct run_summary summary;    /* what the end of the run reports */
  struct eta eta;                /* per-plugin history of case lengths */
  size_t cur_plugin_index;
  struct run_policy run_pol;     /* the policy the workers get: ticks every second on a terminal */
  double next_heartbeat;         /* when the next HEARTBEAT event is due (elapsed s) */
  const struct run_hooks *hooks; /* a command built on the run (bench peak), or NULL */
  int exporting;                 /* --export-json/-csv/-md: the files are kept for it */
  struct run_export exports;
};

/* The preset's guess for a case never seen: warm-up, the sampling time
 * limit and the process start. */
static double policy_case_s(const struct suite *s) {
  const struct run_policy *p = &s->plan.preset.policy;
  return p->warmup_s + p->max_time_s + 0.5;
}

/* The running case's progress after elapsed seconds: its fraction and ETA,
 * the run's. */
struct case_progress {
  double frac, case_eta, suite_frac, eta;
};

static struct case_progress case_progress(struct suite *s, double elapsed) {
  struct case_progress cp;
  double est = eta_case_expected(&s->eta, s->cur_plugin_index);
  cp.frac = elapsed / (est > 0 ? est : 1);
  if (cp.frac > 0.99) cp.frac = 0.99;
  cp.case_eta = est - elapsed > 0 ? est - elapsed : -1;
  cp.suite_frac = (s->done + cp.frac) / (s->total ? s->total : 1);
  cp.eta = eta_suite(&s->eta, elapsed);
  return cp;
}

/* The PROGRESS line of the running case after elapsed seconds (force:
 * progress_show_case's). */
static int show_progress(struct suite *s, double elapsed, int force) {
  struct case_progress cp = case_progress(s, elapsed);
  return progress_show_case(&s->progress, cp.suite_frac * 100, s->done, s->total, s->cur_shown, cp.eta, elapsed,
                            cp.case_eta, force);
}

static void heartbeat(void *arg, double elapsed) {
  struct suite *s = arg;
  /* Ticks come every second on a terminal; the events keep the preset's
   * heartbeat interval. */
  double every = s->plan.preset.policy.heartbeat_s;
  if (elapsed + 1e-3 >= s->next_heartbeat) {
    struct case_progress cp = case_progress(s, elapsed);
    events_heartbeat(&s->events, s->cur_plugin, s->cur_label, s->cur_index, elapsed, cp.frac * 100,
                     cp.case_eta, cp.suite_frac * 100, cp.eta);
    s->next_heartbeat += every;
    if (s->next_heartbeat <= elapsed) s->next_heartbeat = elapsed + every;
  }
  show_progress(s, elapsed, 0);
}

/* The plugin being run: its result file and where its cases are. */
struct plugin_pass {
  struct suite *s;
  const struct plugin *pl;
  size_t first;        /* suite index of its first case */
  struct result_file rf;
  char *label;         /* of the case running now */
};

static void case_begins(void *arg, size_t k) {
  struct plugin_pass *pp = arg;
  struct suite *s = pp->s;
  const struct case_def *c = &s->plan.cases.cases[pp->first + k];
  int index = (int)(pp->first + k);
  free(pp->label);
  pp->label = case_label(c);
  struct case_result id;
  case_identity(&id, pp->pl, c, index);
  events_test_start(&s->events, &id, pp->label, index, s->total, s->plan.preset.policy.timeout_s);
  case_result_release(&id);
  s->cur_plugin = pp->pl->desc->name;
  s->cur_label = pp->label;
  free(s->cur_shown);
  s->cur_shown = run_lines_label(&s->lines, index);
  s->cur_index = index;
  s->cur_plugin_index = c->plugin_index;
  s->next_heartbeat = s->plan.preset.policy.heartbeat_s;
  s->cur_t0 = now_s();
  eta_begin(&s->eta, (size_t)index);
  s->cur_shown_printed = show_progress(s, 0, 1);
}

/* Case k's setup resolved some of its values (threads=2 for a requested
 * threads=0): the PROGRESS line names the case as its line will, at once
 * (a whole line naming it as requested was just printed: corrected). */
static void case_resolved(void *arg, size_t k, const struct case_result *seen) {
  struct plugin_pass *pp = arg;
  struct suite *s = pp->s;
  if (s->cur_index != (int)(pp->first + k) || !s->cur_label) return; /* not the running case */
  char *label = run_lines_label_of(&s->lines, seen);
  if (s->cur_shown && strcmp(label, s->cur_shown) == 0) {
    free(label);
    return;
  }
  free(s->cur_shown);
  s->cur_shown = label;
  s->cur_shown_printed = show_progress(s, now_s() - s->cur_t0, s->cur_shown_printed ? 2 : 1);
}

/* --baseline: case r against its baseline case with the steadiness of its
 * run so far (from its file's start to now); the header's, read at the
 * file's end, settles it (baseline_finish). */
static void baseline_case(struct plugin_pass *pp, struct case_result *r) {
  if (!pp->s->baseline) return;
  struct steady_reading now;
  struct run_steady so_far;
  steady_read(&now);
  steady_between(&pp->rf.start, &now, &so_far);
  baseline_annotate(pp->s->baseline, r, &so_far);
}

/* The end of a plugin's file (its header's steadiness read): each case's
 * baseline verdict as bench compare BASELINE FILE gives it, in the file;
 * one that is not what its line said is said now. */
static void baseline_finish(void *arg, struct run_file *f) {
  struct plugin_pass *pp = arg;
  struct suite *s = pp->s;
  for (size_t i = 0; i < f->ncases; i++) {
    struct case_result *r = &f->cases[i];
    char *was;
    if (!baseline_settle(s->baseline, r, &f->env.steady, &was)) continue;
    char *label = r->index >= 0 && (size_t)r->index < s->plan.cases.n ? case_label(&s->plan.cases.cases[r->index])
                                                                       : xstrdup("?");
    progress_clear(&s->progress);
    fprintf(s->out, "%s %s: baseline over the whole run: %s (its line said %s: the machine's steadiness changed)\n",
            term_str(f->plugin), term_str(label), term_str(kv_list_get(r->ninfo, r->info, "baseline")),
            term_str(was));
    free(label);
    free(was);
  }
}

/* Case k ended: its note, the baseline, the counts, the event and the line,
 * then it is saved (a save that fails is said once; the run goes on). */
static void case_ends(void *arg, size_t k, struct case_result *r) {
  struct plugin_pass *pp = arg;
  struct suite *s = pp->s;
  /* The label of case k itself, whatever began last (a signal between two
   * cases, a result still in the pipe). */
  char *label = case_label(&s->plan.cases.cases[pp->first + k]);
  const char *tnote = s->plan.cases.cases[pp->first + k].note;
  if (tnote) { /* tuned or default: on its line, in the .txt and the JSON */
    const char *had = kv_list_get(r->ninfo, r->info, "note");
    char *v = had ? xasprintf("%s; %s", had, tnote) : xstrdup(tnote);
    kv_list_add(&r->ninfo, &r->info, "note", v);
    free(v);
  }
  baseline_case(pp, r);
  roofs_annotate(s->opt->results_dir, &pp->rf.f.env, r); /* its roof, from the folder's measured roofs */
  s->done++;
  eta_end(&s->eta, pp->first + k, r->wall_s);
  run_summary_add(&s->summary, pp->pl->desc, r);
  if (case_status_failed(r->status)) s->failed++;
  if (r->status == CASE_SKIPPED) s->skipped++;
  events_test_end(&s->events, r, label);
  progress_clear(&s->progress);
  run_lines_case(&s->lines, r);
  s->cur_label = NULL;
  result_file_add(&pp->rf, r); /* the file owns it now */
  if (s->hooks && s->hooks->case_done)
    s->hooks->case_done(s->hooks->arg, pp->pl, &pp->rf.f.cases[pp->rf.f.ncases - 1]);
  free(label);
}

/* Run every case of the plugins from *pi on that share a worker (those of
 * one backend, consecutive in run order, under isolation = backend; else
 * one plugin); each case is saved as it ends (journal + periodic rewrite,
 * see results_run_add), before the worker starts the next, so an
 * interrupted or killed run keeps what was measured. Returns 0, or -1 when
 * a result file could not be written. */
static int run_group(struct suite *s, int argc, char **argv, size_t *pi, size_t *next_case) {
  const struct plan *p = &s->plan;
  const struct options *o = s->opt;
  size_t n = 1;
  if (s->isolation == ISOLATION_BACKEND)
    while (*pi + n < p->nplugins && strcmp(p->plugins[*pi + n]->desc->backend, p->plugins[*pi]->desc->backend) == 0)
      n++;
  struct plugin_pass *pp = xcalloc(n, sizeof *pp);
  struct plugin_job *jobs = xcalloc(n, sizeof *jobs);
  size_t njobs = 0;
  for (size_t g = 0; g < n; g++) {
    size_t ncases = 0;
    while (*next_case + ncases < p->cases.n && p->cases.cases[*next_case + ncases].plugin_index == *pi + g)
      ncases++;
    pp[g] = (struct plugin_pass){.s = s, .pl = p->plugins[*pi + g], .first = *next_case};
    result_file_open_label(&pp[g].rf, pp[g].pl, &p->preset, o->tag, o->label, o->debug, o->results_dir,
                           argc, argv);
    if (s->baseline) pp[g].rf.finishing = baseline_finish, pp[g].rf.finishing_arg = &pp[g];
    if (ncases)
      jobs[njobs++] = (struct plugin_job){pp[g].pl, &p->cases.cases[*next_case], ncases, (int)*next_case,
                                          &s->run_pol, o->debug, heartbeat, s, case_begins,
                                          case_ends, &pp[g], case_resolved};
    *next_case += ncases;
  }
  run_plugins_cases(jobs, njobs, s->isolation);
  int rc = 0;
  for (size_t g = 0; g < n; g++) {
    struct run_file kept = {0};
    char *source = NULL;
    if (result_file_close_keep(&pp[g].rf, s->exporting ? &kept : NULL, s->exporting ? &source : NULL) != 0) rc = -1;
    run_summary_steady(&s->summary, &pp[g].rf.steady); /* a busy machine: said at the end */
    if (kept.ncases) run_export_add(&s->exports, &kept, source); /* --export-*: the whole run at its end */
    run_file_release(&kept);
    free(source);
    free(pp[g].label);
  }
  free(jobs);
  free(pp);
  *pi += n;
  return rc;
}

/* --export-json/-csv/-md: three different files, each one a file can be
 * written as (found now, not after the whole run). 0, or -1 after error(). */
static int export_check(struct suite *s, const struct options *o) {
  const char *path[3] = {o->export_json, o->export_csv, o->export_md};
  static const char *const name[3] = {"--export-json", "--export-csv", "--export-md"};
  for (int i = 0; i < 3; i++) {
    if (!path[i]) continue;
    for (int j = 0; j < i; j++)
      if (path[j] && strcmp(path[i], path[j]) == 0)
        return error("%s and %s name the same file '%s'", name[j], name[i], path[i]);
    if (run_export_check(name[i], path[i]) != 0) return -1;
    s->exporting = 1;
  }
  return 0;
}

/* Everything that can be wrong with the command is found here, before any
 * case runs or any file is written. */
static int prepare(struct suite *s, const struct options *o) {
  struct plan_request rq = {
      .preset = o->preset, .plugins = o->plugins, .nplugins = o->nplugins,
      .plugin_dirs = o->plugin_dirs, .nplugin_dirs = o->nplugin_dirs,
      .params = o->params, .nparams = o->nparams, .filters = o->filters, .nfilters = o->nfilters,
      .rescan = o->rescan, .verbose = o->verbose, .check_unselected = 1,
      /* tunables at auto: the tuning cache's winner, else the default */
      .tune = tune_apply, .tuning_file = o->tuning_file, .debug = o->debug, .sampling = &o->sampling};
  if (plan_build(&rq, &s->plan) != 0) return -1;
  struct plan *p = &s->plan;
  if (s->hooks && s->hooks->plan_ready) {
    int h = s->hooks->plan_ready(s->hooks->arg, p);
    if (h != 0) return h;
  }
  s->total = (int)p->cases.n;
  if (o->baseline) {
    s->baseline = xcalloc(1, sizeof *s->baseline);
    if (baseline_load(s->baseline, o->baseline) != 0) return -1;
  }
  s->isolation = o->isolation >= 0 ? (enum isolation)o->isolation : p->preset.policy.isolation;
  if (o->require_check) p->preset.policy.require_check = 1;
  if (export_check(s, o) != 0) return -1;
  /* Make the folder and see that it can take this run's files: found now,
   * not after the whole suite. */
  const char **names = plan_plugin_names(p);
  int rc = results_check_dir(o->results_dir, names, p->nplugins, p->preset.name, o->tag);
  free(names);
  if (rc != 0) return -1;
  if (events_open(&s->events, o->events) != 0) return -1;
  if (o->serve) {
    char *path = live_server_events_path(o->results_dir);
    rc = !path || events_open_also(&s->events, path) != 0 ? -1 : 0;
    free(path);
    if (rc != 0) return -1;
  }
  return 0;
}

/* The progress line, the per-case lines and the time estimates. */
static void start_output(struct suite *s, const struct options *o) {
  const struct plan *p = &s->plan;
  progress_init(&s->progress, term_colour_on((enum term_colour)o->colour, 2));
  s->out = o->events && strcmp(o->events, "-") == 0 ? stderr : stdout;
  run_lines_init(&s->lines, p, s->out, term_colour_on((enum term_colour)o->colour, fileno(s->out)), o->verbose);
  size_t *plugin_of = xcalloc(p->cases.n + 1, sizeof *plugin_of);
  for (size_t k = 0; k < p->cases.n; k++) plugin_of[k] = p->cases.cases[k].plugin_index;
  eta_init(&s->eta, plugin_of, p->cases.n, p->nplugins, policy_case_s(s));
  free(plugin_of);
  s->run_pol = p->preset.policy;
  /* On a terminal the PROGRESS line is redrawn every second, whatever the
   * HEARTBEAT event interval (heartbeat() keeps the events to it). */
  if (s->progress.tty && s->run_pol.heartbeat_s > 1.0) s->run_pol.heartbeat_s = 1.0;
}

int cmd_interrupted_early(void) {
  fprintf(stderr, "bench: interrupted by %s before the first case: nothing was run, no result written\n",
          strsignal(child_interrupted()));
  return EXIT_INTERRUPTED;
}

int cmd_run(int argc, char **argv, const struct options *o) { return run_suite(argc, argv, o, NULL); }

int run_suite(int argc, char **argv, const struct options *o, const struct run_hooks *hk) {
  struct suite s;
  memset(&s, 0, sizeof s);
  s.opt = o;
  s.hooks = hk;
  const struct plan *p = &s.plan;
  int exit_code = EXIT_OK;
  /* From here a signal is a flag (scans and probes stop at once): one that
   * comes before the first case is said, not a silent death. */
  child_install_signal_handlers();
  int prep = prepare(&s, o);
  if (prep == 1 && !child_interrupted()) goto out; /* a hook: nothing left to run, and said so */
  if (prep != 0 || child_interrupted()) {
    exit_code = child_interrupted() ? cmd_interrupted_early() : EXIT_USAGE;
    goto out;
  }
  start_output(&s, o);
  if (o->serve && live_server_start(&s.live, o->results_dir, o->serve_port, o->serve_bind) != 0)
    warning("the run goes on without its server");
  s.t0 = now_s();
  const char **names = plan_plugin_names(p);
  events_suite_start(&s.events, s.total, names, p->nplugins, p->preset.name, o->tag);
  free(names);
  char *overridden = sampling_overrides_text(&o->sampling); /* said where the preset is named */
  fprintf(s.out, "bench %s: preset %s (%s%s%s), %d %s in %zu %s, results in %s\n", bench_version(),
          term_str(p->preset.name), tier_name(p->preset.policy.tier), *overridden ? "; overridden: " : "",
          term_str(overridden), s.total, plural(s.total, "case", "cases"), p->nplugins,
          plural((long)p->nplugins, "plugin", "plugins"), term_str(o->results_dir));
  free(overridden);
  fflush(s.out);

  int save_failed = 0;
  size_t next = 0;
  for (size_t pi = 0; pi < p->nplugins && !child_interrupted();)
    if (run_group(&s, argc, argv, &pi, &next) != 0) save_failed = 1;
  child_kill_descendants(NULL, 0); /* the last worker, and anything it kept */

  progress_clear(&s.progress);
  run_lines_flush(&s.lines);
  int rollup = rollup_write(o->results_dir); /* a signal during its lock wait counts too */
  if (rollup < 0) save_failed = 1;
  /* the whole run in one file each; one that fails is said, the result files stay */
  int export_failed = s.exporting && run_export_write(&s.exports, o->export_json, o->export_csv, o->export_md) != 0;
  int interrupted = child_interrupted() != 0;
  double wall = now_s() - s.t0;
  events_suite_end(&s.events, s.done, s.failed, s.skipped, s.total, wall, interrupted);
  live_server_stop(&s.live); /* after the last event: it sends that too */
  run_summary_print(&s.summary, s.out, s.total, &s.lines.style);
  if (s.lines.untuned)
    term_fit_printf(s.out, s.lines.style.columns, 4,
                    "%d %s ran tunables at their defaults: no tuning entry for this device (see bench tune)",
                    s.lines.untuned, plural(s.lines.untuned, "case", "cases"));
  term_fit_printf(s.out, s.lines.style.columns, 4, "bench: %d of %d %s run in %.1f s: %d ok, %d skipped, %d failed%s", s.done, s.total,
          plural(s.total, "case", "cases"), wall, s.done - s.failed - s.skipped, s.skipped, s.failed,
          !interrupted ? "" : s.done ? " (interrupted; results so far are kept)"
                                     : " (interrupted before the first case; no result written)");
  if (save_failed) error("some results could not be written to '%s' (see above); the run counts as failed", o->results_dir);
  if (interrupted)
    exit_code = EXIT_INTERRUPTED;
  else if (s.failed || save_failed || rollup == ROLLUP_LEFT || export_failed)
    exit_code = EXIT_FAILED;
out:
  live_server_stop(&s.live);
  events_close(&s.events);
  plan_release(&s.plan);
  if (s.baseline) baseline_release(s.baseline);
  free(s.baseline);
  eta_release(&s.eta);
  run_lines_release(&s.lines);
  run_summary_release(&s.summary);
  free(s.cur_shown);
  run_export_release(&s.exports);
  return exit_code;
}
