/* The JSON renderer: one object, { the frame's head keys, ROWS: [ one
 * object per row, keyed by column title ], the frame's tail keys, "notes":
 * [ ... ] when a note shows in JSON }, indented by two, keys in order,
 * reals with 17 digits, ASCII only. A cell's JSON value is its own (a
 * number, null, an object) or else its text as a string. */
#include <jansson.h>
#include <stdlib.h>

#include "core/text_table.h"
#include "core/util.h"

static void copy_keys(json_t *to, json_t *from) {
  const char *key;
  json_t *v;
  if (from) json_object_foreach(from, key, v) json_object_set(to, key, v);
}

static json_t *row_object(const struct text_table *t, size_t r) {
  json_t *o = json_object();
  for (size_t c = 0; c < t->ncols; c++) {
    if (!table_col_shown(t, c, TABLE_JSON)) continue;
    const struct table_cell *cell = &t->cells[r * t->ncols + c];
    json_object_set_new(o, t->titles[c], cell->json ? json_incref(cell->json) : json_string(cell->text));
  }
  return o;
}

static json_t *notes_array(const struct text_table *t) {
  json_t *a = NULL;
  for (size_t i = 0; i < t->nnotes; i++) {
    const struct table_note *n = &t->notes[i];
    if (!table_note_shown(n, TABLE_JSON)) continue;
    struct strbuf sb = STRBUF_INIT;
    for (size_t k = 0; k < n->nparts; k++) strbuf_adds(&sb, n->parts[k].text);
    if (!a) a = json_array();
    json_array_append_new(a, json_string(sb.buf ? sb.buf : ""));
    strbuf_release(&sb);
  }
  return a;
}

static void json_render(const struct text_table *t, struct strbuf *sb, int colour) {
  (void)colour;
  json_t *root = json_object(), *rows = json_array();
  copy_keys(root, t->json_head);
  for (size_t r = 0; r < t->nrows; r++) json_array_append_new(rows, row_object(t, r));
  json_object_set_new(root, t->rows_key ? t->rows_key : "rows", rows);
  copy_keys(root, t->json_tail);
  json_t *notes = notes_array(t);
  if (notes) json_object_set_new(root, "notes", notes);
  char *text = json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
  json_decref(root);
  if (text) strbuf_addf(sb, "%s\n", text);
  free(text);
}

const struct table_renderer render_json = {"json", TABLE_JSON, json_render};
