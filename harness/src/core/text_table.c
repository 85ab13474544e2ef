/* Rendering a table of text cells as aligned text, markdown or CSV. Every
 * cell and title goes through term_escape (core/term.h) whatever the format:
 * cells come from result files, plugins and the command line. */
#include "core/text_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/term.h"
#include "core/util.h"

void table_init(struct text_table *t, size_t ncols, const char *const *titles, const int *right) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->titles = xcalloc(ncols, sizeof *t->titles);
  t->right = xcalloc(ncols, sizeof *t->right);
  for (size_t c = 0; c < ncols; c++) {
    t->titles[c] = xstrdup(titles[c]);
    t->right[c] = right ? right[c] : 0;
  }
}

size_t table_add_row(struct text_table *t, char **cells) {
  t->cells = xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof *t->cells);
  t->colour = xrealloc(t->colour, (t->nrows + 1) * t->ncols * sizeof *t->colour);
  for (size_t c = 0; c < t->ncols; c++) {
    t->cells[t->nrows * t->ncols + c] = cells[c] ? cells[c] : xstrdup("-");
    t->colour[t->nrows * t->ncols + c] = NULL;
  }
  return t->nrows++;
}

void table_set_colour(struct text_table *t, size_t row, size_t col, const char *sgr) {
  if (row < t->nrows && col < t->ncols) t->colour[row * t->ncols + col] = sgr;
}

/* Columns on a terminal: one per UTF-8 character. */
static size_t width_of(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xc0) != 0x80) w++;
  return w;
}

static void pad(struct strbuf *sb, size_t n) {
  for (size_t i = 0; i < n; i++) strbuf_adds(sb, " ");
}

static void render_text(const struct text_table *t, struct strbuf *sb, int colour) {
  size_t *w = xcalloc(t->ncols, sizeof *w);
  /* the escaped titles, then the escaped cells, row by row */
  char **safe = xcalloc((t->nrows + 1) * t->ncols, sizeof *safe);
  for (size_t i = 0; i < (t->nrows + 1) * t->ncols; i++)
    safe[i] = term_escape(i < t->ncols ? t->titles[i] : t->cells[i - t->ncols]);
  for (size_t i = 0; i < (t->nrows + 1) * t->ncols; i++) {
    size_t x = width_of(safe[i]);
    if (x > w[i % t->ncols]) w[i % t->ncols] = x;
  }
  for (size_t r = 0; r <= t->nrows; r++) {
    size_t start = sb->len;
    for (size_t c = 0; c < t->ncols; c++) {
      const char *cell = safe[r * t->ncols + c];
      const char *sgr = r && colour ? t->colour[(r - 1) * t->ncols + c] : NULL;
      size_t gap = w[c] - width_of(cell);
      if (c) strbuf_adds(sb, "  ");
      if (t->right[c]) pad(sb, gap);
      if (sgr) strbuf_addf(sb, "\033[%sm%s\033[0m", sgr, cell);
      else strbuf_adds(sb, cell);
      if (!t->right[c]) pad(sb, gap);
    }
    while (sb->len > start && sb->buf[sb->len - 1] == ' ') sb->len--;
    sb->buf[sb->len] = '\0';
    strbuf_adds(sb, "\n");
  }
  for (size_t i = 0; i < (t->nrows + 1) * t->ncols; i++) free(safe[i]);
  free(safe);
  free(w);
}

void table_md_escape_add(struct strbuf *sb, const char *s) {
  char *e = term_escape(s); /* no control byte is left: CR and LF are \r, \n */
  for (const char *p = e; *p; p++) {
    if (strchr("|\\`*_[]()<>!&~#", *p)) strbuf_adds(sb, "\\");
    strbuf_add(sb, p, 1);
  }
  free(e);
}

static void md_cell(struct strbuf *sb, const char *s) {
  strbuf_adds(sb, " ");
  table_md_escape_add(sb, s);
  strbuf_adds(sb, " |");
}

static void render_md(const struct text_table *t, struct strbuf *sb) {
  strbuf_adds(sb, "|");
  for (size_t c = 0; c < t->ncols; c++) md_cell(sb, t->titles[c]);
  strbuf_adds(sb, "\n|");
  for (size_t c = 0; c < t->ncols; c++) strbuf_adds(sb, t->right[c] ? " ---: |" : " --- |");
  strbuf_adds(sb, "\n");
  for (size_t r = 0; r < t->nrows; r++) {
    strbuf_adds(sb, "|");
    for (size_t c = 0; c < t->ncols; c++) md_cell(sb, t->cells[r * t->ncols + c]);
    strbuf_adds(sb, "\n");
  }
}

static void render_csv(const struct text_table *t, struct strbuf *sb) {
  for (size_t r = 0; r <= t->nrows; r++) {
    for (size_t c = 0; c < t->ncols; c++) {
      if (c) strbuf_adds(sb, ",");
      char *e = term_escape(r ? t->cells[(r - 1) * t->ncols + c] : t->titles[c]);
      csv_add_field(sb, e);
      free(e);
    }
    strbuf_adds(sb, "\n");
  }
}

char *table_render(const struct text_table *t, enum table_format f, int colour) {
  struct strbuf sb = STRBUF_INIT;
  if (f == TABLE_MD) render_md(t, &sb);
  else if (f == TABLE_CSV) render_csv(t, &sb);
  else render_text(t, &sb, colour);
  return strbuf_detach(&sb);
}

void table_release(struct text_table *t) {
  for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
  for (size_t c = 0; c < t->ncols; c++) free(t->titles[c]);
  free(t->cells);
  free(t->colour);
  free(t->titles);
  free(t->right);
  memset(t, 0, sizeof *t);
}
