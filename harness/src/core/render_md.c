/* The markdown renderer: a GitHub pipe table (numbers right-aligned),
 * then the notes as paragraphs and list items. Text from files and
 * plugins is escaped (table_md_escape_add), so a '|' cannot split a row;
 * cells and notes in bench's own words are shown as they are. */
#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"

void table_md_escape_add(struct strbuf *sb, const char *s) {
  char *e = term_escape(s); /* no control byte is left: CR and LF are \r, \n */
  for (const char *p = e; *p; p++) {
    if (strchr("|\\`*_[]()<>!&~#", *p)) strbuf_adds(sb, "\\");
    strbuf_add(sb, p, 1);
  }
  free(e);
}

static void md_cell(struct strbuf *sb, const char *s, unsigned flags) {
  strbuf_adds(sb, flags & CELL_STRONG ? " **" : " ");
  if (flags & CELL_OWN) term_escape_add(sb, s);
  else table_md_escape_add(sb, s);
  strbuf_adds(sb, flags & CELL_STRONG ? "** |" : " |");
}

static const char *mark(unsigned em) {
  return em & NOTE_STRONG ? "**" : em & NOTE_EMPH ? "_" : "";
}

static void md_notes(const struct text_table *t, struct strbuf *sb) {
  for (size_t i = 0; i < t->nnotes; i++) {
    const struct table_note *n = &t->notes[i];
    if (!table_note_shown(n, TABLE_MD)) continue;
    if (n->gap || n->para) strbuf_adds(sb, "\n");
    strbuf_adds(sb, n->style & NOTE_ITEM ? "- " : "");
    unsigned em = 0; /* the emphasis open */
    for (size_t k = 0; k < n->nparts; k++) {
      if (n->parts[k].em != em) {
        strbuf_adds(sb, mark(em));
        em = n->parts[k].em;
        strbuf_adds(sb, mark(em));
      }
      if (n->parts[k].user) table_md_escape_add(sb, n->parts[k].text);
      else strbuf_adds(sb, n->parts[k].text);
    }
    strbuf_adds(sb, mark(em));
    strbuf_adds(sb, "\n");
  }
}

static void md_render(const struct text_table *t, struct strbuf *sb, int colour) {
  (void)colour;
  if (!t->rows_only) {
    strbuf_adds(sb, "|");
    for (size_t c = 0; c < t->ncols; c++)
      if (table_col_shown(t, c, TABLE_MD)) md_cell(sb, t->titles[c], 0);
    strbuf_adds(sb, "\n|");
    for (size_t c = 0; c < t->ncols; c++)
      if (table_col_shown(t, c, TABLE_MD)) strbuf_adds(sb, t->right[c] ? " ---: |" : " --- |");
    strbuf_adds(sb, "\n");
  }
  for (size_t r = 0; r < t->nrows; r++) {
    strbuf_adds(sb, "|");
    for (size_t c = 0; c < t->ncols; c++) {
      const struct table_cell *cell = &t->cells[r * t->ncols + c];
      if (table_col_shown(t, c, TABLE_MD)) md_cell(sb, cell->text, cell->flags);
    }
    strbuf_adds(sb, "\n");
  }
  md_notes(t, sb);
}

const struct table_renderer render_md = {"md", TABLE_MD, md_render};
