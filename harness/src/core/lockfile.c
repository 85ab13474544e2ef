/* Temporary files and locks (see lockfile.h). */
#include "core/lockfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/term.h"
#include "core/util.h"

/* ---- the temporary name ------------------------------------------------------ */

#define TEMP_RANDOM_LEN 8

static void random_part(char out[TEMP_RANDOM_LEN + 1]) {
  static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char b[TEMP_RANDOM_LEN];
  random_bytes(b, sizeof b); /* a name that collides is drawn again (O_EXCL) */
  for (size_t i = 0; i < TEMP_RANDOM_LEN; i++) out[i] = alnum[b[i] % (sizeof alnum - 1)];
  out[TEMP_RANDOM_LEN] = '\0';
}

size_t temp_file_name_len(size_t n) {
  char pid[32];
  snprintf(pid, sizeof pid, "%ld", (long)getpid());
  return 1 + n + strlen(".tmp.") + strlen(pid) + 1 + TEMP_RANDOM_LEN;
}

int temp_file_beside(const char *path, char **tmp) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  for (int i = 0; i < TEMP_FILE_TRIES; i++) {
    char r[TEMP_RANDOM_LEN + 1];
    random_part(r);
    char *t = xasprintf("%.*s.%s.tmp.%ld.%s", dirlen, path, name, (long)getpid(), r);
    int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *tmp = t;
      return fd;
    }
    int e = errno;
    free(t);
    if (e != EEXIST) {
      *tmp = NULL;
      errno = e;
      return -1;
    }
  }
  *tmp = NULL;
  errno = EEXIST;
  return -1;
}

long temp_file_pid(const char *name) {
  if (name[0] != '.') return 0;
  const char *t = strstr(name, ".tmp.");
  if (!t) return 0;
  for (const char *next; (next = strstr(t + 1, ".tmp.")); t = next) {}
  const char *d = t + 5;
  long pid = 0;
  int digits = 0;
  for (; *d >= '0' && *d <= '9'; d++) {
    if (++digits > 9) return 0;
    pid = pid * 10 + (*d - '0');
  }
  if (!digits) return 0;
  if (*d == '.') { /* the random part */
    size_t n = 0;
    for (d++; isalnum((unsigned char)*d); d++) n++;
    if (n == 0 || n > 16) return 0;
  }
  return *d ? 0 : pid;
}

/* ---- a file replaced whole ---------------------------------------------------- */

int tempfile_open(struct tempfile *t, const char *path) {
  t->fd = temp_file_beside(path, &t->tmp);
  if (t->fd < 0) {
    t->path = NULL;
    return -1;
  }
  t->path = xstrdup(path);
  return 0;
}

int tempfile_write(struct tempfile *t, const void *data, size_t len) {
  /* A file-size limit (ulimit -f) makes the write fail, not the process die. */
  struct sigaction ign, old;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGXFSZ, &ign, &old);
  const char *p = data;
  int e = 0;
  while (len) {
    ssize_t n = write(t->fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      e = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    len -= (size_t)n;
  }
  sigaction(SIGXFSZ, &old, NULL);
  errno = e;
  return e ? -1 : 0;
}

static void tempfile_clear(struct tempfile *t) {
  free(t->tmp);
  free(t->path);
  t->tmp = t->path = NULL;
  t->fd = -1;
}

void tempfile_rollback(struct tempfile *t) {
  if (t->fd >= 0) close(t->fd);
  if (t->tmp) unlink(t->tmp);
  tempfile_clear(t);
}

int tempfile_close(struct tempfile *t) {
  int e = 0;
  if (fsync(t->fd) != 0 && errno != EINVAL) e = errno; /* EINVAL: a file system that cannot */
  if (close(t->fd) != 0 && !e) e = errno;
  t->fd = -1;
  if (e) {
    tempfile_rollback(t);
    errno = e;
    return -1;
  }
  return 0;
}

void sync_dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  free(dir);
}

int tempfile_commit(struct tempfile *t) {
  if (tempfile_close(t) != 0) return -1;
  if (rename(t->tmp, t->path) != 0) {
    int e = errno;
    tempfile_rollback(t);
    errno = e;
    return -1;
  }
  sync_dir_of(t->path);
  tempfile_clear(t);
  return 0;
}

int tempfile_open_with(struct tempfile *t, const char *path, const void *data, size_t len) {
  if (tempfile_open(t, path) != 0) return -1;
  if (tempfile_write(t, data, len) != 0) {
    int e = errno;
    tempfile_rollback(t);
    errno = e;
    return -1;
  }
  return 0;
}

int write_file_atomic_quiet(const char *path, const char *data, size_t len, int *err) {
  struct tempfile t = TEMPFILE_INIT;
  if (tempfile_open_with(&t, path, data, len) != 0 || tempfile_commit(&t) != 0) {
    *err = errno;
    return -1;
  }
  return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len) {
  int e;
  if (write_file_atomic_quiet(path, data, len, &e)) return error("cannot write %s: %s", path, strerror(e));
  return 0;
}

/* ---- locks ---------------------------------------------------------------------- */

int lockfile_open(struct lockfile *lk, const char *path, int flags) {
  lk->fd = flags & LOCKFILE_FOLDER ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                   : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  return lk->fd < 0 ? -1 : 0;
}

int lockfile_take(struct lockfile *lk, int nowait) {
  for (;;) {
    if (flock(lk->fd, LOCK_EX | (nowait ? LOCK_NB : 0)) == 0) return 0;
    if (nowait && (errno == EWOULDBLOCK || errno == EINTR)) return 1;
    if (errno != EINTR) return -1;
  }
}

int lockfile_acquire(struct lockfile *lk, const char *path, int flags) {
  if (lockfile_open(lk, path, flags) != 0) return -1;
  if (lockfile_take(lk, 0) != 0) {
    int e = errno;
    close(lk->fd);
    lk->fd = -1;
    errno = e;
    return -1;
  }
  return 0;
}

void lockfile_release(struct lockfile *lk) {
  if (lk->fd < 0) return;
  flock(lk->fd, LOCK_UN);
  close(lk->fd);
  lk->fd = -1;
}

long lock_holder_pid(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  FILE *f = fopen("/proc/locks", "re");
  if (!f) return 0;
  char line[512];
  long holder = 0;
  while (!holder && fgets(line, sizeof line, f)) {
    /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->" */
    if (strstr(line, "->")) continue;
    char type[16], mode[16], rw[16];
    long pid;
    unsigned maj, min;
    unsigned long long ino;
    if (sscanf(line, "%*[^:]: %15s %15s %15s %ld %x:%x:%llu", type, mode, rw, &pid, &maj, &min, &ino) != 7)
      continue;
    if (ino == (unsigned long long)st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev) && pid > 0 &&
        pid != (long)getpid())
      holder = pid;
  }
  fclose(f);
  return holder;
}

/* ---- a bounded wait that says what it waits for ---------------------------------- */

static volatile sig_atomic_t wait_stop;
static void on_wait_signal(int sig) { wait_stop = sig; }

static const int wait_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NWAIT_SIGNALS (sizeof wait_signals / sizeof wait_signals[0])

double lock_wait_max_s(double dflt) {
  const char *v = getenv("BENCH_LOCK_WAIT_S");
  double d;
  if (v && *v) {
    if (parse_double(v, &d) == 0 && d >= 0) return d;
    warning("BENCH_LOCK_WAIT_S='%s' is not a number of seconds >= 0; waiting at most %g s", v, dflt);
  }
  return dflt;
}

void lock_describe_holder(int fd, char *out, size_t len) {
  long pid = lock_holder_pid(fd);
  if (pid <= 0) {
    snprintf(out, len, "held by another process");
    return;
  }
  char comm[64] = "";
  char *path = xasprintf("/proc/%ld/comm", pid);
  FILE *f = fopen(path, "re");
  if (f) {
    if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = '\0';
    fclose(f);
  }
  free(path);
  if (comm[0])
    snprintf(out, len, "held by pid %ld (%s)", pid, term_str(comm));
  else
    snprintf(out, len, "held by pid %ld", pid);
}

int lockfile_take_bounded(struct lockfile *lk, const char *what, double max_s, int *sig,
                          char *holder, size_t holderlen) {
  *sig = 0;
  snprintf(holder, holderlen, "held by another process");
  int r = lockfile_take(lk, 1);
  if (r != 1) return r; /* held now, or cannot be locked */
  struct sigaction sa, old[NWAIT_SIGNALS];
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_wait_signal;
  sigemptyset(&sa.sa_mask);
  wait_stop = 0;
  for (size_t i = 0; i < NWAIT_SIGNALS; i++) sigaction(wait_signals[i], &sa, &old[i]);
  double t0 = now_s(), next_note = t0 + 1.0;
  for (;;) {
    if ((r = lockfile_take(lk, 1)) != 1) break;
    double t = now_s();
    if (wait_stop || t - t0 >= max_s) break;
    if (t >= next_note) {
      lock_describe_holder(lk->fd, holder, holderlen);
      fprintf(stderr,
              "bench: waiting for the lock on %s (%s): %.0f s of at most %g s (BENCH_LOCK_WAIT_S); "
              "Ctrl-C stops waiting\n",
              what, holder, t - t0, max_s);
      fflush(stderr);
      next_note = t + LOCK_WAIT_NOTE_S;
    }
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL); /* a signal cuts it short */
  }
  for (size_t i = 0; i < NWAIT_SIGNALS; i++) sigaction(wait_signals[i], &old[i], NULL);
  if (r != 1) return r;
  lock_describe_holder(lk->fd, holder, holderlen);
  lockfile_release(lk);
  *sig = wait_stop;
  return *sig ? LOCK_INTERRUPTED : LOCK_GAVE_UP;
}

int lockfile_take_update(struct lockfile *lk, const char *path, const char *noun, const char *kept,
                         double dflt_s) {
  char *what = xasprintf("the %s %s", noun, term_str(path));
  double max = lock_wait_max_s(dflt_s);
  char holder[160];
  int sig;
  int r = lockfile_take_bounded(lk, what, max, &sig, holder, sizeof holder);
  free(what);
  if (r == 0) return 0;
  if (r < 0) return error("cannot lock the %s '%s': %s", noun, path, strerror(errno));
  if (r == LOCK_INTERRUPTED) {
    fprintf(stderr, "bench: interrupted by %s while waiting for the lock on the %s %s (%s): %s\n", strsignal(sig),
            noun, term_str(path), holder, kept);
    fflush(stderr);
    raise(sig);
    return -1;
  }
  warning("gave up waiting for the lock on the %s %s after %g s (%s; BENCH_LOCK_WAIT_S sets the bound): %s", noun,
          term_str(path), max, holder, kept);
  return -1;
}
