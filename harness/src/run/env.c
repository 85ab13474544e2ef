#include "run/env.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine/cpu_model.h"
#include "core/util.h"

extern char **environ;

/* Quote an argument for a POSIX shell only when it needs it. */
static void add_quoted(struct strbuf *sb, const char *a) {
  int plain = *a != '\0';
  for (const char *p = a; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+%@", *p))
      plain = 0;
  if (plain) {
    strbuf_adds(sb, a);
    return;
  }
  strbuf_adds(sb, "'");
  for (const char *p = a; *p; p++) {
    if (*p == '\'')
      strbuf_adds(sb, "'\\''");
    else
      strbuf_add(sb, p, 1);
  }
  strbuf_adds(sb, "'");
}

void run_env_collect(struct run_env *e, int argc, char **argv, const char *preset,
                     const char *preset_sha256, const char *tag, const char *mode) {
  memset(e, 0, sizeof *e);
  char date[11], iso[32];
  today_local(date);
  iso_time_utc(iso);
  e->date = xstrdup(date);
  e->started = xstrdup(iso);
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  e->hostname = xstrdup(host);
  e->cpu = cpu_model();
  e->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN); /* sysfs, else /proc/stat */
  cpu_set_t set;
  if (e->cpus <= 0 && sched_getaffinity(0, sizeof set, &set) == 0) e->cpus = CPU_COUNT(&set);
  e->caches = *cpu_caches();
  struct utsname u;
  e->os = uname(&u) == 0 ? xasprintf("%s %s %s", u.sysname, u.release, u.machine) : xstrdup("unknown");
  e->bench_version = xstrdup(bench_version());
  e->git_revision = xstrdup(bench_git_revision());
  struct strbuf cmd = STRBUF_INIT;
  for (int i = 0; i < argc; i++) {
    if (i) strbuf_adds(&cmd, " ");
    add_quoted(&cmd, argv[i]);
  }
  e->command = strbuf_detach(&cmd);
  e->preset = xstrdup(preset ? preset : "");
  e->preset_sha256 = xstrdup(preset_sha256 ? preset_sha256 : "");
  e->tag = tag ? xstrdup(tag) : NULL;
  e->mode = xstrdup(mode ? mode : "perf");
}

void run_env_sampling(struct run_env *e, const struct run_policy *pol) {
  struct run_sampling *m = &e->sampling;
  memset(m, 0, sizeof *m);
  m->known = 1;
  m->warmup_iters = pol->warmup_iters;
  m->warmup_s = pol->warmup_s;
  m->min_samples = pol->min_samples;
  m->max_samples = pol->max_samples;
  m->min_time_s = pol->min_time_s;
  m->max_time_s = pol->max_time_s;
  m->target_noise = pol->target_noise;
  snprintf(m->stop_rule, sizeof m->stop_rule, "%s", stop_rule_name(pol->stop_rule));
  static const enum run_key_id keys[RS_NKEYS] = {
      [RS_WARMUP_ITERS] = RUN_WARMUP_ITERS, [RS_WARMUP_TIME] = RUN_WARMUP_TIME, [RS_MIN_SAMPLES] = RUN_MIN_SAMPLES,
      [RS_MAX_SAMPLES] = RUN_MAX_SAMPLES,   [RS_MIN_TIME] = RUN_MIN_TIME,       [RS_MAX_TIME] = RUN_MAX_TIME,
      [RS_TARGET_NOISE] = RUN_TARGET_NOISE};
  for (int k = 0; k < RS_NKEYS; k++)
    if (pol->from_cli & 1u << keys[k]) m->from_cli |= 1u << k;
}

/* The invocation's start time, and its id (start time and pid). */
static char run_started[32], run_id[64];

const char *run_env_run_id(void) {
  if (!run_id[0]) {
    iso_time_utc(run_started);
    snprintf(run_id, sizeof run_id, "%s-%ld", run_started, (long)getpid());
  }
  return run_id;
}

/* The first line git prints for args (run in dir), or NULL: git absent,
 * failing, or running past GIT_WAIT_S (then killed). Caller frees. */
#define GIT_WAIT_S 3.0
static char *git_line(const char *dir, const char *const *args) {
  /* everything the child needs, built before the fork (the child only
   * redirects and execs) */
  const char *argv[12] = {"git", "-C", dir};
  size_t n = 3;
  for (size_t i = 0; args[i] && n + 1 < sizeof argv / sizeof *argv; i++) argv[n++] = args[i];
  argv[n] = NULL;
  size_t nenv = 0;
  while (environ[nenv]) nenv++;
  const char **envp = xcalloc(nenv + 3, sizeof *envp);
  size_t k = 0;
  for (size_t i = 0; i < nenv; i++)
    if (strncmp(environ[i], "GIT_TERMINAL_PROMPT=", 20) != 0 && strncmp(environ[i], "GIT_OPTIONAL_LOCKS=", 19) != 0)
      envp[k++] = environ[i];
  envp[k++] = "GIT_TERMINAL_PROMPT=0";
  envp[k++] = "GIT_OPTIONAL_LOCKS=0";
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    free(envp);
    return NULL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(out[0]), close(out[1]);
    free(envp);
    return NULL;
  }
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, 0), dup2(null, 2);
    dup2(out[1], 1);
    execvpe("git", (char *const *)argv, (char *const *)envp);
    _exit(127);
  }
  free(envp);
  close(out[1]);
  struct strbuf sb = STRBUF_INIT;
  double end = now_s() + GIT_WAIT_S;
  int timed_out = 0;
  for (;;) {
    double left = end - now_s();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd pf = {out[0], POLLIN, 0};
    int r = poll(&pf, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[512];
    ssize_t got = read(out[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (sb.len < 4096) strbuf_add(&sb, buf, (size_t)got);
  }
  close(out[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  char *nl = sb.buf ? strchr(sb.buf, '\n') : NULL;
  if (nl) *nl = '\0';
  if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !sb.len || !*sb.buf) {
    strbuf_release(&sb);
    return NULL;
  }
  return strbuf_detach(&sb);
}

/* What git says of one folder; the last folder asked is kept (a run's
 * plugins mostly share one). */
struct git_source {
  char *dir, *commit, *describe;
  int dirty;
};
static struct git_source last_source;

static const struct git_source *git_source_of(const char *dir) {
  struct git_source *g = &last_source;
  if (g->dir && strcmp(g->dir, dir) == 0) return g;
  free(g->dir), free(g->commit), free(g->describe);
  memset(g, 0, sizeof *g);
  g->dir = xstrdup(dir);
  static const char *const head[] = {"rev-parse", "--verify", "-q", "HEAD", NULL};
  static const char *const describe[] = {"describe", "--tags", "--always", "--dirty", NULL};
  g->commit = git_line(dir, head);
  if (!g->commit || strspn(g->commit, "0123456789abcdef") < 40) {
    free(g->commit);
    g->commit = NULL;
    return g;
  }
  char *d = git_line(dir, describe);
  size_t len = d ? strlen(d) : 0;
  if (len > 6 && strcmp(d + len - 6, "-dirty") == 0) {
    g->dirty = 1;
    d[len - 6] = '\0';
  }
  /* --always without a tag gives the abbreviated commit: no describe */
  if (d && *d && strncmp(g->commit, d, strlen(d)) != 0) g->describe = d;
  else free(d);
  return g;
}

void run_env_label(struct run_file *f, const char *plugin_path, const char *label) {
  run_env_run_id();
  f->plugin_dirty = -1;
  if (plugin_path && *plugin_path) {
    char *real = realpath(plugin_path, NULL);
    const char *path = real ? real : plugin_path;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xasprintf("%.*s", (int)(slash == path ? 1 : slash - path), path) : xstrdup(".");
    const struct git_source *g = git_source_of(dir);
    if (g->commit) {
      f->plugin_commit = xstrdup(g->commit);
      f->plugin_dirty = g->dirty;
      f->plugin_describe = g->describe ? xstrdup(g->describe) : NULL;
    }
    free(dir);
    free(real);
  }
  free(f->env.label);
  free(f->env.run_id);
  if (label) f->env.label = xstrdup(label);
  else if (f->plugin_commit)
    f->env.label = xasprintf("%.10s%s", f->plugin_commit, f->plugin_dirty > 0 ? "-dirty" : "");
  else f->env.label = xstrdup(run_started);
  f->env.run_id = xstrdup(run_id);
}
