/* Child processes with a watchdog. The parent stays single-threaded, so
 * fork() without exec is safe; it never initialises a GPU runtime itself. */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

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

static void set_debug_env(void) {
  setenv("HIP_LAUNCH_BLOCKING", "1", 1);
  setenv("AMD_SERIALIZE_KERNEL", "3", 1);
  setenv("HSA_ENABLE_SDMA", "0", 1);
  const char *layers = getenv("VK_INSTANCE_LAYERS");
  if (!layers || !strstr(layers, "VK_LAYER_KHRONOS_validation")) {
    char *v = layers && *layers ? xasprintf("%s:VK_LAYER_KHRONOS_validation", layers)
                                : xstrdup("VK_LAYER_KHRONOS_validation");
    setenv("VK_INSTANCE_LAYERS", v, 1);
    free(v);
  }
}

static void in_child(child_fn fn, void *arg, const struct child_opts *o, int res_w, int err_w) {
  setpgid(0, 0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) {
    dup2(devnull, 0);
    close(devnull);
  }
  dup2(err_w, 1);
  dup2(err_w, 2);
  close(err_w);
  if (o->debug_env) set_debug_env();
  fn(arg, res_w);
  close(res_w);
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

static char *tail_lines(struct strbuf *t) {
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

/* Read what is available on fd; returns 0 at EOF, 1 otherwise. */
static int drain(int fd, struct strbuf *into, int is_tail) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (is_tail)
        tail_add(into, buf, (size_t)n);
      else
        strbuf_add(into, buf, (size_t)n);
      continue;
    }
    if (n == 0) return 0;
    if (errno == EINTR) continue;
    return 1; /* EAGAIN */
  }
}

int child_run(child_fn fn, void *arg, const struct child_opts *o, struct child_outcome *out) {
  memset(out, 0, sizeof *out);
  out->exit_code = -1;
  int res[2], err[2];
  if (pipe(res) != 0) return error("cannot create a pipe: %s", strerror(errno));
  if (pipe(err) != 0) {
    close(res[0]);
    close(res[1]);
    return error("cannot create a pipe: %s", strerror(errno));
  }
  fflush(NULL);
  double t0 = now_s();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(res[0]), close(res[1]), close(err[0]), close(err[1]);
    return error("cannot fork: %s", strerror(e));
  }
  if (pid == 0) {
    close(res[0]);
    close(err[0]);
    in_child(fn, arg, o, res[1], err[1]);
  }
  setpgid(pid, pid); /* also here, so a kill of the group cannot race the child's own call */
  close(res[1]);
  close(err[1]);
  fcntl(res[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);

  struct strbuf line = STRBUF_INIT, tail = STRBUF_INIT;
  int res_open = 1, err_open = 1, status = 0, reaped = 0;
  double next_tick = o->tick_s > 0 ? t0 + o->tick_s : 0;
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
      if (res_open) drain(res[0], &line, 0);
      if (err_open) drain(err[0], &tail, 1);
      break;
    }
    double now = now_s();
    if (child_interrupted() && !out->interrupted) {
      out->interrupted = 1;
      kill(-pid, SIGKILL);
    } else if (o->timeout_s > 0 && now - t0 > o->timeout_s && !out->timed_out) {
      out->timed_out = 1;
      kill(-pid, SIGKILL);
    }
    if (next_tick && now >= next_tick) {
      if (o->tick) o->tick(o->tick_arg, now - t0);
      next_tick += o->tick_s;
      if (next_tick < now) next_tick = now + o->tick_s;
    }
    struct pollfd pf[2] = {{res_open ? res[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
    int wait_ms = res_open || err_open ? 50 : 1; /* pipes closed: the exit is near */
    if (poll(pf, 2, wait_ms) > 0) {
      if (res_open && (pf[0].revents & (POLLIN | POLLHUP))) res_open = drain(res[0], &line, 0);
      if (err_open && (pf[1].revents & (POLLIN | POLLHUP))) err_open = drain(err[0], &tail, 1);
    }
  }
  if (!reaped) waitpid(pid, &status, 0);
  close(res[0]);
  close(err[0]);
  out->wall_s = now_s() - t0;
  if (WIFSIGNALED(status)) out->signal = WTERMSIG(status);
  if (WIFEXITED(status)) out->exit_code = WEXITSTATUS(status);
  /* The result is the last complete line (a plugin may not write there,
   * but be strict about what counts). */
  while (line.len && line.buf[line.len - 1] == '\n') line.buf[--line.len] = '\0';
  if (line.len && !out->timed_out && !out->interrupted) {
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
