/* The bench ab suite (ab_suite.h): pairing plugins and cases, the verdict
 * of each pair, the counts per plugin and both sides' result files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_sets.h"
#include "core/child.h"
#include "core/term.h"
#include "core/util.h"
#include "results/io.h"
#include "run/ab_suite.h"
#include "run/ab_words.h"
#include "run/result_file.h"

static enum verdict to_verdict(enum cs_verdict v) {
  return v == CS_SAME ? V_SAME : v == CS_FASTER ? V_FASTER : v == CS_SLOWER ? V_SLOWER : V_NOISY;
}

/* The verdict of a pair of cases: the paired estimate's when both sides
 * were timed (NOISY when a side's telemetry marks it throttled), else
 * compare's for a failed side (NO_DATA when neither failed, INTERRUPTED
 * when the new side was). */
static enum verdict case_verdict(const struct ab_case *c, double threshold) {
  /* a throttled side measured the clock, not the kernel (compare_case.h) */
  if (c->timed && (compare_throttled(&c->old.r) || compare_throttled(&c->new_.r))) return V_NOISY;
  if (c->timed) return to_verdict(c->verdict);
  /* the verdict engine of compare, history, report and --baseline, on the
   * two result files this pair writes (one run a side, no history) */
  const struct case_result *ro = &c->old.r, *rn = &c->new_.r;
  struct case_side so = {&ro, 1, NULL, 0, NULL, NULL}, sn = {&rn, 1, NULL, 0, NULL, NULL};
  struct case_compare cc;
  compare_case_sides(&so, &sn, 0, threshold, &cc);
  enum verdict v = cc.verdict;
  if (v == V_SAME || v == V_FASTER || v == V_SLOWER || v == V_NOISY) v = V_NO_DATA;
  if (c->new_.r.status == CASE_INTERRUPTED) v = V_INTERRUPTED;
  return v;
}

/* The case of plugin pi of plan s whose label is label, or NULL. */
static const struct case_def *find_case(const struct plan *s, size_t pi, const char *label) {
  for (size_t i = 0; i < s->cases.n; i++) {
    if (s->cases.cases[i].plugin_index != pi) continue;
    char *l = case_label(&s->cases.cases[i]);
    int same = strcmp(l, label) == 0;
    free(l);
    if (same) return &s->cases.cases[i];
  }
  return NULL;
}

/* Record the paired verdict and the rounds on the new side's result. */
static void annotate(struct ab_case *c, enum verdict v) {
  struct case_result *r = &c->new_.r;
  kv_list_add(&r->ninfo, &r->info, "ab_side", "new");
  kv_list_add(&c->old.r.ninfo, &c->old.r.info, "ab_side", "old");
  kv_list_add(&r->ninfo, &r->info, "ab_verdict", verdict_name(v));
  if (!c->timed) return;
  char buf[160];
  snprintf(buf, sizeof buf, "%.6f", c->est.ratio);
  kv_list_add(&r->ninfo, &r->info, "ab_ratio", buf);
  snprintf(buf, sizeof buf, "%.6f %.6f", c->est.lo, c->est.hi);
  kv_list_add(&r->ninfo, &r->info, "ab_ci", buf);
  char lv[16];
  snprintf(buf, sizeof buf, "%zu rounds, %zu pairs, %s, %s (%s interval%s)", c->nrounds, c->est.npairs,
           c->device ? "device time" : "host time", c->early ? "stopped early" : "max_time",
           ab_level_text(c->level, lv), c->early ? ", the looks paid for" : "");
  kv_list_add(&r->ninfo, &r->info, "ab_estimate", buf);
  /* the figures behind the interval, for studies and readers: its level,
   * the standard error of the mean log-ratio and its variance components
   * (analyze/paired.h), the early looks taken of the most it could take */
  const struct {
    const char *key;
    double v;
  } figs[] = {{"ab_level", c->level},         {"ab_pairs", (double)c->est.npairs},
              {"ab_rounds_n", (double)c->nrounds}, {"ab_se", c->est.se},
              {"ab_sd_within", c->est.sd_within},  {"ab_sd_between", c->est.sd_between},
              {"ab_looks", (double)c->looks},  {"ab_looks_max", (double)c->looks_max},
              {"ab_wall_s", c->wall_s}};
  for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
    if (!isfinite(figs[i].v)) continue;
    snprintf(buf, sizeof buf, "%.6g", figs[i].v);
    kv_list_add(&r->ninfo, &r->info, figs[i].key, buf);
  }
  char *rounds = ab_rounds_text(c);
  kv_list_add(&r->ninfo, &r->info, "ab_rounds", rounds);
  free(rounds);
}

/* One run of a suite: its sides, options, observer, case number and outcome. */
struct suite {
  const struct plan *side[2];
  const struct ab_suite_opts *o;
  const struct ab_observer *obs;
  int k;
  int failed;
};

/* Case i of the new side (of plugin b) against its namesake in plugin a
 * of the old side; the results go to of[0] (old) and of[1] (new). */
static void pair_case(struct suite *st, size_t a, size_t b, size_t i, struct result_file of[2], struct ab_tally *t) {
  const struct plan *O = st->side[0], *N = st->side[1];
  const struct plugin *op = O->plugins[a], *np = N->plugins[b];
  const struct case_def *nc = &N->cases.cases[i];
  char *label = case_label(nc);
  const struct case_def *oc = find_case(O, a, label);
  st->k++;
  if (!oc) {
    st->obs->one_sided(st->obs->arg, np->desc->name, label, st->k, V_NEW);
    t->n[V_NEW]++;
    free(label);
    return;
  }
  struct ab_case c;
  ab_run_case(op, oc, np, nc, (int)i, &N->preset.policy, &st->o->ab, &c);
  enum verdict v = case_verdict(&c, st->o->ab.threshold);
  annotate(&c, v);
  st->obs->case_row(st->obs->arg, np->desc->name, label, st->k, (int)N->cases.n, &c, v);
  t->n[v]++;
  if (c.timed) {
    t->timed++;
    t->logsum += log(c.est.ratio);
    t->one = c.est;
    t->one_verdict = v;
    t->level = c.level;
  }
  if (compare_verdict_fails(v, st->o->fail_on)) st->failed = 1;
  result_file_add(&of[0], &c.old.r);
  result_file_add(&of[1], &c.new_.r);
  ab_case_release(&c);
  free(label);
}

/* Plugin a of the old side against plugin b of the new (the same name).
 * 0, or -1 when a result file could not be written. */
static int pair_plugin(struct suite *st, size_t a, size_t b) {
  const struct plan *O = st->side[0], *N = st->side[1];
  const struct plugin *op = O->plugins[a], *np = N->plugins[b];
  struct ab_tally t;
  memset(&t, 0, sizeof t);
  struct result_file of[2];
  result_file_open_label(&of[0], op, &O->preset, "old", st->o->label[0], 0, st->o->results_dir, st->o->argc,
                         st->o->argv);
  result_file_open_label(&of[1], np, &N->preset, "new", st->o->label[1], 0, st->o->results_dir, st->o->argc,
                         st->o->argv);
  for (size_t i = 0; i < N->cases.n && !child_interrupted(); i++)
    if (N->cases.cases[i].plugin_index == b) pair_case(st, a, b, i, of, &t);
  for (size_t i = 0; i < O->cases.n; i++) {
    const struct case_def *oc = &O->cases.cases[i];
    if (oc->plugin_index != a) continue;
    char *label = case_label(oc);
    if (!find_case(N, b, label)) {
      st->obs->one_sided(st->obs->arg, op->desc->name, label, 0, V_MISSING);
      t.n[V_MISSING]++;
      if (st->o->fail_on & FAIL_MISSING) st->failed = 1;
    }
    free(label);
  }
  st->obs->plugin_done(st->obs->arg, np->desc->name, &t);
  int rc = 0;
  for (int s = 0; s < 2; s++)
    if (result_file_close(&of[s]) != 0) rc = -1;
  return rc;
}

int ab_suite_run(const struct plan *old, const struct plan *new_, const struct ab_suite_opts *o,
                 const struct ab_observer *obs) {
  struct suite st = {.side = {old, new_}, .o = o, .obs = obs};
  int save_failed = 0;
  size_t a = 0, b = 0;
  while ((a < old->nplugins || b < new_->nplugins) && !child_interrupted()) {
    int cmp = a >= old->nplugins   ? 1
              : b >= new_->nplugins ? -1
                                    : strcmp(old->plugins[a]->desc->name, new_->plugins[b]->desc->name);
    if (cmp < 0) {
      obs->one_sided(obs->arg, old->plugins[a++]->desc->name, NULL, 0, V_MISSING);
      if (o->fail_on & FAIL_MISSING) st.failed = 1;
    } else if (cmp > 0) {
      obs->one_sided(obs->arg, new_->plugins[b++]->desc->name, NULL, 0, V_NEW);
    } else {
      if (pair_plugin(&st, a++, b++) != 0) save_failed = 1;
    }
  }
  child_kill_descendants(NULL, 0);
  if (rollup_write(o->results_dir) < 0) save_failed = 1;
  if (save_failed) error("some results could not be written to '%s' (see above)", term_str(o->results_dir));
  return st.failed || save_failed;
}
