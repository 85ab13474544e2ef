/* Problems located in a preset ("path:line: message"), collected while a
 * file is read or its sections are checked against the plugins, and
 * printed in line order (in the order found within a line). */
#ifndef BENCH_DIAG_H
#define BENCH_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "core/util.h"

struct diag {
  int line;
  size_t seq; /* order found, for a stable sort */
  char *msg;
};

/* Zero-initialise ({0}); diags_flush releases. */
struct diags {
  size_t n;
  struct diag *v;
};

void diags_add(struct diags *d, int line, const char *fmt, ...) UTIL_PRINTF(3, 4);
/* Is there a problem on this line already? */
int diags_on_line(const struct diags *d, int line);
/* Print the problems in line order as "path:line: message", at most
 * max_shown of them and then "bench: error: PATH: N more problems not
 * shown"; release them (d is empty afterwards). */
void diags_flush(struct diags *d, const char *path, size_t max_shown);

/* Print one located problem, "path:line: message", to stderr (path and
 * message escaped for the terminal). */
void preset_diag(const char *path, int line, const char *fmt, ...) UTIL_PRINTF(3, 4);

#endif
