/* The table model (text_table.h): columns, cells, lines, notes and the
 * JSON frame; rendering is the renderers' (core/render.h). */
#include "core/text_table.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void table_init(struct text_table *t, size_t ncols, const char *const *titles, const int *right) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->titles = xcalloc(ncols + 1, sizeof *t->titles);
  t->right = xcalloc(ncols + 1, sizeof *t->right);
  t->formats = xcalloc(ncols + 1, sizeof *t->formats);
  for (size_t c = 0; c < ncols; c++) {
    t->titles[c] = xstrdup(titles[c]);
    t->right[c] = right ? right[c] : 0;
  }
}

void table_show(struct text_table *t, size_t col, unsigned formats) {
  if (col < t->ncols) t->formats[col] = formats;
}

int table_col_shown(const struct text_table *t, size_t col, enum table_format f) {
  return t->formats[col] == TABLE_ALL || (t->formats[col] & TABLE_IN(f));
}

int table_note_shown(const struct table_note *n, enum table_format f) {
  return f != TABLE_CSV && (n->formats == TABLE_ALL || (n->formats & TABLE_IN(f)));
}

size_t table_add_row(struct text_table *t, char **cells) {
  t->cells = xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof *t->cells);
  for (size_t c = 0; c < t->ncols; c++)
    t->cells[t->nrows * t->ncols + c] = (struct table_cell){cells[c] ? cells[c] : xstrdup("-"), NULL, NULL, 0};
  return t->nrows++;
}

static struct table_cell *cell_at(struct text_table *t, size_t row, size_t col) {
  return row < t->nrows && col < t->ncols ? &t->cells[row * t->ncols + col] : NULL;
}

void table_set_colour(struct text_table *t, size_t row, size_t col, const char *sgr) {
  struct table_cell *c = cell_at(t, row, col);
  if (c) c->colour = sgr;
}

void table_set_json(struct text_table *t, size_t row, size_t col, struct json_t *v) {
  struct table_cell *c = cell_at(t, row, col);
  if (!v) v = json_null();
  if (!c) {
    json_decref(v);
    return;
  }
  json_decref(c->json);
  c->json = v;
}

void table_set_flags(struct text_table *t, size_t row, size_t col, unsigned flags) {
  struct table_cell *c = cell_at(t, row, col);
  if (c) c->flags = flags;
}

void table_add_line(struct text_table *t, size_t col, const char *text) {
  t->lines = xrealloc(t->lines, (t->nlines + 1) * sizeof *t->lines);
  t->lines[t->nlines++] = (struct table_line){t->nrows, col, xstrdup(text)};
}

void table_note(struct text_table *t, unsigned formats, unsigned style, int gap, int para) {
  t->notes = xrealloc(t->notes, (t->nnotes + 1) * sizeof *t->notes);
  t->notes[t->nnotes++] = (struct table_note){formats, style, gap, para, 0, NULL, 0};
}

static void note_part(struct text_table *t, char *text, int user) {
  if (!t->nnotes) table_note(t, TABLE_ALL, 0, 0, 0);
  struct table_note *n = &t->notes[t->nnotes - 1];
  n->parts = xrealloc(n->parts, (n->nparts + 1) * sizeof *n->parts);
  n->parts[n->nparts++] = (struct table_note_part){text, user, n->em};
}

void table_note_em(struct text_table *t, unsigned em) {
  if (!t->nnotes) table_note(t, TABLE_ALL, 0, 0, 0);
  t->notes[t->nnotes - 1].em = em;
}

void table_note_addf(struct text_table *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = xvasprintf(fmt, ap);
  va_end(ap);
  note_part(t, s, 0);
}

void table_note_user(struct text_table *t, const char *s) {
  note_part(t, xstrdup(s ? s : ""), 1);
}

void table_json_frame(struct text_table *t, const char *rows_key, struct json_t *head, struct json_t *tail) {
  json_decref(t->json_head);
  json_decref(t->json_tail);
  t->rows_key = rows_key;
  t->json_head = head;
  t->json_tail = tail;
}

char *table_render(const struct text_table *t, enum table_format f, int colour) {
  struct strbuf sb = STRBUF_INIT;
  table_renderer_of(f)->render(t, &sb, colour);
  return strbuf_detach(&sb);
}

const struct table_renderer *table_renderer_of(enum table_format f) {
  static const struct table_renderer *const all[TABLE_NFORMATS] = {&render_text, &render_md, &render_csv,
                                                                   &render_json, &render_kv};
  return f < TABLE_NFORMATS ? all[f] : &render_text;
}

int table_format_parse(const char *name, enum table_format *out) {
  if (strcmp(name, "text") == 0) name = "table";
  for (int f = 0; f < TABLE_NFORMATS; f++)
    if (strcmp(name, table_renderer_of((enum table_format)f)->name) == 0) {
      *out = (enum table_format)f;
      return 0;
    }
  return -1;
}

void table_release(struct text_table *t) {
  for (size_t i = 0; i < t->nrows * t->ncols; i++) {
    free(t->cells[i].text);
    json_decref(t->cells[i].json);
  }
  for (size_t c = 0; c < t->ncols; c++) free(t->titles[c]);
  for (size_t i = 0; i < t->nlines; i++) free(t->lines[i].text);
  for (size_t i = 0; i < t->nnotes; i++) {
    for (size_t k = 0; k < t->notes[i].nparts; k++) free(t->notes[i].parts[k].text);
    free(t->notes[i].parts);
  }
  json_decref(t->json_head);
  json_decref(t->json_tail);
  free(t->cells);
  free(t->lines);
  free(t->notes);
  free(t->titles);
  free(t->right);
  free(t->formats);
  memset(t, 0, sizeof *t);
}
