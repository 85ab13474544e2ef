/* The table model and its four renderers (core/text_table.h,
 * core/render.h): aligned text with colour, lines and notes; markdown with
 * '|' escaped and bench's own cells as they are; CSV per RFC 4180; JSON that
 * parses back, with per-format columns and the frame. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/text_table.h"
#include "core/util.h"
#include "test.h"

/* Two columns and two rows: "name" (left), "time" (right). */
static void small_table(struct text_table *t) {
  static const char *const titles[] = {"name", "time"};
  static const int right[] = {0, 1};
  table_init(t, 2, titles, right);
  char *r1[] = {xstrdup("a|b"), xstrdup("1.0 us")};
  char *r2[] = {xstrdup("longer, \"q\""), xstrdup("12.5 ms")};
  table_add_row(t, r1);
  table_add_row(t, r2);
}

static char *render(const struct text_table *t, enum table_format f, int colour) {
  return table_render(t, f, colour);
}

static void test_text(void) {
  struct text_table t;
  small_table(&t);
  table_set_colour(&t, 0, 1, "31");
  table_note(&t, TABLE_ALL, 0, 1, 1);
  table_note_addf(&t, "%d cases for ", 2);
  table_note_user(&t, "p\033x");
  table_note(&t, TABLE_ALL, NOTE_ITEM, 0, 0);
  table_note_addf(&t, "an item");
  table_note(&t, TABLE_IN(TABLE_MD), 0, 0, 1);
  table_note_addf(&t, "markdown only");
  char *s = render(&t, TABLE_TEXT, 0);
  CHECK_STR(s, "name            time\n"
               "a|b           1.0 us\n"
               "longer, \"q\"  12.5 ms\n"
               "\n"
               "2 cases for p\\x1bx\n"
               "  an item\n");
  free(s);
  s = render(&t, TABLE_TEXT, 1);
  CHECK(strstr(s, "  \033[31m1.0 us\033[0m\n") != NULL);
  free(s);
  table_release(&t);
}

/* A line between rows starts at its column, not counted in the widths;
 * rows_only leaves the titles out. */
static void test_text_lines(void) {
  static const char *const titles[] = {"#", "plugin"};
  static const int right[] = {1, 0};
  struct text_table t;
  table_init(&t, 2, titles, right);
  table_add_line(&t, 1, "(3 earlier cases not shown)");
  char *r[] = {xstrdup("14"), xstrdup("p")};
  table_add_row(&t, r);
  char *s = render(&t, TABLE_TEXT, 0);
  CHECK_STR(s, " #  plugin\n    (3 earlier cases not shown)\n14  p\n");
  free(s);
  t.rows_only = 1;
  s = render(&t, TABLE_TEXT, 0);
  CHECK_STR(s, "    (3 earlier cases not shown)\n14  p\n");
  free(s);
  table_release(&t);
}

static void test_md(void) {
  struct text_table t;
  small_table(&t);
  table_set_flags(&t, 1, 0, CELL_STRONG);
  table_set_flags(&t, 1, 1, CELL_OWN);
  table_note(&t, TABLE_ALL, 0, 1, 1);
  table_note_em(&t, NOTE_STRONG);
  table_note_addf(&t, "2 cases");
  table_note_em(&t, 0);
  table_note_addf(&t, " (threshold 5%%)");
  table_note(&t, TABLE_ALL, NOTE_ITEM, 0, 0);
  table_note_user(&t, "p|x_y");
  table_note(&t, TABLE_IN(TABLE_TEXT), 0, 0, 1);
  table_note_addf(&t, "text only");
  table_note(&t, TABLE_ALL, 0, 0, 1);
  table_note_em(&t, NOTE_EMPH);
  table_note_addf(&t, "a paragraph");
  char *s = render(&t, TABLE_MD, 1);
  CHECK_STR(s, "| name | time |\n"
               "| --- | ---: |\n"
               "| a\\|b | 1.0 us |\n"
               "| **longer, \"q\"** | 12.5 ms |\n"
               "\n"
               "**2 cases** (threshold 5%)\n"
               "- p\\|x\\_y\n"
               "\n"
               "_a paragraph_\n");
  free(s);
  table_release(&t);
}

/* RFC 4180: a field with a comma or a quote is quoted, quotes doubled;
 * a formula is neutralised; no notes. */
static void test_csv(void) {
  struct text_table t;
  small_table(&t);
  char *r3[] = {xstrdup("=1+1"), xstrdup("-1.5")};
  table_add_row(&t, r3);
  table_note(&t, TABLE_ALL, 0, 1, 1);
  table_note_addf(&t, "not in a CSV file");
  char *s = render(&t, TABLE_CSV, 0);
  CHECK_STR(s, "name,time\n"
               "a|b,1.0 us\n"
               "\"longer, \"\"q\"\"\",12.5 ms\n"
               "\"'=1+1\",-1.5\n");
  free(s);
  table_release(&t);
}

/* Columns shown in some formats only, JSON values, the frame and notes. */
static void test_json(void) {
  static const char *const titles[] = {"name", "time", "time_ns"};
  struct text_table t;
  table_init(&t, 3, titles, NULL);
  table_show(&t, 1, TABLE_IN(TABLE_TEXT) | TABLE_IN(TABLE_MD));
  table_show(&t, 2, TABLE_IN(TABLE_CSV) | TABLE_IN(TABLE_JSON));
  char *r[] = {xstrdup("a\"b\n"), xstrdup("1.0 us"), xstrdup("1000")};
  table_add_row(&t, r);
  table_set_json(&t, 0, 2, json_real(1000.5));
  json_t *head = json_object(), *tail = json_object();
  json_object_set_new(head, "schema", json_string("test/1"));
  json_object_set_new(tail, "total", json_integer(1));
  table_json_frame(&t, "cases", head, tail);
  table_note(&t, TABLE_IN(TABLE_JSON), 0, 0, 0);
  table_note_addf(&t, "a note for ");
  table_note_user(&t, "p|q");
  char *s = render(&t, TABLE_JSON, 0);
  json_error_t err;
  json_t *doc = json_loads(s, 0, &err);
  REQUIRE(doc != NULL);
  CHECK(strncmp(s, "{\n  \"schema\": \"test/1\",\n  \"cases\": [", 35) == 0);
  CHECK_STR(json_string_value(json_object_get(doc, "schema")), "test/1");
  json_t *row = json_array_get(json_object_get(doc, "cases"), 0);
  CHECK_STR(json_string_value(json_object_get(row, "name")), "a\"b\n"); /* JSON escapes, never the terminal's */
  CHECK(json_object_get(row, "time") == NULL);
  CHECK_NEAR(json_real_value(json_object_get(row, "time_ns")), 1000.5, 0);
  CHECK(json_integer_value(json_object_get(doc, "total")) == 1);
  CHECK_STR(json_string_value(json_array_get(json_object_get(doc, "notes"), 0)), "a note for p|q");
  json_decref(doc);
  free(s);
  s = render(&t, TABLE_CSV, 0);
  CHECK_STR(s, "name,time_ns\n\"a\"\"b\\n\",1000\n");
  free(s);
  s = render(&t, TABLE_TEXT, 0);
  CHECK_STR(s, "name   time\na\"b\\n  1.0 us\n");
  free(s);
  table_release(&t);
}

static void test_formats(void) {
  enum table_format f = TABLE_NFORMATS;
  CHECK(table_format_parse("table", &f) == 0 && f == TABLE_TEXT);
  CHECK(table_format_parse("text", &f) == 0 && f == TABLE_TEXT);
  CHECK(table_format_parse("md", &f) == 0 && f == TABLE_MD);
  CHECK(table_format_parse("csv", &f) == 0 && f == TABLE_CSV);
  CHECK(table_format_parse("json", &f) == 0 && f == TABLE_JSON);
  CHECK(table_format_parse("xml", &f) == -1);
  for (int i = 0; i < TABLE_NFORMATS; i++) CHECK(table_renderer_of((enum table_format)i)->format == (enum table_format)i);
}

TEST_MAIN(TEST_ENTRY(test_text), TEST_ENTRY(test_text_lines), TEST_ENTRY(test_md), TEST_ENTRY(test_csv),
          TEST_ENTRY(test_json), TEST_ENTRY(test_formats))
