/* One file for a whole run (export.h). */
#include "results/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/lockfile.h"
#include "core/text_table.h"
#include "core/units.h"
#include "preset/values.h"
#include "results/io.h"

int run_export_check(const char *option, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return error("%s '%s' is a folder: give a file name", option, path);
  /* a temporary file beside it, removed: the folder exists and takes files */
  struct tempfile t = TEMPFILE_INIT;
  if (tempfile_open(&t, path) != 0) return error("%s '%s': cannot write there: %s", option, path, strerror(errno));
  tempfile_rollback(&t);
  return 0;
}

void run_export_add(struct run_export *x, struct run_file *f, const char *source) {
  x->files = xrealloc(x->files, (x->n + 1) * sizeof *x->files);
  x->sources = xrealloc(x->sources, (x->n + 1) * sizeof *x->sources);
  x->files[x->n] = *f;
  memset(f, 0, sizeof *f);
  x->sources[x->n] = xstrdup(source ? source : "");
  x->n++;
}

void run_export_release(struct run_export *x) {
  for (size_t i = 0; i < x->n; i++) {
    run_file_release(&x->files[i]);
    free(x->sources[i]);
  }
  free(x->files);
  free(x->sources);
  memset(x, 0, sizeof *x);
}

/* ---- Markdown ---------------------------------------------------------------- */

static char *params_text(const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    strbuf_addf(&sb, "%s%s=%s", i ? " " : "", r->params[i].key, r->params[i].value);
  if (!sb.len) strbuf_adds(&sb, "-");
  return strbuf_detach(&sb);
}

/* The noise the stopping rule bounded: "+-1.93%", "cv 4.1%". */
static char *noise_text(const struct case_result *r, const struct stats *t) {
  if (!(t->median > 0) || t->n < 2) return xstrdup("-");
  int cv = strcmp(r->stop_rule, "cv") == 0;
  double pct = cv ? t->cv * 100 : (t->ci_hi - t->ci_lo) / 2 / t->median * 100;
  return xasprintf("%s%.2f%%", cv ? "cv " : "+-", pct);
}

/* The case line's one throughput: the case's primary figure. */
static char *rate_text(const struct case_result *r) {
  char *t = case_primary_text(r);
  if (*t) return t;
  free(t);
  return xstrdup("-");
}

static char *check_text(const struct case_result *r) {
  if (r->check.checked) return xasprintf("err %.2g", r->check.max_abs_err);
  if (case_unchecked(r)) return xstrdup("unchecked");
  return xstrdup("-");
}

static char *rss_text(const struct case_result *r) {
  if (!r->memory.known) return xstrdup("-");
  char *b = fmt_bytes((double)r->memory.peak_rss_bytes);
  char *s = xasprintf("%s%s", strcmp(r->memory.method, "case") == 0 ? "" : "<= ", b);
  free(b);
  return s;
}

enum { MD_PLUGIN, MD_CASE, MD_STATUS, MD_MEDIAN, MD_NOISE, MD_MIN, MD_MAX, MD_RATE, MD_CHECK, MD_RSS, MD_NCOLS };

static void add_case_row(struct text_table *t, const struct case_result *r) {
  const struct stats *s = case_time(r);
  int timed = r->nsamples > 0 && s->n > 0;
  char *cell[MD_NCOLS];
  cell[MD_PLUGIN] = xstrdup(r->plugin ? r->plugin : "-");
  cell[MD_CASE] = params_text(r);
  cell[MD_STATUS] = r->status != CASE_OK && r->message && *r->message
                        ? xasprintf("%s: %s", case_status_name(r->status), r->message)
                        : xstrdup(case_status_name(r->status));
  cell[MD_MEDIAN] = timed ? fmt_time_ns(s->median) : xstrdup("-");
  cell[MD_NOISE] = timed ? noise_text(r, s) : xstrdup("-");
  cell[MD_MIN] = timed ? fmt_time_ns(s->min) : xstrdup("-");
  cell[MD_MAX] = timed ? fmt_time_ns(s->max) : xstrdup("-");
  cell[MD_RATE] = rate_text(r);
  cell[MD_CHECK] = check_text(r);
  cell[MD_RSS] = rss_text(r);
  size_t row = table_add_row(t, cell);
  for (size_t c = MD_MEDIAN; c < MD_NCOLS; c++)
    if (c != MD_CHECK) table_set_flags(t, row, c, CELL_OWN); /* bench's numbers, shown as they are */
}

/* Where and how it ran, under the table. */
static void add_context(struct text_table *t, const struct run_export *x) {
  const struct run_env *e = &x->files[0].env;
  size_t cases = 0;
  for (size_t i = 0; i < x->n; i++) cases += x->files[i].ncases;
  table_note(t, TABLE_ALL, 0, 1, 1);
  table_note_addf(t, "%zu %s of %zu %s, bench ", cases, cases == 1 ? "case" : "cases", x->n,
                  x->n == 1 ? "plugin" : "plugins");
  table_note_user(t, e->bench_version ? e->bench_version : "-");
  table_note_addf(t, " (git ");
  table_note_user(t, e->git_revision ? e->git_revision : "-");
  table_note_addf(t, "), preset ");
  table_note_user(t, e->preset ? e->preset : "-");
  if (e->sampling.known && e->sampling.from_cli) {
    table_note_addf(t, " (overridden:");
    for (int k = 0; k < RS_NKEYS; k++)
      if (e->sampling.from_cli & 1u << k) {
        table_note_addf(t, " ");
        table_note_user(t, run_sampling_keys[k]);
      }
    table_note_addf(t, ")");
  }
  if (e->tag) {
    table_note_addf(t, ", tag ");
    table_note_user(t, e->tag);
  }
  if (e->label) {
    table_note_addf(t, ", label ");
    table_note_user(t, e->label);
  }
  table_note_addf(t, ", mode ");
  table_note_user(t, e->mode ? e->mode : "-");
  table_note_addf(t, "; host ");
  table_note_user(t, e->hostname ? e->hostname : "-");
  table_note_addf(t, ", ");
  table_note_user(t, e->cpu ? e->cpu : "-");
  table_note_addf(t, " (%d CPUs), ", e->cpus);
  table_note_user(t, e->os ? e->os : "-");
  table_note_addf(t, "; started ");
  table_note_user(t, e->started ? e->started : "-");
  table_note_addf(t, ".");
  table_note(t, TABLE_ALL, 0, 1, 1);
  table_note_addf(t, "Times per iteration (device time when the plugin reported it); noise: the median's 95%% "
                     "interval, relative half-width (cv: the coefficient of variation); min and max: the fastest "
                     "and slowest sample; peak RSS: the measuring process's highest resident set over the case "
                     "(<=: its high-water mark, not resettable per case).");
}

char *run_export_to_md(const struct run_export *x) {
  static const char *const titles[MD_NCOLS] = {"plugin", "case",    "status", "median",     "noise",
                                               "min",    "max",     "throughput", "check", "peak RSS"};
  static const int right[MD_NCOLS] = {0, 0, 0, 1, 1, 1, 1, 1, 0, 1};
  struct text_table t;
  table_init(&t, MD_NCOLS, titles, right);
  for (size_t i = 0; i < x->n; i++)
    for (size_t k = 0; k < x->files[i].ncases; k++) add_case_row(&t, &x->files[i].cases[k]);
  if (x->n) add_context(&t, x);
  char *md = table_render(&t, TABLE_MD, 0);
  table_release(&t);
  return md;
}

/* ---- writing ------------------------------------------------------------------ */

static int write_one(const char *what, const char *path, char *text) {
  int e = 0, rc = 0;
  if (write_file_atomic_quiet(path, text, strlen(text), &e) != 0)
    rc = error("could not write the %s export %s: %s (the run's result files are kept)", what, path, strerror(e));
  free(text);
  return rc;
}

int run_export_write(const struct run_export *x, const char *json, const char *csv, const char *md) {
  int rc = 0;
  if (json && write_one("JSON", json, run_export_to_json(x->files, (const char *const *)x->sources, x->n)) != 0)
    rc = -1;
  if (csv) {
    struct strbuf sb = STRBUF_INIT;
    rollup_csv_of(x->files, (const char *const *)x->sources, x->n, &sb);
    if (write_one("CSV", csv, strbuf_detach(&sb)) != 0) rc = -1;
  }
  if (md && write_one("Markdown", md, run_export_to_md(x)) != 0) rc = -1;
  return rc;
}
