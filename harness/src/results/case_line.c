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

static int prefix_width(int total) {
  int digits = 1;
  for (int t = total; t >= 10; t /= 10) digits++;
  if (digits < 2) digits = 2;
  return 1 + digits + 1 + digits + 2; /* "[ 3/12] " */
}

static int rest_width(const struct case_line_style *st) {
  return SEP + W_STATUS + SEP + W_TIME + 1 + W_NOISE + (st->range ? 1 + W_RANGE : 0) + SEP + W_RATE + SEP + W_CHECK +
         (st->determinism ? W_DET : 0);
}

int case_line_label_width(int widest, int total, const struct case_line_style *st) {
  int room = CASE_LINE_COLUMNS - prefix_width(total) - rest_width(st);
  if (room < 20) room = 20;
  return widest < room ? widest : room;
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

/* The label cut to w columns with ".." (at a character boundary). */
static void add_label(struct strbuf *sb, const char *label, int w) {
  if (w <= 0 || (int)term_width(label) <= w) {
    add_padded(sb, label, w, 0);
    return;
  }
  int cols = 0;
  const char *p = label;
  while (*p && cols < w - 2) {
    p++;
    while ((*p & 0xC0) == 0x80) p++;
    cols++;
  }
  strbuf_add(sb, label, (size_t)(p - label));
  strbuf_adds(sb, "..");
}

static const char *status_colour(enum case_status s) {
  if (s == CASE_OK) return TERM_GREEN;
  if (s == CASE_SKIPPED) return TERM_DIM;
  return TERM_RED_BOLD;
}

/* "+-0.91%": the noise the stopping rule bounded. */
static char *noise_text(const struct case_result *r) {
  const struct stats *t = case_time(r);
  if (!(t->median > 0) || t->n < 2) return xstrdup("");
  int cv = strcmp(r->stop_rule, "cv") == 0;
  double pct = cv ? t->cv * 100 : (t->ci_hi - t->ci_lo) / 2 / t->median * 100;
  const char *lead = cv ? "cv " : "+-";
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
  char *med = fmt_time_ns(case_time(r)->median), *noise = noise_text(r), *rate = rate_text(r),
       *check = check_text(r), *range = range_text(r);
  strbuf_adds(sb, "  ");
  add_padded(sb, med, W_TIME, 1);
  strbuf_adds(sb, " ");
  add_padded(sb, noise, W_NOISE, 0);
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

char *case_line(const struct case_result *r, int total, const struct case_line_style *st) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "[%*d/%d] ", total >= 100 ? 3 : 2, r->index + 1, total);
  char *label = case_line_label(r);
  add_label(&sb, label, st->label_width);
  free(label);
  strbuf_adds(&sb, "  ");
  const char *status = case_status_name(r->status);
  int used = (int)term_width(sb.buf) + (int)strlen(status) + 2; /* columns before a message */
  if (st->colour) strbuf_adds(&sb, status_colour(r->status));
  strbuf_adds(&sb, status);
  if (st->colour) strbuf_adds(&sb, TERM_RESET);
  if (r->status == CASE_OK) {
    for (int i = (int)strlen(status); i < W_STATUS; i++) strbuf_adds(&sb, " ");
    add_measured(&sb, r, st);
  } else if (r->message) {
    strbuf_adds(&sb, "  ");
    char *msg = term_escape(r->message);
    /* A skip reason is cut to the line (whole in the files); a failure's
     * message is never cut. */
    int room = CASE_LINE_COLUMNS - used;
    if (r->status == CASE_SKIPPED && (int)term_width(msg) > room && room > 3) add_label(&sb, msg, room);
    else strbuf_adds(&sb, msg);
    free(msg);
  }
  const char *bl = kv_list_get(r->ninfo, r->info, "baseline");
  if (r->status != CASE_OK && bl) strbuf_addf(&sb, "  (baseline: %s)", bl);
  if (r->telemetry && r->telemetry->throttled) {
    /* most samples were below the throttle threshold: kept, and said */
    strbuf_adds(&sb, "  ");
    if (st->colour) strbuf_adds(&sb, TERM_RED_BOLD);
    strbuf_adds(&sb, "THROTTLED");
    if (st->colour) strbuf_adds(&sb, TERM_RESET);
    if (r->telemetry->throttled_by[0]) {
      strbuf_adds(&sb, ": ");
      term_escape_add(&sb, r->telemetry->throttled_by);
    }
  }
  strbuf_adds(&sb, "\n");
  if (r->status == CASE_OK && !r->settled && st->settle_notes) {
    strbuf_adds(&sb, "      ");
    if (r->settle_note) term_escape_add(&sb, r->settle_note);
    else strbuf_adds(&sb, "did not settle");
    strbuf_adds(&sb, "\n");
  }
  const char *plugin_note = kv_list_get(r->ninfo, r->info, "note");
  if (plugin_note) {
    strbuf_adds(&sb, "      note: ");
    term_escape_add(&sb, plugin_note);
    strbuf_adds(&sb, "\n");
  }
  if (case_status_failed(r->status) && r->stderr_tail) {
    char *copy = xstrdup(r->stderr_tail), *save = NULL;
    for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
      strbuf_adds(&sb, "      | ");
      term_escape_add(&sb, ln);
      strbuf_adds(&sb, "\n");
    }
    free(copy);
  }
  return strbuf_detach(&sb);
}
