/* A worker process for bench ab: one plugin, one case, driven by commands.
 * Started with the case (init, setup, warm-up, batch size), it then takes
 * a block of N timed samples each time it is asked, and at the end
 * verifies the timed output and tears down. The parent talks to it over the
 * child channel (core/channel.h): each of the worker's messages carries a
 * nonce chosen for it (a plugin writing to the fds it finds cannot forge
 * an answer). The worker has its own process group, dies with the harness,
 * and is killed with its group on a timeout, an interrupt or its end.
 * Each worker moves its own address layout (where the plugin is mapped,
 * the stack, the heap) by a random amount before it loads the plugin, as
 * a fresh process's ASLR would: a forked one would keep the parent's. */
#ifndef BENCH_AB_WORKER_H
#define BENCH_AB_WORKER_H

#include <stddef.h>
#include <sys/types.h>

#include "core/channel.h"
#include "cases/cases.h"
#include "plugin/plugin_loader.h"
#include "preset/preset.h"
#include "results/result.h"

struct ab_worker {
  pid_t pid;
  int fd;
  char nonce[CHANNEL_NONCE_LEN + 1];
  double timeout_s;
  int batch;
  int log_fd;   /* the worker's stdout and stderr (an unlinked temporary file), or -1 */
};

/* Start a worker for case c of pl and wait until it is warm. 0, or -1 with
 * r's status and message saying why (the worker is gone). r holds the
 * case identity. */
int ab_worker_start(struct ab_worker *w, const struct plugin *pl, const struct case_def *c,
                    const struct run_policy *pol, struct case_result *r);
/* n samples (n <= AB_BLOCK_MAX) of batch iterations each (0: the
 * worker's own pick, w->batch) into host/dev (per iteration, ns); *dev_ok
 * when every one had a device time. 0, or -1 with r's status and message
 * (the worker is gone). */
#define AB_BLOCK_MAX 256
int ab_worker_block(struct ab_worker *w, size_t n, int batch, double *host, double *dev, int *dev_ok,
                    struct case_result *r);
/* Verify and tear down, then let the worker go: r gets the status, the
 * check and the plugin's info (its timings are left alone). 0, or -1 when
 * the worker failed (r says how). */
int ab_worker_finish(struct ab_worker *w, struct case_result *r);
/* Kill the worker and its group (after a failure elsewhere). */
void ab_worker_kill(struct ab_worker *w);

#endif
