/* bench tune's comparisons through ab_run_case (see tune_ab.h). */
#include "run/tune_ab.h"

#include <stdlib.h>
#include <string.h>

#include "core/child.h"
#include "core/util.h"
#include "run/ab_run.h"

void tune_ab_compare(const struct plugin *pl, const struct case_def *incumbent,
                     const struct case_def *challenger, const struct run_policy *pol,
                     double threshold, double max_time_s, struct tune_ab *out) {
  memset(out, 0, sizeof *out);
  out->verdict = CS_NOISY;
  struct ab_opts o = {threshold, max_time_s, TUNE_AB_ROUNDS_PER_PAIR, TUNE_AB_MIN_PAIRS, 0};
  struct ab_case c;
  ab_run_case(pl, incumbent, pl, challenger, 0, pol, &o, &c);
  out->rounds = c.nrounds;
  out->pairs = (size_t)c.pairs;
  out->wall_s = c.wall_s;
  out->interrupted = child_interrupted() != 0 || c.old.r.status == CASE_INTERRUPTED ||
                     c.new_.r.status == CASE_INTERRUPTED;
  if (c.timed) {
    out->timed = 1;
    out->ratio = c.est.ratio;
    out->lo = c.est.lo;
    out->hi = c.est.hi;
    out->level = c.level;
    out->verdict = c.verdict;
  } else {
    const struct case_result *bad = c.old.r.status != CASE_OK ? &c.old.r : &c.new_.r;
    out->why = xasprintf("%s %s%s%s", bad == &c.old.r ? "incumbent" : "challenger",
                         case_status_name(bad->status), bad->message ? ": " : "",
                         bad->message ? bad->message : "");
  }
  ab_case_release(&c);
}

void tune_ab_release(struct tune_ab *a) {
  free(a->why);
  memset(a, 0, sizeof *a);
}
