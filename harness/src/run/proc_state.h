/* The process state a plugin can change and the next plugin of the same
 * worker (isolation = backend) would inherit: the working directory, the
 * umask, the environment, the signal mask and dispositions, the resource
 * limits, the locale (global and the thread's), the floating-point
 * environment (rounding, exception traps, the x87 control word, MXCSR with
 * its flush-to-zero and denormals-are-zero bits on x86, FPCR on arm64) and
 * the threads running. The worker saves it before a plugin's init and,
 * after its deinit, restores it or says that it cannot (threads left
 * running, a limit lowered for good, a folder gone): the next plugin then
 * gets a fresh worker. Nothing here prints. */
#ifndef BENCH_PROC_STATE_H
#define BENCH_PROC_STATE_H

#include <stddef.h>

struct proc_state;

/* The state now (malloc'd). threads: the threads of this process that may
 * stay (the worker's own); a count of /proc/self/task is taken. */
struct proc_state *proc_state_save(void);

/* Compare with s, restore what differs. *what gets what the plugin changed
 * ("umask 0000 (was 0022); environment: HOME unset; rounding mode upward
 * (was to nearest)", printable ASCII, no newline), or NULL when nothing
 * did. threads_kept: threads that may outlive the plugin (those of an
 * object it left in a bench.process/1 slot). Returns 0 when the state is
 * as saved again (or never changed), 1 when it cannot be: end the worker
 * and give the next plugin a fresh one. */
int proc_state_restore(struct proc_state *s, int threads_kept, char **what);

void proc_state_free(struct proc_state *s);

/* Live threads of this process (/proc/self/task, zombies not counted), or
 * -1 when /proc cannot say. */
int proc_state_threads(void);

#endif
