/* A table of text cells rendered for a terminal (aligned columns, optional
 * colour per cell), as GitHub markdown, or as CSV. Used by compare and
 * history. */
#ifndef BENCH_TEXT_TABLE_H
#define BENCH_TEXT_TABLE_H

#include <stddef.h>

struct strbuf;

enum table_format { TABLE_TEXT, TABLE_MD, TABLE_CSV };

struct text_table {
  size_t ncols;
  char **titles;
  int *right;          /* per column: right-aligned (numbers) */
  size_t nrows;
  char **cells;        /* nrows * ncols, owned */
  const char **colour; /* nrows * ncols ANSI SGR codes ("31", "1;31") or NULL */
};

/* titles: ncols strings; right: ncols flags (NULL: all left). */
void table_init(struct text_table *t, size_t ncols, const char *const *titles, const int *right);
/* Append a row; takes ownership of the ncols cells (NULL shows as "-").
 * Returns the row number. */
size_t table_add_row(struct text_table *t, char **cells);
void table_set_colour(struct text_table *t, size_t row, size_t col, const char *sgr);
/* Every cell and title is escaped for the terminal first (core/term.h:
 * control bytes, CR and LF shown as \xNN, \r, \n), in every format.
 * Text: two spaces between columns, trailing blanks trimmed; colour only
 * when colour is set. MD: a pipe table, cells escaped by
 * table_md_escape_add. CSV: RFC 4180 (formulas neutralised, core/csv.h). */
char *table_render(const struct text_table *t, enum table_format f, int colour);
void table_release(struct text_table *t);

/* Append s to sb as markdown text that shows s literally: escaped for the
 * terminal, then \ before each of | \ ` * _ [ ] ( ) < > ! & ~ #, so that
 * no cell ends a table row, opens a link, an image, emphasis or HTML. */
void table_md_escape_add(struct strbuf *sb, const char *s);

#endif
