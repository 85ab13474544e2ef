/* Reading a result file back as the rollup (and any tool) should: a regular
 * file of bounded size, the whole buffer one JSON document, the cases a run
 * appended to <base>.journal after the .json was last rewritten merged in,
 * and the facts every file bench writes holds checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/io.h"

/* The journal beside a result file: "<base>.journal" for "<base>.json". */
static char *journal_path(const char *path) {
  size_t len = strlen(path);
  if (len < 5 || strcmp(path + len - 5, ".json") != 0) return NULL;
  return xasprintf("%.*s.journal", (int)(len - 5), path);
}

static int has_index(const struct run_file *f, int index) {
  for (size_t i = 0; i < f->ncases; i++)
    if (f->cases[i].index == index) return 1;
  return 0;
}

/* Add the journal's cases that the .json lacks. A last line without its
 * newline was cut by a crash mid-write: ignored. */
static int merge_journal(const char *jpath, struct run_file *f, char *err, size_t errlen) {
  struct stat st;
  if (lstat(jpath, &st) != 0 && errno == ENOENT) return 0;
  struct strbuf sb = STRBUF_INIT;
  char cause[256];
  if (read_regular_file(jpath, RESULT_FILE_CAP, &sb, cause, sizeof cause) != 0) {
    snprintf(err, errlen, "cannot read %s: %s", jpath, cause);
    strbuf_release(&sb);
    return -1;
  }
  size_t len = sb.len;
  char *text = strbuf_detach(&sb);
  int rc = 0;
  size_t line_no = 0;
  for (char *p = text; p < text + len && !rc;) {
    char *nl = memchr(p, '\n', (size_t)(text + len - p));
    if (!nl) break; /* torn last line */
    *nl = '\0';
    line_no++;
    struct case_result r;
    char why[256];
    if (memchr(p, '\0', (size_t)(nl - p))) {
      snprintf(err, errlen, "%s:%zu: holds a nul byte", jpath, line_no);
      rc = -1;
    } else if (case_result_from_json_line(p, &r, why, sizeof why) != 0) {
      snprintf(err, errlen, "%s:%zu: %s", jpath, line_no, why);
      rc = -1;
    } else if (has_index(f, r.index)) {
      case_result_release(&r);
    } else {
      f->cases = xrealloc(f->cases, (f->ncases + 1) * sizeof *f->cases);
      f->cases[f->ncases++] = r;
    }
    p = nl + 1;
  }
  free(text);
  return rc;
}

int results_read_file(const char *path, struct run_file *f, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  struct strbuf sb = STRBUF_INIT;
  if (read_regular_file(path, RESULT_FILE_CAP, &sb, err, errlen) != 0) {
    strbuf_release(&sb);
    return -1;
  }
  int rc = run_file_from_json_buf(sb.buf, sb.len, f, err, errlen);
  strbuf_release(&sb);
  if (rc) return -1;
  char *jpath = journal_path(path);
  if (jpath) rc = merge_journal(jpath, f, err, errlen);
  free(jpath);
  if (!rc) rc = run_file_validate(f, err, errlen);
  if (rc) run_file_release(f);
  return rc;
}
