/* The table and the counts of a suite of an events file (events_table.h).
 * Text from the file is printed escaped (term.h). */
#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"
#include "results/events_table.h"

static int is_failed(const char *status) {
  return strcmp(status, "OK") != 0 && strcmp(status, "SKIPPED") != 0 && strcmp(status, "RUNNING") != 0;
}

enum { COL_NUM, COL_PLUGIN, COL_CASE, COL_STATUS, COL_WALL, COL_MEDIAN, COL_THR, NCOLS };

/* The case's primary figure as the run wrote it (result.h case_primary),
 * "-" when it had none; an events file from before it: GFLOP/s, else GB/s. */
static char *throughput_text(const struct ev_case *c) {
  if (c->have & HAVE_THROUGHPUT) {
    char *t = fmt_figure(c->throughput, c->throughput_unit), *e = term_escape(t);
    free(t);
    return e;
  }
  if (c->have & HAVE_PRIMARY) return xstrdup("-");
  if (c->have & HAVE_GFLOPS) return fmt_rate(c->gflops, "GFLOP/s");
  if (c->have & HAVE_GBPS) return fmt_rate(c->gbps, "GB/s");
  return xstrdup("-");
}

static void make_row(const struct ev_case *c, char **cells) {
  cells[COL_NUM] = xasprintf("%d", c->index + 1);
  cells[COL_PLUGIN] = xstrdup(c->plugin ? c->plugin : "?");
  char *label = term_escape(c->label ? c->label : "?");
  cells[COL_CASE] =
      strlen(label) > EVENTS_LABEL_MAX ? xasprintf("%.*s...", EVENTS_LABEL_MAX - 3, label) : xstrdup(label);
  free(label);
  cells[COL_STATUS] = xstrdup(c->status);
  cells[COL_WALL] = c->have & HAVE_WALL ? fmt_fixed(c->wall_s, 2) : xstrdup("-");
  cells[COL_MEDIAN] = c->have & HAVE_MEDIAN ? fmt_time_ns(c->median_ms * 1e6) : xstrdup("-");
  cells[COL_THR] = throughput_text(c);
}

void ev_print_cases(FILE *f, const struct ev_suite *s, size_t first) {
  static const char *const titles[NCOLS] = {"#", "plugin", "case", "status", "wall s", "median", "throughput"};
  static const int right[NCOLS] = {1, 0, 0, 0, 1, 1, 1};
  struct text_table t;
  table_init(&t, NCOLS, titles, right);
  if (first) {
    char *line = xasprintf("(%zu earlier cases not shown)", first);
    table_add_line(&t, COL_PLUGIN, line);
    free(line);
  }
  for (size_t i = first; i < s->ncases; i++) {
    char *cells[NCOLS];
    make_row(&s->cases[i], cells);
    table_add_row(&t, cells);
  }
  char *text = table_render(&t, TABLE_TEXT, 0);
  fputs(text, f);
  free(text);
  table_release(&t);
}

void ev_suite_count(const struct ev_suite *s, struct ev_tally *t) {
  memset(t, 0, sizeof *t);
  double done_wall = 0;
  for (size_t i = 0; i < s->ncases; i++) {
    const struct ev_case *c = &s->cases[i];
    if (strcmp(c->status, "RUNNING") == 0) continue;
    t->done++;
    if (c->have & HAVE_WALL) done_wall += c->wall_s;
    if (strcmp(c->status, "SKIPPED") == 0) t->skipped++;
    else if (is_failed(c->status)) t->failed++;
    else t->ok++;
  }
  t->total = (size_t)s->total > s->ncases ? s->total : (int)s->ncases;
  t->percent = t->total ? 100.0 * t->done / t->total : 0;
  t->eta = -1;
  if (s->have_hb) {
    t->percent = s->hb_percent;
    t->eta = s->hb_eta;
  } else if (t->done > 0) {
    t->eta = done_wall / t->done * (t->total - t->done);
  }
  if (t->percent < 0) t->percent = 0;
  if (t->percent > 100) t->percent = 100;
}
