/* The key=value renderer: per row, one "title=cell" line for each column it
 * shows, so a record starts at the first column's line (bench results
 * --summary: "file=..."); for scripts that read records line by line
 * without a JSON parser. Titles are keys (bench's own words); cells are
 * escaped for the terminal. Lines between rows and notes are left out. */
#include <stdlib.h>

#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"

static void kv_render(const struct text_table *t, struct strbuf *sb, int colour) {
  (void)colour;
  for (size_t r = 0; r < t->nrows; r++)
    for (size_t c = 0; c < t->ncols; c++) {
      if (!table_col_shown(t, c, TABLE_KV)) continue;
      const char *v = t->cells[r * t->ncols + c].text;
      char *e = term_escape(v ? v : "");
      strbuf_addf(sb, "%s=%s\n", t->titles[c], e);
      free(e);
    }
}

const struct table_renderer render_kv = {"kv", TABLE_KV, kv_render};
