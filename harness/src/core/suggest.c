/* The closest names to a mistyped one (suggest.h). */
#include "core/suggest.h"

#include <stdlib.h>
#include <string.h>

#define SUGGEST_MAX 4 /* names shown at most */

size_t suggest_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  /* three rows of the matrix: the one before the last, the last, this one */
  size_t *row = xcalloc(3 * (lb + 1), sizeof *row);
  size_t *pp = row, *p = row + lb + 1, *c = row + 2 * (lb + 1);
  for (size_t j = 0; j <= lb; j++) p[j] = j;
  for (size_t i = 1; i <= la; i++) {
    c[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t v = p[j - 1] + cost;                 /* substitution (or match) */
      if (p[j] + 1 < v) v = p[j] + 1;             /* deletion */
      if (c[j - 1] + 1 < v) v = c[j - 1] + 1;     /* insertion */
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
        v = pp[j - 2] + 1;                        /* swap of neighbours */
      c[j] = v;
    }
    size_t *t = pp;
    pp = p;
    p = c;
    c = t;
  }
  size_t d = p[lb];
  free(row);
  return d;
}

size_t suggest_closest(const char *typed, const char *const *cand, size_t n, size_t *out, size_t maxout) {
  size_t len = strlen(typed), limit = len / 3 > 1 ? len / 3 : 1, best = (size_t)-1, nout = 0;
  if (!len || !maxout) return 0;
  for (size_t i = 0; i < n; i++) {
    if (!cand[i] || strcmp(cand[i], typed) == 0) continue;
    size_t d = suggest_distance(typed, cand[i]);
    if (d > limit || d > best) continue;
    if (d < best) {
      best = d;
      nout = 0;
    }
    if (nout < maxout) out[nout++] = i;
  }
  if (nout) return nout;
  /* nothing close: a name typed is a longer form of ("--warmup-iters") */
  for (size_t i = 0; i < n && nout < maxout; i++) {
    size_t cl = cand[i] ? strlen(cand[i]) : 0;
    if (cl >= 3 && cl < len && strncmp(typed, cand[i], cl) == 0 && strchr("-_=.", typed[cl])) out[nout++] = i;
  }
  return nout;
}

size_t suggest_add(struct strbuf *sb, const char *typed, const char *const *cand, size_t n, const char *prefix) {
  size_t idx[SUGGEST_MAX];
  size_t k = suggest_closest(typed, cand, n, idx, SUGGEST_MAX);
  if (!k) return 0;
  strbuf_adds(sb, "; did you mean ");
  for (size_t i = 0; i < k; i++) {
    strbuf_addf(sb, "%s'%s", i == 0 ? "" : i + 1 < k ? ", " : " or ", prefix ? prefix : "");
    strbuf_adds(sb, cand[idx[i]]);
    strbuf_adds(sb, "'");
  }
  strbuf_adds(sb, "?");
  return k;
}
