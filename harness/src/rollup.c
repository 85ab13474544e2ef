/* The rollup: every result .json of a results folder as one CSV, one row per
 * case, rebuilt from scratch and written atomically. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_io.h"

const char *const rollup_columns[] = {
    "date",      "host",      "tag",       "plugin",      "backend",     "operation",
    "preset",    "params",    "status",    "samples",     "timer",       "median_ms",
    "mean_ms",   "min_ms",    "stddev_ms", "cv",          "gflops",      "gbps",
    "max_abs_err", "max_rel_err", "rtol",  "atol",        "settled",     "source",
    "ci_lo_ms",  "ci_hi_ms",  "outliers",  "batch",
    NULL,
};

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A result file's name: *.json, not hidden (temporary files are). */
static int is_result_name(const char *name) {
  size_t len = strlen(name);
  return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".json") == 0;
}

/* The sorted names of the result files in dir; -1 after error(). */
static int list_results(const char *dir, char ***names, size_t *n) {
  DIR *d = opendir(dir);
  if (!d) return error("cannot read results folder %s: %s", dir, strerror(errno));
  *names = NULL;
  *n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!is_result_name(de->d_name)) continue;
    *names = xrealloc(*names, (*n + 1) * sizeof **names);
    (*names)[(*n)++] = xstrdup(de->d_name);
  }
  closedir(d);
  if (*n) qsort(*names, *n, sizeof **names, cmp_names);
  return 0;
}

static void add_sep_field(struct strbuf *sb, const char *s) {
  strbuf_adds(sb, ",");
  csv_add_field(sb, s);
}

static void add_sep_number(struct strbuf *sb, int have, double v) {
  strbuf_adds(sb, ",");
  if (have) csv_add_number(sb, v);
}

static void add_row(struct strbuf *sb, const struct run_file *f, const struct case_result *r,
                    const char *source) {
  const struct stats *t = case_time(r);
  int timed = r->nsamples > 0 && t->n > 0;
  int spread = timed && t->n >= 2;
  const struct check_result *c = &r->check;

  csv_add_field(sb, f->env.date);
  add_sep_field(sb, f->env.host);
  add_sep_field(sb, f->env.tag);
  add_sep_field(sb, r->plugin ? r->plugin : f->plugin);
  add_sep_field(sb, r->backend);
  add_sep_field(sb, r->operation);
  add_sep_field(sb, f->env.preset);
  struct strbuf params = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    strbuf_addf(&params, "%s%s=%s", i ? " " : "", r->params[i].key, r->params[i].value);
  add_sep_field(sb, params.buf);
  strbuf_release(&params);
  add_sep_field(sb, case_status_name(r->status));
  strbuf_addf(sb, ",%zu", r->nsamples);
  add_sep_field(sb, timed ? case_timer_name(r) : NULL);
  add_sep_number(sb, timed, t->median / 1e6);
  add_sep_number(sb, timed, t->mean / 1e6);
  add_sep_number(sb, timed, t->min / 1e6);
  add_sep_number(sb, spread, t->stddev / 1e6);
  add_sep_number(sb, spread, t->cv);
  double gf = case_gflops(r), gb = case_gbps(r);
  add_sep_number(sb, gf > 0, gf);
  add_sep_number(sb, gb > 0, gb);
  add_sep_number(sb, c->checked, c->max_abs_err);
  add_sep_number(sb, c->checked, c->max_rel_err);
  add_sep_number(sb, c->checked, c->rtol);
  add_sep_number(sb, c->checked, c->atol);
  add_sep_field(sb, !timed ? NULL : r->settled ? "yes" : "no");
  add_sep_field(sb, source);
  add_sep_number(sb, timed, t->ci_lo / 1e6);
  add_sep_number(sb, timed, t->ci_hi / 1e6);
  if (timed) strbuf_addf(sb, ",%zu,%d", t->outliers, r->batch);
  else strbuf_adds(sb, ",,");
  strbuf_adds(sb, "\n");
}

/* Cases by index, ties in file order. */
static int cmp_cases(const void *a, const void *b) {
  const struct case_result *x = *(const struct case_result *const *)a;
  const struct case_result *y = *(const struct case_result *const *)b;
  if (x->index != y->index) return x->index < y->index ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void add_file_rows(struct strbuf *sb, const struct run_file *f, const char *source) {
  if (!f->ncases) return;
  const struct case_result **order = xmalloc(f->ncases * sizeof *order);
  for (size_t i = 0; i < f->ncases; i++) order[i] = &f->cases[i];
  qsort(order, f->ncases, sizeof *order, cmp_cases);
  for (size_t i = 0; i < f->ncases; i++) add_row(sb, f, order[i], source);
  free(order);
}

int rollup_write(const char *dir) {
  char **names = NULL;
  size_t n = 0;
  if (list_results(dir, &names, &n)) return -1;

  struct strbuf sb = STRBUF_INIT;
  for (size_t c = 0; rollup_columns[c]; c++) {
    if (c) strbuf_adds(&sb, ",");
    csv_add_field(&sb, rollup_columns[c]);
  }
  strbuf_adds(&sb, "\n");

  for (size_t i = 0; i < n; i++) {
    char *path = xasprintf("%s/%s", dir, names[i]);
    struct strbuf text = STRBUF_INIT;
    if (read_file(path, &text) != 0) {
      warning("skipping %s: %s", path, strerror(errno));
    } else {
      struct run_file f;
      char err[512];
      if (run_file_from_json(text.buf, &f, err, sizeof err) != 0) {
        warning("skipping %s: %s", path, err);
      } else {
        add_file_rows(&sb, &f, names[i]);
        run_file_release(&f);
      }
      strbuf_release(&text);
    }
    free(path);
    free(names[i]);
  }
  free(names);

  char *out = xasprintf("%s/rollup.csv", dir);
  int rc = write_file_atomic(out, sb.buf, sb.len);
  free(out);
  strbuf_release(&sb);
  return rc;
}
