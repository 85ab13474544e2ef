/* Renderers of a table (core/text_table.h), one per format and one file
 * each, behind one interface: render_text.c (aligned columns for a
 * terminal), render_md.c (a GitHub pipe table), render_csv.c (RFC 4180),
 * render_json.c, render_kv.c (key=value records for scripts). A command
 * builds one table and picks the renderer. */
#ifndef BENCH_RENDER_H
#define BENCH_RENDER_H

struct strbuf;
struct text_table;

enum table_format { TABLE_TEXT, TABLE_MD, TABLE_CSV, TABLE_JSON, TABLE_KV, TABLE_NFORMATS };

struct table_renderer {
  const char *name; /* as --format takes it: "table", "md", "csv", "json", "kv" */
  enum table_format format;
  /* Append the rendered table (its rows, lines and notes) to sb; colour:
   * colour the cells that have one (text only). */
  void (*render)(const struct text_table *t, struct strbuf *sb, int colour);
};

extern const struct table_renderer render_text, render_md, render_csv, render_json, render_kv;

/* The renderer of format f. */
const struct table_renderer *table_renderer_of(enum table_format f);
/* "table" (or "text"), "md", "csv", "json", "kv" into *out: 0, or -1. */
int table_format_parse(const char *name, enum table_format *out);

/* Append s to sb as markdown text that shows s literally: escaped for the
 * terminal, then \ before each of | \ ` * _ [ ] ( ) < > ! & ~ #, so that
 * no cell ends a table row, opens a link, an image, emphasis or HTML. */
void table_md_escape_add(struct strbuf *sb, const char *s);

#endif
