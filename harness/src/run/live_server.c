/* bench run --serve's server (live_server.h). */
#include "run/live_server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/child.h"
#include "core/util.h"
#include "run/env.h"

#define STOP_WAIT_S 6.0 /* the server drains its streams for up to 3 s */

char *live_server_events_path(const char *results_dir) {
  char *dir = xasprintf("%s/events", results_dir);
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    error("cannot make '%s' for the run's events: %s", dir, strerror(errno));
    free(dir);
    return NULL;
  }
  char *path = xasprintf("%s/%s.jsonl", dir, run_env_run_id());
  free(dir);
  return path;
}

int live_server_start(struct live_server *ls, const char *results_dir, int port, const char *bind) {
  ls->pid = 0;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return error("cannot find the bench binary to start bench serve: %s", strerror(errno));
  self[n] = '\0';
  char ports[16];
  snprintf(ports, sizeof ports, "%d", port);
  pid_t parent = getpid();
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return error("cannot start bench serve: %s", strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    for (int fd = 3; fd < 4096; fd++) close(fd); /* the run's files, pipes and locks are not the server's */
    char *args[] = {self, "serve", "--results-dir", (char *)results_dir, "--port", ports, "--bind", (char *)bind, NULL};
    execv(self, args);
    fprintf(stderr, "bench: error: cannot start bench serve (%s): %s\n", self, strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  ls->pid = pid;
  child_spare(pid);
  return 0;
}

void live_server_stop(struct live_server *ls) {
  if (ls->pid <= 0) return;
  int status = 0;
  pid_t got = waitpid(ls->pid, &status, WNOHANG);
  if (got == 0) {
    kill(ls->pid, SIGTERM);
    double until = now_s() + STOP_WAIT_S;
    while ((got = waitpid(ls->pid, &status, WNOHANG)) == 0 && now_s() < until) {
      struct timespec ts = {0, 20000000L};
      nanosleep(&ts, NULL);
    }
    if (got == 0) {
      kill(ls->pid, SIGKILL);
      got = waitpid(ls->pid, &status, 0);
    }
  } else if (got == ls->pid && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    warning("bench serve stopped early (%s %d): the run was not served; its events are in the results folder's "
            "events/",
            WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  }
  child_spare(0);
  ls->pid = 0;
}
