/* The run's ETA (see eta.h). */
#include "run/eta.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void eta_init(struct eta *e, const size_t *plugin_of, size_t ncases, size_t nplugins, double guess_s) {
  memset(e, 0, sizeof *e);
  e->ncases = ncases;
  e->nplugins = nplugins;
  e->plugin_of = xcalloc(ncases ? ncases : 1, sizeof *e->plugin_of);
  if (ncases) memcpy(e->plugin_of, plugin_of, ncases * sizeof *plugin_of);
  e->wall = xcalloc(nplugins ? nplugins : 1, sizeof *e->wall);
  e->done = xcalloc(nplugins ? nplugins : 1, sizeof *e->done);
  e->guess = guess_s;
  e->last = -1;
}

void eta_release(struct eta *e) {
  free(e->plugin_of);
  free(e->wall);
  free(e->done);
  memset(e, 0, sizeof *e);
}

void eta_begin(struct eta *e, size_t case_index) {
  e->cur = case_index;
  e->running = case_index < e->ncases;
}

void eta_end(struct eta *e, size_t case_index, double wall_s) {
  if (case_index < e->ncases) {
    size_t pi = e->plugin_of[case_index];
    e->wall[pi] += wall_s;
    e->done[pi]++;
  }
  e->done_wall += wall_s;
  e->ndone++;
  e->running = 0;
}

double eta_case_expected(const struct eta *e, size_t pi) {
  if (pi < e->nplugins && e->done[pi] > 0) return e->wall[pi] / e->done[pi];
  if (e->ndone > 0) return e->done_wall / e->ndone;
  return e->guess;
}

double eta_suite(struct eta *e, double elapsed_s) {
  /* Cases not begun: from the one after the running case (or after the
   * finished ones). */
  size_t from = e->running ? e->cur + 1 : (size_t)e->ndone;
  double left = 0;
  for (size_t k = from; k < e->ncases; k++) left += eta_case_expected(e, e->plugin_of[k]);
  if (e->running) {
    double cur = eta_case_expected(e, e->plugin_of[e->cur]);
    /* A case running over its expected length: a tenth more, not zero. */
    left += cur > elapsed_s ? cur - elapsed_s : 0.1 * cur;
  }
  if (e->last > 0 && left > 0) {
    if (left > e->last * ETA_MAX_STEP) left = e->last * ETA_MAX_STEP;
    if (left < e->last / ETA_MAX_STEP) left = e->last / ETA_MAX_STEP;
  }
  e->last = left;
  return left;
}
