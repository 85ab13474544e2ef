/* The human-readable form of a run file: the environment, one aligned row
 * per case, then notes for the cases that need words (skip reasons, errors,
 * wrong answers, unsettled timing, determinism, stderr tails). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/io.h"
#include "results/steady_warn.h"

#include "backend/backends.h"

#include "core/units.h"
#include "preset/values.h"

/* ---- text helpers ----------------------------------------------------- */

/* Append s with control characters shown as '?' (tabs as a space), so that
 * a value stays on its line and cannot drive the terminal. */
static void add_clean(struct strbuf *sb, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    char out = (char)c;
    if (c == '\t') out = ' ';
    else if (c < 0x20 || c == 0x7f) out = '?';
    strbuf_add(sb, &out, 1);
  }
}

static void add_cleans(struct strbuf *sb, const char *s) {
  if (!s || !*s) s = "-";
  add_clean(sb, s, strlen(s));
}

/* Columns a string takes on a terminal: one per UTF-8 character. */
static size_t display_width(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xc0) != 0x80) w++;
  return w;
}

static const char *signal_name(int sig) {
  /* Linux numbers; the text is fixed so result files do not depend on the
   * C library's strsignal() wording. */
  switch (sig) {
  case 1: return "SIGHUP";
  case 2: return "SIGINT";
  case 3: return "SIGQUIT";
  case 4: return "SIGILL";
  case 5: return "SIGTRAP";
  case 6: return "SIGABRT";
  case 7: return "SIGBUS";
  case 8: return "SIGFPE";
  case 9: return "SIGKILL";
  case 10: return "SIGUSR1";
  case 11: return "SIGSEGV";
  case 12: return "SIGUSR2";
  case 13: return "SIGPIPE";
  case 14: return "SIGALRM";
  case 15: return "SIGTERM";
  case 24: return "SIGXCPU";
  case 25: return "SIGXFSZ";
  case 31: return "SIGSYS";
  default: return NULL;
  }
}

/* "m=64 n=64 k=64" ("-" without parameters). */
static char *params_text(const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++) {
    if (i) strbuf_adds(&sb, " ");
    add_cleans(&sb, r->params[i].key);
    strbuf_adds(&sb, "=");
    add_clean(&sb, r->params[i].value, strlen(r->params[i].value));
  }
  if (!sb.len) strbuf_adds(&sb, "-");
  return strbuf_detach(&sb);
}

/* ---- header ----------------------------------------------------------- */

/* 1 when a case of f carries the roof it was measured against. */
static int any_roof(const struct run_file *f) {
  for (size_t i = 0; i < f->ncases; i++)
    if (f->cases[i].roof) return 1;
  return 0;
}

/* The distinct "id: source" of the cases' roofs, "; "-joined; NULL when none. */
static char *roof_sources(const struct run_file *f) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < f->ncases; i++) {
    const struct case_roof *x = f->cases[i].roof;
    if (!x || !x->source || !*x->source) continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) {
      const struct case_roof *y = f->cases[j].roof;
      seen = y && y->source && strcmp(y->source, x->source) == 0 && strcmp(y->id, x->id) == 0;
    }
    if (!seen) strbuf_addf(&sb, "%s%s: %s", sb.len ? "; " : "", x->id, x->source);
  }
  return sb.len ? strbuf_detach(&sb) : NULL;
}

static void header_line(struct strbuf *sb, const char *key, const char *value) {
  strbuf_addf(sb, "%-14s ", key);
  add_cleans(sb, value);
  strbuf_adds(sb, "\n");
}

/* The distinct values of info[key] over the cases, in order, "; "-joined. */
static char *info_values(const struct run_file *f, const char *key) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < f->ncases; i++) {
    const char *v = kv_list_get(f->cases[i].ninfo, f->cases[i].info, key);
    if (!v || !*v) continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) {
      const char *w = kv_list_get(f->cases[j].ninfo, f->cases[j].info, key);
      seen = w && strcmp(v, w) == 0;
    }
    if (seen) continue;
    if (sb.len) strbuf_adds(&sb, "; ");
    strbuf_adds(&sb, v);
  }
  return strbuf_detach(&sb);
}

/* Whose flops and bytes the cases carry, or NULL when none says. */
static char *work_sources(const struct run_file *f) {
  size_t n[3] = {0, 0, 0};
  for (size_t i = 0; i < f->ncases; i++)
    if ((unsigned)f->cases[i].work_source < 3) n[f->cases[i].work_source]++;
  if (!n[WORK_OPERATION] && !n[WORK_PLUGIN]) return NULL;
  if (!n[WORK_PLUGIN])
    return xasprintf("FLOPs and bytes of the operation table (%s)",
                     f->ncases && f->cases[0].operation ? f->cases[0].operation : "-");
  if (!n[WORK_OPERATION]) return xstrdup("FLOPs and bytes stated by the plugin (set_work)");
  return xasprintf("%zu cases from the operation table, %zu stated by the plugin",
                   n[WORK_OPERATION], n[WORK_PLUGIN]);
}

/* "ci <= 2%: the median's 95% CI, relative half-width": the stopping rule
 * of the cases that were timed, each distinct one once, "; "-joined. */
static char *stop_rules(const struct run_file *f) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < f->ncases; i++) {
    const struct case_result *r = &f->cases[i];
    if (!r->stop_rule[0] || r->nsamples == 0) continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = f->cases[j].nsamples > 0 && strcmp(f->cases[j].stop_rule, r->stop_rule) == 0 &&
             f->cases[j].target_noise == r->target_noise;
    if (seen) continue;
    if (sb.len) strbuf_adds(&sb, "; ");
    strbuf_addf(&sb, "%s <= %g%%: %s", r->stop_rule, r->target_noise * 100.0,
                strcmp(r->stop_rule, "cv") == 0 ? "cv = stddev / mean"
                                                : "the median's 95% CI, relative half-width");
  }
  return strbuf_detach(&sb);
}

/* "0000:3b:00.0 NVIDIA H100 80GB HBM3, driver 550.54.15, sm base 1755 MHz,
 * max 1980 MHz, mem max 2619 MHz, power limit 700 W, persistence on,
 * compute mode default, clocks not locked": what the library said. */
static char *device_text(const struct gpu_facts *d) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, d->bus_id);
  if (d->name[0]) strbuf_addf(&sb, " %s", d->name);
  strbuf_adds(&sb, ",");
  size_t start = sb.len;
  if (d->driver[0]) strbuf_addf(&sb, " driver %s,", d->driver);
  if (d->base_sm_clock_mhz.have) strbuf_addf(&sb, " sm base %.0f MHz,", d->base_sm_clock_mhz.v);
  if (d->max_sm_clock_mhz.have) strbuf_addf(&sb, " sm max %.0f MHz,", d->max_sm_clock_mhz.v);
  if (d->max_mem_clock_mhz.have) strbuf_addf(&sb, " mem max %.0f MHz,", d->max_mem_clock_mhz.v);
  if (d->power_limit_w.have) strbuf_addf(&sb, " power limit %.0f W,", d->power_limit_w.v);
  if (d->persistence.have) strbuf_addf(&sb, " persistence %s,", d->persistence.v ? "on" : "off");
  if (d->compute_mode.have) {
    const char *mode = gpu_compute_mode_name(d->compute_mode.v);
    if (mode) strbuf_addf(&sb, " compute mode %s,", mode);
    else strbuf_addf(&sb, " compute mode %g,", d->compute_mode.v);
  }
  if (d->app_clocks_set.have) strbuf_addf(&sb, " clocks %s,", d->app_clocks_set.v ? "locked" : "not locked");
  if (sb.len == start) strbuf_adds(&sb, " nothing more known,");
  sb.buf[--sb.len] = '\0';
  return strbuf_detach(&sb);
}

/* The libraries that read the cases' GPUs and the notes of those that
 * could not ("nvml"; "no NVIDIA or AMD management library: ..."), each
 * once; NULL when no case has telemetry. */
static char *telemetry_sources(const struct run_file *f) {
  struct strbuf sb = STRBUF_INIT;
  int any = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < f->ncases; i++) {
      const struct case_telemetry *t = f->cases[i].telemetry;
      if (!t) continue;
      any = 1;
      const char *v = pass == 0 ? t->library : t->note;
      int seen = !*v;
      for (size_t j = 0; j < i && !seen; j++) {
        const struct case_telemetry *u = f->cases[j].telemetry;
        seen = u && strcmp(pass == 0 ? u->library : u->note, v) == 0;
      }
      if (seen) continue;
      if (sb.len) strbuf_adds(&sb, "; ");
      strbuf_adds(&sb, v);
    }
  if (!any) {
    strbuf_release(&sb);
    return NULL;
  }
  if (!sb.len) strbuf_adds(&sb, "none (no library read the device)");
  return strbuf_detach(&sb);
}

static void add_devices(struct strbuf *sb, const struct run_file *f) {
  struct gpu_facts *dev = NULL;
  size_t n = run_file_devices(f, &dev);
  for (size_t i = 0; i < n; i++) {
    char *text = device_text(&dev[i]);
    header_line(sb, "gpu", text);
    free(text);
  }
  free(dev);
  char *src = telemetry_sources(f);
  if (src) header_line(sb, "gpu telemetry", src);
  free(src);
}

/* "sampling  warmup_iters 2, warmup_time 100ms, min_samples 20, ...", and
 * "overridden  min_samples, max_time (from the command line)" when the
 * command line set any. */
static void add_sampling(struct strbuf *sb, const struct run_sampling *m) {
  if (!m->known) return;
  char wt[32], lo[32], hi[32];
  preset_duration_text(m->warmup_s, wt, sizeof wt);
  preset_duration_text(m->min_time_s, lo, sizeof lo);
  preset_duration_text(m->max_time_s, hi, sizeof hi);
  char *text = xasprintf("warmup_iters %d, warmup_time %s, min_samples %d, max_samples %d, min_time %s, "
                         "max_time %s, target_noise %g%%",
                         m->warmup_iters, wt, m->min_samples, m->max_samples, lo, hi, m->target_noise * 100);
  header_line(sb, "sampling", text);
  free(text);
  if (!m->from_cli) return;
  struct strbuf keys = STRBUF_INIT;
  for (int k = 0; k < RS_NKEYS; k++)
    if (m->from_cli & 1u << k) strbuf_addf(&keys, "%s%s", keys.len ? ", " : "", run_sampling_keys[k]);
  strbuf_adds(&keys, " (from the command line, over the preset's)");
  header_line(sb, "overridden", keys.buf);
  strbuf_release(&keys);
}

static void add_header(struct strbuf *sb, const struct run_file *f) {
  const struct run_env *e = &f->env;
  strbuf_adds(sb, "bench results\n");
  header_line(sb, "plugin", f->plugin);
  header_line(sb, "plugin path", f->plugin_path);
  header_line(sb, "plugin sha256", f->plugin_sha256);
  if (f->plugin_commit) { /* only where bench could tell */
    char *src = xasprintf("%s%s%s%s", f->plugin_commit, f->plugin_dirty > 0 ? " (dirty)" : "",
                          f->plugin_describe ? ", " : "", f->plugin_describe ? f->plugin_describe : "");
    header_line(sb, "plugin commit", src);
    free(src);
  }
  header_line(sb, "preset", e->preset);
  header_line(sb, "preset sha256", e->preset_sha256);
  header_line(sb, "tag", e->tag);
  if (e->label) header_line(sb, "label", e->label);
  if (e->run_id) header_line(sb, "run id", e->run_id);
  header_line(sb, "mode", e->mode);
  header_line(sb, "date", e->date);
  header_line(sb, "started", e->started);
  header_line(sb, "host", e->hostname);
  header_line(sb, "cpu", e->cpu);
  char cpus[16];
  snprintf(cpus, sizeof cpus, "%d", e->cpus);
  header_line(sb, "cpus", e->cpus > 0 ? cpus : NULL);
  char caches[256] = "";
  if (e->caches.llc > 0) cpu_caches_describe(&e->caches, caches, sizeof caches);
  header_line(sb, "cpu caches", caches[0] ? caches : NULL);
  header_line(sb, "os", e->os);
  char *device = info_values(f, "device"), *driver = info_values(f, "driver");
  header_line(sb, "device", device);
  header_line(sb, "driver", driver);
  free(device);
  free(driver);
  /* The backends' device facts (backend/backends.h), only where the
   * plugin's cases carry them. */
  for (size_t b = 0; b < backends_count(); b++)
    for (const struct backend_fact *k = backends_at(b)->facts; k && k->key; k++) {
      char *v = info_values(f, k->key);
      if (v && *v) header_line(sb, k->label, v);
      free(v);
    }
  add_devices(sb, f); /* only runs whose cases named a GPU */
  char *version = xasprintf("%s (git %s)", e->bench_version ? e->bench_version : "-",
                            e->git_revision ? e->git_revision : "-");
  header_line(sb, "bench", version);
  free(version);
  header_line(sb, "command", e->command);
  char *work = work_sources(f);
  if (work) header_line(sb, "work", work); /* only files that say */
  free(work);
  char *rule = stop_rules(f);
  header_line(sb, "stop rule", rule);
  free(rule);
  add_sampling(sb, &e->sampling); /* only files that record it */
  char *roofs = roof_sources(f);
  if (roofs) header_line(sb, "roofs", roofs); /* only runs whose folder had measured roofs */
  free(roofs);

  struct strbuf counts = STRBUF_INIT;
  strbuf_addf(&counts, "%zu", f->ncases);
  const char *sep = ":";
  for (int s = 0; s < CASE_STATUS_COUNT; s++) {
    size_t n = 0;
    for (size_t i = 0; i < f->ncases; i++) n += f->cases[i].status == (enum case_status)s;
    if (!n) continue;
    strbuf_addf(&counts, "%s %zu %s", sep, n, case_status_name((enum case_status)s));
    sep = ",";
  }
  header_line(sb, "cases", counts.buf);
  strbuf_release(&counts);
  char busy[160];
  if (steady_warn_busy(&e->steady, busy, sizeof busy) > 0) { /* results/steady_warn.h */
    char *text = xasprintf("the machine was busy during this run: %s; its timings may be slower and noisier than on "
                           "a quiet machine", busy);
    header_line(sb, "warning", text);
    free(text);
  }
}

/* ---- table ------------------------------------------------------------ */

enum { COL_INDEX, COL_PARAMS, COL_STATUS, COL_SAMPLES, COL_TIMER, COL_MEDIAN, COL_MIN, COL_MAX, COL_CV,
       COL_THR, COL_GFLOPS, COL_GBPS, COL_ROOF, COL_ERR, COL_TOL, COL_SETTLED, COL_CI, COL_BATCH, COL_OUTLIERS, COL_RSS,
       NCOLS };

static const struct {
  const char *title;
  int right; /* right-aligned (numbers) */
} columns[NCOLS] = {
    [COL_INDEX] = {"#", 1},           [COL_PARAMS] = {"params", 0},
    [COL_STATUS] = {"status", 0},     [COL_SAMPLES] = {"samples", 1},
    [COL_TIMER] = {"timer", 0},       [COL_MEDIAN] = {"median", 1},
    [COL_MIN] = {"min", 1},           [COL_MAX] = {"max", 1},
    [COL_CV] = {"cv", 1},
    [COL_THR] = {"throughput", 1},    [COL_GFLOPS] = {"GFLOP/s", 1},    [COL_GBPS] = {"GB/s", 1},
    [COL_ROOF] = {"of roof", 0},
    [COL_ERR] = {"max_abs_err", 1},   [COL_TOL] = {"rtol/atol", 0},
    [COL_SETTLED] = {"settled", 0},
    [COL_CI] = {"ci95", 1},           [COL_BATCH] = {"batch", 1},
    [COL_OUTLIERS] = {"outliers", 1}, [COL_RSS] = {"peak_rss", 1},
};

static void row_cells(const struct case_result *r, char **cell) {
  const struct stats *t = case_time(r);
  int timed = r->nsamples > 0 && t->n > 0;
  cell[COL_INDEX] = xasprintf("%d", r->index);
  cell[COL_PARAMS] = params_text(r);
  cell[COL_STATUS] = r->telemetry && r->telemetry->throttled
                        ? xasprintf("%s THROTTLED", case_status_name(r->status))
                        : xstrdup(case_status_name(r->status));
  cell[COL_SAMPLES] = xasprintf("%zu", r->nsamples);
  cell[COL_TIMER] = xstrdup(timed ? case_timer_name(r) : "-");
  cell[COL_MEDIAN] = timed ? fmt_time_ns(t->median) : xstrdup("-");
  cell[COL_MIN] = timed ? fmt_time_ns(t->min) : xstrdup("-");
  cell[COL_MAX] = timed ? fmt_time_ns(t->max) : xstrdup("-");
  cell[COL_CV] = timed && t->n >= 2 ? xasprintf("%.2f%%", t->cv * 100.0) : xstrdup("-");
  /* the primary figure (what bounds the case), then both rates */
  char *thr = case_primary_text(r);
  cell[COL_THR] = *thr ? thr : (free(thr), xstrdup("-"));
  double gf = case_gflops(r), gb = case_gbps(r);
  cell[COL_GFLOPS] = gf > 0 ? fmt_sig4(gf) : xstrdup("-");
  cell[COL_GBPS] = gb > 0 ? fmt_sig4(gb) : xstrdup("-");
  /* "38.5% fp32", "104.2%* l2" (a note says why), "- fp64" (not measured) */
  const struct case_roof *roof = r->roof;
  if (!roof) cell[COL_ROOF] = xstrdup("-");
  else if (roof->pct >= 0) cell[COL_ROOF] = xasprintf("%.1f%%%s %s", roof->pct, roof->note ? "*" : "", roof->id);
  else cell[COL_ROOF] = xasprintf("-%s %s", roof->note ? "*" : "", roof->id);
  if (r->check.checked) {
    cell[COL_ERR] = xasprintf("%.3g", r->check.max_abs_err);
    cell[COL_TOL] = xasprintf("%g/%g", r->check.rtol, r->check.atol);
  } else {
    cell[COL_ERR] = xstrdup(case_unchecked(r) ? "unchecked" : "-");
    cell[COL_TOL] = xstrdup("-");
  }
  cell[COL_SETTLED] = xstrdup(!timed ? "-" : r->settled ? "yes" : "no");
  cell[COL_CI] = timed && t->median > 0 && t->ci_hi > 0
                     ? xasprintf("+-%.2f%%", (t->ci_hi - t->ci_lo) / 2 / t->median * 100.0)
                     : xstrdup("-");
  cell[COL_BATCH] = timed ? xasprintf("%d", r->batch) : xstrdup("-");
  cell[COL_OUTLIERS] = timed ? xasprintf("%zu", t->outliers) : xstrdup("-");
  if (r->memory.known) { /* "<=" when only the process's high-water mark was known */
    char *b = fmt_bytes((double)r->memory.peak_rss_bytes);
    cell[COL_RSS] = xasprintf("%s%s", strcmp(r->memory.method, "case") == 0 ? "" : "<=", b);
    free(b);
  } else {
    cell[COL_RSS] = xstrdup("-");
  }
}

static void add_row(struct strbuf *sb, char *const *cell, const size_t *width, int roofs) {
  size_t start = sb->len;
  for (int c = 0; c < NCOLS; c++) {
    if (c == COL_ROOF && !roofs) continue; /* a column only where the folder had measured roofs */
    size_t pad = width[c] - display_width(cell[c]);
    strbuf_adds(sb, "  ");
    if (columns[c].right)
      for (size_t i = 0; i < pad; i++) strbuf_adds(sb, " ");
    strbuf_adds(sb, cell[c]);
    if (!columns[c].right)
      for (size_t i = 0; i < pad; i++) strbuf_adds(sb, " ");
  }
  while (sb->len > start && sb->buf[sb->len - 1] == ' ') sb->len--;
  sb->buf[sb->len] = '\0';
  strbuf_adds(sb, "\n");
}

static void add_table(struct strbuf *sb, const struct run_file *f) {
  size_t n = f->ncases;
  char **cells = xcalloc((n + 1) * NCOLS, sizeof *cells);
  for (int c = 0; c < NCOLS; c++) cells[c] = xstrdup(columns[c].title);
  for (size_t i = 0; i < n; i++) row_cells(&f->cases[i], cells + (i + 1) * NCOLS);
  size_t width[NCOLS] = {0};
  for (size_t i = 0; i <= n; i++)
    for (int c = 0; c < NCOLS; c++) {
      size_t w = display_width(cells[i * NCOLS + c]);
      if (w > width[c]) width[c] = w;
    }
  strbuf_adds(sb, "\n");
  int roofs = any_roof(f);
  for (size_t i = 0; i <= n; i++) add_row(sb, cells + i * NCOLS, width, roofs);
  for (size_t i = 0; i < (n + 1) * NCOLS; i++) free(cells[i]);
  free(cells);
  strbuf_adds(sb, "\ntimes per iteration, of the timer shown (device when the plugin "
                  "reported it, else host); cv = stddev / mean; ci95 = half-width of the "
                  "median's 95% confidence interval, relative; batch = iterations per sample; "
                  "outliers = samples with a modified z-score above 3.5; peak_rss = the measuring "
                  "process's highest resident set from the case's setup to its last sample ('<=': the "
                  "process's high-water mark, which could not be reset for the case)\n");
  if (roofs)
    strbuf_adds(sb, "of roof = the case's share of the measured roof of its dtype and of the memory level its "
                    "working set fits in (the roofs line above; * a note says why it is over 100% or what is "
                    "missing)\n");
}

/* ---- notes ------------------------------------------------------------ */

/* "    label: text", continuation lines of text indented under it. */
static void note(struct strbuf *sb, const char *label, const char *text) {
  strbuf_addf(sb, "    %s", label);
  if (!text) {
    strbuf_adds(sb, "\n");
    return;
  }
  strbuf_adds(sb, ": ");
  const char *p = text;
  for (int first = 1;; first = 0) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len && p[len - 1] == '\r') len--;
    if (!first) strbuf_adds(sb, "\n      ");
    add_clean(sb, p, len);
    if (!nl || !nl[1]) break;
    p = nl + 1;
  }
  strbuf_adds(sb, "\n");
}

static void notef(struct strbuf *sb, const char *label, const char *fmt, ...) UTIL_PRINTF(3, 4);
static void notef(struct strbuf *sb, const char *label, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = xvasprintf(fmt, ap);
  va_end(ap);
  note(sb, label, text);
  free(text);
}

static void stderr_note(struct strbuf *sb, const char *tail) {
  strbuf_adds(sb, "    stderr (last lines):\n");
  const char *p = tail;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len && p[len - 1] == '\r') len--;
    strbuf_adds(sb, "      | ");
    add_clean(sb, p, len);
    while (sb->len && sb->buf[sb->len - 1] == ' ') sb->buf[--sb->len] = '\0';
    strbuf_adds(sb, "\n");
    if (!nl) break;
    p = nl + 1;
  }
}

static void how_it_ended(struct strbuf *sb, const struct case_result *r) {
  const char *msg = r->message && *r->message ? r->message : NULL;
  const char *sig = signal_name(r->signal);
  switch (r->status) {
  case CASE_CRASH:
    if (msg) note(sb, "crash", msg);
    else if (r->signal && sig) notef(sb, "crash", "killed by signal %d (%s)", r->signal, sig);
    else if (r->signal) notef(sb, "crash", "killed by signal %d", r->signal);
    else notef(sb, "crash", "exited with code %d without a result", r->exit_code);
    break;
  case CASE_TIMEOUT:
    if (msg) note(sb, "timeout", msg);
    else {
      char *w = fmt_fixed(r->wall_s, 1); /* a hand-made file may hold 1e308 */
      notef(sb, "timeout", "stopped by the watchdog after %s s", w);
      free(w);
    }
    break;
  case CASE_INTERRUPTED:
    note(sb, "interrupted", msg ? msg : "stopped by a signal");
    break;
  case CASE_ERROR:
    note(sb, "error", msg ? msg : "no message");
    break;
  case CASE_SKIPPED:
    note(sb, "skipped", msg ? msg : "no reason given");
    break;
  case CASE_WRONG_ANSWER:
    note(sb, "wrong answer", msg ? msg
                             : r->check.message[0] ? r->check.message : "output out of tolerance");
    break;
  default:
    if (msg) note(sb, "message", msg);
    break;
  }
}

static void check_note(struct strbuf *sb, const struct check_result *c) {
  struct strbuf t = STRBUF_INIT;
  if (c->compared == 0 && c->first_bad < 0) { /* a self-check: no elements the harness compared */
    strbuf_addf(&t, "%s: the plugin's own check failed", c->method[0] ? c->method : "-");
    note(sb, "check", t.buf);
    strbuf_release(&t);
    return;
  }
  strbuf_addf(&t, "%s, %llu of %llu elements out of tolerance (rtol %g, atol %g), "
                  "max_abs_err %.3g, max_rel_err %.3g",
              c->method[0] ? c->method : "-", (unsigned long long)c->mismatches,
              (unsigned long long)c->compared, c->rtol, c->atol, c->max_abs_err, c->max_rel_err);
  if (c->first_bad >= 0)
    strbuf_addf(&t, ", first at [%lld]: got %.9g, expected %.9g", (long long)c->first_bad,
                c->bad_out, c->bad_ref);
  note(sb, "check", t.buf);
  strbuf_release(&t);
}

/* Why a case did not settle, when the file has no note of it: the noise
 * the stopping rule that ran bounds, against its target. */
static void unsettled_note(struct strbuf *sb, const struct case_result *r) {
  const struct stats *t = case_time(r);
  if (strcmp(r->stop_rule, "cv") == 0)
    notef(sb, "did not settle", "noise (cv) %.2f%% above the target %.2f%%", t->cv * 100.0,
          r->target_noise * 100.0);
  else if (strcmp(r->stop_rule, "ci") == 0 && t->median > 0)
    notef(sb, "did not settle", "noise (median's 95%% CI) %.2f%% above the target %.2f%%",
          (t->ci_hi - t->ci_lo) / 2 / t->median * 100.0, r->target_noise * 100.0);
  else
    notef(sb, "did not settle", "noise above the target %.2f%% (stopping rule not recorded)",
          r->target_noise * 100.0);
}

/* The notes of one case, or nothing when all went as expected. */
static void case_notes(struct strbuf *sb, const struct case_result *r) {
  struct strbuf n = STRBUF_INIT;
  how_it_ended(&n, r);
  if (r->check.checked && (!r->check.pass || r->status == CASE_WRONG_ANSWER))
    check_note(&n, &r->check);
  if (r->nsamples > 0 && !r->settled) {
    if (r->settle_note) {
      const char *text = r->settle_note;
      if (strncmp(text, "did not settle", 14) == 0) text += 14; /* no "did not settle: did not settle" */
      while (*text == ':' || *text == ' ') text++;
      note(&n, "did not settle", text);
    }
    else unsettled_note(&n, r);
  }
  if (r->items > 0 && case_items_per_s(r) > 0)
    notef(&n, "per item", "%.4g %s/s, %.4g ns per %s (%.6g %s per iteration)",
          case_items_per_s(r), r->item_unit, case_ns_per_item(r), r->item_unit, r->items,
          r->item_unit);
  if (r->telemetry) {
    const struct case_telemetry *t = r->telemetry;
    if (t->throttled)
      note(&n, "THROTTLED", t->throttled_by[0] ? t->throttled_by : "most samples were below the throttle threshold");
    struct strbuf label = STRBUF_INIT;
    strbuf_adds(&label, "gpu ");
    add_cleans(&label, t->bus_id);
    char *text = case_telemetry_text(t);
    note(&n, label.buf, text);
    free(text);
    strbuf_release(&label);
  }
  if (kv_list_get(r->ninfo, r->info, "note")) /* the plugin's (set_info "note") */
    note(&n, "note", kv_list_get(r->ninfo, r->info, "note"));
  if (r->roof && r->roof->note) /* over 100%, or a roof not measured */
    note(&n, "roof", r->roof->note);
  if (kv_list_get(r->ninfo, r->info, "baseline")) /* bench --baseline */
    note(&n, "baseline", kv_list_get(r->ninfo, r->info, "baseline"));
  if (r->determinism == DET_DIFFERS)
    note(&n, "determinism", "outputs differ between two runs");
  else if (r->determinism == DET_BITWISE_EQUAL)
    note(&n, "determinism", "bitwise equal over two runs");
  if (r->determinism != DET_NOT_CHECKED && r->output_hash[0])
    note(&n, "output hash", r->output_hash);
  if (r->stderr_tail && *r->stderr_tail && case_status_failed(r->status))
    stderr_note(&n, r->stderr_tail);
  if (n.len) {
    char *params = params_text(r);
    strbuf_addf(sb, "  case %d  ", r->index);
    strbuf_adds(sb, params);
    strbuf_addf(sb, "  %s\n", case_status_name(r->status));
    strbuf_adds(sb, n.buf);
    free(params);
  }
  strbuf_release(&n);
}

static void add_notes(struct strbuf *sb, const struct run_file *f) {
  struct strbuf n = STRBUF_INIT;
  for (size_t i = 0; i < f->ncases; i++) case_notes(&n, &f->cases[i]);
  if (n.len) {
    strbuf_adds(sb, "\nnotes\n");
    strbuf_adds(sb, n.buf);
  }
  strbuf_release(&n);
}

char *run_file_to_text(const struct run_file *f) {
  struct strbuf sb = STRBUF_INIT;
  add_header(&sb, f);
  add_table(&sb, f);
  add_notes(&sb, f);
  return strbuf_detach(&sb);
}
