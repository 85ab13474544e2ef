/* bench [--preset P] [--plugin X]...: run the selected plugins' cases under a
 * preset, each in its own child, and keep every result as it comes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/case_filter.h"
#include "analyze/baseline.h"
#include "plan/cases.h"
#include "core/child.h"
#include "cli/commands.h"
#include "run/env.h"
#include "run/events.h"
#include "plan/param_cli.h"
#include "plan/plugin_loader.h"
#include "plan/plugin_select.h"
#include "plan/preset.h"
#include "cli/eta.h"
#include "cli/progress.h"
#include "cli/run_summary.h"
#include "results/case_line.h"
#include "run/tune_apply.h"
#include "results/io.h"
#include "run/runner.h"
#include "run/steady.h"
#include "core/term.h"
#include "core/util.h"

#ifndef BENCH_REL_PRESET_DIR
#define BENCH_REL_PRESET_DIR "share/bench/presets"
#endif

/* Everything one run holds. */
struct suite {
  const struct options *opt;
  struct preset preset;
  struct case_list cases;
  const struct plugin **plugins; /* selected, in run order */
  size_t nplugins;
  struct events events;
  struct progress progress;
  FILE *out;                     /* human-readable per-case lines */
  double t0;
  int total, done, failed, skipped;
  int untuned; /* cases shown without their tunables left at defaults (no tuning entry) */
  double done_wall;              /* sum of wall time of finished cases */
  /* the case running now, for heartbeats */
  const char *cur_plugin;
  const char *cur_label;
  int cur_index;
  struct baseline *baseline;     /* --baseline, or NULL */
  enum isolation isolation;      /* which cases share a worker process */
  struct case_line_style *styles; /* per plugin: its lines' columns */
  struct run_summary summary;    /* what the end of the run reports */
  int colour;                    /* colour the per-case lines */
  struct eta eta;                /* per-plugin history of case lengths */
  size_t cur_plugin_index;
  struct run_policy run_pol;     /* the policy the workers get: ticks every second on a terminal */
  double next_heartbeat;         /* when the next HEARTBEAT event is due (elapsed s) */
};

static int plugin_name_in(const char *name, const struct bench_plugin **descs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(descs[i]->name, name) == 0) return 1;
  return 0;
}

/* The preset's guess for a case never seen: warm-up, the sampling time
 * limit and the process start. */
static double policy_case_s(const struct suite *s) {
  const struct run_policy *p = &s->preset.policy;
  return p->warmup_s + p->max_time_s + 0.5;
}

static void heartbeat(void *arg, double elapsed) {
  struct suite *s = arg;
  double est = eta_case_expected(&s->eta, s->cur_plugin_index);
  double frac = elapsed / (est > 0 ? est : 1);
  if (frac > 0.99) frac = 0.99;
  double case_eta = est - elapsed > 0 ? est - elapsed : -1;
  double suite_frac = (s->done + frac) / (s->total ? s->total : 1);
  double eta = eta_suite(&s->eta, elapsed);
  /* Ticks come every second on a terminal; the events keep the preset's
   * heartbeat interval. */
  if (elapsed + 1e-3 >= s->next_heartbeat) {
    events_heartbeat(&s->events, s->cur_plugin, s->cur_label, s->cur_index, elapsed, frac * 100,
                     case_eta, suite_frac * 100, eta);
    s->next_heartbeat += s->preset.policy.heartbeat_s;
    if (s->next_heartbeat <= elapsed) s->next_heartbeat = elapsed + s->preset.policy.heartbeat_s;
  }
  progress_show_case(&s->progress, suite_frac * 100, s->done, s->total, s->cur_plugin, s->cur_label,
                     eta, elapsed, case_eta, 0);
}

/* One line per finished case (results/case_line.c renders it). */
#define UNTUNED_NOTE "default (no tuning entry)"

/* The note without the untuned-default part ("a; default (...)" -> "a"),
 * or NULL when nothing is left; caller frees. */
static char *note_without_untuned(const char *note) {
  const char *u = strstr(note, UNTUNED_NOTE);
  if (!u) return xstrdup(note);
  size_t head = (size_t)(u - note);
  while (head > 0 && (note[head - 1] == ' ' || note[head - 1] == ';')) head--;
  const char *tail = u + strlen(UNTUNED_NOTE);
  while (*tail == ';' || *tail == ' ') tail++;
  char *out = xasprintf("%.*s%s%s", (int)head, note, head && *tail ? "; " : "", tail);
  if (!*out) {
    free(out);
    return NULL;
  }
  return out;
}

/* The case on the terminal. Tunables left at their defaults because this
 * device has no tuning entry are not shown on the line (they would push
 * the problem's own parameters off it), nor is the note that says so: the
 * summary counts such cases once. The files keep both. A tuned case shows
 * its tuned values and its note. */
static void print_case(struct suite *s, const struct case_result *r, const char *label) {
  (void)label;
  progress_clear(&s->progress);
  const struct case_def *c = &s->cases.cases[r->index];
  struct case_result view = *r;
  struct kv *params = NULL, *info = NULL;
  char *note = NULL;
  if (c->note && strcmp(c->note, UNTUNED_NOTE) == 0) {
    s->untuned++;
    params = xcalloc(r->nparams + 1, sizeof *params);
    view.nparams = 0;
    for (size_t j = 0; j < r->nparams; j++) {
      const struct case_value *v = case_find(c, r->params[j].key);
      if (v && v->is_auto) continue;
      params[view.nparams++] = r->params[j];
    }
    view.params = params;
    info = xcalloc(r->ninfo + 1, sizeof *info);
    view.ninfo = 0;
    for (size_t j = 0; j < r->ninfo; j++) {
      if (strcmp(r->info[j].key, "note") == 0) {
        note = note_without_untuned(r->info[j].value);
        if (!note) continue;
        info[view.ninfo++] = (struct kv){r->info[j].key, note};
      } else {
        info[view.ninfo++] = r->info[j];
      }
    }
    view.info = info;
  }
  char *line = case_line(&view, s->total, &s->styles[c->plugin_index]);
  fputs(line, s->out);
  free(line);
  free(params);
  free(info);
  free(note);
  fflush(s->out);
}

static struct run_file *run_file_new(const struct suite *s, int argc, char **argv,
                                     const struct plugin *pl) {
  struct run_file *f = xcalloc(1, sizeof *f);
  run_env_collect(&f->env, argc, argv, s->preset.name, s->preset.sha256, s->opt->tag,
                  s->opt->debug ? "debug" : "perf");
  f->plugin = xstrdup(pl->desc->name);
  f->plugin_path = xstrdup(pl->path);
  f->plugin_sha256 = xstrdup(pl->sha256);
  return f;
}

/* The plugin being run: its result file and where its cases are. */
struct plugin_pass {
  struct suite *s;
  const struct plugin *pl;
  size_t first;        /* suite index of its first case */
  struct run_file *f;
  struct results_run saver; /* journal + periodic rewrite, see results_run_add */
  struct steady_reading steady; /* at its start: the header's steadiness */
  int rc, save_failed;
  char *label;         /* of the case running now */
};

static void case_begins(void *arg, size_t k) {
  struct plugin_pass *pp = arg;
  struct suite *s = pp->s;
  const struct case_def *c = &s->cases.cases[pp->first + k];
  int index = (int)(pp->first + k);
  free(pp->label);
  pp->label = case_label(c);
  struct case_result id;
  case_identity(&id, pp->pl, c, index);
  events_test_start(&s->events, &id, pp->label, index, s->total, s->preset.policy.timeout_s);
  case_result_release(&id);
  s->cur_plugin = pp->pl->desc->name;
  s->cur_label = pp->label;
  s->cur_index = index;
  s->cur_plugin_index = c->plugin_index;
  s->next_heartbeat = s->preset.policy.heartbeat_s;
  eta_begin(&s->eta, (size_t)index);
  double eta = eta_suite(&s->eta, 0);
  progress_show_case(&s->progress, 100.0 * s->done / (s->total ? s->total : 1), s->done, s->total,
                     pp->pl->desc->name, pp->label, eta, 0, eta_case_expected(&s->eta, c->plugin_index), 1);
}

static void case_ends(void *arg, size_t k, struct case_result *r) {
  struct plugin_pass *pp = arg;
  struct suite *s = pp->s;
  /* The label of case k itself, whatever began last (a signal between two
   * cases, a result still in the pipe). */
  char *label_k = case_label(&s->cases.cases[pp->first + k]);
  pp->f->cases = xrealloc(pp->f->cases, (pp->f->ncases + 1) * sizeof *pp->f->cases);
  pp->f->cases[pp->f->ncases++] = *r; /* the file owns it now */
  r = &pp->f->cases[pp->f->ncases - 1];
  const char *label = label_k;
  const char *tnote = s->cases.cases[pp->first + k].note;
  if (tnote) { /* tuned or default: on its line, in the .txt and the JSON */
    const char *had = kv_list_get(r->ninfo, r->info, "note");
    char *v = had ? xasprintf("%s; %s", had, tnote) : xstrdup(tnote);
    kv_list_add(&r->ninfo, &r->info, "note", v);
    free(v);
  }
  baseline_annotate(s->baseline, r);
  s->done++;
  s->done_wall += r->wall_s;
  eta_end(&s->eta, pp->first + k, r->wall_s);
  run_summary_add(&s->summary, pp->pl->desc, r);
  if (case_status_failed(r->status)) s->failed++;
  if (r->status == CASE_SKIPPED) s->skipped++;
  events_test_end(&s->events, r, label);
  print_case(s, r, label);
  s->cur_label = NULL;
  if (!pp->save_failed && results_run_add(&pp->saver, pp->f) != 0) {
    pp->save_failed = 1; /* said once; the rest of the suite still runs */
    pp->rc = -1;
  }
  free(label_k);
}

static void pass_open(struct plugin_pass *pp, struct suite *s, int argc, char **argv, size_t pi,
                      size_t first) {
  memset(pp, 0, sizeof *pp);
  pp->s = s;
  pp->pl = s->plugins[pi];
  pp->first = first;
  pp->f = run_file_new(s, argc, argv, pp->pl);
  results_run_init(&pp->saver, s->opt->results_dir);
  steady_read(&pp->steady);
}

/* Write the plugin's result file whole. Returns 0, or -1 when it could not
 * be written (now or for a case before). */
static int pass_close(struct plugin_pass *pp) {
  struct steady_reading end;
  /* the worker is told to go, not waited for: while it ends it is one more
   * runnable process, which made 5 of 40 quiet cpu_gemm runs "busy" */
  child_reap_ending(1.0);
  steady_read(&end);
  steady_between(&pp->steady, &end, &pp->f->env.steady);
  if (!pp->save_failed && results_run_finish(&pp->saver, pp->f) != 0) pp->rc = -1;
  results_run_release(&pp->saver);
  run_file_release(pp->f);
  free(pp->f);
  free(pp->label);
  return pp->rc;
}

/* Run every case of the plugins from *pi on that share a worker (those of
 * one backend, consecutive in run order, under isolation = backend; else
 * one plugin); each case is saved as it ends (journal + periodic rewrite,
 * see results_run_add), before the worker starts the next, so an
 * interrupted or killed run keeps what was measured. Returns 0, or -1 when
 * a result file could not be written. */
static int run_group(struct suite *s, int argc, char **argv, size_t *pi, size_t *next_case) {
  size_t n = 1;
  if (s->isolation == ISOLATION_BACKEND)
    while (*pi + n < s->nplugins &&
           strcmp(s->plugins[*pi + n]->desc->backend, s->plugins[*pi]->desc->backend) == 0)
      n++;
  struct plugin_pass *pp = xcalloc(n, sizeof *pp);
  struct plugin_job *jobs = xcalloc(n, sizeof *jobs);
  size_t njobs = 0;
  for (size_t g = 0; g < n; g++) {
    size_t ncases = 0;
    while (*next_case + ncases < s->cases.n && s->cases.cases[*next_case + ncases].plugin_index == *pi + g)
      ncases++;
    pass_open(&pp[g], s, argc, argv, *pi + g, *next_case);
    if (ncases)
      jobs[njobs++] = (struct plugin_job){pp[g].pl, &s->cases.cases[*next_case], ncases, (int)*next_case,
                                          &s->run_pol, s->opt->debug, heartbeat, s, case_begins,
                                          case_ends, &pp[g]};
    *next_case += ncases;
  }
  run_plugins_cases(jobs, njobs, s->isolation);
  int rc = 0;
  for (size_t g = 0; g < n; g++)
    if (pass_close(&pp[g]) != 0) rc = -1;
  free(jobs);
  free(pp);
  *pi += n;
  return rc;
}

static char *preset_dir(void) {
  char *ed = exe_dir();
  char *d = xasprintf("%s/../%s", ed, BENCH_REL_PRESET_DIR);
  free(ed);
  return d;
}

/* Everything that can be wrong with the command is found here, before any
 * case runs or any file is written. */
static int prepare(struct suite *s, const struct options *o, struct plugin_set *set) {
  char *pdir = preset_dir();
  const char *dirs[] = {pdir};
  char *path = preset_resolve(o->preset, dirs, 1);
  free(pdir);
  if (!path) return -1;
  int rc = preset_load(path, &s->preset);
  free(path);
  if (rc != 0) return -1;
  plugin_scan_configure(o->rescan, o->verbose);
  if (plugins_load(o->plugin_dirs, o->nplugin_dirs, set) != 0) return -1;
  if (plugins_select(set, o->plugins, o->nplugins, &s->plugins, &s->nplugins) != 0) return -1;
  if (s->nplugins == 0) return error("no plugins found (see --plugin-dir and BENCH_PLUGIN_PATH)");
  const struct bench_plugin **descs = xcalloc(s->nplugins, sizeof *descs);
  const char **known = xcalloc(set->n ? set->n : 1, sizeof *known);
  for (size_t i = 0; i < s->nplugins; i++) descs[i] = s->plugins[i]->desc;
  for (size_t i = 0; i < set->n; i++) known[i] = set->items[i].desc->name;
  /* Sections of plugins found but not selected are checked too. */
  const struct bench_plugin **others = xcalloc(set->n ? set->n : 1, sizeof *others);
  size_t nothers = 0;
  for (size_t i = 0; i < set->n; i++)
    if (!plugin_name_in(set->items[i].desc->name, descs, s->nplugins)) others[nothers++] = set->items[i].desc;
  int checked = cases_check_preset(others, nothers, &s->preset);
  free(others);
  rc = param_cli_apply(&s->preset, descs, s->nplugins, o->params, o->nparams);
  if (rc == 0) rc = cases_expand(descs, s->nplugins, known, set->n, &s->preset, &s->cases);
  if (rc == 0) rc = case_filter_apply(o->filters, o->nfilters, descs, s->nplugins, &s->cases);
  if (rc == 0) /* tunables at auto: the tuning cache's winner, else the default */
    tune_apply(&s->cases, s->plugins, s->nplugins, o->tuning_file, s->preset.policy.timeout_s,
               o->debug);
  free(descs);
  free(known);
  if (rc != 0 || checked != 0) return -1;
  s->total = (int)s->cases.n;
  if (o->baseline) {
    s->baseline = xcalloc(1, sizeof *s->baseline);
    if (baseline_load(s->baseline, o->baseline) != 0) return -1;
  }
  s->isolation = o->isolation >= 0 ? (enum isolation)o->isolation : s->preset.policy.isolation;
  if (o->require_check) s->preset.policy.require_check = 1;
  /* Make the folder and see that it can take this run's files: found now,
   * not after the whole suite. */
  const char **names = xcalloc(s->nplugins, sizeof *names);
  for (size_t i = 0; i < s->nplugins; i++) names[i] = s->plugins[i]->desc->name;
  rc = results_check_dir(o->results_dir, names, s->nplugins, s->preset.name, o->tag);
  free(names);
  if (rc != 0) return -1;
  if (events_open(&s->events, o->events) != 0) return -1;
  return 0;
}

#define RESOLVED_SLACK 8

/* Each plugin's column widths: its widest case label (values as
 * requested; a resolved value a little longer is cut). */
static void plan_styles(struct suite *s, int colour) {
  const struct run_policy *pol = &s->preset.policy;
  s->styles = xcalloc(s->nplugins ? s->nplugins : 1, sizeof *s->styles);
  size_t *plugin_of = xcalloc(s->cases.n ? s->cases.n : 1, sizeof *plugin_of);
  for (size_t k = 0; k < s->cases.n; k++) plugin_of[k] = s->cases.cases[k].plugin_index;
  eta_init(&s->eta, plugin_of, s->cases.n, s->nplugins, policy_case_s(s));
  free(plugin_of);
  int *widest = xcalloc(s->nplugins ? s->nplugins : 1, sizeof *widest);
  for (size_t k = 0; k < s->cases.n; k++) {
    const struct case_def *c = &s->cases.cases[k];
    struct case_result id;
    case_identity(&id, s->plugins[c->plugin_index], c, (int)k);
    if (c->note && strcmp(c->note, UNTUNED_NOTE) == 0) { /* as print_case shows it */
      size_t kept = 0;
      for (size_t j = 0; j < id.nparams; j++) {
        const struct case_value *v = case_find(c, id.params[j].key);
        if (v && v->is_auto) {
          free(id.params[j].key);
          free(id.params[j].value);
        } else {
          id.params[kept++] = id.params[j];
        }
      }
      id.nparams = kept;
    }
    char *label = case_line_label(&id);
    int w = (int)term_width(label);
    if (w > widest[c->plugin_index]) widest[c->plugin_index] = w;
    free(label);
    case_result_release(&id);
  }
  for (size_t i = 0; i < s->nplugins; i++) {
    struct case_line_style *st = &s->styles[i];
    st->colour = colour;
    st->determinism = pol->determinism;
    st->settle_notes = pol->report_settle > 0 || (pol->report_settle < 0 && pol->tier == BENCH_TIER_PERF);
    /* Room for a resolved value longer than the requested one
     * (stores=auto ran as stores=nontemporal), within the budget. */
    st->label_width = case_line_label_width(widest[i] + RESOLVED_SLACK, s->total, st);
  }
  free(widest);
}

int cmd_run(int argc, char **argv, const struct options *o) {
  struct suite s;
  memset(&s, 0, sizeof s);
  s.opt = o;
  struct plugin_set set = {0};
  int exit_code = EXIT_OK;
  if (prepare(&s, o, &set) != 0) {
    exit_code = EXIT_USAGE;
    goto out;
  }
  child_install_signal_handlers();
  progress_init(&s.progress, term_colour_on((enum term_colour)o->colour, 2));
  s.out = o->events && strcmp(o->events, "-") == 0 ? stderr : stdout;
  plan_styles(&s, term_colour_on((enum term_colour)o->colour, fileno(s.out)));
  s.run_pol = s.preset.policy;
  /* On a terminal the PROGRESS line is redrawn every second, whatever the
   * HEARTBEAT event interval (heartbeat() keeps the events to it). */
  if (s.progress.tty && s.run_pol.heartbeat_s > 1.0) s.run_pol.heartbeat_s = 1.0;
  s.t0 = now_s();
  const char **names = xcalloc(s.nplugins, sizeof *names);
  for (size_t i = 0; i < s.nplugins; i++) names[i] = s.plugins[i]->desc->name;
  events_suite_start(&s.events, s.total, names, s.nplugins, s.preset.name, o->tag);
  free(names);
  fprintf(s.out, "bench %s: preset %s (%s), %d %s in %zu %s, results in %s\n", bench_version(),
          term_str(s.preset.name), tier_name(s.preset.policy.tier), s.total, plural(s.total, "case", "cases"),
          s.nplugins, plural((long)s.nplugins, "plugin", "plugins"), term_str(o->results_dir));
  fflush(s.out);

  int save_failed = 0;
  size_t next = 0;
  for (size_t pi = 0; pi < s.nplugins && !child_interrupted();)
    if (run_group(&s, argc, argv, &pi, &next) != 0) save_failed = 1;
  child_kill_descendants(NULL, 0); /* the last worker, and anything it kept */

  progress_clear(&s.progress);
  int rollup = rollup_write(o->results_dir); /* a signal during its lock wait counts too */
  if (rollup < 0) save_failed = 1;
  int interrupted = child_interrupted() != 0;
  double wall = now_s() - s.t0;
  events_suite_end(&s.events, s.done, s.failed, s.skipped, s.total, wall, interrupted);
  run_summary_print(&s.summary, s.out, s.total, s.styles[0].colour, s.styles[0].settle_notes);
  if (s.untuned)
    fprintf(s.out, "%d %s ran tunables at their defaults: no tuning entry for this device (see bench tune)\n",
            s.untuned, plural(s.untuned, "case", "cases"));
  fprintf(s.out, "bench: %d of %d %s run in %.1f s: %d ok, %d skipped, %d failed%s\n", s.done, s.total,
          plural(s.total, "case", "cases"), wall, s.done - s.failed - s.skipped, s.skipped, s.failed,
          interrupted ? " (interrupted; results so far are kept)" : "");
  if (save_failed) error("some results could not be written to '%s' (see above); the run counts as failed", o->results_dir);
  if (interrupted)
    exit_code = EXIT_INTERRUPTED;
  else if (s.failed || save_failed || rollup == ROLLUP_LEFT)
    exit_code = EXIT_FAILED;
out:
  events_close(&s.events);
  case_list_release(&s.cases);
  preset_release(&s.preset);
  if (s.baseline) baseline_release(s.baseline);
  free(s.baseline);
  free(s.plugins);
  free(s.styles);
  eta_release(&s.eta);
  run_summary_release(&s.summary);
  plugin_set_release(&set);
  return exit_code;
}
