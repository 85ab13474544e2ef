/* Building the per-case history grid of a result set. */
#include "analyze/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
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
  struct case_side so = {&ro, 1, ho, nho, eo->file ? &eo->file->env.steady : NULL},
                   sn = {&rn, 1, hn, nhn, en->file ? &en->file->env.steady : NULL};
  compare_case_sides(&so, &sn, 0, threshold, out);
  free(ho);
  free(hn);
}

void history_build(const struct result_set *s, double threshold, struct history *h) {
  memset(h, 0, sizeof *h);
  /* the dates */
  const char **dates = xcalloc(s->n + 1, sizeof *dates);
  for (size_t i = 0; i < s->n; i++) dates[i] = s->entries[i].date;
  qsort(dates, s->n, sizeof *dates, cmp_str);
  for (size_t i = 0; i < s->n; i++)
    if (!h->ndates || strcmp(dates[h->ndates - 1], dates[i]) != 0) dates[h->ndates++] = dates[i];
  h->dates = dates;
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
    const char **d = bsearch(&e->date, h->dates, h->ndates, sizeof *h->dates, cmp_str);
    row->cells[d - h->dates] = e; /* a later run of the day replaces an earlier one */
  }
  rs_keys_release(k, s->n);
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
  memset(h, 0, sizeof *h);
}
