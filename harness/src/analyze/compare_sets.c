/* Matching two result sets and adding up the comparison (compare_sets.h). */
#include "analyze/compare_sets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const struct rs_entry *compare_row_entry(const struct compare_row *r) {
  return r->new_ ? r->new_ : r->old;
}

static int cmp_rows(const void *pa, const void *pb) {
  return rs_entry_order(compare_row_entry(pa), compare_row_entry(pb));
}

void compare_side_of_group(const struct result_set *s, const struct rs_group *g, struct compare_side_runs *out) {
  memset(out, 0, sizeof *out);
  if (!g) return;
  out->runs = xcalloc(g->npool + 1, sizeof *out->runs);
  out->hist = xcalloc(g->nhist + 1, sizeof *out->hist);
  for (size_t i = 0; i < g->npool; i++) out->runs[i] = s->entries[g->pool[i]].r;
  for (size_t i = 0; i < g->nhist; i++) out->hist[i] = s->entries[g->hist[i]].r;
  const struct run_file *newest = g->npool ? s->entries[g->pool[g->npool - 1]].file : NULL;
  out->side = (struct case_side){out->runs, g->npool, out->hist, g->nhist, newest ? &newest->env.steady : NULL,
                                 newest ? &newest->env.caches : NULL};
}

void compare_side_release(struct compare_side_runs *s) {
  free(s->runs);
  free(s->hist);
}

/* Both sides pool the very same runs (the same files: a folder against
 * itself), so no between-run term applies. */
static int same_runs(const struct result_set *old, const struct rs_group *a, const struct result_set *new_,
                     const struct rs_group *b) {
  if (a->npool != b->npool) return 0;
  for (size_t i = 0; i < a->npool; i++)
    if (strcmp(old->entries[a->pool[i]].path, new_->entries[b->pool[i]].path) != 0) return 0;
  return 1;
}

static int key_order(const struct rs_entry *a, const struct rs_entry *b, int with_tag) {
  if (!a) return 1;
  if (!b) return -1;
  char *ka = rs_key(a, with_tag), *kb = rs_key(b, with_tag);
  int c = strcmp(ka, kb);
  free(ka);
  free(kb);
  return c;
}

static void compare_groups(const struct result_set *old, const struct rs_group *ga, const struct result_set *new_,
                           const struct rs_group *gb, double threshold, struct case_compare *out) {
  struct compare_side_runs so, sn;
  compare_side_of_group(old, ga, &so);
  compare_side_of_group(new_, gb, &sn);
  compare_case_sides(&so.side, &sn.side, ga && gb && same_runs(old, ga, new_, gb), threshold, out);
  compare_side_release(&so);
  compare_side_release(&sn);
}

struct compare_row *compare_sets_match(const struct result_set *old, const struct result_set *new_, int with_tag,
                                       double threshold, size_t *nrows) {
  struct rs_group *go, *gn;
  size_t no, nn;
  rs_group_runs(old, with_tag, &go, &no);
  rs_group_runs(new_, with_tag, &gn, &nn);
  struct compare_row *rows = xcalloc(no + nn + 1, sizeof *rows);
  size_t n = 0, i = 0, j = 0;
  while (i < no || j < nn) {
    const struct rs_entry *a = i < no ? &old->entries[go[i].newest] : NULL;
    const struct rs_entry *b = j < nn ? &new_->entries[gn[j].newest] : NULL;
    int c = key_order(a, b, with_tag);
    struct compare_row *r = &rows[n++];
    const struct rs_group *ga = c <= 0 ? &go[i] : NULL, *gb = c >= 0 ? &gn[j] : NULL;
    if (c <= 0) r->old = a, i++;
    if (c >= 0) r->new_ = b, j++;
    compare_groups(old, ga, new_, gb, threshold, &r->cc);
  }
  rs_groups_release(go, no);
  rs_groups_release(gn, nn);
  qsort(rows, n, sizeof *rows, cmp_rows);
  *nrows = n;
  return rows;
}

double compare_row_median(const struct compare_row *r, int old_side) {
  const struct rs_entry *e = old_side ? r->old : r->new_;
  if (!e) return NAN;
  if (r->cc.timed) return old_side ? r->cc.c.old_median : r->cc.c.new_median;
  size_t n;
  const double *x = rs_samples(e->r, rs_has_device(e->r), &n);
  return e->r->status == CASE_OK && n ? cs_median(x, n) : NAN;
}

int compare_row_batch_differs(const struct compare_row *r) {
  return r->cc.timed && r->old->r->batch > 0 && r->new_->r->batch > 0 && r->old->r->batch != r->new_->r->batch;
}

int compare_rows_any_tag(const struct compare_row *rows, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (*compare_row_entry(&rows[i])->tag) return 1;
  return 0;
}

int compare_verdict_fails(enum verdict v, unsigned fail_on) {
  return (v == V_SLOWER && (fail_on & FAIL_SLOWER)) || (verdict_is_failure(v) && (fail_on & FAIL_WRONG)) ||
         (v == V_MISSING && (fail_on & FAIL_MISSING)) || (v == V_NOISY && (fail_on & FAIL_NOISY));
}

/* The geometric mean of the plugin of rows[from..], whose rows follow it. */
static void add_plugin(struct compare_summary *s, const struct compare_row *rows, size_t from, size_t n,
                       double *scratch) {
  const char *p = compare_row_entry(&rows[from])->plugin;
  s->plugins = xrealloc(s->plugins, (s->nplugins + 1) * sizeof *s->plugins);
  s->geomean = xrealloc(s->geomean, (s->nplugins + 1) * sizeof *s->geomean);
  s->ntimed = xrealloc(s->ntimed, (s->nplugins + 1) * sizeof *s->ntimed);
  s->plugins[s->nplugins] = xstrdup(p);
  size_t k = 0;
  for (size_t j = from; j < n && strcmp(compare_row_entry(&rows[j])->plugin, p) == 0; j++)
    if (rows[j].cc.timed) scratch[k++] = rows[j].cc.c.ratio;
  s->geomean[s->nplugins] = cs_geomean(scratch, k);
  s->ntimed[s->nplugins] = k;
  s->nplugins++;
}

void compare_sets_summarise(const struct compare_row *rows, size_t n, unsigned fail_on, struct compare_summary *s) {
  memset(s, 0, sizeof *s);
  double *all = xcalloc(n + 1, sizeof *all), *mine = xcalloc(n + 1, sizeof *mine);
  for (size_t i = 0; i < n; i++) {
    const struct compare_row *r = &rows[i];
    s->counts[r->cc.verdict]++;
    if (r->cc.timed) all[s->ntimed_all++] = r->cc.c.ratio;
    const char *p = compare_row_entry(r)->plugin;
    if (!s->nplugins || strcmp(s->plugins[s->nplugins - 1], p) != 0) add_plugin(s, rows, i, n, mine);
    if (compare_verdict_fails(r->cc.verdict, fail_on)) s->exit_status = 1;
  }
  s->overall = cs_geomean(all, s->ntimed_all);
  free(all);
  free(mine);
}

void compare_summary_release(struct compare_summary *s) {
  for (size_t i = 0; i < s->nplugins; i++) free(s->plugins[i]);
  free(s->plugins);
  free(s->geomean);
  free(s->ntimed);
  memset(s, 0, sizeof *s);
}

int compare_dm_kind(const struct cs_noise *nz) {
  switch (nz->machine) {
  case CS_MACHINE_STEADY: return nz->brief ? CMP_DM_BRIEF : nz->large ? CMP_DM_LARGE : CMP_DM_STEADY;
  case CS_MACHINE_BUSY: return CMP_DM_BUSY;
  case CS_MACHINE_DEVICE_STEADY: return nz->brief ? CMP_DM_DEVICE_BRIEF : CMP_DM_DEVICE_STEADY;
  case CS_MACHINE_DEVICE_BUSY: return CMP_DM_DEVICE_BUSY;
  default: return CMP_DM_UNKNOWN;
  }
}

void compare_sets_terms(const struct compare_row *rows, size_t n, struct compare_terms *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < n; i++) {
    const struct case_compare *cc = &rows[i].cc;
    out->batch_differs += compare_row_batch_differs(&rows[i]);
    if (!cc->timed) continue;
    out->timed++;
    out->few += cc->few_samples;
    out->unsettled += cc->unsettled;
    out->throttled[0] += cc->old_throttled != 0;
    out->throttled[1] += cc->new_throttled != 0;
    out->throttled_cases += cc->old_throttled || cc->new_throttled;
    const struct cs_noise *nz[2] = {&cc->old_noise, &cc->new_noise};
    const struct rs_entry *e[2] = {rows[i].old, rows[i].new_};
    for (int side = 0; side < 2; side++) {
      out->term[side][nz[side]->term]++;
      if (nz[side]->term != CS_TERM_DEFAULT) continue;
      int k = compare_dm_kind(nz[side]);
      out->dm[side][k]++;
      for (int b = 0; b < CMP_DEV_BITS; b++)
        if (nz[side]->device_why & (1u << b)) out->device_why[side][b]++;
      if (k != CMP_DM_DEVICE_STEADY) continue;
      if (!cs_backend_has_device_figure(e[side]->r->backend)) out->no_gpu_figure++;
      else if (!out->gpu_figure++) out->gpu_backend = e[side]->r->backend;
    }
  }
}
