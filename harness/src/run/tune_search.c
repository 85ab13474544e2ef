/* The search of one problem's tunables (see tune_search.h). */
#include "run/tune_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/child.h"
#include "core/stats.h"
#include "core/term.h"
#include "core/util.h"
#include "cases/tunables.h"
#include "plugin/tuning_cache.h"
#include "run/runner.h"
#include "run/tune_ab.h"

/* Samples per live candidate in the first round of halving (doubled each
 * round). */
#define HALVING_FIRST 6
/* Finalists compared with the leader through bench ab's driver, and how
 * often a new leader among them starts the comparisons again. */
#define TUNE_FINALISTS 6
#define FINAL_ROUNDS 3
/* Candidates handed to one worker at a time (the budget is looked at
 * between chunks). */
#define CHUNK 8
/* More configurations than this in one search is a declaration bug. */
#define TUNE_MAX_CANDIDATES 100000u

enum cand_state { ST_NONE = 0, ST_OK, ST_WRONG, ST_SKIP, ST_ERR };

struct cand {
  size_t order;        /* declared order: 0 is the default */
  struct case_def def; /* the problem with this candidate's tunables */
  char *label;
  enum cand_state st;
  char *why;
  double *ns;
  size_t n;
  int alive, in_search, resumed;
  struct stats s;
  int tie;             /* the paired comparison with the leader found it SAME or NOISY */
};

struct tuner {
  const struct plugin *pl;
  const struct tune_opts *o;
  struct cand *c;
  size_t n;
  int replace;         /* grid: a new measurement replaces the old samples */
  int interrupted, write_failed, out_of_budget;
  size_t measured_now;
  double ab_max_s;     /* time limit of one paired comparison (0: not yet known) */
  double busy_s;       /* wall time of the cases measured */
  size_t busy_samples;
};

int tune_strategy_parse(const char *s, enum tune_strategy *out) {
  if (strcmp(s, "grid") == 0) *out = TUNE_GRID;
  else if (strcmp(s, "random") == 0) *out = TUNE_RANDOM;
  else if (strcmp(s, "halving") == 0) *out = TUNE_HALVING;
  else return -1;
  return 0;
}

const char *tune_strategy_name(enum tune_strategy s) {
  return s == TUNE_GRID ? "grid" : s == TUNE_RANDOM ? "random" : "halving";
}

void tune_outcome_release(struct tune_outcome *o) {
  free(o->winner);
  free(o->default_label);
  free(o->disq_list);
  free(o->skip_list);
  free(o->challenger);
  memset(o, 0, sizeof *o);
}

static const char *state_name(enum cand_state s) {
  switch (s) {
  case ST_OK: return "OK";
  case ST_WRONG: return "WRONG_ANSWER";
  case ST_SKIP: return "SKIPPED";
  case ST_ERR: return "ERROR";
  default: return "";
  }
}

/* ---- candidates -------------------------------------------------------- */

static void def_copy(struct case_def *d, const struct case_def *src) {
  *d = *src;
  d->note = NULL;
  d->values = xcalloc(src->nvalues ? src->nvalues : 1, sizeof *d->values);
  for (size_t j = 0; j < src->nvalues; j++) {
    d->values[j] = src->values[j];
    d->values[j].text = xstrdup(src->values[j].text);
    d->values[j].is_auto = 0;
  }
}

static void def_release(struct case_def *d) {
  for (size_t j = 0; j < d->nvalues; j++) free(d->values[j].text);
  free(d->values);
}

/* Every combination of the tunables' candidates, the last tunable fastest,
 * so that combination 0 is all defaults. */
static int enumerate(struct tuner *t, const struct case_def *problem) {
  size_t nt = 0, total = 1;
  size_t *pos = xcalloc(problem->nvalues + 1, sizeof *pos);
  size_t *at = xcalloc(problem->nvalues + 1, sizeof *at);
  struct param_values *lists = xcalloc(problem->nvalues + 1, sizeof *lists);
  int rc = 0;
  char err[400];
  for (size_t j = 0; j < problem->nvalues; j++) {
    const struct bench_param *bp = problem->values[j].param;
    if (!bp->tunable || tuning_pinned_axis(&problem->values[j])) continue;
    if (tunable_candidates(bp, t->o->pol->tier, &lists[nt], err, sizeof err) != 0) {
      rc = error("plugin %s: tunable %s: %s", t->pl->desc->name, bp->name, err);
      goto out;
    }
    at[nt] = j;
    if (lists[nt].n > TUNE_MAX_CANDIDATES / total) {
      rc = error("plugin %s: more than %u configurations of its tunables", t->pl->desc->name,
                 TUNE_MAX_CANDIDATES);
      nt++;
      goto out;
    }
    total *= lists[nt].n;
    nt++;
  }
  if (nt == 0) {
    rc = error("plugin %s declares no tunable parameters (nothing to tune)", t->pl->desc->name);
    goto out;
  }
  t->c = xcalloc(total, sizeof *t->c);
  t->n = total;
  for (size_t k = 0; k < total; k++) {
    struct cand *c = &t->c[k];
    c->order = k;
    def_copy(&c->def, problem);
    for (size_t i = 0; i < nt; i++) {
      struct case_value *v = &c->def.values[at[i]];
      free(v->text);
      *v = lists[i].v[pos[i]];
      v->text = xstrdup(lists[i].v[pos[i]].text);
      v->is_auto = 0;
    }
    c->label = tuning_cand_label(&c->def);
    c->in_search = 1;
    c->alive = 1;
    for (size_t i = nt; i-- > 0;) {
      if (++pos[i] < lists[i].n) break;
      pos[i] = 0;
    }
  }
out:
  for (size_t i = 0; i < nt; i++) param_values_release(&lists[i]);
  free(lists);
  free(pos);
  free(at);
  return rc;
}

/* ---- samples and records ------------------------------------------------ */

static void parse_samples(struct cand *c, const char *data) {
  const char *p = data;
  while (*p) {
    char *end;
    double x = strtod(p, &end);
    if (end == p) break;
    if (isfinite(x) && x > 0) {
      c->ns = grow_for_one(c->ns, c->n, sizeof *c->ns);
      c->ns[c->n++] = x;
    }
    p = *end == ',' ? end + 1 : end;
  }
}

static void restore(struct tuner *t) {
  struct tuning_cache cache;
  char why[600];
  if (tuning_cache_load(t->o->cache_path, &cache, why, sizeof why) != 0) {
    warning("%s; tuning from scratch", why);
    return;
  }
  for (size_t k = 0; k < t->n; k++) {
    struct cand *c = &t->c[k];
    const struct tuning_rec *r = tuning_cache_find(&cache, 'M', t->o->key, c->label);
    if (!r) continue;
    c->resumed = 1;
    if (strcmp(r->status, "OK") == 0) {
      parse_samples(c, r->data);
      if (c->n) c->st = ST_OK;
    } else {
      c->st = strcmp(r->status, "WRONG_ANSWER") == 0 ? ST_WRONG
              : strcmp(r->status, "SKIPPED") == 0    ? ST_SKIP
                                                     : ST_ERR;
      c->why = xstrdup(r->data);
    }
    if (c->st != ST_NONE) stats_compute(c->ns, c->n, &c->s);
  }
  tuning_cache_release(&cache);
}

static void save(struct tuner *t, const struct cand *c) {
  if (t->write_failed) return;
  struct strbuf sb = STRBUF_INIT;
  if (c->st == ST_OK)
    for (size_t i = 0; i < c->n; i++) strbuf_addf(&sb, "%s%.6g", i ? "," : "", c->ns[i]);
  else
    strbuf_adds(&sb, c->why ? c->why : "-");
  struct tuning_rec r = {'M', (char *)t->o->key, c->label, (char *)state_name(c->st), sb.buf};
  if (tuning_cache_put(t->o->cache_path, &r, 1) != 0) t->write_failed = 1;
  strbuf_release(&sb);
}

/* ---- measuring ----------------------------------------------------------- */

struct batch {
  struct tuner *t;
  const size_t *idx;
};

static void case_done(void *arg, size_t k, struct case_result *r) {
  struct batch *b = arg;
  struct tuner *t = b->t;
  struct cand *c = &t->c[b->idx[k]];
  if (r->status == CASE_INTERRUPTED || child_interrupted()) {
    t->interrupted = 1; /* not recorded: the rerun measures it */
    case_result_release(r);
    return;
  }
  t->measured_now++;
  t->busy_s += r->wall_s;
  free(c->why);
  c->why = NULL;
  if (r->status == CASE_OK) {
    const double *x = r->device.n ? r->device_ns : r->host_clock_ns;
    if (t->replace || c->st != ST_OK) c->n = 0;
    for (size_t i = 0; x && i < r->nsamples; i++) {
      c->ns = grow_for_one(c->ns, c->n, sizeof *c->ns);
      c->ns[c->n++] = x[i];
    }
    t->busy_samples += r->nsamples;
    c->st = c->n ? ST_OK : ST_ERR;
    if (!c->n) c->why = xstrdup("no samples");
  } else {
    c->st = r->status == CASE_WRONG_ANSWER ? ST_WRONG : r->status == CASE_SKIPPED ? ST_SKIP : ST_ERR;
    c->why = xasprintf("%s%s%s", case_status_name(r->status), r->message ? ": " : "",
                       r->message ? r->message : "");
    c->n = 0;
  }
  stats_compute(c->ns, c->n, &c->s);
  save(t, c);
  case_result_release(r);
}

static void case_begins(void *arg, size_t k) {
  (void)arg;
  (void)k;
}

/* Run candidates idx[0..n) in order in one worker under pol. */
static void measure(struct tuner *t, const size_t *idx, size_t n, const struct run_policy *pol) {
  if (n == 0) return;
  struct case_def *defs = xcalloc(n, sizeof *defs);
  for (size_t i = 0; i < n; i++) defs[i] = t->c[idx[i]].def;
  struct batch b = {t, idx};
  struct plugin_job job = {t->pl, defs, n, 0, pol, t->o->debug, NULL, NULL, case_begins, case_done, &b, NULL};
  run_plugins_cases(&job, 1, ISOLATION_PLUGIN);
  free(defs);
}

static int stop_now(struct tuner *t) {
  if (child_interrupted()) t->interrupted = 1;
  if (t->o->deadline > 0 && now_s() > t->o->deadline) t->out_of_budget = 1;
  return t->interrupted || t->out_of_budget;
}

/* Measure the listed candidates in chunks, each with `samples` more
 * samples (0: the preset's stopping rule). */
static void measure_list(struct tuner *t, const size_t *idx, size_t n, const struct run_policy *base,
                         int samples) {
  struct run_policy pol = *base;
  for (size_t at = 0; at < n && !stop_now(t); at += CHUNK) {
    size_t m = n - at < CHUNK ? n - at : CHUNK;
    if (samples > 0) {
      pol.min_samples = pol.max_samples = samples;
      pol.min_time_s = 0;
    }
    measure(t, idx + at, m, &pol);
  }
}

/* ---- the pick ------------------------------------------------------------ */

/* The leader among the live correct candidates (lowest median), or NULL. */
static struct cand *leader(struct tuner *t) {
  struct cand *l = NULL;
  for (size_t k = 0; k < t->n; k++) {
    struct cand *c = &t->c[k];
    if (c->alive && c->st == ST_OK && (!l || c->s.median < l->s.median)) l = c;
  }
  return l;
}

static int same_as(const struct cand *c, const struct cand *l) { return c->s.ci_lo <= l->s.ci_hi; }

static double rel_halfwidth(const struct cand *l) {
  return l->s.median > 0 ? (l->s.ci_hi - l->s.ci_lo) / 2 / l->s.median : INFINITY;
}

/* Drop the live candidates that failed or lie clearly above the leader. */
static size_t prune(struct tuner *t) {
  for (size_t k = 0; k < t->n; k++)
    if (t->c[k].st != ST_OK && t->c[k].st != ST_NONE) t->c[k].alive = 0;
  struct cand *l = leader(t);
  size_t alive = 0;
  for (size_t k = 0; k < t->n; k++) {
    struct cand *c = &t->c[k];
    if (l && c->alive && c->st == ST_OK && !same_as(c, l)) c->alive = 0;
    alive += c->alive;
  }
  return alive;
}

static void progress(struct tuner *t, const char *phase, double t0) {
  struct cand *l = leader(t);
  size_t alive = 0, todo = 0;
  for (size_t k = 0; k < t->n; k++) {
    alive += t->c[k].alive;
    todo += t->c[k].alive && t->c[k].st == ST_NONE;
  }
  double per = t->busy_samples ? t->busy_s / (double)t->busy_samples : 0;
  fprintf(t->o->out, "tune: %s: %zu of %zu candidates left", phase, alive, t->n);
  if (l)
    fprintf(t->o->out, ", leader %s %.4g us (+-%.2g%%)", l->label, l->s.median / 1e3,
            100 * rel_halfwidth(l));
  fprintf(t->o->out, ", %.1f s", now_s() - t0);
  if (todo && per > 0) fprintf(t->o->out, ", ETA %.0f s", per * (double)todo * HALVING_FIRST);
  fprintf(t->o->out, "\n");
  fflush(t->o->out);
}

/* ---- strategies ---------------------------------------------------------- */

static size_t *live_needing(struct tuner *t, int samples, size_t *n) {
  size_t *idx = xcalloc(t->n, sizeof *idx);
  *n = 0;
  for (size_t k = 0; k < t->n; k++) {
    struct cand *c = &t->c[k];
    if (!c->alive) continue;
    if (c->st == ST_NONE || (c->st == ST_OK && samples > 0 && c->n < (size_t)samples)) idx[(*n)++] = k;
  }
  return idx;
}

static void grid(struct tuner *t, const struct run_policy *pol, double t0) {
  size_t *idx = xcalloc(t->n, sizeof *idx), n = 0;
  for (size_t k = 0; k < t->n; k++) {
    struct cand *c = &t->c[k];
    /* a candidate with a record (a rerun, an interrupted search) stays as measured */
    if (c->alive && c->st == ST_NONE) idx[n++] = k;
  }
  t->replace = 1;
  for (size_t at = 0; at < n && !stop_now(t); at += CHUNK) {
    measure_list(t, idx + at, n - at < CHUNK ? n - at : CHUNK, pol, 0);
    progress(t, "grid", t0);
  }
  free(idx);
}

static void halving(struct tuner *t, const struct run_policy *pol, double t0) {
  int samples = HALVING_FIRST;
  const int cap = pol->max_samples > HALVING_FIRST ? pol->max_samples : HALVING_FIRST;
  size_t alive = 0;
  for (int round = 1;; round++) {
    size_t n, *idx = live_needing(t, samples, &n);
    /* each measured to `samples` in all: the missing ones */
    /* consecutive candidates missing as many samples share a worker */
    for (size_t i = 0; i < n && !stop_now(t);) {
      int more = samples - (t->c[idx[i]].st == ST_OK ? (int)t->c[idx[i]].n : 0);
      size_t j = i + 1;
      while (j < n && samples - (t->c[idx[j]].st == ST_OK ? (int)t->c[idx[j]].n : 0) == more) j++;
      measure_list(t, &idx[i], j - i, pol, more > 0 ? more : 1);
      i = j;
    }
    free(idx);
    alive = prune(t);
    char phase[64];
    snprintf(phase, sizeof phase, "round %d (%d samples)", round, samples);
    progress(t, phase, t0);
    if (stop_now(t) || alive == 0) return;
    if (alive == 1) break; /* the winner (still compared with the default) */
    struct cand *l = leader(t);
    if ((l && rel_halfwidth(l) <= pol->target_noise) || samples >= cap) break;
    samples = samples * 2 < cap ? samples * 2 : cap;
  }
}

/* random: the default and a seeded sample of the others. */
static void pick_random(struct tuner *t, size_t want) {
  if (want == 0) want = t->n / 4 > 8 ? t->n / 4 : 8;
  if (want >= t->n) return;
  for (size_t k = 1; k < t->n; k++) t->c[k].in_search = t->c[k].alive = 0;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t got = 1; got < want;) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    size_t k = 1 + (size_t)(s % (t->n - 1));
    if (!t->c[k].in_search) {
      t->c[k].in_search = t->c[k].alive = 1;
      got++;
    }
  }
}

/* ---- the final comparisons, through bench ab's driver ----------------------- */

/* challenger against incumbent; a progress line names both and the result. */
static void final_ab(struct tuner *t, const struct run_policy *pol, const struct cand *inc,
                     const struct cand *ch, const char *role, struct tune_ab *a) {
  /* the SAME band: the preset's noise target, within 1% .. 20% */
  double band = pol->target_noise < 0.01 ? 0.01 : pol->target_noise > 0.2 ? 0.2 : pol->target_noise;
  /* per comparison: the preset's max_time, at least 2 s, or what the
   * first comparison showed TUNE_AB_MIN_PAIRS worker pairs take (a slow
   * start: a sanitizer build, a busy machine), within the budget */
  double max_s = pol->max_time_s > 2 ? pol->max_time_s : 2;
  if (t->ab_max_s > max_s) max_s = t->ab_max_s;
  if (t->o->deadline > 0 && t->o->deadline - now_s() < max_s) max_s = t->o->deadline - now_s();
  if (max_s < 0.5) max_s = 0.5;
  tune_ab_compare(t->pl, &inc->def, &ch->def, pol, band, max_s, a);
  if (!a->interrupted && a->timed && a->pairs < TUNE_AB_MIN_PAIRS && a->pairs > 0 && !t->ab_max_s &&
      !stop_now(t)) {
    /* the time ran out before an interval: again, with the time the pairs need */
    double need = a->wall_s / (double)a->pairs * (TUNE_AB_MIN_PAIRS + 0.5);
    t->ab_max_s = need < 120 ? need : 120;
    fprintf(t->o->out, "tune: final: %zu worker pair%s in %.1f s: comparing with %.1f s each\n", a->pairs,
            a->pairs == 1 ? "" : "s", a->wall_s, t->ab_max_s);
    tune_ab_release(a);
    max_s = t->ab_max_s;
    if (t->o->deadline > 0 && t->o->deadline - now_s() < max_s) max_s = t->o->deadline - now_s();
    if (max_s < 0.5) max_s = 0.5;
    tune_ab_compare(t->pl, &inc->def, &ch->def, pol, band, max_s, a);
  }
  if (a->interrupted) t->interrupted = 1;
  if (a->timed)
    fprintf(t->o->out, "tune: final: %s against %s %s: %.3fx [%.3f, %.3f] %s (%zu rounds, %zu pairs)\n",
            ch->label, role, inc->label, a->ratio, a->lo, a->hi, cs_verdict_name(a->verdict),
            a->rounds, a->pairs);
  else
    fprintf(t->o->out, "tune: final: %s against %s %s: not compared (%s)\n", ch->label, role,
            inc->label, a->why ? a->why : "interrupted");
  fflush(t->o->out);
}

static int by_median(const void *a, const void *b) {
  const struct cand *x = *(const struct cand *const *)a, *y = *(const struct cand *const *)b;
  return x->s.median < y->s.median ? -1 : x->s.median > y->s.median ? 1 : x->order < y->order ? -1 : 1;
}

/* The leader against each finalist (see tune_search.h); the winner, or NULL
 * when there was nothing to compare (one correct candidate, none). */
static struct cand *final_pick(struct tuner *t, const struct run_policy *pol, struct tune_outcome *res) {
  struct cand *l = leader(t);
  if (!l) return NULL;
  struct cand **fin = xcalloc(t->n, sizeof *fin);
  size_t nf = 0;
  for (size_t k = 0; k < t->n; k++) {
    struct cand *c = &t->c[k];
    if (c != l && c->in_search && c->alive && c->st == ST_OK && same_as(c, l)) fin[nf++] = c;
  }
  qsort(fin, nf, sizeof *fin, by_median);
  for (size_t i = TUNE_FINALISTS; i < nf; i++) fin[i]->alive = 0; /* the slowest of many */
  if (nf > TUNE_FINALISTS) nf = TUNE_FINALISTS;
  if (nf == 0) {
    free(fin);
    return NULL;
  }
  for (int round = 0; round < FINAL_ROUNDS && !stop_now(t); round++) {
    struct cand *better = NULL;
    double best = 1;
    for (size_t i = 0; i < nf && !stop_now(t); i++) {
      struct cand *f = fin[i];
      f->tie = 0;
      if (f == l || !f->alive) continue;
      struct tune_ab a;
      final_ab(t, pol, l, f, "the leader", &a);
      res->final_cmp++;
      res->final_rounds += a.rounds;
      res->final_pairs += a.pairs;
      /* SLOWER, or NOISY with its whole interval above 1 (slower, by less
       * than the band or not surely past it): out; FASTER, or NOISY wholly
       * below 1: faster; SAME, or an interval that holds 1: a tie */
      const int slower = a.verdict == CS_SLOWER || (a.verdict == CS_NOISY && a.lo > 1);
      const int faster = a.verdict == CS_FASTER || (a.verdict == CS_NOISY && a.hi < 1);
      /* no interval (one worker pair: the time ran out): the leader stays */
      if (!a.timed || slower || !isfinite(a.hi) || !(a.lo > 0)) f->alive = 0;
      else if (faster) {
        if (a.ratio < best) best = a.ratio, better = f;
      } else f->tie = 1;
      tune_ab_release(&a);
    }
    if (!better) break;
    /* a finalist beat the leader: it leads, the old leader is out, and
     * the others are compared with it */
    l->alive = 0;
    l = better;
    for (size_t i = 0; i < nf; i++) fin[i]->tie = 0;
  }
  free(fin);
  if (t->interrupted) return NULL;
  struct cand *w = NULL; /* the first declared among the leader and its ties */
  for (size_t k = 0; k < t->n && !w; k++)
    if (&t->c[k] == l || (t->c[k].alive && t->c[k].tie)) w = &t->c[k];
  return w;
}

/* ---- one problem ---------------------------------------------------------- */

static void list_add(char **list, const struct cand *c) {
  char *old = *list;
  *list = xasprintf("%s%s%s (%s)", old ? old : "", old ? "; " : "", c->label,
                    c->why ? c->why : state_name(c->st));
  free(old);
}

/* The skipped candidates, those with one reason together: "a (why); b, c
 * and 33 more (why2)" (a reason shared by many, such as cpu_gemm's blocks
 * for the variants that have none, would otherwise fill screens). */
#define SKIP_NAMED 3
static char *skip_groups(const struct tuner *t) {
  struct strbuf sb = STRBUF_INIT;
  char *done = xcalloc(t->n ? t->n : 1, 1);
  for (size_t k = 0; k < t->n; k++) {
    const struct cand *c = &t->c[k];
    if (done[k] || !c->in_search || c->st != ST_SKIP) continue;
    const char *why = c->why ? c->why : state_name(c->st);
    size_t named = 0, more = 0;
    strbuf_addf(&sb, "%s", sb.len ? "; " : "");
    for (size_t j = k; j < t->n; j++) {
      const struct cand *d = &t->c[j];
      if (done[j] || !d->in_search || d->st != ST_SKIP || strcmp(d->why ? d->why : state_name(d->st), why) != 0)
        continue;
      done[j] = 1;
      if (named < SKIP_NAMED) strbuf_addf(&sb, "%s%s", named ? ", " : "", d->label), named++;
      else more++;
    }
    if (more) strbuf_addf(&sb, " and %zu more", more);
    strbuf_addf(&sb, " (%s)", why);
  }
  free(done);
  if (!sb.len) {
    strbuf_release(&sb);
    return NULL;
  }
  return strbuf_detach(&sb);
}

int tune_problem(const struct plugin *pl, const struct case_def *problem, const struct tune_opts *o,
                 struct tune_outcome *res) {
  memset(res, 0, sizeof *res);
  struct tuner t = {.pl = pl, .o = o};
  const double t0 = now_s();
  if (enumerate(&t, problem) != 0) return -1;
  restore(&t);
  res->candidates = t.n;
  for (size_t k = 0; k < t.n; k++) res->resumed += t.c[k].resumed;
  if (res->resumed)
    fprintf(o->out, "tune: %zu of %zu candidates already measured in %s (resuming)\n", res->resumed,
            t.n, term_str(o->cache_path));
  /* The tuning policy: the preset's stopping rule and limits, a short
   * warm-up per case (every candidate is a case of its own). */
  struct run_policy pol = *o->pol;
  if (pol.warmup_s > 0.01 && !(pol.from_cli & 1u << RUN_WARMUP_TIME)) pol.warmup_s = 0.01; /* --warmup stands */
  pol.min_time_s = 0;
  pol.determinism = 0;
  if (o->strategy == TUNE_RANDOM) pick_random(&t, o->random_n);
  if (o->strategy == TUNE_HALVING)
    halving(&t, &pol, t0);
  else
    grid(&t, &pol, t0);

  /* The pick: the lowest median, then the first declared among those SAME to it. */
  for (size_t k = 0; k < t.n; k++) {
    struct cand *c = &t.c[k];
    if (!c->in_search) continue;
    if (c->st != ST_NONE) res->tried++;
    if (c->st == ST_WRONG) res->disqualified++, list_add(&res->disq_list, c);
    if (c->st == ST_SKIP) res->skipped++;
    if (c->st == ST_ERR) res->failed++, list_add(&res->disq_list, c);
  }
  res->skip_list = skip_groups(&t);
  struct cand *w = t.interrupted ? NULL : final_pick(&t, &pol, res);
  if (!t.interrupted && !w) { /* no comparison ran: the tie rule on the intervals */
    struct cand *l = leader(&t);
    for (size_t k = 0; l && k < t.n && !w; k++)
      if (t.c[k].alive && t.c[k].st == ST_OK && same_as(&t.c[k], l)) w = &t.c[k];
  }
  /* The winner against the default, through bench ab's driver, so the
   * speedup is not the drift of the machine between the measurements;
   * unless FASTER the default keeps its place, as the tie rule says. */
  struct cand *d = &t.c[0];
  if (w && w != d && d->st == ST_OK && !t.interrupted && stop_now(&t)) {
    /* the budget ran out before the pick met the default: a winner never
     * shown faster is not installed (no winner record), the default keeps
     * its place */
    res->unproven = 1;
    res->kept_default = 1;
    res->challenger = xstrdup(w->label);
    res->challenger_ns = w->s.median;
    w = d;
  } else if (w && w != d && d->st == ST_OK && !t.interrupted) {
    struct tune_ab a;
    final_ab(&t, &pol, d, w, "the default", &a);
    res->versus = 1;
    res->challenger = xstrdup(w->label);
    res->versus_rounds = a.rounds;
    res->versus_pairs = a.pairs;
    if (a.timed) {
      res->speedup = 1 / a.ratio;
      res->speedup_lo = a.hi > 0 && a.hi < INFINITY ? 1 / a.hi : 0;
      res->speedup_hi = a.lo > 0 ? 1 / a.lo : INFINITY;
      res->versus_verdict = cs_verdict_name(a.verdict);
    } else {
      res->versus_verdict = "FAILED";
    }
    if (!a.timed || a.verdict != CS_FASTER) { /* SAME, NOISY, SLOWER or failed: the default */
      res->kept_default = 1;
      w = d;
    }
    tune_ab_release(&a);
  }
  res->default_label = xstrdup(t.c[0].label);
  res->default_ns = t.c[0].st == ST_OK ? t.c[0].s.median : 0;
  res->interrupted = t.interrupted;
  res->out_of_budget = t.out_of_budget;
  res->measured_now = t.measured_now;
  int rc = t.write_failed ? -1 : 0;
  if (w) {
    res->winner = xstrdup(w->label);
    res->winner_ns = w->s.median;
    res->winner_lo = w->s.ci_lo;
    res->winner_hi = w->s.ci_hi;
    /* an unproven pick installs nothing (runs keep the default; a rerun
     * with a larger budget resumes from the measurements and compares) */
    if (!t.interrupted && !t.write_failed && !res->unproven) {
      /* ... then the comparison with the default: speedup, its interval,
       * verdict (DEFAULT: the default won the search), rounds, pairs */
      char *data = xasprintf("%.6g %.6g %.6g %.6g %zu %zu %zu %s %.6g %.6g %.6g %s %zu %zu",
                             w->s.median, w->s.ci_lo, w->s.ci_hi, res->default_ns, res->tried,
                             res->disqualified, res->skipped, tune_strategy_name(o->strategy),
                             res->versus ? res->speedup : 1, res->versus ? res->speedup_lo : 1,
                             res->versus ? res->speedup_hi : 1,
                             res->versus ? res->versus_verdict : "DEFAULT", res->versus_rounds,
                             res->versus_pairs);
      struct tuning_rec r = {'W', (char *)o->key, w->label, NULL, data};
      if (tuning_cache_put(o->cache_path, &r, 1) != 0) rc = -1;
      free(data);
    }
  }
  res->wall_s = now_s() - t0;
  for (size_t k = 0; k < t.n; k++) {
    def_release(&t.c[k].def);
    free(t.c[k].label);
    free(t.c[k].why);
    free(t.c[k].ns);
  }
  free(t.c);
  return rc;
}
