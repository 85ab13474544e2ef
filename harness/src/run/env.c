#include "run/env.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "machine/cpu_model.h"
#include "core/util.h"

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
