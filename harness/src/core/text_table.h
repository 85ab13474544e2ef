/* The table model every command's output is built as: columns (a title,
 * alignment, the formats that show them), rows of cells (text, an optional
 * colour, JSON value and markdown style), lines between rows, notes under
 * the table and, for JSON, keys before and after the rows. One renderer
 * per format turns it into text (core/render.h): a new format or a new
 * column is one place. Used by compare, history, ab, events and bench
 * results --summary. */
#ifndef BENCH_TEXT_TABLE_H
#define BENCH_TEXT_TABLE_H

#include <stddef.h>

#include "core/render.h"
#include "core/util.h"

struct json_t;

/* A column shown only in some formats: TABLE_IN(TABLE_CSV) | ...;
 * TABLE_ALL (0) shows it in every format. */
#define TABLE_IN(f) (1u << (f))
#define TABLE_ALL 0u

/* Cell flags. */
#define CELL_OWN 1u    /* bench's own words ("[0.99, 1.01] (99%)"): markdown shows them as they are */
#define CELL_STRONG 2u /* bold in markdown */

struct table_cell {
  char *text;          /* owned; text, markdown and CSV show it */
  const char *colour;  /* ANSI SGR code ("31", "1;31") or NULL; text only */
  struct json_t *json; /* owned or NULL: JSON shows it, else the text as a string */
  unsigned flags;
};

/* A line of text between rows that starts at a column and is not counted
 * in the widths ("(12 earlier cases not shown)"); text format only. */
struct table_line {
  size_t before_row, col;
  char *text;
};

/* A note under the table: bench's own words with parts from files and
 * plugins (user parts), escaped per format; parts may be emphasised. */
#define NOTE_EMPH 1u   /* markdown: _text_ */
#define NOTE_STRONG 2u /* markdown: **text** */
#define NOTE_ITEM 4u   /* the note is a list item: "  " in text, "- " in markdown */
struct table_note_part {
  char *text;
  int user;
  unsigned em; /* NOTE_EMPH, NOTE_STRONG or 0 */
};
struct table_note {
  unsigned formats; /* TABLE_IN(...) mask; never shown in CSV */
  unsigned style;   /* NOTE_ITEM or 0 */
  int gap;          /* a blank line before it in every format */
  int para;         /* a blank line before it in markdown (a new paragraph) */
  unsigned em;      /* the emphasis of the parts added next */
  struct table_note_part *parts;
  size_t nparts;
};

struct text_table {
  size_t ncols;
  char **titles;
  int *right;        /* per column: right-aligned (numbers) */
  unsigned *formats; /* per column: TABLE_IN mask, TABLE_ALL for all */
  size_t nrows;
  struct table_cell *cells; /* nrows * ncols */
  struct table_line *lines;
  size_t nlines;
  struct table_note *notes;
  size_t nnotes;
  int rows_only; /* render the rows without the title row (a table printed row by row) */
  /* JSON: { head's keys, rows_key: [ {title: cell}, ... ], tail's keys, "notes": [...] } */
  struct json_t *json_head, *json_tail; /* owned objects or NULL */
  const char *rows_key;                 /* default "rows" */
};

/* titles: ncols strings; right: ncols flags (NULL: all left). */
void table_init(struct text_table *t, size_t ncols, const char *const *titles, const int *right);
/* Show column col only in these formats (TABLE_IN(...) | ...). */
void table_show(struct text_table *t, size_t col, unsigned formats);
/* Append a row; takes ownership of the ncols cells (NULL shows as "-").
 * Returns the row number. */
size_t table_add_row(struct text_table *t, char **cells);
void table_set_colour(struct text_table *t, size_t row, size_t col, const char *sgr);
/* The cell's JSON value (ownership taken; JSON null for NULL). */
void table_set_json(struct text_table *t, size_t row, size_t col, struct json_t *v);
void table_set_flags(struct text_table *t, size_t row, size_t col, unsigned flags);
/* A line after the rows added so far, starting at column col. */
void table_add_line(struct text_table *t, size_t col, const char *text);

/* Start a note (formats: TABLE_IN mask, TABLE_ALL for all), then add its
 * parts: bench's own words, or text from a file or plugin (escaped per
 * format). */
void table_note(struct text_table *t, unsigned formats, unsigned style, int gap, int para);
void table_note_addf(struct text_table *t, const char *fmt, ...) UTIL_PRINTF(2, 3);
void table_note_user(struct text_table *t, const char *s);
/* The emphasis (NOTE_EMPH, NOTE_STRONG, 0) of the parts added next. */
void table_note_em(struct text_table *t, unsigned em);

/* The JSON document's keys before and after the rows (ownership taken). */
void table_json_frame(struct text_table *t, const char *rows_key, struct json_t *head, struct json_t *tail);

/* Render t in format f (colour: text only). Every cell and title is
 * escaped for the terminal first (core/term.h) in text, markdown and CSV. */
char *table_render(const struct text_table *t, enum table_format f, int colour);
void table_release(struct text_table *t);

/* Is column col, is note n shown in format f? */
int table_col_shown(const struct text_table *t, size_t col, enum table_format f);
int table_note_shown(const struct table_note *n, enum table_format f);

#endif
