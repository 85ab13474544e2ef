/* One problem across plugins and backends: the cases of every given run
 * grouped by problem, each against the fastest of its group. */
#include "analyze/compare_by_op.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_case.h"
#include "analyze/result_set.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"

int is_implementation_param(const char *name) {
  /* ... and the tunables of the shipped plugins (ABI 1.4: cpu_gemm's
   * blocks, cpu_rmsnorm's block, vk_rmsnorm's wg; vk_gemm_auto's tile) */
  static const char *const knobs[] = {"variant", "isa", "tile", "threads", "flush_l2", "stores",
                                      "mc", "kc", "nc", "block", "wg", NULL};
  for (size_t i = 0; knobs[i]; i++)
    if (strcmp(name, knobs[i]) == 0) return 1;
  return 0;
}

static int cmp_kv(const void *pa, const void *pb) {
  return strcmp(((const struct kv *)pa)->key, ((const struct kv *)pb)->key);
}

char *problem_key(const struct case_result *r) {
  /* none: no problem to line up; peak: each peak plugin measures its own
   * ceiling (bench peak's roofs), never the same problem as another's */
  if (!r->operation || !*r->operation || strcmp(r->operation, "none") == 0 || strcmp(r->operation, "peak") == 0)
    return NULL;
  struct kv *p = xcalloc(r->nparams + 1, sizeof *p);
  size_t n = 0;
  int dtype = 0;
  for (size_t i = 0; i < r->nparams; i++) {
    if (is_implementation_param(r->params[i].key)) continue;
    dtype |= strcmp(r->params[i].key, "dtype") == 0;
    p[n++] = r->params[i];
  }
  if (!dtype) p[n++] = (struct kv){(char *)"dtype", (char *)"f32"};
  qsort(p, n, sizeof *p, cmp_kv);
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, r->operation);
  for (size_t i = 0; i < n; i++) strbuf_addf(&sb, " %s=%s", p[i].key, p[i].value);
  free(p);
  return strbuf_detach(&sb);
}

static char *knobs_text(const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    if (is_implementation_param(r->params[i].key))
      strbuf_addf(&sb, "%s%s=%s", sb.len ? " " : "", r->params[i].key, r->params[i].value);
  return strbuf_detach(&sb);
}

struct item {
  char *problem;
  const struct rs_entry *e;
  double median;
};

static int cmp_items(const void *pa, const void *pb) {
  const struct item *a = pa, *b = pb;
  int c = strcmp(a->problem, b->problem);
  if (c) return c;
  int ao = isfinite(a->median), bo = isfinite(b->median);
  if (ao != bo) return bo - ao;
  if (ao && a->median != b->median) return a->median < b->median ? -1 : 1;
  c = strcmp(a->e->plugin, b->e->plugin);
  return c ? c : strcmp(a->e->params, b->e->params);
}

int compare_by_operation(const char *const *paths, size_t npaths, const char **plugins, size_t nplugins,
                         const char *format, int colour) {
  struct result_set *sets = xcalloc(npaths, sizeof *sets);
  struct rs_select sel = {.plugins = plugins, .nplugins = nplugins};
  int rc = 0;
  size_t loaded = 0;
  for (; loaded < npaths; loaded++)
    if (result_set_load(paths[loaded], &sel, &sets[loaded]) != 0) {
      rc = -1;
      break;
    }
  struct item *items = NULL;
  size_t nitems = 0;
  for (size_t s = 0; rc == 0 && s < npaths; s++) {
    size_t *idx, n;
    rs_latest(&sets[s], 1, &idx, &n);
    for (size_t i = 0; i < n; i++) {
      const struct rs_entry *e = &sets[s].entries[idx[i]];
      char *key = problem_key(e->r);
      if (!key) continue;
      size_t ns;
      const double *x = rs_samples(e->r, rs_has_device(e->r), &ns);
      items = xrealloc(items, (nitems + 1) * sizeof *items);
      items[nitems++] = (struct item){key, e, e->r->status == CASE_OK && ns ? cs_median(x, ns) : NAN};
    }
    free(idx);
  }
  if (nitems) qsort(items, nitems, sizeof *items, cmp_items);

  enum table_format f = strcmp(format, "md") == 0 ? TABLE_MD : strcmp(format, "csv") == 0 ? TABLE_CSV : TABLE_TEXT;
  /* one throughput: the case's primary figure (results/result.h case_primary),
   * the same kind for every case of a problem (its operation's) */
  static const char *const titles[] = {"problem", "plugin", "backend", "knobs", "tag", "median", "throughput",
                                       "vs best", "95% CI"};
  static const int right[] = {0, 0, 0, 0, 0, 1, 1, 1, 0};
  struct text_table t;
  table_init(&t, 9, titles, right);
  json_t *jproblems = json_array();
  size_t nproblems = 0;
  for (size_t i = 0; rc == 0 && i < nitems;) {
    size_t j = i;
    while (j < nitems && strcmp(items[j].problem, items[i].problem) == 0) j++;
    if (j - i >= 2) { /* a problem measured once lines up with nothing */
      nproblems++;
      const struct item *best = isfinite(items[i].median) ? &items[i] : NULL;
      json_t *jrows = json_array();
      for (size_t k = i; k < j; k++) {
        const struct item *it = &items[k];
        const struct case_result *r = it->e->r;
        /* each side by its own primary timer (device where reported), as
         * the median column: a GPU's device time against a CPU's host time */
        struct case_compare cc = {0};
        if (best && isfinite(it->median)) {
          size_t nb, ni;
          const double *xb = rs_samples(best->e->r, rs_has_device(best->e->r), &nb);
          const double *xi = rs_samples(r, rs_has_device(r), &ni);
          cc.timed = cs_compare(xb, nb, xi, ni, &cc.c) == 0;
        }
        char *cells[9];
        cells[0] = xstrdup(k == i || f != TABLE_TEXT ? it->problem : "");
        cells[1] = xstrdup(it->e->plugin);
        cells[2] = xstrdup(r->backend ? r->backend : "-");
        char *knobs = knobs_text(r);
        cells[3] = *knobs ? knobs : (free(knobs), xstrdup("-"));
        cells[4] = xstrdup(*it->e->tag ? it->e->tag : "-");
        cells[5] = isfinite(it->median) ? fmt_time_ns(it->median) : xstrdup(case_status_name(r->status));
        double gf = r->flops > 0 && isfinite(it->median) ? r->flops / it->median : 0;
        double gb = r->bytes > 0 && isfinite(it->median) ? r->bytes / it->median : 0;
        struct case_figure fig;
        int have = case_primary(r, &fig);
        cells[6] = have ? fmt_figure(fig.value, fig.unit) : xstrdup("-");
        cells[7] = cc.timed ? fmt_fixed(cc.c.ratio, 3) : xstrdup("-");
        if (cc.timed) {
          char *lo = fmt_fixed(cc.c.lo, 3), *hi = fmt_fixed(cc.c.hi, 3);
          cells[8] = xasprintf("[%s, %s]", lo, hi);
          free(lo);
          free(hi);
        } else {
          cells[8] = xstrdup("-");
        }
        size_t row = table_add_row(&t, cells);
        if (k == i && best) table_set_colour(&t, row, 1, "1;32");
        json_t *jr = json_object();
        json_object_set_new(jr, "plugin", json_string(it->e->plugin));
        json_object_set_new(jr, "backend", json_string(r->backend ? r->backend : ""));
        json_object_set_new(jr, "params", json_string(it->e->params));
        json_object_set_new(jr, "tag", json_string(it->e->tag));
        json_object_set_new(jr, "status", json_string(case_status_name(r->status)));
        json_object_set_new(jr, "median_ns", isfinite(it->median) ? json_real(it->median) : json_null());
        json_object_set_new(jr, "gflops", gf > 0 ? json_real(gf) : json_null());
        json_object_set_new(jr, "gbps", gb > 0 ? json_real(gb) : json_null());
        json_object_set_new(jr, "primary",
                            fig.kind != PRIMARY_NONE ? json_string(primary_name(fig.kind)) : json_null());
        json_object_set_new(jr, "throughput", have ? json_real(fig.value) : json_null());
        json_object_set_new(jr, "throughput_unit", have ? json_string(fig.unit) : json_null());
        json_object_set_new(jr, "vs_best", cc.timed ? json_real(cc.c.ratio) : json_null());
        json_object_set_new(jr, "ci_lo", cc.timed ? json_real(cc.c.lo) : json_null());
        json_object_set_new(jr, "ci_hi", cc.timed ? json_real(cc.c.hi) : json_null());
        json_array_append_new(jrows, jr);
      }
      json_t *jp = json_object();
      json_object_set_new(jp, "problem", json_string(items[i].problem));
      json_object_set_new(jp, "cases", jrows);
      json_array_append_new(jproblems, jp);
    }
    i = j;
  }
  if (rc == 0) {
    if (strcmp(format, "json") == 0) {
      json_t *root = json_object();
      json_object_set_new(root, "schema", json_string("bench-compare-by-operation/1"));
      json_object_set_new(root, "problems", jproblems);
      jproblems = NULL;
      char *text = json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
      json_decref(root);
      if (text) printf("%s\n", text);
      free(text);
    } else {
      char *text = table_render(&t, f, colour);
      fputs(text, stdout);
      free(text);
      if (f != TABLE_CSV)
        printf("\n%zu problems measured by two cases or more; vs best = median / the fastest median of the "
               "problem (95%% CI)\n", nproblems);
    }
  }
  json_decref(jproblems);
  table_release(&t);
  for (size_t i = 0; i < nitems; i++) free(items[i].problem);
  free(items);
  for (size_t s = 0; s < loaded; s++) result_set_release(&sets[s]);
  free(sets);
  return rc;
}
