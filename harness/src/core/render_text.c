/* The text renderer: aligned columns for a terminal (two spaces between
 * them, numbers right-aligned, trailing blanks trimmed, colour per cell on
 * request), the lines between rows, then the notes. Every title, cell and
 * user part of a note is escaped for the terminal (core/term.h). */
#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"

static void pad(struct strbuf *sb, size_t n) {
  for (size_t i = 0; i < n; i++) strbuf_adds(sb, " ");
}

static void trim_line(struct strbuf *sb, size_t start) {
  while (sb->len > start && sb->buf[sb->len - 1] == ' ') sb->len--;
  sb->buf[sb->len] = '\0';
  strbuf_adds(sb, "\n");
}

/* Row r of safe (row 0: the titles) over the shown columns. */
static void text_row(const struct text_table *t, char **safe, const size_t *w, size_t r, int colour,
                     struct strbuf *sb) {
  size_t start = sb->len;
  int first = 1;
  for (size_t c = 0; c < t->ncols; c++) {
    if (!table_col_shown(t, c, TABLE_TEXT)) continue;
    const char *cell = safe[r * t->ncols + c];
    const char *sgr = r && colour ? t->cells[(r - 1) * t->ncols + c].colour : NULL;
    size_t gap = w[c] - term_width(cell);
    if (!first) strbuf_adds(sb, "  ");
    first = 0;
    if (t->right[c]) pad(sb, gap);
    if (sgr) strbuf_addf(sb, "\033[%sm%s\033[0m", sgr, cell);
    else strbuf_adds(sb, cell);
    if (!t->right[c]) pad(sb, gap);
  }
  trim_line(sb, start);
}

/* A line between rows: blank up to its column, then its text. */
static void text_line(const struct text_table *t, const struct table_line *l, const size_t *w, struct strbuf *sb) {
  size_t start = sb->len;
  int first = 1;
  for (size_t c = 0; c < l->col && c < t->ncols; c++) {
    if (!table_col_shown(t, c, TABLE_TEXT)) continue;
    if (!first) strbuf_adds(sb, "  ");
    first = 0;
    pad(sb, w[c]);
  }
  if (!first) strbuf_adds(sb, "  ");
  term_escape_add(sb, l->text);
  trim_line(sb, start);
}

static void text_notes(const struct text_table *t, struct strbuf *sb) {
  for (size_t i = 0; i < t->nnotes; i++) {
    const struct table_note *n = &t->notes[i];
    if (!table_note_shown(n, TABLE_TEXT)) continue;
    if (n->gap) strbuf_adds(sb, "\n");
    if (n->style & NOTE_ITEM) strbuf_adds(sb, "  ");
    for (size_t k = 0; k < n->nparts; k++) {
      if (n->parts[k].user) term_escape_add(sb, n->parts[k].text);
      else strbuf_adds(sb, n->parts[k].text);
    }
    strbuf_adds(sb, "\n");
  }
}

static void text_render(const struct text_table *t, struct strbuf *sb, int colour) {
  size_t *w = xcalloc(t->ncols + 1, sizeof *w);
  size_t n = (t->nrows + 1) * t->ncols;
  /* the escaped titles, then the escaped cells, row by row */
  char **safe = xcalloc(n + 1, sizeof *safe);
  for (size_t i = 0; i < n; i++) {
    safe[i] = term_escape(i < t->ncols ? t->titles[i] : t->cells[i - t->ncols].text);
    size_t x = term_width(safe[i]);
    if ((i >= t->ncols || !t->rows_only) && x > w[i % t->ncols]) w[i % t->ncols] = x;
  }
  size_t li = 0;
  for (size_t r = t->rows_only ? 1 : 0; r <= t->nrows; r++) {
    for (; r && li < t->nlines && t->lines[li].before_row <= r - 1; li++) text_line(t, &t->lines[li], w, sb);
    text_row(t, safe, w, r, colour, sb);
  }
  for (; li < t->nlines; li++) text_line(t, &t->lines[li], w, sb);
  for (size_t i = 0; i < n; i++) free(safe[i]);
  free(safe);
  free(w);
  text_notes(t, sb);
}

const struct table_renderer render_text = {"table", TABLE_TEXT, text_render};
