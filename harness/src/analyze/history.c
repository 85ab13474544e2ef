/* Building the per-case history grid of a result set. */
#include "analyze/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* A column: its run, the first entry of it (entries are chronological),
 * its place. A run is its run id and its label: one command that wrote two
 * labels (bench ab --old-label A --new-label B) is a column for each. */
struct column {
  const struct rs_entry *e;
  size_t pos;
};

static int cmp_run(const struct rs_entry *a, const struct rs_entry *b) {
  int c = strcmp(a->run, b->run);
  return c ? c : strcmp(a->label, b->label);
}

static int cmp_run_only(const void *pa, const void *pb) {
  return cmp_run(((const struct column *)pa)->e, ((const struct column *)pb)->e);
}

static int cmp_rows(const void *pa, const void *pb) {
  return rs_entry_order(((const struct history_row *)pa)->first, ((const struct history_row *)pb)->first);
}

void history_compare(const struct history_row *row, size_t dp, size_t d, double threshold,
                     struct case_compare *out) {
  const struct rs_entry *eo = row->cells[dp], *en = row->cells[d];
  const struct case_result **ho = xcalloc(dp + 1, sizeof *ho), **hn = xcalloc(dp + 1, sizeof *hn);
  size_t nho = 0, nhn = 0;
  for (size_t i = 0; i < dp; i++) {
    const struct rs_entry *x = row->cells[i];
    if (!x || !rs_timed_ok(x)) continue;
    if (rs_same_plugin(x, eo)) ho[nho++] = x->r;
    if (rs_same_plugin(x, en)) hn[nhn++] = x->r;
  }
  const struct case_result *ro = eo->r, *rn = en->r;
  struct case_side so = {&ro, 1, ho, nho, eo->file ? &eo->file->env.steady : NULL,
                         eo->file ? &eo->file->env.caches : NULL},
                   sn = {&rn, 1, hn, nhn, en->file ? &en->file->env.steady : NULL,
                         en->file ? &en->file->env.caches : NULL};
  compare_case_sides(&so, &sn, 0, threshold, out);
  free(ho);
  free(hn);
}

static int cmp_col_run(const void *pa, const void *pb) {
  const struct column *a = pa, *b = pb;
  int c = cmp_run(a->e, b->e);
  return c ? c : (a->e > b->e) - (a->e < b->e);
}
static int cmp_col_order(const void *pa, const void *pb) {
  const struct column *a = pa, *b = pb;
  if (a->e->label_rank != b->e->label_rank) return a->e->label_rank < b->e->label_rank ? -1 : 1;
  int c = strcmp(a->e->date, b->e->date);
  if (c) return c;
  const char *sa = a->e->file->env.started, *sb = b->e->file->env.started;
  c = strcmp(sa ? sa : "", sb ? sb : "");
  return c ? c : cmp_run(a->e, b->e);
}

/* The column titles: the label (else the date), "#k" where it repeats. */
static void column_heads(struct history *h, const struct column *cols) {
  h->heads = xcalloc(h->ndates + 1, sizeof *h->heads);
  for (size_t d = 0; d < h->ndates; d++) {
    const char *t = *cols[d].e->label ? cols[d].e->label : cols[d].e->date;
    size_t k = 0, of = 0;
    for (size_t j = 0; j < h->ndates; j++) {
      const char *u = *cols[j].e->label ? cols[j].e->label : cols[j].e->date;
      if (strcmp(t, u) != 0) continue;
      of++;
      if (j <= d) k++;
    }
    h->heads[d] = of > 1 ? xasprintf("%s #%zu", t, k) : xstrdup(t);
  }
}

void history_build(const struct result_set *s, double threshold, struct history *h) {
  memset(h, 0, sizeof *h);
  /* the runs: one column each */
  struct column *byrun = xcalloc(s->n + 1, sizeof *byrun), *cols = xcalloc(s->n + 1, sizeof *cols);
  for (size_t i = 0; i < s->n; i++) byrun[i].e = &s->entries[i];
  qsort(byrun, s->n, sizeof *byrun, cmp_col_run);
  size_t nruns = 0;
  for (size_t i = 0; i < s->n; i++)
    if (!nruns || cmp_run(byrun[nruns - 1].e, byrun[i].e) != 0) byrun[nruns++] = byrun[i];
  memcpy(cols, byrun, nruns * sizeof *cols);
  qsort(cols, nruns, sizeof *cols, cmp_col_order);
  h->ndates = nruns;
  h->dates = xcalloc(nruns + 1, sizeof *h->dates);
  h->runs = xcalloc(nruns + 1, sizeof *h->runs);
  for (size_t d = 0; d < nruns; d++) {
    h->dates[d] = cols[d].e->date;
    h->runs[d] = cols[d].e->run;
    for (size_t i = 0; i < nruns; i++)
      if (byrun[i].e == cols[d].e) byrun[i].pos = d;
  }
  column_heads(h, cols);
  /* the rows: entries by key, chronological within a key */
  struct rs_keyed *k = rs_sorted_keys(s, 1);
  h->rows = xcalloc(s->n + 1, sizeof *h->rows);
  for (size_t i = 0; i < s->n; i++) {
    if (i == 0 || strcmp(k[i].key, k[i - 1].key) != 0) {
      struct history_row *row = &h->rows[h->nrows++];
      row->first = &s->entries[k[i].idx];
      row->cells = xcalloc(h->ndates, sizeof *row->cells);
      row->shift = xcalloc(h->ndates, sizeof *row->shift);
      row->ratio = xcalloc(h->ndates, sizeof *row->ratio);
    }
    struct history_row *row = &h->rows[h->nrows - 1];
    const struct rs_entry *e = &s->entries[k[i].idx];
    struct column key = {e, 0};
    const struct column *c = bsearch(&key, byrun, nruns, sizeof *byrun, cmp_run_only);
    row->cells[c->pos] = e; /* a later file of the run (of the day) replaces an earlier one */
  }
  rs_keys_release(k, s->n);
  free(byrun);
  free(cols);
  /* the shifts */
  for (size_t r = 0; r < h->nrows; r++) {
    struct history_row *row = &h->rows[r];
    const struct rs_entry *prev = NULL;
    size_t prev_d = 0;
    for (size_t d = 0; d < h->ndates; d++) {
      row->shift[d] = V_NO_DATA;
      row->ratio[d] = NAN;
      const struct rs_entry *e = row->cells[d];
      if (!e || e->r->status != CASE_OK) continue;
      if (prev) {
        struct case_compare cc;
        history_compare(row, (size_t)(prev_d), d, threshold, &cc);
        if (cc.timed) {
          row->shift[d] = cc.verdict;
          row->ratio[d] = cc.c.ratio;
        }
      }
      prev = e;
      prev_d = d;
    }
  }
  qsort(h->rows, h->nrows, sizeof *h->rows, cmp_rows);
}

void history_release(struct history *h) {
  for (size_t r = 0; r < h->nrows; r++) {
    free(h->rows[r].cells);
    free(h->rows[r].shift);
    free(h->rows[r].ratio);
  }
  free(h->rows);
  free(h->dates);
  free(h->runs);
  for (size_t d = 0; h->heads && d < h->ndates; d++) free(h->heads[d]);
  free(h->heads);
  memset(h, 0, sizeof *h);
}
