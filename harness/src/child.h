/* Running a function in a child process under a watchdog: the child gets its
 * own process group (Ctrl-C reaches only the harness), its stdout and stderr
 * are captured (the tail is kept), it reports one line through a pipe, and
 * it is killed with its whole group on timeout or interrupt. */
#ifndef BENCH_CHILD_H
#define BENCH_CHILD_H

#include <stddef.h>

/* In the child: do the work, write the one result line to result_fd. */
typedef void (*child_fn)(void *arg, int result_fd);
/* In the parent, every tick_s while the child runs. */
typedef void (*child_tick_fn)(void *arg, double elapsed_s);

struct child_opts {
  double timeout_s;     /* kill after this long (0: never) */
  double tick_s;        /* call tick this often (0: never) */
  child_tick_fn tick;
  void *tick_arg;
  int debug_env;        /* set the runtimes' debug variables in the child */
};

struct child_outcome {
  char *line;          /* the result line (without \n), or NULL if none came */
  char *stderr_tail;   /* last lines of the child's stdout+stderr, or NULL */
  int exit_code;       /* or -1 */
  int signal;          /* signal that ended it, or 0 */
  int timed_out;
  int interrupted;
  double wall_s;
};

/* Run fn(arg) in a child. Returns 0 once the child is gone (see out), -1
 * after error() when no child could be started. */
int child_run(child_fn fn, void *arg, const struct child_opts *o, struct child_outcome *out);
void child_outcome_release(struct child_outcome *o);

/* SIGINT/SIGTERM/SIGHUP set a flag (and stop the running child) instead of
 * killing the harness. */
void child_install_signal_handlers(void);
/* The signal that asked us to stop, or 0. */
int child_interrupted(void);

#endif
