/* Parent side of a case: fork, measure in the child, collect the result. */
#include "runner.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure.h"
#include "results_io.h"
#include "util.h"

struct case_job {
  const struct plugin *pl;
  const struct case_def *c;
  const struct run_policy *pol;
  const struct case_result *identity;
};

static void write_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void case_in_child(void *arg, int fd) {
  struct case_job *job = arg;
  struct case_result r;
  case_result_init(&r);
  r.plugin = xstrdup(job->identity->plugin);
  r.backend = xstrdup(job->identity->backend);
  r.operation = xstrdup(job->identity->operation);
  r.index = job->identity->index;
  for (size_t i = 0; i < job->identity->nparams; i++)
    kv_list_add(&r.nparams, &r.params, job->identity->params[i].key, job->identity->params[i].value);
  measure_case(job->pl, job->c, job->pol, &r);
  char *line = case_result_to_json_line(&r);
  write_all(fd, line, strlen(line));
  write_all(fd, "\n", 1);
  free(line);
  case_result_release(&r);
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

void run_case(const struct plugin *pl, const struct case_def *c, int index,
              const struct run_policy *pol, int debug, child_tick_fn tick, void *tick_arg,
              struct case_result *r) {
  case_identity(r, pl, c, index);
  struct case_job job = {pl, c, pol, r};
  struct child_opts o = {pol->timeout_s, pol->heartbeat_s, tick, tick_arg, debug};
  struct child_outcome out;
  if (child_run(case_in_child, &job, &o, &out) != 0) {
    r->status = CASE_ERROR;
    r->message = xstrdup("could not start the case's child process");
    return;
  }
  if (out.line) {
    struct case_result got;
    char err[256];
    case_result_init(&got);
    if (case_result_from_json_line(out.line, &got, err, sizeof err) == 0) {
      case_result_release(r);
      *r = got;
    } else {
      case_result_release(&got);
      r->status = CASE_ERROR;
      r->message = xasprintf("unreadable result from the child: %s", err);
    }
  } else if (out.interrupted) {
    r->status = CASE_INTERRUPTED;
    r->message = xasprintf("interrupted by %s", strsignal(child_interrupted()));
  } else if (out.timed_out) {
    r->status = CASE_TIMEOUT;
    r->message = xasprintf("timed out after %.3g s (the preset's timeout); killed", pol->timeout_s);
  } else if (out.signal) {
    r->status = CASE_CRASH;
    r->message = xasprintf("killed by signal %d (%s)", out.signal, strsignal(out.signal));
  } else {
    r->status = CASE_CRASH;
    r->message = xasprintf("the case's process exited with status %d without a result", out.exit_code);
  }
  r->exit_code = out.exit_code;
  r->signal = out.signal;
  r->wall_s = out.wall_s;
  free(r->stderr_tail);
  r->stderr_tail = out.stderr_tail;
  out.stderr_tail = NULL;
  child_outcome_release(&out);
}

struct probe_job {
  const struct plugin *pl;
};

static void probe_child(void *arg, int fd) {
  struct probe_job *job = arg;
  char reason[512];
  int rc = probe_plugin(job->pl, reason, sizeof reason);
  char *line = xasprintf("%d %s", rc, reason);
  write_all(fd, line, strlen(line));
  free(line);
}

int probe_in_child(const struct plugin *pl, double timeout_s, int debug, char *reason, size_t len) {
  struct probe_job job = {pl};
  struct child_opts o = {timeout_s, 0, NULL, NULL, debug};
  struct child_outcome out;
  if (child_run(probe_child, &job, &o, &out) != 0) {
    snprintf(reason, len, "could not start a child process");
    return BENCH_ERROR;
  }
  int rc = BENCH_ERROR;
  if (out.line) {
    char *sp = strchr(out.line, ' ');
    rc = atoi(out.line) == BENCH_OK ? BENCH_OK : atoi(out.line) == BENCH_SKIP ? BENCH_SKIP : BENCH_ERROR;
    snprintf(reason, len, "%s", sp ? sp + 1 : "");
  } else if (out.timed_out) {
    snprintf(reason, len, "init() hung for %.3g s", timeout_s);
  } else if (out.interrupted) {
    snprintf(reason, len, "interrupted");
  } else if (out.signal) {
    snprintf(reason, len, "init() crashed (%s)", strsignal(out.signal));
  } else {
    snprintf(reason, len, "init() ended the process (status %d)", out.exit_code);
  }
  child_outcome_release(&out);
  return rc;
}
