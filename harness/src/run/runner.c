/* Parent side of a plugin's cases: fork, measure in the child, collect the
 * results. Every line the child sends is a case result in JSON (one line,
 * strings escaped), so nothing a plugin says can break the framing; so is
 * its note, after a case's setup, of the values that setup resolved. */
#include "run/runner.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/host.h"
#include "run/proc_state.h"
#include "run/measure.h"
#include "run/vk_validation.h"
#include "results/io.h"
#include "backend/backends.h"
#include "backend/validation_tally.h"
#include "core/term.h"
#include "core/util.h"

/* The line, after the mark that ends the case's output; returns once the
 * parent has dealt with it (a worker's result is then on disk). */
static void send_result(int fd, const struct case_result *r) {
  char *line = case_result_to_json_line(r);
  child_send_line(fd, line);
  free(line);
}

void case_identity(struct case_result *r, const struct plugin *pl, const struct case_def *c,
                   int index) {
  case_result_init(r);
  r->plugin = xstrdup(pl->desc->name);
  r->backend = xstrdup(pl->desc->backend);
  r->operation = xstrdup(pl->desc->operation);
  r->index = index;
  for (size_t i = 0; i < c->nvalues; i++)
    kv_list_add(&r->nparams, &r->params, c->values[i].param->name, c->values[i].text);
}

/* After a case's setup, in its process (measure.h's set_up hook; arg: the
 * channel's fd): the values it resolved, its info under the names of its
 * parameters, go to the parent as a note with the case's identity, so that
 * the PROGRESS line names the case as its line will. Nothing when it
 * resolved none. */
static void send_resolved(void *arg, const struct case_result *r) {
  struct case_result seen;
  case_result_init(&seen);
  for (size_t i = 0; i < r->nparams; i++) {
    const char *v = kv_list_get(r->ninfo, r->info, r->params[i].key);
    if (v && *v) kv_list_add(&seen.ninfo, &seen.info, r->params[i].key, v);
  }
  if (seen.ninfo) {
    seen.plugin = xstrdup(r->plugin);
    seen.backend = xstrdup(r->backend);
    seen.operation = xstrdup(r->operation);
    seen.index = r->index;
    for (size_t i = 0; i < r->nparams; i++)
      kv_list_add(&seen.nparams, &seen.params, r->params[i].key, r->params[i].value);
    char *line = case_result_to_json_line(&seen);
    child_send_note(*(const int *)arg, line); /* one too long is not said: the label stays as requested */
    free(line);
  }
  case_result_release(&seen);
}

/* In the parent: case k's note (send_resolved) to job's resolved callback,
 * with the identity the parent knows and only the values of its
 * parameters. */
static void tell_resolved(const struct plugin_job *job, size_t k, const char *text) {
  if (!job->resolved || k >= job->ncases) return;
  struct case_result got, seen;
  char err[256];
  if (case_result_from_json_line(text, &got, err, sizeof err) != 0) {
    case_result_release(&got);
    return; /* unreadable: the label stays as requested */
  }
  case_identity(&seen, job->pl, &job->cases[k], job->first_index + (int)k);
  for (size_t i = 0; i < seen.nparams; i++) {
    const char *v = kv_list_get(got.ninfo, got.info, seen.params[i].key);
    if (v && *v) kv_list_add(&seen.ninfo, &seen.info, seen.params[i].key, v);
  }
  if (seen.ninfo) job->resolved(job->cb_arg, k, &seen);
  case_result_release(&got);
  case_result_release(&seen);
}

/* A child's line back into a result; r keeps its identity when the line is
 * unreadable. */
static void take_line(const char *line, struct case_result *r) {
  struct case_result got;
  char err[256];
  case_result_init(&got);
  if (case_result_from_json_line(line, &got, err, sizeof err) == 0) {
    case_result_release(r);
    *r = got;
  } else {
    case_result_release(&got);
    r->status = CASE_ERROR;
    free(r->message);
    r->message = xasprintf("unreadable result from the child: %s", err);
  }
}

/* What became of a child that sent no result for the case it ran. */
static void record_outcome(struct case_result *r, const struct child_outcome *out,
                           const struct run_policy *pol) {
  free(r->message);
  if (out->interrupted) {
    r->status = CASE_INTERRUPTED;
    r->message = xasprintf("interrupted by %s", strsignal(child_interrupted()));
  } else if (out->timed_out) {
    r->status = CASE_TIMEOUT;
    r->message = xasprintf("timed out after %.3g s (the preset's timeout); killed", pol->timeout_s);
  } else if (out->signal) {
    r->status = CASE_CRASH;
    r->message = xasprintf("killed by signal %d (%s)", out->signal, strsignal(out->signal));
  } else {
    r->status = CASE_CRASH;
    r->message = xasprintf("the case's process exited with status %d without a result", out->exit_code);
  }
  r->exit_code = out->exit_code;
  r->signal = out->signal;
  r->wall_s = out->wall_s;
}

/* The variables a child gets: --mode debug's; else, under a preset's
 * validation = true with the layer's log open (run_plugins_cases), the
 * validation layers' alone; else none. */
static const struct child_env *child_env_of(int debug, const struct run_policy *pol) {
  if (debug) return backends_debug_env();
  return pol && pol->validation && vk_validation_active() ? backends_validation_env() : NULL;
}

/* ---- one process per case ---------------------------------------------- */

struct case_job {
  const struct plugin *pl;
  const struct case_def *c;
  const struct run_policy *pol;
  int index;
  int notes; /* send the values setup resolved (send_resolved) */
};

/* In a process of one case or probe: a line of the output ahead of each
 * bench.process/1 release callback, so that one that crashes is named in
 * the tail of the case it costs. */
static void say_release(void *arg, const char *key, const char *file) {
  (void)arg;
  const char *base = file ? strrchr(file, '/') : NULL;
  fprintf(stderr, "bench: the release callback of bench.process/1 slot '%s'%s%s%s runs\n", key,
          file ? " (in " : "", file ? (base ? base + 1 : file) : "", file ? ")" : "");
  fflush(stderr);
}

static void case_in_child(void *arg, int fd) {
  struct case_job *job = arg;
  struct case_result r;
  vk_validation_child_begin();
  case_identity(&r, job->pl, job->c, job->index);
  measure_case(job->pl, job->c, job->pol, job->notes ? send_resolved : NULL, &fd, &r);
  /* the slots' callbacks are the case's: one that crashes costs it, said */
  host_process_release_each(say_release, NULL);
  vk_validation_take(&r);
  send_result(fd, &r);
  case_result_release(&r);
}

void run_case(const struct plugin *pl, const struct case_def *c, int index, const struct run_policy *pol,
              int debug, child_tick_fn tick, void *tick_arg, child_note_fn on_note, void *note_arg,
              struct case_result *r) {
  case_identity(r, pl, c, index);
  struct case_job job = {pl, c, pol, index, on_note != NULL};
  struct child_opts o = {pol->timeout_s, pol->heartbeat_s, tick, tick_arg, child_env_of(debug, pol),
                         NULL, NULL, on_note, note_arg};
  struct child_outcome out;
  if (child_run(case_in_child, &job, &o, &out) != 0) {
    r->status = CASE_ERROR;
    r->message = xstrdup("could not start the case's child process");
    return;
  }
  if (out.line) {
    take_line(out.line, r);
    r->exit_code = out.exit_code;
    r->signal = out.signal;
    r->wall_s = out.wall_s;
  } else {
    record_outcome(r, &out, pol);
  }
  free(r->stderr_tail);
  r->stderr_tail = out.stderr_tail;
  out.stderr_tail = NULL;
  child_outcome_release(&out);
}

/* ---- the probe ----------------------------------------------------------- */

struct probe_job {
  const struct plugin *pl;
};

/* Under --mode debug the answer waits for deinit: what the validation layer
 * logged in init and deinit is init's error (vk_validation_take_in). */
static void probe_child(void *arg, int fd) {
  struct probe_job *job = arg;
  struct plugin_run pr;
  vk_validation_child_begin();
  measure_init(&pr, job->pl);
  if (!vk_validation_active()) {
    send_result(fd, &pr.init);
    measure_deinit(&pr);
    host_process_release_each(say_release, NULL); /* the answer is in: a crash here is said in the tail */
  } else {
    vk_validation_take_in(&pr.init, "init()");
    struct case_result init = pr.init; /* measure_deinit releases pr.init */
    case_result_init(&pr.init);
    measure_deinit(&pr);
    host_process_release_each(say_release, NULL);
    vk_validation_take_in(&init, "deinit()");
    send_result(fd, &init);
    case_result_release(&init);
  }
}

/* probe_in_child; *validation says whether a failure is the validation
 * layer's error (--mode debug). */
static int probe(const struct plugin *pl, double timeout_s, const struct child_env *env, char *reason,
                 size_t len, int *validation) {
  *validation = 0;
  struct probe_job job = {pl};
  struct child_opts o = {timeout_s, 0, NULL, NULL, env, NULL, NULL, NULL, NULL};
  struct child_outcome out;
  reason[0] = '\0';
  if (child_run(probe_child, &job, &o, &out) != 0) {
    snprintf(reason, len, "could not start a child process");
    return BENCH_ERROR;
  }
  int rc = BENCH_ERROR;
  struct case_result got;
  char err[256];
  case_result_init(&got);
  if (out.line && case_result_from_json_line(out.line, &got, err, sizeof err) == 0 &&
      out.exit_code == 0) {
    rc = got.status == CASE_OK ? BENCH_OK : got.status == CASE_SKIPPED ? BENCH_SKIP : BENCH_ERROR;
    /* A runnable plugin's answer names the device it found (set_info
     * "device" in init), for bench --list. */
    const char *device = kv_list_get(got.ninfo, got.info, "device");
    snprintf(reason, len, "%s", rc == BENCH_OK ? (device ? device : "") : got.message ? got.message : "");
    *validation = got.status == CASE_ERROR && backends_validation_error_outside_case(got.message);
  } else if (out.line && out.exit_code == 0) {
    snprintf(reason, len, "unreadable answer from init()'s process: %s", err);
  } else if (out.line && !out.timed_out && !out.interrupted) {
    /* init answered; what came after it (deinit, a bench.process/1
     * release callback: the tail names which) ended the process */
    if (out.signal)
      snprintf(reason, len, "deinit() or a release callback after it crashed (%s)", strsignal(out.signal));
    else
      snprintf(reason, len, "deinit() or a release callback after it ended the process (status %d)",
               out.exit_code);
  } else if (out.timed_out) {
    snprintf(reason, len, "init() hung for %.3g s", timeout_s);
  } else if (out.interrupted) {
    snprintf(reason, len, "interrupted");
  } else if (out.signal) {
    snprintf(reason, len, "init() crashed (%s)", strsignal(out.signal));
  } else {
    snprintf(reason, len, "init() ended the process (status %d)", out.exit_code);
  }
  case_result_release(&got);
  child_outcome_release(&out);
  return rc;
}

int probe_in_child(const struct plugin *pl, double timeout_s, int debug, char *reason, size_t len) {
  int validation;
  return probe(pl, timeout_s, child_env_of(debug, NULL), reason, len, &validation);
}

/* ---- one worker for one or more plugins -------------------------------- */

/* After a plugin's deinit: the parent moves on to the next plugin, or lets
 * the worker go after the last. */
#define PLUGIN_DONE "bench: plugin done"
/* Before PLUGIN_DONE, when the plugin changed the process state
 * (run/proc_state.h): "fresh WHAT" (the next plugin needs a fresh worker)
 * or "restored WHAT". */
#define STATE_LINE "bench: state "
/* Before each bench.process/1 release callback at the worker's end:
 * "KEY\tFILE", so that one that crashes or hangs is named. */
#define RELEASE_LINE "bench: release "

struct worker_job {
  const struct plugin_job *jobs; /* plugins run one after the other */
  size_t njobs;
  size_t j, from;                /* the first plugin and case this worker runs */
};

/* In the worker: init, the cases from `from`, deinit; init's answer first. */
static void worker_plugin(const struct plugin_job *job, size_t from, int fd) {
  struct plugin_run pr;
  int rc = measure_init(&pr, job->pl);
  send_result(fd, &pr.init); /* first line: init's answer */
  if (job->resolved) {
    pr.set_up = send_resolved;
    pr.set_up_arg = &fd;
  }
  if (rc != BENCH_OK) {
    measure_deinit(&pr);
    return;
  }
  /* Processes started by init may serve every case; those of a case die
   * with it. */
  size_t nkeep = 0;
  int *keep = child_children(&nkeep);
  int deinit_done = 0;
  for (size_t k = from; k < job->ncases; k++) {
    struct case_result r;
    case_identity(&r, job->pl, &job->cases[k], job->first_index + (int)k);
    measure_one(&pr, &job->cases[k], job->pol, &r);
    vk_validation_take(&r);
    child_kill_descendants(keep, nkeep);
    if (k + 1 == job->ncases && vk_validation_active()) {
      /* --mode debug: the last case waits for deinit, and what the
       * validation layer logs there (an object left at vkDestroyDevice)
       * is that case's, as it is each case's under isolation = case. */
      measure_deinit(&pr);
      deinit_done = 1;
      vk_validation_take_in(&r, "deinit()");
    }
    send_result(fd, &r);
    case_result_release(&r);
  }
  free(keep);
  if (!deinit_done) measure_deinit(&pr);
}

/* Printable ASCII but for tabs: a piece of a line to the parent. */
static void add_printable(struct strbuf *sb, const char *s) {
  for (size_t i = 0; s && s[i] && i < 300; i++) {
    char c = s[i];
    strbuf_add(sb, c >= 0x20 && c < 0x7f ? &c : "?", 1);
  }
}

static void announce_release(void *arg, const char *key, const char *file) {
  struct strbuf line = STRBUF_INIT;
  strbuf_adds(&line, RELEASE_LINE);
  add_printable(&line, key);
  strbuf_adds(&line, "\t");
  add_printable(&line, file);
  child_send_line(*(int *)arg, line.buf);
  strbuf_release(&line);
}

static void worker_child(void *arg, int fd) {
  struct worker_job *wj = arg;
  vk_validation_child_begin();
  for (size_t j = wj->j; j < wj->njobs; j++) {
    /* What a plugin changes of the process is not the next one's: saved
     * before it, restored after it, or a fresh worker for the next. */
    const int last = j + 1 == wj->njobs;
    struct proc_state *ps = last ? NULL : proc_state_save();
    const size_t slots = host_process_nslots();
    worker_plugin(&wj->jobs[j], j == wj->j ? wj->from : 0, fd);
    child_kill_descendants(NULL, 0); /* what this plugin left is not the next one's */
    int fresh = 0;
    if (ps) {
      char *what = NULL;
      /* threads of what it left in a slot (a shared device's) are the slot's */
      fresh = proc_state_restore(ps, host_process_nslots() > slots ? 1 << 20 : 0, &what);
      if (what) {
        char *line = xasprintf(STATE_LINE "%s %s", fresh ? "fresh" : "restored", what);
        child_send_line(fd, line);
        free(line);
        free(what);
      }
      proc_state_free(ps);
    }
    if (last || fresh) {
      /* What plugins shared (bench.process/1 slots), each callback named
       * first; then the parent need not wait for our exit. */
      host_process_release_each(announce_release, &fd);
      child_send_line(fd, PLUGIN_DONE);
      return;
    }
    child_send_line(fd, PLUGIN_DONE);
  }
}

struct worker_state {
  const struct plugin_job *jobs;
  size_t njobs;
  size_t j;                /* the plugin running now */
  size_t next;             /* its case running now */
  int got_init;
  struct case_result init; /* the plugin's first line */
  char *init_tail;         /* what init printed: goes with the first case */
  int fresh;               /* the plugin changed what cannot be restored: the next gets a fresh worker */
  int restart;             /* this worker is done; a fresh one goes on with plugin j */
  char *releasing;         /* "KEY\tFILE" of the release callback running now, or NULL */
};

static size_t finish_with(const struct plugin_job *job, size_t k, const struct case_result *init,
                          int begun, char *tail);

/* A note from the worker: the values the running case's setup resolved. */
static void on_worker_note(void *arg, char *text) {
  struct worker_state *ws = arg;
  if (ws->got_init && ws->init.status == CASE_OK && ws->j < ws->njobs)
    tell_resolved(&ws->jobs[ws->j], ws->next, text);
  free(text);
}

static int on_worker_line(void *arg, char *line, char *tail, double wall_s) {
  struct worker_state *ws = arg;
  const struct plugin_job *job = &ws->jobs[ws->j];
  if (!ws->got_init) {
    ws->got_init = 1;
    take_line(line, &ws->init);
    free(line);
    ws->init_tail = tail;
    if (ws->init.status != CASE_OK) {
      /* init declined or failed: no worker can do better; every case of
       * this plugin gets its verdict. */
      size_t first = ws->next;
      ws->next += finish_with(job, ws->next, &ws->init, 1, ws->init_tail);
      ws->init_tail = NULL;
      if (ws->next == first) ws->next = job->ncases; /* interrupted before one was told */
    }
    return 0;
  }
  if (ws->next >= job->ncases) { /* after its last case: deinit is done */
    if (strncmp(line, STATE_LINE, strlen(STATE_LINE)) == 0) {
      const char *p = line + strlen(STATE_LINE);
      ws->fresh = strncmp(p, "fresh ", 6) == 0;
      p = strchr(p, ' ');
      const char *what = p ? p + 1 : "";
      /* Threads alone (a runtime's pool: CUDA's, OpenBLAS's, OpenMP's) are
       * what most GPU and BLAS plugins leave: the next plugin gets a fresh
       * worker each time, said once a run; anything else, every time. */
      static int threads_said;
      int threads_only = strstr(what, "left running") && !strchr(what, ';');
      if (threads_only && threads_said) {
        /* said already */
      } else if (threads_only) {
        threads_said = 1;
        fprintf(stderr,
                "bench: note: plugin %s left threads in its worker (%s): the next plugin runs in a fresh "
                "worker (said once a run; so does every plugin that leaves threads)\n",
                term_str(job->pl->desc->name), term_str(what));
      } else
        fprintf(stderr, "bench: note: plugin %s changed its worker's process state: %s; %s\n",
                term_str(job->pl->desc->name), term_str(what),
                ws->fresh ? "the next plugin runs in a fresh worker" : "restored for the next plugin");
      free(line);
      free(tail);
      return 0;
    }
    if (strncmp(line, RELEASE_LINE, strlen(RELEASE_LINE)) == 0) {
      free(ws->releasing);
      ws->releasing = xstrdup(line + strlen(RELEASE_LINE));
      free(line);
      free(tail);
      return 0;
    }
    int done = strcmp(line, PLUGIN_DONE) == 0;
    free(line);
    free(tail);
    if (!done) return 0;
    free(ws->releasing);
    ws->releasing = NULL;
    ws->j++;
    ws->next = 0;
    ws->got_init = 0;
    case_result_release(&ws->init);
    case_result_init(&ws->init);
    free(ws->init_tail);
    ws->init_tail = NULL;
    if (ws->j >= ws->njobs) return 1;
    if (ws->fresh) { /* this worker is done: a fresh one begins the next plugin */
      ws->restart = 1;
      return 1;
    }
    ws->jobs[ws->j].begin(ws->jobs[ws->j].cb_arg, 0);
    return 0;
  }
  struct case_result r;
  case_identity(&r, job->pl, &job->cases[ws->next], job->first_index + (int)ws->next);
  take_line(line, &r);
  free(line);
  r.exit_code = 0; /* the case ended normally */
  r.signal = 0;
  r.wall_s = wall_s;
  free(r.stderr_tail);
  r.stderr_tail = tail;
  if (ws->init_tail) {
    r.stderr_tail = tail ? xasprintf("%s\n%s", ws->init_tail, tail) : ws->init_tail;
    if (tail) free(ws->init_tail);
    free(tail);
    ws->init_tail = NULL;
  }
  size_t k = ws->next++;
  job->done(job->cb_arg, k, &r);
  /* The worker goes on with the next case once acknowledged, even when a
   * signal came in the meantime (that case is then INTERRUPTED). */
  if (ws->next < job->ncases) job->begin(job->cb_arg, ws->next);
  return 0;
}

/* Every case from k on gets init's verdict (SKIPPED or ERROR). */
static size_t finish_with(const struct plugin_job *job, size_t k, const struct case_result *init,
                          int begun, char *tail) {
  size_t n = 0;
  for (; k < job->ncases && !child_interrupted(); k++) {
    if (!begun) job->begin(job->cb_arg, k);
    begun = 0;
    struct case_result r;
    case_identity(&r, job->pl, &job->cases[k], job->first_index + (int)k);
    r.status = init->status == CASE_SKIPPED ? CASE_SKIPPED : CASE_ERROR;
    r.message = xstrdup(init->message ? init->message : "init() failed without a reason");
    for (size_t i = 0; i < init->ninfo; i++)
      kv_list_add(&r.ninfo, &r.info, init->info[i].key, init->info[i].value);
    r.stderr_tail = tail; /* what init printed, with the first case */
    tail = NULL;
    job->done(job->cb_arg, k, &r);
    n++;
  }
  free(tail);
  return n;
}

/* The worker ended in a bench.process/1 release callback (after every
 * case's result was in): one line naming the slot and its plugin. */
static void release_failed(const struct worker_state *ws, const struct child_outcome *out) {
  char *tab = strchr(ws->releasing, '\t');
  const char *file = tab && tab[1] ? tab + 1 : NULL;
  const char *base = file ? strrchr(file, '/') : NULL;
  char how[160];
  if (out->interrupted)
    return; /* the signal is the run's news */
  if (out->timed_out)
    snprintf(how, sizeof how, "hung (killed after %.3g s)", ws->jobs[0].pol->timeout_s);
  else if (out->signal)
    snprintf(how, sizeof how, "crashed (%s)", strsignal(out->signal));
  else
    snprintf(how, sizeof how, "ended the worker (status %d)", out->exit_code);
  char *key = tab ? xstrndup(ws->releasing, (size_t)(tab - ws->releasing)) : xstrdup(ws->releasing);
  warning("the release callback of bench.process/1 slot '%s'%s%s%s %s at the worker's end; the results "
          "of its cases stand",
          term_str(key), file ? " (in " : "", file ? term_str(base ? base + 1 : file) : "", file ? ")" : "", how);
  free(key);
}

/* The cases of jobs[0..njobs) in workers, plugin after plugin in one
 * worker; a worker that dies, hangs or is stopped costs the case it ran and
 * a fresh one goes on with the next case (of the same or the next plugin). */
static void run_workers(const struct plugin_job *jobs, size_t njobs) {
  size_t j = 0, k = 0;
  while (j < njobs && !child_interrupted()) {
    if (k >= jobs[j].ncases) {
      j++;
      k = 0;
      continue;
    }
    const struct plugin_job *job = &jobs[j];
    job->begin(job->cb_arg, k);
    struct worker_state ws = {jobs, njobs, j, k, 0, {0}, NULL, 0, 0, NULL};
    case_result_init(&ws.init);
    struct worker_job wj = {jobs, njobs, j, k};
    struct child_opts o = {job->pol->timeout_s, job->pol->heartbeat_s, job->tick, job->tick_arg,
                           child_env_of(job->debug, job->pol), on_worker_line, &ws, on_worker_note, &ws};
    struct child_outcome out;
    int started = child_run(worker_child, &wj, &o, &out) == 0;
    j = ws.j;
    k = ws.next;
    if (started && ws.releasing) release_failed(&ws, &out);
    if (j < njobs && k < jobs[j].ncases && !ws.restart && !(ws.got_init && ws.init.status != CASE_OK)) {
      /* The worker died, hung or was stopped in case k of plugin j (or in
       * its init). */
      job = &jobs[j];
      struct case_result r;
      case_identity(&r, job->pl, &job->cases[k], job->first_index + (int)k);
      if (!started) {
        r.status = CASE_ERROR;
        r.message = xstrdup("could not start the case's child process");
      } else {
        record_outcome(&r, &out, job->pol);
        r.stderr_tail = out.stderr_tail;
        out.stderr_tail = NULL;
        if (ws.init_tail) {
          char *t = r.stderr_tail ? xasprintf("%s\n%s", ws.init_tail, r.stderr_tail) : xstrdup(ws.init_tail);
          free(r.stderr_tail);
          r.stderr_tail = t;
        }
      }
      job->done(job->cb_arg, k, &r);
      k++;
    }
    if (started) child_outcome_release(&out);
    case_result_release(&ws.init);
    free(ws.init_tail);
    free(ws.releasing);
    if (!started) break;
  }
}

/* Case k of job in a process of its own: its note goes to job's callback. */
struct isolated_note {
  const struct plugin_job *job;
  size_t k;
};

static void isolated_note(void *arg, char *text) {
  const struct isolated_note *n = arg;
  tell_resolved(n->job, n->k, text);
  free(text);
}

static size_t run_isolated(const struct plugin_job *job) {
  /* init() is per process and sees no case: when it declines this machine
   * (no device, no driver), every case is SKIPPED for that reason without
   * starting a process per case. */
  char reason[512] = "";
  int validation = 0;
  const int rc = job->pl->desc->init ? probe(job->pl, job->pol->timeout_s,
                                             child_env_of(job->debug, job->pol), reason,
                                             sizeof reason, &validation)
                                     : BENCH_OK;
  if (rc == BENCH_SKIP || (rc == BENCH_ERROR && validation)) {
    /* ... and a Vulkan validation error in init or deinit under --mode
     * debug is init's error, for every case. */
    struct case_result init;
    case_result_init(&init);
    init.status = rc == BENCH_SKIP ? CASE_SKIPPED : CASE_ERROR;
    init.message = xstrdup(reason);
    size_t n = finish_with(job, 0, &init, 0, NULL);
    case_result_release(&init);
    return n;
  }
  size_t k = 0;
  for (; k < job->ncases && !child_interrupted(); k++) {
    job->begin(job->cb_arg, k);
    struct case_result r;
    struct isolated_note note = {job, k};
    run_case(job->pl, &job->cases[k], job->first_index + (int)k, job->pol, job->debug, job->tick,
             job->tick_arg, job->resolved ? isolated_note : NULL, &note, &r);
    job->done(job->cb_arg, k, &r);
  }
  return k;
}

/* A job whose cases are counted for the validation tally on their way to
 * the job's own callbacks. */
struct tallied {
  const struct plugin_job *job;
  enum validation_state state;
};

static void tallied_begin(void *arg, size_t k) {
  const struct tallied *t = arg;
  t->job->begin(t->job->cb_arg, k);
}

static void tallied_resolved(void *arg, size_t k, const struct case_result *seen) {
  const struct tallied *t = arg;
  t->job->resolved(t->job->cb_arg, k, seen);
}

static void tallied_done(void *arg, size_t k, struct case_result *r) {
  const struct tallied *t = arg;
  const struct backend *b = backend_find(t->job->pl->desc->backend);
  if (b && b->validation_env && r->status != CASE_SKIPPED) {
    /* a plugin whose own messenger ran the layer (the user's variables) was validated too */
    const char *own = b->validation_info ? kv_list_get(r->ninfo, r->info, b->validation_info) : NULL;
    const int by_plugin = t->state == VALIDATION_OFF && own && strcmp(own, "on") == 0;
    validation_tally_case(b->name, by_plugin ? VALIDATION_ON : t->state);
  }
  t->job->done(t->job->cb_arg, k, r);
}

/* Whether job asks for its backend's validation layer. */
static int wants_validation(const struct plugin_job *job) {
  return (job->debug || job->pol->validation) && backend_has_validation(job->pl->desc->backend);
}

void run_plugins_cases(const struct plugin_job *jobs, size_t njobs, enum isolation iso) {
  int debug = 0, want = 0;
  for (size_t j = 0; j < njobs; j++) {
    debug |= jobs[j].debug;
    want |= wants_validation(&jobs[j]);
  }
  /* Where the layer is not installed, validation = true asks for nothing
   * (the summary says so once); --mode debug sets its variables anyway. */
  const int installed = want && vk_validation_layer_installed();
  const int validation = (debug || installed) && vk_validation_open() == 0;
  struct plugin_job *w = xmalloc((njobs ? njobs : 1) * sizeof *w);
  struct tallied *t = xmalloc((njobs ? njobs : 1) * sizeof *t);
  for (size_t j = 0; j < njobs; j++) {
    const int asked = wants_validation(&jobs[j]);
    t[j] = (struct tallied){&jobs[j], !asked         ? VALIDATION_OFF
                                      : !installed   ? VALIDATION_MISSING
                                      : validation   ? VALIDATION_ON
                                                     : VALIDATION_OFF};
    w[j] = jobs[j];
    w[j].begin = tallied_begin;
    w[j].done = tallied_done;
    w[j].resolved = jobs[j].resolved ? tallied_resolved : NULL;
    w[j].cb_arg = &t[j];
  }
  if (iso == ISOLATION_BACKEND) {
    run_workers(w, njobs);
  } else {
    for (size_t j = 0; j < njobs && !child_interrupted(); j++) {
      if (iso == ISOLATION_CASE)
        run_isolated(&w[j]);
      else
        run_workers(&w[j], 1);
    }
  }
  if (validation) vk_validation_close();
  free(w);
  free(t);
}
