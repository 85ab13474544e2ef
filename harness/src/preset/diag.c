/* The list of problems located in a preset, printed in line order. */
#include "preset/diag.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/term.h"

void preset_diag(const char *path, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xvasprintf(fmt, ap);
  va_end(ap);
  /* Values quoted from the file are escaped: they never reach the terminal raw. */
  fprintf(stderr, "%s:%d: %s\n", term_str(path), line, term_str(msg));
  free(msg);
}

void diags_add(struct diags *d, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xvasprintf(fmt, ap);
  va_end(ap);
  d->v = grow_for_one(d->v, d->n, sizeof *d->v);
  d->v[d->n].line = line;
  d->v[d->n].seq = d->n;
  d->v[d->n].msg = msg;
  d->n++;
}

int diags_on_line(const struct diags *d, int line) {
  for (size_t i = 0; i < d->n; i++)
    if (d->v[i].line == line) return 1;
  return 0;
}

static int diag_cmp(const void *a, const void *b) {
  const struct diag *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void diags_flush(struct diags *d, const char *path, size_t max_shown) {
  if (d->n) qsort(d->v, d->n, sizeof *d->v, diag_cmp);
  for (size_t i = 0; i < d->n; i++) {
    if (i < max_shown) preset_diag(path, d->v[i].line, "%s", d->v[i].msg);
    free(d->v[i].msg);
  }
  if (d->n > max_shown) error("%s: %zu more problems not shown", path, d->n - max_shown);
  free(d->v);
  d->v = NULL;
  d->n = 0;
}
