/* bench run --serve: a bench serve process beside the run, on the run's
 * results folder, started before the first case and ended after the last
 * event is written (it sends what is left to its pages, then stops). It is
 * in a process group of its own (a Ctrl-C is the run's to handle), dies
 * with the run (PR_SET_PDEATHSIG), and is spared when the run kills what
 * its cases left (core/child.h child_spare). The run never waits for it or
 * its clients: it only writes its events file. */
#ifndef BENCH_LIVE_SERVER_H
#define BENCH_LIVE_SERVER_H

struct live_server {
  int pid; /* 0: none */
};

/* Where the run's events go for it: DIR/events/RUN_ID.jsonl (made here). NULL after error(). */
char *live_server_events_path(const char *results_dir);
/* Start bench serve on results_dir. 0, or -1 after error(). */
int live_server_start(struct live_server *ls, const char *results_dir, int port, const char *bind);
/* End it (SIGTERM, then SIGKILL after a few seconds) and reap it; says a
 * server that had already stopped with a failure. */
void live_server_stop(struct live_server *ls);

#endif
