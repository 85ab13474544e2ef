/* A table of text cells rendered for a terminal (aligned columns, optional
 * colour per cell), as GitHub markdown, or as CSV. Used by compare and
 * history. */
#ifndef BENCH_TEXT_TABLE_H
#define BENCH_TEXT_TABLE_H

#include <stddef.h>

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
/* Text: two spaces between columns, trailing blanks trimmed; colour only
 * when colour is set. MD: a pipe table with | escaped. CSV: RFC 4180. */
char *table_render(const struct text_table *t, enum table_format f, int colour);
void table_release(struct text_table *t);

#endif
