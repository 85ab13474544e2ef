/* The readings over a case, folded (gpu_telemetry.h): per quantity the
 * count, sum, min and max of the values present; the union of throttle
 * reasons; each throttle-time counter's first and last value. */
#include <string.h>

#include "gpu_telemetry.h"

static void stat_add(struct gpu_stat *s, struct gpu_value v) {
  if (!v.have) return;
  if (s->n == 0 || v.v < s->min) s->min = v.v;
  if (s->n == 0 || v.v > s->max) s->max = v.v;
  s->sum += v.v;
  s->n++;
}

void gpu_accum_init(struct gpu_accum *a) { memset(a, 0, sizeof *a); }

void gpu_accum_add(struct gpu_accum *a, const struct gpu_reading *r) {
  a->samples++;
  stat_add(&a->sm_clock_mhz, r->sm_clock_mhz);
  stat_add(&a->mem_clock_mhz, r->mem_clock_mhz);
  stat_add(&a->power_w, r->power_w);
  stat_add(&a->temp_c, r->temp_c);
  stat_add(&a->mem_temp_c, r->mem_temp_c);
  stat_add(&a->other_procs, r->other_procs);
  int nx = r->nxcd < 0 ? 0 : r->nxcd > GPU_MAX_XCD ? GPU_MAX_XCD : r->nxcd;
  for (int i = 0; i < nx; i++) stat_add(&a->xcd_clock_mhz[i], r->xcd_clock_mhz[i]);
  if (nx > a->nxcd) a->nxcd = nx;
  if (r->throttle.have) {
    a->have_throttle = 1;
    a->throttle |= (unsigned)r->throttle.v;
  }
  for (int i = 0; i < GPU_THR_TIMES; i++) {
    if (!r->throttle_ns[i].have) continue;
    if (!a->throttle_ns_first[i].have) a->throttle_ns_first[i] = r->throttle_ns[i];
    a->throttle_ns_last[i] = r->throttle_ns[i];
  }
}

static struct gpu_value stat_value(const struct gpu_stat *s, double v) {
  struct gpu_value g = {s->n > 0, s->n > 0 ? v : 0};
  return g;
}
struct gpu_value gpu_stat_mean(const struct gpu_stat *s) { return stat_value(s, s->n ? s->sum / (double)s->n : 0); }
struct gpu_value gpu_stat_min(const struct gpu_stat *s) { return stat_value(s, s->min); }
struct gpu_value gpu_stat_max(const struct gpu_stat *s) { return stat_value(s, s->max); }

struct gpu_value gpu_accum_throttle_ns(const struct gpu_accum *a, int which) {
  struct gpu_value none = {0, 0};
  if (which < 0 || which >= GPU_THR_TIMES) return none;
  const struct gpu_value *f = &a->throttle_ns_first[which], *l = &a->throttle_ns_last[which];
  if (!f->have || !l->have || l->v < f->v) return none;
  struct gpu_value d = {1, l->v - f->v};
  return d;
}
