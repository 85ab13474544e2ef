/* Saving and restoring what a plugin can change of its process (see
 * proc_state.h). */
#include "run/proc_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

extern char **environ;

#ifndef RLIMIT_NLIMITS
#define RLIMIT_NLIMITS 16
#endif
#define NSIGS 65 /* signals 1..64 */

struct proc_state {
  char *cwd;
  mode_t umask;
  char **env; /* "NAME=value" copies, NULL-terminated */
  size_t nenv;
  sigset_t mask;
  struct sigaction act[NSIGS];
  unsigned char have_act[NSIGS];
  struct rlimit lim[RLIMIT_NLIMITS];
  unsigned char have_lim[RLIMIT_NLIMITS];
  char *locale;          /* setlocale(LC_ALL, NULL) */
  locale_t thread_locale; /* uselocale(0) */
  fenv_t fenv;
  int round;
  unsigned long fpctl; /* x86: MXCSR without its sticky flags, and the x87 control word; arm64: FPCR */
  int threads;
};

/* ---- the FP control registers ------------------------------------------ */

#if defined(__x86_64__) || defined(__i386__)
#define MXCSR_FLAGS 0x3fu /* the exception flags: raised by any arithmetic, not state a plugin sets */
static unsigned long fp_control(void) {
  unsigned int mxcsr;
  unsigned short cw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  return (unsigned long)(mxcsr & ~MXCSR_FLAGS) | ((unsigned long)cw << 32);
}
static void fp_control_set(unsigned long v) {
  unsigned int mxcsr;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  mxcsr = (mxcsr & MXCSR_FLAGS) | ((unsigned int)v & ~MXCSR_FLAGS);
  unsigned short cw = (unsigned short)(v >> 32);
  __asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
  __asm__ volatile("fldcw %0" : : "m"(cw));
}
static void fp_describe(struct strbuf *sb, unsigned long now, unsigned long was) {
  unsigned int a = (unsigned int)now, b = (unsigned int)was;
  if ((a ^ b) & 0x8000u) strbuf_addf(sb, "; flush-to-zero (MXCSR FTZ) %s", a & 0x8000u ? "on" : "off");
  if ((a ^ b) & 0x40u) strbuf_addf(sb, "; denormals-are-zero (MXCSR DAZ) %s", a & 0x40u ? "on" : "off");
  if ((a ^ b) & 0x1f80u) strbuf_addf(sb, "; MXCSR exception masks %#x (was %#x)", a & 0x1f80u, b & 0x1f80u);
  /* (its rounding bits, 0xc00, are the rounding mode's: said with it) */
  if (((now ^ was) >> 32) & ~0xc00ul) strbuf_addf(sb, "; x87 control word %#lx (was %#lx)", now >> 32, was >> 32);
}
#elif defined(__aarch64__)
static unsigned long fp_control(void) {
  unsigned long v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
static void fp_control_set(unsigned long v) { __asm__ volatile("msr fpcr, %0" : : "r"(v)); }
static void fp_describe(struct strbuf *sb, unsigned long now, unsigned long was) {
  if ((now ^ was) & (1ul << 24)) strbuf_addf(sb, "; flush-to-zero (FPCR FZ) %s", now & (1ul << 24) ? "on" : "off");
  if ((now ^ was) & ~(1ul << 24) & ~(3ul << 22)) strbuf_addf(sb, "; FPCR %#lx (was %#lx)", now, was);
}
#else
static unsigned long fp_control(void) { return 0; }
static void fp_control_set(unsigned long v) { (void)v; }
static void fp_describe(struct strbuf *sb, unsigned long now, unsigned long was) {
  (void)sb, (void)now, (void)was;
}
#endif

static const char *round_name(int r) {
  switch (r) {
#ifdef FE_TONEAREST
  case FE_TONEAREST: return "to nearest";
#endif
#ifdef FE_UPWARD
  case FE_UPWARD: return "upward";
#endif
#ifdef FE_DOWNWARD
  case FE_DOWNWARD: return "downward";
#endif
#ifdef FE_TOWARDZERO
  case FE_TOWARDZERO: return "toward zero";
#endif
  default: return "unknown";
  }
}

/* ---- threads --------------------------------------------------------------- */

int proc_state_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[96], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue; /* gone */
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0) continue;
    buf[r] = '\0';
    const char *rp = strrchr(buf, ')');
    char st = rp && rp[1] == ' ' ? rp[2] : '?';
    if (st != 'Z' && st != 'X' && st != 'x') n++;
  }
  closedir(d);
  return n;
}

/* The threads now, once those ending have ended: a thread that was joined
 * or is returning leaves /proc a moment later. Waits for that state, at
 * most 200 ms. */
static int threads_settled(int allowed) {
  int n = proc_state_threads();
  for (int i = 0; i < 200 && n > allowed; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    n = proc_state_threads();
  }
  return n;
}

/* ---- save ------------------------------------------------------------------ */

struct proc_state *proc_state_save(void) {
  struct proc_state *s = xcalloc(1, sizeof *s);
  s->cwd = getcwd(NULL, 0);
  s->umask = umask(022);
  umask(s->umask);
  for (char **e = environ; e && *e; e++) s->nenv++;
  s->env = xcalloc(s->nenv + 1, sizeof *s->env);
  for (size_t i = 0; i < s->nenv; i++) s->env[i] = xstrdup(environ[i]);
  sigprocmask(SIG_BLOCK, NULL, &s->mask);
  for (int sig = 1; sig < NSIGS; sig++)
    if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &s->act[sig]) == 0) s->have_act[sig] = 1;
  for (int r = 0; r < RLIMIT_NLIMITS; r++)
    if (getrlimit(r, &s->lim[r]) == 0) s->have_lim[r] = 1;
  const char *loc = setlocale(LC_ALL, NULL);
  s->locale = loc ? xstrdup(loc) : NULL;
  s->thread_locale = uselocale((locale_t)0);
  fegetenv(&s->fenv);
  s->round = fegetround();
  s->fpctl = fp_control();
  s->threads = proc_state_threads();
  return s;
}

void proc_state_free(struct proc_state *s) {
  if (!s) return;
  free(s->cwd);
  for (size_t i = 0; i < s->nenv; i++) free(s->env[i]);
  free(s->env);
  free(s->locale);
  free(s);
}

/* ---- compare and restore --------------------------------------------------- */

/* A name from the environment or a path, printable and short. */
static void add_clean(struct strbuf *sb, const char *s, size_t n) {
  if (n > 80) n = 80;
  for (size_t i = 0; i < n && s[i]; i++) {
    char c = s[i];
    strbuf_add(sb, c >= 0x20 && c < 0x7f && c != ';' ? &c : "?", 1);
  }
}

static const char *env_find(char **env, size_t n, const char *entry, size_t namelen) {
  for (size_t i = 0; i < n; i++)
    if (strncmp(env[i], entry, namelen) == 0 && env[i][namelen] == '=') return env[i];
  return NULL;
}

/* The environment: every variable set, changed or unset since s, put back. */
static void env_restore(struct proc_state *s, struct strbuf *sb) {
  struct strbuf names = STRBUF_INIT;
  int changed = 0;
  /* set or changed: a copy of the names first (unsetenv moves environ) */
  size_t ncur = 0;
  for (char **e = environ; e && *e; e++) ncur++;
  char **cur = xcalloc(ncur + 1, sizeof *cur);
  for (size_t i = 0; i < ncur; i++) cur[i] = xstrdup(environ[i]);
  for (size_t i = 0; i < ncur; i++) {
    const char *eq = strchr(cur[i], '=');
    if (!eq || eq == cur[i]) continue;
    size_t nl = (size_t)(eq - cur[i]);
    const char *was = env_find(s->env, s->nenv, cur[i], nl);
    if (was && strcmp(was, cur[i]) == 0) continue;
    char *name = xstrndup(cur[i], nl);
    strbuf_adds(&names, changed++ ? ", " : "");
    add_clean(&names, name, nl);
    strbuf_adds(&names, was ? " changed" : " set");
    if (was)
      setenv(name, was + nl + 1, 1);
    else
      unsetenv(name);
    free(name);
  }
  for (size_t i = 0; i < s->nenv; i++) {
    const char *eq = strchr(s->env[i], '=');
    if (!eq || eq == s->env[i]) continue;
    size_t nl = (size_t)(eq - s->env[i]);
    if (env_find(cur, ncur, s->env[i], nl)) continue;
    char *name = xstrndup(s->env[i], nl);
    strbuf_adds(&names, changed++ ? ", " : "");
    add_clean(&names, name, nl);
    strbuf_adds(&names, " unset");
    setenv(name, eq + 1, 1);
    free(name);
  }
  for (size_t i = 0; i < ncur; i++) free(cur[i]);
  free(cur);
  if (changed) strbuf_addf(sb, "; environment: %s", names.buf);
  strbuf_release(&names);
}

static const char *limit_name(int r) {
  switch (r) {
  case RLIMIT_CPU: return "RLIMIT_CPU";
  case RLIMIT_FSIZE: return "RLIMIT_FSIZE";
  case RLIMIT_DATA: return "RLIMIT_DATA";
  case RLIMIT_STACK: return "RLIMIT_STACK";
  case RLIMIT_CORE: return "RLIMIT_CORE";
  case RLIMIT_NOFILE: return "RLIMIT_NOFILE";
  case RLIMIT_AS: return "RLIMIT_AS";
#ifdef RLIMIT_NPROC
  case RLIMIT_NPROC: return "RLIMIT_NPROC";
#endif
#ifdef RLIMIT_MEMLOCK
  case RLIMIT_MEMLOCK: return "RLIMIT_MEMLOCK";
#endif
  default: return NULL;
  }
}

int proc_state_restore(struct proc_state *s, int threads_kept, char **what) {
  struct strbuf sb = STRBUF_INIT;
  int fresh = 0;
  /* threads first: with others running, what is put back below may not stay */
  int threads = s->threads < 0 ? -1 : threads_settled(s->threads + (threads_kept > 0 ? threads_kept : 0));
  if (threads > s->threads + (threads_kept > 0 ? threads_kept : 0)) {
    strbuf_addf(&sb, "; %d %s left running", threads - s->threads, threads - s->threads == 1 ? "thread" : "threads");
    fresh = 1;
  }
  char *cwd = getcwd(NULL, 0);
  if (s->cwd && (!cwd || strcmp(cwd, s->cwd) != 0)) {
    strbuf_adds(&sb, "; working directory ");
    if (cwd) add_clean(&sb, cwd, strlen(cwd));
    else strbuf_adds(&sb, "(gone)");
    if (chdir(s->cwd) != 0) {
      strbuf_adds(&sb, " (the old one is gone)");
      fresh = 1;
    }
  }
  free(cwd);
  mode_t um = umask(s->umask);
  if (um != s->umask) strbuf_addf(&sb, "; umask %04o (was %04o)", (unsigned)um, (unsigned)s->umask);
  env_restore(s, &sb);
  sigset_t mask;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  int masked = 0;
  for (int sig = 1; sig < NSIGS; sig++)
    if (sigismember(&mask, sig) != sigismember(&s->mask, sig)) masked = 1;
  if (masked) {
    strbuf_adds(&sb, "; signal mask");
    sigprocmask(SIG_SETMASK, &s->mask, NULL);
  }
  struct strbuf sigs = STRBUF_INIT;
  for (int sig = 1; sig < NSIGS; sig++) {
    struct sigaction now;
    if (!s->have_act[sig] || sigaction(sig, NULL, &now) != 0) continue;
    const struct sigaction *was = &s->act[sig];
    int same = now.sa_handler == was->sa_handler && (now.sa_flags & ~0x04000000) == (was->sa_flags & ~0x04000000);
    if (same) continue;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *name = sigabbrev_np(sig);
#else
    const char *name = NULL;
#endif
    if (name)
      strbuf_addf(&sigs, "%sSIG%s", sigs.len ? ", " : "", name);
    else
      strbuf_addf(&sigs, "%s%d", sigs.len ? ", " : "", sig);
    if (sigaction(sig, was, NULL) != 0) fresh = 1;
  }
  if (sigs.len) strbuf_addf(&sb, "; signal handlers of %s", sigs.buf);
  strbuf_release(&sigs);
  for (int r = 0; r < RLIMIT_NLIMITS; r++) {
    struct rlimit now;
    if (!s->have_lim[r] || getrlimit(r, &now) != 0) continue;
    if (now.rlim_cur == s->lim[r].rlim_cur && now.rlim_max == s->lim[r].rlim_max) continue;
    const char *name = limit_name(r);
    if (name)
      strbuf_addf(&sb, "; %s", name);
    else
      strbuf_addf(&sb, "; resource limit %d", r);
    if (setrlimit(r, &s->lim[r]) != 0) {
      strbuf_adds(&sb, " (lowered for good)");
      fresh = 1;
    }
  }
  const char *loc = setlocale(LC_ALL, NULL);
  if (s->locale && (!loc || strcmp(loc, s->locale) != 0)) {
    strbuf_adds(&sb, "; locale ");
    if (loc) add_clean(&sb, loc, strlen(loc));
    if (!setlocale(LC_ALL, s->locale)) fresh = 1;
  }
  if (uselocale((locale_t)0) != s->thread_locale) {
    strbuf_adds(&sb, "; the thread's locale (uselocale)");
    uselocale(s->thread_locale);
  }
  int round = fegetround();
  unsigned long fpctl = fp_control();
  if (round != s->round) strbuf_addf(&sb, "; rounding mode %s (was %s)", round_name(round), round_name(s->round));
  if (fpctl != s->fpctl) {
    size_t before = sb.len;
    fp_describe(&sb, fpctl, s->fpctl);
    if (sb.len == before && round == s->round) strbuf_adds(&sb, "; floating-point control");
  }
  if (round != s->round || fpctl != s->fpctl) {
    fesetenv(&s->fenv);
    fp_control_set(s->fpctl);
    if (fegetround() != s->round || fp_control() != s->fpctl) fresh = 1;
  }
  *what = sb.len ? xstrdup(sb.buf + 2) : NULL;
  strbuf_release(&sb);
  return fresh;
}
