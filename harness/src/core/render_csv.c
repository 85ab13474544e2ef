/* The CSV renderer: RFC 4180 records (core/csv.h quotes a field with a
 * comma, quote, CR or LF and neutralises formulas), the titles first; the
 * lines and notes are left out, so the file holds records only. */
#include <stdlib.h>

#include "core/csv.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"

static void csv_render(const struct text_table *t, struct strbuf *sb, int colour) {
  (void)colour;
  for (size_t r = t->rows_only ? 1 : 0; r <= t->nrows; r++) {
    int first = 1;
    for (size_t c = 0; c < t->ncols; c++) {
      if (!table_col_shown(t, c, TABLE_CSV)) continue;
      if (!first) strbuf_adds(sb, ",");
      first = 0;
      char *e = term_escape(r ? t->cells[(r - 1) * t->ncols + c].text : t->titles[c]);
      csv_add_field(sb, e);
      free(e);
    }
    strbuf_adds(sb, "\n");
  }
}

const struct table_renderer render_csv = {"csv", TABLE_CSV, csv_render};
