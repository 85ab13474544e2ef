/* The line reader a preset is parsed through: inih's ini_parse_stream gets
 * the file one line at a time from here, so that every line has a number
 * and every syntax problem is found (see ini_lines.c for why inih alone
 * cannot). */
#ifndef BENCH_INI_LINES_H
#define BENCH_INI_LINES_H

#include <stddef.h>

#include <ini.h>

#include "preset/diag.h"

/* Called for each [section] header: with its name when its syntax is good,
 * with NULL for a header that was refused or could not be read (keys after
 * it belong to no section). Returns 1 to hand the header to inih, 0 to give
 * inih a blank line instead. */
typedef int (*ini_section_fn)(void *user, const char *name, int line);

struct ini_lines {
  const char *data;
  size_t len, pos;
  int lineno;       /* lines handed to inih so far = the current line */
  int last_num;     /* buffer size of inih's last read */
  int unterminated; /* the last line filled inih's buffer without '\n' */
  size_t max_problems; /* stop reading once d holds this many */
  struct diags *d;
  ini_section_fn on_section;
  void *user;
};

void ini_lines_init(struct ini_lines *r, const char *data, size_t len, struct diags *d,
                    size_t max_problems, ini_section_fn on_section, void *user);
/* Parse the whole buffer: handler gets each key of each line that passed
 * (r->lineno is its line). inih's own errors (a syntax error this reader
 * did not already report, out of memory) are added to d. */
void ini_lines_parse(struct ini_lines *r, ini_handler handler, void *user);
/* Did it stop early (too many problems) with lines left unread? */
int ini_lines_stopped(const struct ini_lines *r);

#endif
