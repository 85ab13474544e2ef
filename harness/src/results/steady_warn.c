/* Is a run's machine busy (steady_warn.h)? */
#include "results/steady_warn.h"

#include <math.h>
#include <stdio.h>

double steady_warn_busy(const struct run_steady *m, char *why, size_t len) {
  if (len) why[0] = '\0';
  if (!m || !m->known) return 0;
  double worst = 1;
  /* each figure over its limit; the one furthest over is said */
#define OVER(fig, limit, ...)                          \
  do {                                                 \
    double x_ = (fig) / (limit);                       \
    if (isfinite(x_) && x_ > worst) {                  \
      worst = x_;                                      \
      snprintf(why, len, __VA_ARGS__);                 \
    }                                                  \
  } while (0)
  OVER(m->others_start, STEADY_WARN_OTHERS, "%.1f other runnable threads per CPU at the start (steady: at most %.2f)",
       m->others_start, STEADY_WARN_OTHERS);
  OVER(m->others_end, STEADY_WARN_OTHERS, "%.1f other runnable threads per CPU at the end (steady: at most %.2f)",
       m->others_end, STEADY_WARN_OTHERS);
  OVER(m->contention, STEADY_WARN_CONTENTION,
       "a calibration loop spent %.0f%% of its time off its CPU (steady: at most %.0f%%)", m->contention * 100,
       STEADY_WARN_CONTENTION * 100);
  OVER(fabs(m->drift), STEADY_WARN_DRIFT, "a calibration loop's time moved %+.0f%% from start to end (steady: at most "
       "%.0f%%)", m->drift * 100, STEADY_WARN_DRIFT * 100);
  OVER(m->steal, STEADY_WARN_STEAL, "%.1f%% of the CPU time was stolen by the hypervisor (steady: at most %.0f%%)",
       m->steal * 100, STEADY_WARN_STEAL * 100);
#undef OVER
  return worst > 1 ? worst : 0;
}
