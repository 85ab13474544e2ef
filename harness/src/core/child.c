/* Child processes with a watchdog. The parent stays single-threaded, so
 * fork() without exec is safe; it never initialises a GPU runtime itself. */
#include "core/child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/channel.h"
#include "core/util.h"

#define TAIL_BYTES 8192
#define TAIL_LINES 20

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

void child_install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a file-size limit is a write error, reported, not a kill */
}

int child_interrupted(void) { return (int)stop_signal; }

static void set_env(const struct child_env *env) {
  for (; env && env->name; env++) {
    const char *cur = getenv(env->name);
    if (!env->list_sep || !cur || !*cur) {
      setenv(env->name, env->value, 1);
    } else if (!strstr(cur, env->value)) {
      char *v = xasprintf("%s%c%s", cur, env->list_sep, env->value);
      setenv(env->name, v, 1);
      free(v);
    }
  }
}

/* ---- the channel ---------------------------------------------------------
 * Results travel on the channel (core/channel.h), each message with the
 * nonce chosen per child, then '+' (more of the line follows) or '.' (the
 * line ends), then a piece of the line; or 'n' and a whole note. The
 * parent answers every complete line with an acknowledgement, sent when it
 * has dealt with the line (a worker's result is persisted by then);
 * child_send_line waits for it. A note gets none. Anything else that
 * arrives is foreign: it goes to the output tail. */
#define CHUNK 16384

static char nonce[CHANNEL_NONCE_LEN + 1]; /* of the running child (in the child: its own) */

/* The child's fds: 0 /dev/null, 1 and 2 the output pipe, CHAN_FD the
 * channel, LIFE_FD the read end of a pipe whose write end only the parent
 * holds. Nothing else the parent had open (its result files, events, other
 * children's pipes) is left to the plugin. */
#define CHAN_FD 3
#define LIFE_FD 4

void child_close_from(int lowfd) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0) return;
#endif
  /* An older kernel: the descriptors /proc lists, else every number up to
   * the limit. */
  DIR *d = opendir("/proc/self/fd");
  if (d) {
    int self = dirfd(d), n = 0, fds[1024];
    struct dirent *e;
    while ((e = readdir(d)) && n < (int)(sizeof fds / sizeof fds[0])) {
      int fd = atoi(e->d_name);
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= lowfd && fd != self) fds[n++] = fd;
    }
    int complete = e == NULL;
    closedir(d);
    for (int i = 0; i < n; i++) close(fds[i]);
    if (complete) return;
  }
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = lowfd; fd < max; fd++) close(fd);
}

static void move_fd(int from, int to) {
  if (from == to) return;
  dup2(from, to);
  close(from);
}

/* The child's watchdog: when the parent is gone (the pipe's write end
 * closed: exit, crash or SIGKILL) kill every descendant, wherever it hid
 * (this process is a subreaper, so orphans come back to it), then leave.
 * A parent-death signal would kill this process alone. */
static void *watch_parent(void *arg) {
  (void)arg;
  char c;
  for (;;) {
    ssize_t n = read(LIFE_FD, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EBADF) { /* the plugin closed it: fall back */
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      return NULL;
    }
    break;
  }
  child_kill_descendants(NULL, 0);
  _exit(128 + SIGKILL);
}

static void in_child(child_fn fn, void *arg, const struct child_opts *o, int res_w, int err_w,
                     int life_r, pid_t parent) {
  setpgid(0, 0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  child_become_subreaper(); /* what it starts and leaves comes back here */
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) move_fd(devnull, 0);
  dup2(err_w, 1);
  dup2(err_w, 2);
  close(err_w);
  /* res_w and life_r are above 2; put them in place without clobbering. */
  int tmp_life = fcntl(life_r, F_DUPFD_CLOEXEC, LIFE_FD + 1);
  close(life_r);
  move_fd(res_w, CHAN_FD);
  move_fd(tmp_life, LIFE_FD);
  fcntl(CHAN_FD, F_SETFD, 0);
  fcntl(LIFE_FD, F_SETFD, 0);
  child_close_from(LIFE_FD + 1);
  pthread_t t;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* signals stay with the main thread */
  int watched = pthread_create(&t, NULL, watch_parent, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (watched)
    pthread_detach(t);
  else
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the children of this one may outlive it */
  if (getppid() != parent) _exit(127); /* gone before the watch began */
  set_env(o->env);
  fn(arg, CHAN_FD);
  fflush(NULL);
  _exit(0);
}

/* Keep the last TAIL_BYTES of what the child printed. */
static void tail_add(struct strbuf *t, const char *buf, size_t n) {
  strbuf_add(t, buf, n);
  if (t->len > 2 * TAIL_BYTES) {
    memmove(t->buf, t->buf + t->len - TAIL_BYTES, TAIL_BYTES);
    t->len = TAIL_BYTES;
    t->buf[t->len] = '\0';
  }
}

/* The mark child_send_line writes down the output pipe before each line:
 * the harness's framing, never a case's output. */
#define LINE_MARK "\x1e" "bench: end of this case's output" "\x1e\n"

/* Take every mark out of t: the whole ones, and the end of one that the
 * tail's trimming cut (at its start). */
static void strip_marks(struct strbuf *t) {
  const size_t ml = strlen(LINE_MARK);
  size_t w = 0;
  for (size_t r = 0; r < t->len;) {
    if (t->len - r >= ml && memcmp(t->buf + r, LINE_MARK, ml) == 0) {
      r += ml;
      continue;
    }
    t->buf[w++] = t->buf[r++];
  }
  t->len = w;
  if (t->buf) t->buf[w] = '\0';
  /* a cut mark: the tail starts with the end of one (a suffix of at least
   * its last "\x1e\n") */
  for (size_t k = ml - 1; k >= 2; k--) {
    if (t->len >= k && memcmp(t->buf, LINE_MARK + ml - k, k) == 0) {
      memmove(t->buf, t->buf + k, t->len - k + 1);
      t->len -= k;
      break;
    }
  }
}

static char *tail_lines(struct strbuf *t) {
  strip_marks(t);
  while (t->len && (t->buf[t->len - 1] == '\n' || t->buf[t->len - 1] == '\r')) t->buf[--t->len] = '\0';
  if (!t->len) return NULL;
  const char *start = t->buf;
  int lines = 0;
  for (const char *p = t->buf + t->len; p > t->buf; p--) {
    if (p[-1] == '\n' && ++lines == TAIL_LINES) {
      start = p;
      break;
    }
  }
  return xstrdup(start);
}

/* Read what is available on fd into the tail; returns 0 at EOF, 1 otherwise. */
static int drain(int fd, struct strbuf *tail) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      tail_add(tail, buf, (size_t)n);
      continue;
    }
    if (n == 0) return 0;
    if (errno == EINTR) continue;
    return 1; /* EAGAIN */
  }
}

/* ---- descendants ------------------------------------------------------ */

struct pids {
  size_t n, cap;
  int *v; /* pids */
};

static void pids_add(struct pids *p, pid_t x) {
  for (size_t i = 0; i < p->n; i++)
    if (p->v[i] == x) return;
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 16;
    p->v = xrealloc(p->v, p->cap * sizeof *p->v);
  }
  p->v[p->n++] = x;
}

static int pids_has(const int *v, size_t n, pid_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return 1;
  return 0;
}

/* Children of pid from /proc/PID/task/TID/children (every thread's).
 * Returns -1 when the kernel does not offer those files. */
static int children_of(pid_t pid, struct pids *out) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (!d) return 0; /* gone already */
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char f[128];
    snprintf(f, sizeof f, "/proc/%d/task/%.20s/children", (int)pid, e->d_name);
    int fd = open(f, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT && pid == getpid()) rc = -1;
      continue;
    }
    char buf[4096];
    ssize_t n;
    long cur = -1;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
      for (ssize_t i = 0; i < n; i++) {
        if (buf[i] >= '0' && buf[i] <= '9') {
          cur = (cur < 0 ? 0 : cur * 10) + (buf[i] - '0');
        } else if (cur >= 0) {
          pids_add(out, (pid_t)cur);
          cur = -1;
        }
      }
    }
    if (cur >= 0) pids_add(out, (pid_t)cur);
    close(fd);
  }
  closedir(d);
  return rc;
}

/* Fallback: every process's parent from /proc/PID/stat; children of any
 * pid already in out are added until nothing changes. */
static void descendants_by_scan(pid_t root, struct pids *out) {
  struct pids all = {0}, parent = {0};
  DIR *d = opendir("/proc");
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char f[64], buf[512];
    snprintf(f, sizeof f, "/proc/%.20s/stat", e->d_name);
    int fd = open(f, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    char state;
    int ppid;
    if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2) continue;
    if (all.n == all.cap) {
      all.cap = all.cap ? 2 * all.cap : 256;
      all.v = xrealloc(all.v, all.cap * sizeof *all.v);
      parent.v = xrealloc(parent.v, all.cap * sizeof *parent.v);
    }
    all.v[all.n] = (pid_t)atoi(e->d_name);
    parent.v[all.n++] = (pid_t)ppid;
  }
  closedir(d);
  for (size_t changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < all.n; i++) {
      if (all.v[i] == 0) continue;
      if (parent.v[i] == root || pids_has(out->v, out->n, parent.v[i])) {
        pids_add(out, all.v[i]);
        all.v[i] = 0;
        changed = 1;
      }
    }
  }
  free(all.v);
  free(parent.v);
}

/* Every live descendant of this process, except keep and theirs. */
static void list_descendants(const int *keep, size_t nkeep, struct pids *out) {
  struct pids found = {0};
  if (children_of(getpid(), &found) != 0) {
    found.n = 0;
    descendants_by_scan(getpid(), &found);
    for (size_t i = 0; i < found.n; i++)
      if (!pids_has(keep, nkeep, found.v[i])) pids_add(out, found.v[i]);
    /* (keep's own descendants are rare enough to be killed here too) */
    free(found.v);
    return;
  }
  for (size_t i = 0; i < found.n; i++) { /* breadth first; found grows */
    if (pids_has(keep, nkeep, found.v[i])) continue;
    pids_add(out, found.v[i]);
    children_of(found.v[i], &found);
  }
  free(found.v);
}

int *child_children(size_t *n) {
  struct pids d = {0};
  list_descendants(NULL, 0, &d);
  *n = d.n;
  return d.v;
}

int child_become_subreaper(void) {
#ifdef PR_SET_CHILD_SUBREAPER
  return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : -1;
#else
  return -1;
#endif
}

/* A process of the run's own that outlives its cases (bench run --serve's server). */
static int spared_pid;

void child_spare(int pid) { spared_pid = pid; }

void child_kill_descendants(const int *keep_in, size_t nkeep_in) {
  int keep_buf[64];
  const int *keep = keep_in;
  size_t nkeep = nkeep_in;
  if (spared_pid > 0 && nkeep_in < sizeof keep_buf / sizeof *keep_buf) {
    for (size_t i = 0; i < nkeep_in; i++) keep_buf[i] = keep_in[i];
    keep_buf[nkeep_in] = spared_pid;
    keep = keep_buf;
    nkeep = nkeep_in + 1;
  }
  for (int round = 0; round < 2000; round++) {
    struct pids d = {0};
    list_descendants(keep, nkeep, &d);
    for (size_t i = 0; i < d.n; i++) kill(d.v[i], SIGKILL);
    /* Reap whatever is ours by now (orphans come back to a subreaper). */
    for (size_t i = 0; i < d.n; i++) waitpid(d.v[i], NULL, WNOHANG);
    size_t n = d.n;
    free(d.v);
    if (!n) return;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

/* ---- running one child ------------------------------------------------- */

/* Kill the child, its group and everything below it. */
static void kill_child(pid_t pid) {
  kill(pid, SIGKILL); /* even when it left its group */
  kill(-pid, SIGKILL);
}

static void write_fd_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    s += w;
    n -= (size_t)w;
  }
}

void child_send_line(int fd, const char *line) {
  /* The mark goes down the output pipe before the line goes down the
   * channel: when the parent has the line, the mark is in its pipe, and the
   * output before it belongs to this line. */
  fflush(stdout);
  fflush(stderr);
  write_fd_all(2, LINE_MARK, strlen(LINE_MARK));
  size_t n = strlen(line);
  do {
    size_t piece = n > CHUNK ? CHUNK : n;
    if (channel_send(fd, nonce, piece < n ? '+' : '.', line, piece) != 0) _exit(127); /* the parent is gone */
    line += piece;
    n -= piece;
  } while (n);
  /* Wait until the parent has dealt with it (or is gone). */
  char ack[8];
  if (channel_recv(fd, ack, sizeof ack, 0) <= 0) _exit(127);
}

int child_send_note(int fd, const char *text) {
  size_t n = strlen(text);
  if (n > CHANNEL_PAYLOAD_MAX || memchr(text, '\n', n)) return -1;
  return channel_send(fd, nonce, 'n', text, n);
}

/* Take every message waiting on the channel: ours into lines (each ended
 * with \n) or to o's on_note, foreign ones into the tail. Returns 0 at EOF,
 * 1 otherwise. */
static int drain_channel(int fd, const struct child_opts *o, struct strbuf *lines, struct strbuf *tail,
                         int *complete) {
  static char buf[CHANNEL_MSG_MAX];
  for (;;) {
    ssize_t n = channel_recv(fd, buf, sizeof buf, 1);
    if (n > 0) {
      char tag;
      const char *p;
      size_t len;
      /* a \n inside a piece would split our framing: never from us */
      if (channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len) && (tag == '+' || tag == '.') &&
          !memchr(p, '\n', len)) {
        strbuf_add(lines, p, len);
        if (tag == '.') {
          strbuf_add(lines, "\n", 1);
          (*complete)++;
        }
        continue;
      }
      if (channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len) && tag == 'n' && !memchr(p, '\n', len)) {
        if (o->on_note) o->on_note(o->note_arg, xstrndup(p, len));
        continue;
      }
      tail_add(tail, buf, (size_t)n);
      if (buf[n - 1] != '\n') tail_add(tail, "\n", 1);
      continue;
    }
    if (n == 0) return 0;
    return errno == EAGAIN || errno == EWOULDBLOCK ? 1 : 0;
  }
}

/* Whether a message waits on the channel. */
static int channel_waiting(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

static void send_ack(int fd) { channel_send_raw(fd, "a", 1, 1); }

/* Split the output read so far at the first mark: what came before it is
 * returned (the tail of one line's work), the rest stays. */
static char *take_tail(struct strbuf *tail) {
  char *m = tail->len ? memmem(tail->buf, tail->len, LINE_MARK, strlen(LINE_MARK)) : NULL;
  if (!m) {
    char *t = tail_lines(tail);
    strbuf_reset(tail);
    return t;
  }
  size_t before = (size_t)(m - tail->buf), after = tail->len - before - strlen(LINE_MARK);
  struct strbuf head = STRBUF_INIT;
  strbuf_add(&head, tail->buf, before);
  memmove(tail->buf, m + strlen(LINE_MARK), after);
  tail->len = after;
  tail->buf[after] = '\0';
  char *t = tail_lines(&head);
  strbuf_release(&head);
  return t;
}

/* Hand each complete line in buf to the callback (streaming mode).
 * Returns 1 when the callback said the child's work is complete. */
static int deliver_lines(const struct child_opts *o, struct strbuf *buf, struct strbuf *tail,
                          int err_fd, int *err_open, double *t_mark, int chan_fd) {
  char *nl;
  while (buf->len && (nl = memchr(buf->buf, '\n', buf->len))) {
    size_t len = (size_t)(nl - buf->buf);
    char *line = xmalloc(len + 1);
    memcpy(line, buf->buf, len);
    line[len] = '\0';
    memmove(buf->buf, nl + 1, buf->len - len - 1);
    buf->len -= len + 1;
    buf->buf[buf->len] = '\0';
    /* What the child printed before this line is already in its pipe. */
    if (*err_open) *err_open = drain(err_fd, tail);
    char *t = take_tail(tail);
    double now = now_s();
    int done = o->on_line(o->line_arg, line, t, now - *t_mark);
    *t_mark = now;
    if (done) return 1;
    send_ack(chan_fd); /* dealt with: the child may go on */
  }
  return 0;
}

int child_reap_ending(double max_s) {
  double end = now_s() + max_s;
  for (;;) {
    pid_t w = waitpid(-1, NULL, WNOHANG);
    if (w > 0) continue;
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return 0; /* ECHILD: none left */
    if (now_s() >= end) return -1;
    struct timespec ts = {0, 1000000}; /* 1 ms: an exit's teardown, not a fixed wait for a state */
    nanosleep(&ts, NULL);
  }
}

int child_run(child_fn fn, void *arg, const struct child_opts *o, struct child_outcome *out) {
  memset(out, 0, sizeof *out);
  out->exit_code = -1;
  static int subreaper;
  if (!subreaper) {
    child_become_subreaper(); /* where there is none, the group kill still works */
    subreaper = 1;
  }
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  } /* a released child that has finished its exit */
  int res[2], err[2], life[2];
  if (channel_pair(res) != 0)
    return error("cannot create a socket pair: %s", strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(res[0]);
    close(res[1]);
    return error("cannot create a pipe: %s", strerror(errno));
  }
  if (pipe2(life, O_CLOEXEC) != 0) {
    close(res[0]), close(res[1]), close(err[0]), close(err[1]);
    return error("cannot create a pipe: %s", strerror(errno));
  }
  channel_nonce(nonce);
  fflush(NULL);
  double t0 = now_s();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(res[0]), close(res[1]), close(err[0]), close(err[1]), close(life[0]), close(life[1]);
    return error("cannot fork: %s", strerror(e));
  }
  if (pid == 0) {
    close(res[0]);
    close(err[0]);
    close(life[1]);
    in_child(fn, arg, o, res[1], err[1], life[0], parent);
  }
  setpgid(pid, pid); /* also here, so a kill of the group cannot race the child's own call */
  close(res[1]);
  close(err[1]);
  close(life[0]); /* life[1] stays open while the child runs: closing it says we are gone */
  fcntl(res[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);

  struct strbuf line = STRBUF_INIT, tail = STRBUF_INIT;
  int res_open = 1, err_open = 1, status = 0, reaped = 0, released = 0, complete = 0;
  double next_tick = o->tick_s > 0 ? t0 + o->tick_s : 0;
  double t_mark = t0; /* start of the current piece of work (streaming: the last line) */
  double grace_for = -1; /* the t_mark whose timeout waited once for a message already there */
  int last_look = 0;     /* a signal came: one more turn takes what the child already sent */
  for (;;) {
    if (!reaped) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        reaped = 1;
        kill(-pid, SIGKILL); /* whatever it left running in its group */
      }
    }
    if (reaped) {
      /* The child is gone: take what is in the pipes and stop waiting for
       * descendants that might still hold them. */
      if (res_open) drain_channel(res[0], o, &line, &tail, &complete);
      if (o->on_line && !out->timed_out && !out->interrupted)
        deliver_lines(o, &line, &tail, err[0], &err_open, &t_mark, res[0]);
      if (err_open) drain(err[0], &tail);
      break;
    }
    double now = now_s();
    if (next_tick && now >= next_tick) {
      if (o->tick) o->tick(o->tick_arg, now - t_mark);
      next_tick += o->tick_s;
      if (next_tick < now) next_tick = now + o->tick_s;
    }
    struct pollfd pf[2] = {{res_open ? res[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
    int wait_ms = last_look ? 0 : res_open || err_open ? 50 : 1; /* pipes closed: the exit is near */
    int ready = poll(pf, 2, wait_ms);
    if (ready < 0 && errno == EINTR) ready = poll(pf, 2, 0); /* a signal: take what is there first */
    if (ready > 0) {
      if (res_open && (pf[0].revents & (POLLIN | POLLHUP))) {
        int before = complete;
        res_open = drain_channel(res[0], o, &line, &tail, &complete);
        if (!o->on_line)
          for (; before < complete; before++) send_ack(res[0]); /* kept: go on */
      }
      if (err_open && (pf[1].revents & (POLLIN | POLLHUP))) err_open = drain(err[0], &tail);
      if (o->on_line && !out->timed_out && !out->interrupted) {
        double before = t_mark;
        released = deliver_lines(o, &line, &tail, err[0], &err_open, &t_mark, res[0]);
        if (t_mark != before && next_tick) next_tick = t_mark + o->tick_s;
        if (released) {
          /* Its work is complete and it is on its way out: do not wait for
           * the teardown of a large process (a GPU runtime's); the next
           * child's sweep reaps it. */
          kill_child(pid);
          reaped = 1;
          status = 0;
          break;
        }
      }
    }
    /* A signal or the timeout, after what was waiting has been taken: a
     * line already sent is kept, and is no hang (bench itself stopped,
     * SIGSTOP, while the child went on: the line is there when it goes on). */
    if (child_interrupted() && !out->interrupted) {
      if (!last_look) { /* one more turn first, without waiting: what is there is taken */
        last_look = 1;
        continue;
      }
      out->interrupted = 1;
      kill_child(pid);
    }
    if (o->timeout_s > 0 && now_s() - t_mark > o->timeout_s && !out->timed_out && !out->interrupted) {
      if (res_open && grace_for != t_mark && channel_waiting(res[0])) {
        grace_for = t_mark; /* once: a child that only ever writes still times out */
      } else {
        out->timed_out = 1;
        kill_child(pid);
      }
    }
  }
  if (!reaped) waitpid(pid, &status, 0);
  /* Whatever it started and left behind: orphans came back to us. */
  if (!released) child_kill_descendants(NULL, 0);
  close(res[0]);
  close(err[0]);
  close(life[1]);
  out->wall_s = now_s() - t_mark;
  if (WIFSIGNALED(status)) out->signal = WTERMSIG(status);
  if (WIFEXITED(status)) out->exit_code = WEXITSTATUS(status);
  /* The result is the last complete line (a plugin may not write there,
   * but be strict about what counts). */
  while (line.len && line.buf[line.len - 1] == '\n') line.buf[--line.len] = '\0';
  if (line.len && !out->timed_out && !out->interrupted && !o->on_line) {
    char *nl = strrchr(line.buf, '\n');
    out->line = xstrdup(nl ? nl + 1 : line.buf);
  }
  out->stderr_tail = tail_lines(&tail);
  strbuf_release(&line);
  strbuf_release(&tail);
  return 0;
}

void child_outcome_release(struct child_outcome *o) {
  free(o->line);
  free(o->stderr_tail);
  memset(o, 0, sizeof *o);
}
