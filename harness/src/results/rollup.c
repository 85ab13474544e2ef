/* The rollup: every result .json of a results folder as one CSV, one row per
 * case (each case counted once), rebuilt from scratch under a lock and
 * written atomically. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/strmap.h"
#include "results/io.h"

#include "core/lockfile.h"
#include "core/term.h"

const char *const rollup_columns[] = {
    "date",      "host",      "tag",       "plugin",      "backend",     "operation",
    "preset",    "params",    "status",    "samples",     "timer",       "median_ms",
    "mean_ms",   "min_ms",    "stddev_ms", "cv",          "gflops",      "gbps",
    "max_abs_err", "max_rel_err", "rtol",  "atol",        "settled",     "source",
    "items_per_s", "ns_per_item", "item_unit",
    "ci_lo_ms",  "ci_hi_ms",  "outliers",  "batch",     "check",
    "tuning",
    /* the GPU over the case (telemetry); empty without it */
    "sm_clock_mhz_mean", "sm_clock_mhz_min", "mem_clock_mhz_mean", "power_w_mean", "power_w_max",
    "power_limit_w", "temp_c_max", "throttle", "throttled", "throttle_discarded",
    /* the roof the run measured the case against (measured roofs of its
     * folder); empty without one */
    "roof", "pct_of_roof", "roof_source", "roof_note",
    /* the slowest sample (min_ms is the fastest), the measuring process's peak RSS */
    "max_ms", "peak_rss_bytes", "peak_rss_method",
    /* the build the run measured: its label and the plugin's git commit
     * ("-dirty" added); empty in older files */
    "label", "commit",
    /* the one figure of what bounds the case (results/result.h
     * case_primary): flops, bytes, items, latency or none; its value and
     * unit, empty without one */
    "primary", "throughput", "throughput_unit",
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

/* ---- rows ---------------------------------------------------------------- */

struct row {
  const struct run_file *f;
  const struct case_result *r;
  size_t file;   /* index in name order */
  const char *source;
  char *key;     /* what makes two rows the same case */
  int keep;
};

/* Fields of a key are separated by \x1f (unit separator), which no name
 * holds in practice; a value holding one only merges less. */
static void key_add(struct strbuf *sb, const char *s) {
  strbuf_adds(sb, s ? s : "\x1e");
  strbuf_add(sb, "\x1f", 1);
}

/* The label as a build's name: NULL for the fallback label (the run's
 * start time, when neither --label nor a plugin commit named the build),
 * which tells runs apart, not builds. */
static const char *build_label(const struct run_file *f) {
  const char *l = f->env.label, *id = f->env.run_id;
  if (l && id && strncmp(id, l, strlen(l)) == 0 && id[strlen(l)] == '-') return NULL;
  return l;
}

/* Same host, date, tag, build label, preset, mode, plugin, backend,
 * operation and parameters: the same case, whatever its index or file (two
 * builds run the same day are two rows; two runs of one unnamed build, one,
 * the newer). */
static char *case_key(const struct run_file *f, const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  key_add(&sb, f->env.hostname);
  key_add(&sb, f->env.date);
  key_add(&sb, f->env.tag);
  key_add(&sb, build_label(f));
  key_add(&sb, f->env.preset);
  key_add(&sb, f->env.mode);
  key_add(&sb, r->plugin ? r->plugin : f->plugin);
  key_add(&sb, r->backend);
  key_add(&sb, r->operation);
  for (size_t i = 0; i < r->nparams; i++) {
    key_add(&sb, r->params[i].key);
    key_add(&sb, r->params[i].value);
  }
  return strbuf_detach(&sb);
}

static int complete(const struct row *w) { return w->r->status != CASE_INTERRUPTED; }

/* N of a name "<stem>.N.json" (a later claim of the same name), else 1. */
static long copy_number(const char *name) {
  size_t len = strlen(name);
  if (len < 5) return 1;
  const char *end = name + len - 5, *p = end; /* at ".json" */
  while (p > name && p[-1] >= '0' && p[-1] <= '9') p--;
  if (p == end || p == name || p[-1] != '.' || end - p > 9) return 1;
  return strtol(p, NULL, 10);
}

/* 1 when a is a better result of its case than b: complete before
 * interrupted, then the later start, then the later copy (.2 after the
 * plain name, .3 after .2), then the later file name. */
static int better(const struct row *a, const struct row *b) {
  if (complete(a) != complete(b)) return complete(a);
  const char *sa = a->f->env.started ? a->f->env.started : "";
  const char *sb = b->f->env.started ? b->f->env.started : "";
  int c = strcmp(sa, sb);
  if (c) return c > 0;
  long na = copy_number(a->source), nb = copy_number(b->source);
  if (na != nb) return na > nb;
  return a->file > b->file;
}

static int cmp_row_keys(const void *a, const void *b) {
  const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
  int c = strcmp(x->key, y->key);
  if (c) return c;
  return x < y ? -1 : x > y;
}

/* Keep, for each case, the rows of the file that holds its best result. */
static void count_each_case_once(struct row *rows, size_t n) {
  if (!n) return;
  struct row **by_key = xmalloc(n * sizeof *by_key);
  for (size_t i = 0; i < n; i++) by_key[i] = &rows[i];
  qsort(by_key, n, sizeof *by_key, cmp_row_keys);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && strcmp(by_key[j]->key, by_key[i]->key) == 0) j++;
    const struct row *best = by_key[i];
    for (size_t k = i + 1; k < j; k++)
      if (better(by_key[k], best)) best = by_key[k];
    for (size_t k = i; k < j; k++) by_key[k]->keep = by_key[k]->file == best->file;
    i = j;
  }
  free(by_key);
}

/* Cases of a file by index, ties in file order. */
static int cmp_cases(const void *a, const void *b) {
  const struct case_result *x = *(const struct case_result *const *)a;
  const struct case_result *y = *(const struct case_result *const *)b;
  if (x->index != y->index) return x->index < y->index ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void add_file_rows(struct row **rows, size_t *n, const struct run_file *f, size_t file,
                          const char *source) {
  if (!f->ncases) return;
  const struct case_result **order = xmalloc(f->ncases * sizeof *order);
  for (size_t i = 0; i < f->ncases; i++) order[i] = &f->cases[i];
  qsort(order, f->ncases, sizeof *order, cmp_cases);
  *rows = xrealloc(*rows, (*n + f->ncases) * sizeof **rows);
  for (size_t i = 0; i < f->ncases; i++) {
    struct row *w = &(*rows)[(*n)++];
    w->f = f;
    w->r = order[i];
    w->file = file;
    w->source = source;
    w->key = case_key(f, order[i]);
    w->keep = 1;
  }
  free(order);
}

/* ---- parameter columns ------------------------------------------------- */

/* The parameter names in order of first appearance, and a hash of them to
 * their column (so 10^5 parameters cost 10^5 lookups, not 10^10). */
struct names {
  size_t n, cap;
  char **name;
  struct strmap column;
};

static void names_add(struct names *ns, const char *name) {
  size_t col;
  if (strmap_get(&ns->column, name, &col)) return;
  if (ns->n == ns->cap) {
    ns->cap = ns->cap ? 2 * ns->cap : 16;
    ns->name = xrealloc(ns->name, ns->cap * sizeof *ns->name);
  }
  strmap_put(&ns->column, name, ns->n);
  ns->name[ns->n++] = xstrdup(name);
}

static void names_release(struct names *ns) {
  for (size_t i = 0; i < ns->n; i++) free(ns->name[i]);
  free(ns->name);
  strmap_release(&ns->column);
}

/* ---- CSV ------------------------------------------------------------------ */

static void add_sep_field(struct strbuf *sb, const char *s) {
  strbuf_adds(sb, ",");
  csv_add_field(sb, s);
}

static void add_sep_number(struct strbuf *sb, int have, double v) {
  strbuf_adds(sb, ",");
  if (have) csv_add_number(sb, v);
}

static void add_gv(struct strbuf *sb, struct gpu_value v) { add_sep_number(sb, v.have && isfinite(v.v), v.v); }

/* The telemetry columns: what the library read (empty where it did not),
 * the throttle reasons seen joined by '+', throttled 0/1 and the samples
 * the throttle rule discarded; all empty for a case without telemetry. */
static void add_telemetry(struct strbuf *sb, const struct case_telemetry *t) {
  if (!t) {
    strbuf_adds(sb, ",,,,,,,,,,");
    return;
  }
  add_gv(sb, t->sm_clock_mean);
  add_gv(sb, t->sm_clock_min);
  add_gv(sb, t->mem_clock_mean);
  add_gv(sb, t->power_mean);
  add_gv(sb, t->power_max);
  add_gv(sb, t->power_limit.have ? t->power_limit : t->facts.power_limit_w);
  add_gv(sb, t->temp_max);
  char names[256] = "";
  if (t->have_throttle) gpu_throttle_joined(t->throttle, '+', names, sizeof names);
  add_sep_field(sb, names[0] ? names : NULL);
  strbuf_addf(sb, ",%d,%zu", t->throttled ? 1 : 0, t->discarded);
}

static void add_row(struct strbuf *sb, const struct run_file *f, const struct case_result *r,
                    const char *source) {
  const struct stats *t = case_time(r);
  int timed = r->nsamples > 0 && t->n > 0;
  int spread = timed && t->n >= 2;
  const struct check_result *c = &r->check;

  csv_add_field(sb, f->env.date);
  add_sep_field(sb, f->env.hostname);
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
  double ips = case_items_per_s(r);
  add_sep_number(sb, ips > 0, ips);
  add_sep_number(sb, ips > 0, case_ns_per_item(r));
  add_sep_field(sb, r->items > 0 ? r->item_unit : NULL);
  add_sep_number(sb, timed, t->ci_lo / 1e6);
  add_sep_number(sb, timed, t->ci_hi / 1e6);
  if (timed) strbuf_addf(sb, ",%zu,%d", t->outliers, r->batch);
  else strbuf_adds(sb, ",,");
  /* check: how the output was checked; "unchecked" when the case was timed
   * and nothing checked it; empty when it never got that far. */
  add_sep_field(sb, c->checked ? c->method : timed ? "unchecked" : NULL);
  /* tuning: "tuned (cache FILE)", "default (no tuning entry)" or "default
   * (tuning entry rejected: WHY)" for a case
   * whose tunables were left at auto (its note says it); else empty */
  const char *note = kv_list_get(r->ninfo, r->info, "note");
  const char *tn = note ? strstr(note, "tuned (cache ") : NULL;
  if (!tn && note) tn = strstr(note, "default (no tuning entry)");
  if (!tn && note) tn = strstr(note, "default (tuning entry rejected: ");
  char *tuning = NULL;
  if (tn) {
    const char *end = strchr(tn, ')');
    tuning = xstrndup(tn, end ? (size_t)(end - tn + 1) : strlen(tn));
  }
  add_sep_field(sb, tuning);
  free(tuning);
  add_telemetry(sb, r->telemetry);
  const struct case_roof *roof = r->roof;
  add_sep_field(sb, roof ? roof->id : NULL);
  add_sep_number(sb, roof && roof->pct >= 0, roof ? roof->pct : 0);
  add_sep_field(sb, roof && roof->source && *roof->source ? roof->source : NULL);
  add_sep_field(sb, roof ? roof->note : NULL);
  add_sep_number(sb, timed, t->max / 1e6);
  if (r->memory.known) strbuf_addf(sb, ",%llu", (unsigned long long)r->memory.peak_rss_bytes);
  else strbuf_adds(sb, ",");
  add_sep_field(sb, r->memory.known ? r->memory.method : NULL);
  add_sep_field(sb, f->env.label);
  char *commit = f->plugin_commit ? xasprintf("%s%s", f->plugin_commit, f->plugin_dirty > 0 ? "-dirty" : "") : NULL;
  add_sep_field(sb, commit);
  free(commit);
  struct case_figure pf;
  int has_pf = case_primary(r, &pf);
  add_sep_field(sb, primary_name(case_primary_kind(r)));
  add_sep_number(sb, has_pf, pf.value);
  add_sep_field(sb, has_pf ? pf.unit : NULL);
  strbuf_adds(sb, "\n");
}

/* A row: the fixed columns (add_row, which ends the line), then, before
 * that newline, one field per parameter column. */
static void add_row_with_params(struct strbuf *sb, const struct row *w, const struct names *params,
                                const char **field) {
  add_row(sb, w->f, w->r, w->source);
  sb->buf[--sb->len] = '\0'; /* reopen the line */
  memset(field, 0, params->n * sizeof *field);
  for (size_t k = 0; k < w->r->nparams; k++) {
    size_t col;
    if (strmap_get(&params->column, w->r->params[k].key, &col)) field[col] = w->r->params[k].value;
  }
  for (size_t i = 0; i < params->n; i++) add_sep_field(sb, field[i]);
  strbuf_adds(sb, "\n");
}

/* ---- the whole rollup ------------------------------------------------------ */

/* Hold an exclusive flock on the folder itself (no lock file to leave
 * behind): concurrent runs rebuild one after the other, each from what is
 * on disk then, so an older snapshot never replaces a newer one. While
 * another process holds it, wait at most BENCH_LOCK_WAIT_S (else
 * ROLLUP_LOCK_WAIT_S) seconds, saying what is waited for
 * (lockfile_take_bounded); SIGINT, SIGTERM or SIGHUP
 * end the wait. 0 with lk held (lockfile_release); ROLLUP_LEFT after one
 * message when the wait ended (by the bound: a warning; by a signal: the
 * signal is raised again once the wait is over, so the caller's handler
 * or the default action sees it); -1 after error(). Where the file system
 * cannot lock a folder (some network file systems), the rebuild goes on
 * unlocked. */
static int lock_folder(const char *dir, struct lockfile *lk) {
  if (lockfile_open(lk, dir, LOCKFILE_FOLDER) != 0)
    return error("cannot read results folder %s: %s", dir, strerror(errno));
  double max = lock_wait_max_s(ROLLUP_LOCK_WAIT_S);
  char holder[128], *what = xasprintf("results folder %s", term_str(dir));
  int sig = 0, r = lockfile_take_bounded(lk, what, max, &sig, holder, sizeof holder);
  free(what);
  if (r != LOCK_GAVE_UP && r != LOCK_INTERRUPTED) return 0; /* held, or a folder that cannot be locked */
  if (sig)
    fprintf(stderr,
            "bench: interrupted by %s while waiting for the lock on results folder %s (%s): the result files "
            "are saved, the rollup is not rebuilt; run `bench rollup --results-dir %s` later\n",
            strsignal(sig), term_str(dir), holder, term_str(dir));
  else
    warning("gave up waiting for the lock on results folder %s after %g s (%s; BENCH_LOCK_WAIT_S sets the "
            "bound): the result files are saved, the rollup is not rebuilt; run `bench rollup --results-dir %s` "
            "later",
            dir, max, holder, dir);
  fflush(stderr);
  if (sig) raise(sig);
  return ROLLUP_LEFT;
}

static void rows_to_csv(struct row *rows, size_t nrows, struct strbuf *sb);

/* Build the CSV of the result files names[0 .. n) of dir. */
static void build_csv(const char *dir, char **names, size_t n, struct strbuf *sb) {
  struct run_file *files = xcalloc(n ? n : 1, sizeof *files);
  struct row *rows = NULL;
  size_t nrows = 0;
  for (size_t i = 0; i < n; i++) {
    char *path = xasprintf("%s/%s", dir, names[i]);
    char err[512];
    /* no raw samples: the rollup needs the stats only, so memory stays low */
    if (results_read_file_flags(path, RESULTS_READ_NO_SAMPLES, &files[i], err, sizeof err) != 0) {
      warning("skipping %s: %s", path, err);
    } else {
      add_file_rows(&rows, &nrows, &files[i], i, names[i]);
    }
    free(path);
  }
  count_each_case_once(rows, nrows);
  rows_to_csv(rows, nrows, sb);
  for (size_t i = 0; i < nrows; i++) free(rows[i].key);
  free(rows);
  for (size_t i = 0; i < n; i++) run_file_release(&files[i]);
  free(files);
}

void rollup_csv_of(const struct run_file *files, const char *const *sources, size_t n, struct strbuf *sb) {
  struct row *rows = NULL;
  size_t nrows = 0;
  for (size_t i = 0; i < n; i++) add_file_rows(&rows, &nrows, &files[i], i, sources[i]);
  rows_to_csv(rows, nrows, sb);
  for (size_t i = 0; i < nrows; i++) free(rows[i].key);
  free(rows);
}

/* The header (the fixed columns, then one param.NAME per parameter seen in
 * the rows kept) and the rows kept. */
static void rows_to_csv(struct row *rows, size_t nrows, struct strbuf *sb) {
  struct names params = {0, 0, NULL, STRMAP_INIT};
  for (size_t i = 0; i < nrows; i++)
    for (size_t k = 0; rows[i].keep && k < rows[i].r->nparams; k++)
      names_add(&params, rows[i].r->params[k].key);

  for (size_t c = 0; rollup_columns[c]; c++) {
    if (c) strbuf_adds(sb, ",");
    csv_add_field(sb, rollup_columns[c]);
  }
  for (size_t i = 0; i < params.n; i++) {
    char *col = xasprintf("%s%s", ROLLUP_PARAM_PREFIX, params.name[i]);
    add_sep_field(sb, col);
    free(col);
  }
  strbuf_adds(sb, "\n");
  const char **field = xcalloc(params.n ? params.n : 1, sizeof *field);
  for (size_t i = 0; i < nrows; i++)
    if (rows[i].keep) add_row_with_params(sb, &rows[i], &params, field);
  free(field);
  names_release(&params);
}

/* "<dir>/rollup.<user>.csv" for this process's user. */
static char *per_user_path(const char *dir) {
  struct passwd *pw = getpwuid(geteuid());
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "%s/rollup.", dir);
  if (pw && pw->pw_name && *pw->pw_name) {
    for (const char *p = pw->pw_name; *p; p++) {
      char c = *p;
      int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
               c == '-' || (c == '.' && p != pw->pw_name);
      strbuf_add(&sb, ok ? &c : "-", 1);
    }
  } else {
    strbuf_addf(&sb, "uid%ld", (long)geteuid());
  }
  strbuf_adds(&sb, ".csv");
  return strbuf_detach(&sb);
}

/* Write the CSV as <dir>/rollup.csv; where that belongs to another user
 * in a sticky folder (so it cannot be replaced), as rollup.<user>.csv
 * after one warning. 0 / ROLLUP_PER_USER, or -1 after error(). */
static int write_csv(const char *dir, const struct strbuf *sb) {
  char *out = xasprintf("%s/rollup.csv", dir);
  int e, rc = 0;
  if (write_file_atomic_quiet(out, sb->buf, sb->len, &e) != 0) {
    struct stat st, dst;
    if ((e == EPERM || e == EACCES) && lstat(out, &st) == 0 && st.st_uid != geteuid() && stat(dir, &dst) == 0 &&
        (dst.st_mode & S_ISVTX)) {
      struct passwd *pw = getpwuid(st.st_uid);
      char *owner = xstrdup(pw && pw->pw_name ? pw->pw_name : "?"); /* before getpwuid again */
      char *mine = per_user_path(dir);
      warning("cannot replace %s: it belongs to user %s (uid %ld) and the folder is sticky, so only its "
              "owner may replace it; this rollup is written to %s instead",
              out, owner, (long)st.st_uid, mine);
      free(owner);
      rc = write_file_atomic(mine, sb->buf, sb->len) == 0 ? ROLLUP_PER_USER : -1;
      free(mine);
    } else {
      rc = error("cannot write %s: %s", out, strerror(e));
    }
  }
  free(out);
  return rc;
}

int rollup_write(const char *dir) {
  struct lockfile lock = LOCKFILE_INIT;
  int rc = lock_folder(dir, &lock);
  if (rc != 0) return rc;
  results_clean_stale(dir);
  char **names = NULL;
  size_t n = 0;
  rc = list_results(dir, &names, &n);
  if (!rc) {
    struct strbuf sb = STRBUF_INIT;
    build_csv(dir, names, n, &sb);
    rc = write_csv(dir, &sb);
    strbuf_release(&sb);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  lockfile_release(&lock);
  return rc;
}
