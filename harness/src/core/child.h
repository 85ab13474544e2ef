/* Running a function in a child process under a watchdog: the child gets its
 * own process group (Ctrl-C reaches only the harness) and dies with the
 * harness (parent-death signal), its stdout and stderr are captured (the
 * tail is kept), it reports lines through a pipe, and on timeout, interrupt
 * or its end everything it started is killed: the child itself, its group,
 * and every descendant (the harness is a child subreaper, so orphans that
 * left the group or the session come back to it and are found). */
#ifndef BENCH_CHILD_H
#define BENCH_CHILD_H

#include <stddef.h>

/* In the child: do the work, write the one result line to result_fd. */
typedef void (*child_fn)(void *arg, int result_fd);
/* In the parent, every tick_s while the child runs. */
typedef void (*child_tick_fn)(void *arg, double elapsed_s);
/* In the parent, for each complete line as it arrives (streaming mode):
 * line without \n, the output tail written since the previous line (or
 * NULL), the seconds since the previous line (or the start). Both strings
 * are the callee's to keep (free them). Returns 0, or 1 when this line says
 * the child's work is complete: the child is then killed and not waited
 * for (it counts as exited 0; the next child_run reaps it). */
typedef int (*child_line_fn)(void *arg, char *line, char *tail, double wall_s);
/* In the parent, for each note the child sends (child_send_note), as it
 * arrives, in either mode: text is the callee's to keep (free it). A note
 * is no line: it is not acknowledged, and the timeout, the tail and
 * wall_s go on as if it had not come. */
typedef void (*child_note_fn)(void *arg, char *text);

/* A variable to set in the child before fn runs: name=value; with
 * list_sep, value is added to the variable's list (joined by list_sep)
 * unless the variable already names it. */
struct child_env {
  const char *name, *value;
  char list_sep;
};

struct child_opts {
  double timeout_s;     /* kill after this long (0: never) */
  double tick_s;        /* call tick this often (0: never) */
  child_tick_fn tick;
  void *tick_arg;
  const struct child_env *env; /* set in the child, ended by a NULL name; or NULL
                                  (--mode debug: the backends' debug variables) */
  child_line_fn on_line; /* streaming: every line goes here, and the timeout,
                            the tick's clock, wall_s and the tail restart */
  void *line_arg;
  child_note_fn on_note; /* the child's notes (NULL: dropped) */
  void *note_arg;
};

struct child_outcome {
  char *line;          /* the last result line (without \n), or NULL if none came
                          (always NULL when streaming) */
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

/* In a streaming child: send one line (no \n in it) to result_fd, marking
 * the end of the output that belongs to it. */
void child_send_line(int result_fd, const char *line);
/* In a child: send one note (text without \n, at most CHANNEL_PAYLOAD_MAX
 * bytes: core/channel.h) to the parent's on_note, without waiting for it to
 * be dealt with and without marking the output. 0, or -1 when it is too
 * long or the parent is gone. */
int child_send_note(int result_fd, const char *text);

/* Kill every descendant of this process (SIGKILL) and reap those that are
 * our children, until none is left; except pids in keep[0..nkeep) and their
 * descendants. Used by the harness after each child and by a worker after
 * each case. */
void child_kill_descendants(const int *keep, size_t nkeep);
/* pid (0: none) and its descendants are kept by child_kill_descendants
 * from now on: a helper process of the run's own (bench run --serve's
 * server), which the run ends itself. */
void child_spare(int pid);
/* Wait, at most max_s, for the children still ending (child_run lets a
 * worker whose work is done exit on its own: a large process's teardown
 * is not waited for) and reap them. Returns 0 when no child is left, -1
 * at the deadline. Before reading the machine's state: a dying worker is
 * still a runnable process. */
int child_reap_ending(double max_s);
/* The live descendants of this process now (malloc'd; *n of them). */
int *child_children(size_t *n);
/* Make this process a child subreaper (orphans of its descendants come back
 * to it). Returns 0, or -1 where the kernel has no such thing. */
int child_become_subreaper(void);

/* In a forked child before plugin code runs: close every descriptor from
 * lowfd up (close_range, else those /proc/self/fd lists, else every number
 * up to the limit), so that the child holds only its own. */
void child_close_from(int lowfd);

/* SIGINT/SIGTERM/SIGHUP set a flag (and stop the running child) instead of
 * killing the harness. */
void child_install_signal_handlers(void);
/* The signal that asked us to stop, or 0. */
int child_interrupted(void);

#endif
