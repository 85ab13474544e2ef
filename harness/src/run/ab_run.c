/* Interleaved rounds of one bench ab case (ab_run.h). */
#include "run/ab_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_stats.h"
#include "core/child.h"
#include "core/stats.h"
#include "core/util.h"
#include "run/ab_worker.h"
#include "run/runner.h"

#define MIN_BLOCK 5
#define AB_PAIR_ROUNDS_MAX 8

static uint64_t next_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void side_add(struct ab_side *s, const double *host, const double *dev, size_t n, int dev_ok) {
  struct case_result *r = &s->r;
  if (r->nsamples + n > s->cap) {
    s->cap = (r->nsamples + n) * 2;
    r->host_clock_ns = xrealloc(r->host_clock_ns, s->cap * sizeof *r->host_clock_ns);
    r->device_ns = xrealloc(r->device_ns, s->cap * sizeof *r->device_ns);
  }
  if (r->nsamples == 0) s->dev_ok = 1;
  s->dev_ok = s->dev_ok && dev_ok;
  memcpy(r->host_clock_ns + r->nsamples, host, n * sizeof *host);
  memcpy(r->device_ns + r->nsamples, dev, n * sizeof *dev);
  r->nsamples += n;
}

/* The side's result once the case is over: the stats of its samples (device
 * ones only when every sample had one). */
static void side_close(struct ab_side *s, double wall_s) {
  struct case_result *r = &s->r;
  r->wall_s = wall_s;
  if (r->nsamples == 0 || !s->dev_ok) {
    free(r->device_ns);
    r->device_ns = NULL;
  }
  if (r->nsamples == 0) {
    free(r->host_clock_ns);
    r->host_clock_ns = NULL;
    return;
  }
  stats_compute(r->host_clock_ns, r->nsamples, &r->host_clock);
  if (r->device_ns) stats_compute(r->device_ns, r->nsamples, &r->device);
  /* stats' drift term can put the median's interval below zero when the
   * level moved a lot (samples of several workers under load): no median
   * lies below the smallest sample, and the readers refuse a negative. */
  if (r->host_clock.ci_lo < r->host_clock.min) r->host_clock.ci_lo = r->host_clock.min;
  if (r->device_ns && r->device.ci_lo < r->device.min) r->device.ci_lo = r->device.min;
}

/* The estimate over the rounds of complete pairs (pair < upto). */
static void estimate(struct ab_case *c, int upto, double level) {
  int device = 1;
  for (size_t i = 0; i < c->nrounds; i++) device = device && c->rounds[i].dev_ok;
  c->device = device && c->nrounds > 0;
  double *lr = xcalloc(c->nrounds + 1, sizeof *lr);
  int *pair = xcalloc(c->nrounds + 1, sizeof *pair);
  size_t n = 0;
  for (size_t i = 0; i < c->nrounds; i++) {
    const struct ab_round *r = &c->rounds[i];
    if (r->pair >= upto) continue;
    double o = c->device ? r->old_dev : r->old_host, nw = c->device ? r->new_dev : r->new_host;
    if (!(o > 0) || !(nw > 0)) continue;
    lr[n] = log(nw / o);
    pair[n++] = r->pair;
  }
  paired_estimate(lr, pair, n, level, &c->est);
  free(lr);
  free(pair);
}

/* Samples per block so that a block lasts about target_s (at least MIN_BLOCK). */
static size_t block_size(double sample_ns, double target_s) {
  if (!(sample_ns > 0)) return MIN_BLOCK;
  double n = target_s * 1e9 / sample_ns;
  if (n < MIN_BLOCK) return MIN_BLOCK;
  if (n > AB_BLOCK_MAX) return AB_BLOCK_MAX;
  return (size_t)n;
}

void ab_run_case(const struct plugin *op, const struct case_def *oc, const struct plugin *np,
                 const struct case_def *nc, int index, const struct run_policy *pol,
                 const struct ab_opts *o, struct ab_case *out) {
  memset(out, 0, sizeof *out);
  case_identity(&out->old.r, op, oc, index);
  case_identity(&out->new_.r, np, nc, index);
  out->old.r.status = out->new_.r.status = CASE_OK;
  out->verdict = CS_NOISY;
  struct ab_side *side[2] = {&out->old, &out->new_};
  const struct plugin *pls[2] = {op, np};
  const struct case_def *cs[2] = {oc, nc};
  uint64_t rng = o->seed ? o->seed : 0x9e3779b97f4a7c15ull;
  double t0 = now_s();
  /* a block lasts about this long per side: hundreds of rounds fit in
   * max_time, and the two blocks of a round are close enough in time that
   * the machine's slow drift (other tenants, clocks) hits both alike */
  double target = o->max_time_s / 2000;
  if (target < 0.002) target = 0.002;
  if (target > 0.05) target = 0.05;
  double sample_ns[2] = {0, 0};
  int failed = 0;
  double host[2][AB_BLOCK_MAX], dev[2][AB_BLOCK_MAX];
  int pair, batch = 0;
  for (pair = 0; !failed && !child_interrupted(); pair++) {
    double pair_t0 = now_s();
    struct ab_worker w[2];
    int started = 0, spawn_first = (int)(next_rand(&rng) & 1);
    /* the side started first varies too: where a process lands (its core,
     * its memory) may depend on when it was forked */
    for (int i = 0; i < 2; i++) {
      int s = spawn_first ^ i;
      struct case_result tmp;
      case_result_init(&tmp);
      if (ab_worker_start(&w[s], pls[s], cs[s], pol, &tmp) != 0) {
        side[s]->r.status = tmp.status;
        free(side[s]->r.message);
        side[s]->r.message = tmp.message;
        tmp.message = NULL;
        case_result_release(&tmp);
        failed = 1;
        break;
      }
      if (s == 1) out->pairs++;
      case_result_release(&tmp);
      started++;
    }
    if (failed) {
      for (int i = 0; i < started; i++) ab_worker_kill(&w[spawn_first ^ i]);
      break;
    }
    /* One batch for the whole case and both sides, the smaller of the first
     * pair's picks: a longer sample is more often preempted on a busy
     * machine, so sides with different batches would differ by that alone. */
    if (batch == 0) batch = w[0].batch < w[1].batch ? w[0].batch : w[1].batch;
    /* a pair measures for at least rounds_per_pair rounds, and on until its
     * rounds took as long as starting it did (up to AB_PAIR_ROUNDS_MAX
     * times rounds_per_pair): the budget goes to measuring, not to starting
     * workers, while fresh pairs still come every few hundred ms */
    double rounds_t0 = now_s(), start_cost = rounds_t0 - pair_t0;
    side[0]->r.batch = side[1]->r.batch = batch;
    /* the order alternates within a pair from a random start (ABBA...): a
     * side's place in the round (first after the other's block, or after
     * the parent's work) never favours one side over a pair */
    int first = (int)(next_rand(&rng) & 1);
    for (int k = 0; !failed && !child_interrupted(); k++) {
      if (k >= o->rounds_per_pair &&
          (k >= AB_PAIR_ROUNDS_MAX * o->rounds_per_pair || now_s() - rounds_t0 >= start_cost))
        break;
      struct ab_round rd = {pair, (first + k) & 1, 0, 0, 0, 0, 1};
      for (int step = 0; step < 2 && !failed; step++) {
        int s = rd.new_first ? 1 - step : step;
        size_t n = block_size(sample_ns[s] > sample_ns[1 - s] ? sample_ns[s] : sample_ns[1 - s], target);
        int dok;
        if (ab_worker_block(&w[s], n, batch, host[s], dev[s], &dok, &side[s]->r) != 0) {
          failed = 1;
          break;
        }
        side_add(side[s], host[s], dev[s], n, dok);
        double hm = cs_median(host[s], n), dm = dok ? cs_median(dev[s], n) : 0;
        sample_ns[s] = hm * batch;
        if (s == 0) rd.old_host = hm, rd.old_dev = dm;
        else rd.new_host = hm, rd.new_dev = dm;
        rd.dev_ok = rd.dev_ok && dok;
      }
      if (failed) break;
      out->rounds = xrealloc(out->rounds, (out->nrounds + 1) * sizeof *out->rounds);
      out->rounds[out->nrounds++] = rd;
      if (now_s() - t0 >= o->max_time_s) break;
    }
    /* both sides verify what they computed last */
    for (int s = 0; s < 2; s++) {
      if (failed || child_interrupted()) {
        ab_worker_kill(&w[s]);
        continue;
      }
      if (ab_worker_finish(&w[s], &side[s]->r) != 0) failed = 1;
    }
    if (failed || child_interrupted()) break;
    if (pair == 0) {
      /* the looks that fit in max_time at the first pair's pace: pairs
       * min_pairs, min_pairs + 1, ... up to the last that fits */
      double per_pair = now_s() - pair_t0;
      double fit = per_pair > 0 ? floor(o->max_time_s / per_pair) : 1;
      if (fit > 1e6) fit = 1e6;
      out->looks_max = (int)fit - o->min_pairs + 1;
      if (out->looks_max < 1) out->looks_max = 1;
    }
    if (pair + 1 >= o->min_pairs && out->looks < out->looks_max) {
      double alpha = AB_EARLY_ALPHA / out->looks_max;
      out->looks++;
      estimate(out, pair + 1, 1 - alpha);
      /* only the rank interval stops a case: Student's t over the few
       * pairs that cannot reach the level by ranks holds only for normal
       * pairs' levels (a Vulkan copy on lavapipe, 6 pairs at 98%, was
       * called FASTER against itself) */
      if (out->est.rank && paired_verdict(&out->est, o->threshold, alpha) != CS_NOISY) {
        out->early = 1;
        pair++;
        break;
      }
    }
    if (now_s() - t0 >= o->max_time_s) {
      pair++;
      break;
    }
  }
  if (child_interrupted()) {
    for (int s = 0; s < 2; s++)
      if (side[s]->r.status == CASE_OK) {
        side[s]->r.status = CASE_INTERRUPTED;
        free(side[s]->r.message);
        side[s]->r.message = xasprintf("interrupted by %s", strsignal(child_interrupted()));
      }
  }
  out->wall_s = now_s() - t0;
  side_close(&out->old, out->wall_s);
  side_close(&out->new_, out->wall_s);
  out->timed = out->old.r.status == CASE_OK && out->new_.r.status == CASE_OK && out->nrounds > 0;
  if (out->timed) {
    /* the final word: the early look's level when it stopped early, else 95% */
    double alpha = out->early ? AB_EARLY_ALPHA / out->looks_max : PAIRED_ALPHA;
    out->level = 1 - alpha;
    estimate(out, pair, out->level);
    out->verdict = paired_verdict(&out->est, o->threshold, alpha);
  }
}

void ab_case_release(struct ab_case *c) {
  case_result_release(&c->old.r);
  case_result_release(&c->new_.r);
  free(c->rounds);
  memset(c, 0, sizeof *c);
}

char *ab_rounds_text(const struct ab_case *c) {
  size_t cap = 64 + c->nrounds * 40, len = 0;
  char *s = xcalloc(1, cap);
  for (size_t i = 0; i < c->nrounds; i++) {
    const struct ab_round *r = &c->rounds[i];
    double o = c->device ? r->old_dev : r->old_host, n = c->device ? r->new_dev : r->new_host;
    len += (size_t)snprintf(s + len, cap - len, "%s%d:%s:%.6f", i ? ";" : "", r->pair,
                            r->new_first ? "no" : "on", o > 0 ? n / o : NAN);
  }
  return s;
}
