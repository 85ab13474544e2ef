/* The device identity of a plugin, from its init() in a child. */
#include "run/tune_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backends.h"
#include "core/child.h"
#include "core/util.h"
#include "machine/cpu_model.h"
#include "results/io.h"
#include "results/roofs_file.h"
#include "run/measure.h"

static void device_child(void *arg, int fd) {
  const struct plugin *pl = arg;
  struct plugin_run pr;
  measure_init(&pr, pl);
  char *line = case_result_to_json_line(&pr.init);
  child_send_line(fd, line);
  free(line);
  measure_deinit(&pr);
}

int tune_device_probe(const struct plugin *pl, double timeout_s, int debug, struct tune_device *d,
                      char *reason, size_t len) {
  memset(d, 0, sizeof *d);
  reason[0] = '\0';
  struct child_opts o = {timeout_s, 0, NULL, NULL, debug ? backends_debug_env() : NULL, NULL, NULL, NULL, NULL};
  struct child_outcome out;
  if (child_run(device_child, (void *)pl, &o, &out) != 0) {
    snprintf(reason, len, "could not start a child process");
    return BENCH_ERROR;
  }
  struct case_result got;
  char err[256];
  case_result_init(&got);
  int rc = BENCH_ERROR;
  if (out.line && case_result_from_json_line(out.line, &got, err, sizeof err) == 0) {
    rc = got.status == CASE_OK ? BENCH_OK : got.status == CASE_SKIPPED ? BENCH_SKIP : BENCH_ERROR;
    snprintf(reason, len, "%s", got.message ? got.message : "init() failed");
  } else {
    snprintf(reason, len, "init() gave no answer (%s)",
             out.interrupted ? "interrupted" : out.timed_out ? "hung" : "crashed or exited");
  }
  if (rc == BENCH_OK) {
    char *cpu = cpu_model();
    case_device_key(&got, cpu, &d->name, &d->key);
    free(cpu);
  }
  case_result_release(&got);
  child_outcome_release(&out);
  return rc;
}

void tune_device_release(struct tune_device *d) {
  free(d->name);
  free(d->key);
  memset(d, 0, sizeof *d);
}
