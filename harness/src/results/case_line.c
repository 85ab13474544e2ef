/* The terminal's line for one finished case, like a test runner's. */
#include "results/case_line.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/units.h"

/* Column widths (visible characters) after the label. */
#define W_STATUS 7  /* "SKIPPED"; longer failure names push their message */
#define W_TIME 8    /* "12.35 us" */
#define W_NOISE 7   /* "+-0.91%", "+-12.3%", "cv 4.1%" */
#define W_RANGE 13  /* "130.1..141.0": min..max in the median's unit */
#define W_RATE 13   /* "47.66 GFLOP/s" */
#define W_CHECK 11  /* "err 2.8e-06", "unchecked" */
#define W_DET 9     /* " det=same" */
#define SEP 2

static const char *value_shown(const struct case_result *r, size_t j) {
  const char *v = kv_list_get(r->ninfo, r->info, r->params[j].key);
  return v && *v ? v : r->params[j].value;
}

char *case_line_label(const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  term_escape_add(&sb, r->plugin);
  for (size_t j = 0; j < r->nparams;) {
    const char *v = value_shown(r, j);
    size_t k = j + 1;
    while (k < r->nparams && strcmp(value_shown(r, k), v) == 0 && strcmp(r->params[k].key, "dtype") != 0 &&
           strcmp(r->params[j].key, "dtype") != 0)
      k++;
    strbuf_adds(&sb, " ");
    if (k == j + 1 && strcmp(r->params[j].key, "dtype") == 0) {
      term_escape_add(&sb, v);
    } else {
      for (size_t i = j; i < k; i++) {
        term_escape_add(&sb, r->params[i].key);
        strbuf_adds(&sb, "=");
      }
      term_escape_add(&sb, v);
    }
    j = k;
  }
  return strbuf_detach(&sb);
}

int case_line_prefix_width(int total) {
  int digits = 1;
  for (int t = total; t >= 10; t /= 10) digits++;
  if (digits < 2) digits = 2;
  return 1 + digits + 1 + digits + 2; /* "[ 3/12] " */
}

int case_line_rest_width(const struct case_line_style *st) {
  return SEP + W_STATUS + SEP + W_TIME + 1 + W_NOISE + (st->range ? 1 + W_RANGE : 0) + SEP + W_RATE + SEP + W_CHECK +
         (st->determinism ? W_DET : 0);
}

/* s padded with spaces to w columns (left-aligned), or right-aligned. */
static void add_padded(struct strbuf *sb, const char *s, int w, int right) {
  int n = (int)term_width(s);
  if (right)
    for (int i = n; i < w; i++) strbuf_adds(sb, " ");
  strbuf_adds(sb, s);
  if (!right)
    for (int i = n; i < w; i++) strbuf_adds(sb, " ");
}

static void add_spaces(struct strbuf *sb, int n) {
  for (int i = 0; i < n; i++) strbuf_adds(sb, " ");
}

static const char *status_colour(const struct case_result *r) {
  if (r->status == CASE_OK) return case_line_noisy(r) ? TERM_WARN : TERM_GREEN;
  if (r->status == CASE_SKIPPED) return TERM_DIM;
  return TERM_RED_BOLD;
}

double case_line_noise(const struct case_result *r) {
  const struct stats *t = case_time(r);
  if (!(t->median > 0) || t->n < 2) return NAN;
  if (strcmp(r->stop_rule, "cv") == 0) return t->cv;
  return (t->ci_hi - t->ci_lo) / 2 / t->median;
}

int case_line_noisy(const struct case_result *r) {
  double x = case_line_noise(r);
  return r->status == CASE_OK && r->target_noise > 0 && x > CASE_NOISY_FACTOR * r->target_noise;
}

char *case_line_noise_text(const struct case_result *r) {
  double pct = case_line_noise(r) * 100;
  if (isnan(pct)) return xstrdup("");
  const char *lead = strcmp(r->stop_rule, "cv") == 0 ? "cv " : "+-";
  if (pct < 9.995) return xasprintf("%s%.2f%%", lead, pct);
  if (pct < 99.95) return xasprintf("%s%.1f%%", lead, pct);
  return xasprintf("%s%.0f%%", lead, pct);
}

/* "130.1..141.0": the fastest and the slowest sample in the median's unit
 * (hyperfine's range), "" below two samples. */
static char *range_text(const struct case_result *r) {
  const struct stats *t = case_time(r);
  if (!(t->median > 0) || t->n < 2 || !(t->min > 0) || !(t->max >= t->min) || !isfinite(t->max)) return xstrdup("");
  double scale = 1;
  for (int u = 0; u < 3 && t->median / scale >= 999.95; u++) scale *= 1e3; /* as fmt_time_ns */
  char *lo = fmt_sig4(t->min / scale), *hi = fmt_sig4(t->max / scale);
  char *s = xasprintf("%s..%s", lo, hi);
  free(lo);
  free(hi);
  return s;
}

/* The one throughput: the case's primary figure (result.h case_primary);
 * all of them are in the files. Escaped: a unit read from a file is text. */
static char *rate_text(const struct case_result *r) {
  char *t = case_primary_text(r), *e = term_escape(t);
  free(t);
  return e;
}

static char *check_text(const struct case_result *r) {
  if (r->check.checked) return xasprintf("err %.2g", r->check.max_abs_err);
  if (case_unchecked(r)) return xstrdup("unchecked");
  return xstrdup("");
}

static void add_measured(struct strbuf *sb, const struct case_result *r, const struct case_line_style *st) {
  char *med = fmt_time_ns(case_time(r)->median), *noise = case_line_noise_text(r), *rate = rate_text(r),
       *check = check_text(r), *range = range_text(r);
  strbuf_adds(sb, "  ");
  add_padded(sb, med, W_TIME, 1);
  strbuf_adds(sb, " ");
  int warn = st->colour && case_line_noisy(r); /* the figure in the warning colour */
  if (warn) strbuf_adds(sb, TERM_WARN);
  strbuf_adds(sb, noise);
  if (warn) strbuf_adds(sb, TERM_RESET);
  for (int i = (int)term_width(noise); i < W_NOISE; i++) strbuf_adds(sb, " ");
  if (st->range) {
    strbuf_adds(sb, " ");
    add_padded(sb, range, W_RANGE, 0);
  }
  free(range);
  strbuf_adds(sb, "  ");
  add_padded(sb, rate, W_RATE, 1);
  strbuf_adds(sb, "  ");
  if (r->determinism != DET_NOT_CHECKED || st->determinism) {
    add_padded(sb, check, W_CHECK, 0);
    if (r->determinism == DET_BITWISE_EQUAL) strbuf_adds(sb, " det=same");
    else if (r->determinism == DET_DIFFERS) strbuf_adds(sb, " det=DIFF");
  } else {
    strbuf_adds(sb, check);
  }
  free(med);
  free(noise);
  free(rate);
  free(check);
  const char *bl = kv_list_get(r->ninfo, r->info, "baseline");
  if (bl) strbuf_addf(sb, "  baseline: %s", bl);
  /* Trailing spaces of empty columns. */
  while (sb->len && sb->buf[sb->len - 1] == ' ') sb->buf[--sb->len] = '\0';
}

/* The columns wrap under the status column, or 8 columns in where that is
 * more than half the line. */
static int wrap_indent(const struct case_line_style *st, int prefix) {
  return st->label_line ? prefix : prefix + st->label_width + SEP;
}

char *case_line(const struct case_result *r, int total, const struct case_line_style *st) {
  struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
  int columns = st->columns > 0 ? st->columns : TERM_DEFAULT_COLUMNS;
  int prefix = case_line_prefix_width(total);
  strbuf_addf(&line, "[%*d/%d] ", total >= 100 ? 3 : 2, r->index + 1, total);
  char *label = case_line_label(r);
  if (st->label_line || (st->label_width > 0 && (int)term_width(label) > st->label_width)) {
    /* the label on a line of its own (wrapped at its spaces, never cut),
     * the status on the next, in the run's status column */
    strbuf_adds(&line, label);
    term_fit_add(&sb, line.buf, columns, prefix);
    strbuf_adds(&sb, "\n");
    strbuf_reset(&line);
    add_spaces(&line, wrap_indent(st, prefix) - (st->label_line ? 0 : SEP));
  } else {
    add_padded(&line, label, st->label_width, 0);
  }
  free(label);
  if (!st->label_line) strbuf_adds(&line, "  ");
  const char *status = case_status_name(r->status);
  if (st->colour) strbuf_adds(&line, status_colour(r));
  strbuf_adds(&line, status);
  if (st->colour) strbuf_adds(&line, TERM_RESET);
  if (r->status == CASE_OK) {
    for (int i = (int)strlen(status); i < W_STATUS; i++) strbuf_adds(&line, " ");
    add_measured(&line, r, st);
  } else if (r->message) {
    /* the whole message, wrapped at word boundaries (term_fit_add) */
    strbuf_adds(&line, "  ");
    term_escape_add(&line, r->message);
  }
  const char *bl = kv_list_get(r->ninfo, r->info, "baseline");
  if (r->status != CASE_OK && bl) strbuf_addf(&line, "  (baseline: %s)", bl);
  if (r->telemetry && r->telemetry->throttled) {
    /* most samples were below the throttle threshold: kept, and said */
    strbuf_adds(&line, "  ");
    if (st->colour) strbuf_adds(&line, TERM_RED_BOLD);
    strbuf_adds(&line, "THROTTLED");
    if (st->colour) strbuf_adds(&line, TERM_RESET);
    if (r->telemetry->throttled_by[0]) {
      strbuf_adds(&line, ": ");
      term_escape_add(&line, r->telemetry->throttled_by);
    }
  }
  term_fit_add(&sb, line.buf, columns, wrap_indent(st, prefix));
  strbuf_release(&line);
  strbuf_adds(&sb, "\n");
  if (r->status == CASE_OK && !r->settled && st->settle_notes) {
    char *note = r->settle_note ? term_escape(r->settle_note) : xstrdup("did not settle");
    char *ln = xasprintf("      %s", note);
    term_fit_add(&sb, ln, columns, 8);
    strbuf_adds(&sb, "\n");
    free(ln);
    free(note);
  }
  const char *plugin_note = kv_list_get(r->ninfo, r->info, "note");
  if (plugin_note) {
    char *note = term_escape(plugin_note);
    char *ln = xasprintf("      note: %s", note);
    term_fit_add(&sb, ln, columns, 12);
    strbuf_adds(&sb, "\n");
    free(ln);
    free(note);
  }
  if (case_status_failed(r->status) && r->stderr_tail) {
    char *copy = xstrdup(r->stderr_tail), *save = NULL;
    for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
      char *e = term_escape(ln), *row = xasprintf("      | %s", e);
      term_fit_add(&sb, row, columns, 8);
      strbuf_adds(&sb, "\n");
      free(row);
      free(e);
    }
    free(copy);
  }
  return strbuf_detach(&sb);
}
