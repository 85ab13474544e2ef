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
