/* Text from plugins, presets, result and events files made safe to print on
 * a terminal: control characters (C0, DEL, C1) and bytes that are not UTF-8
 * are shown escaped, so such text cannot move the cursor, change colours,
 * retitle the window or fake a line of bench's own output. */
#ifndef BENCH_TERM_H
#define BENCH_TERM_H

#include "core/util.h"

/* Append s to sb with \n, \r, \t as such, other control bytes and bytes
 * that are not part of valid UTF-8 as \xNN, and C1 controls (U+0080 to
 * U+009F) as \u00NN. Valid UTF-8 and backslashes are kept as they are.
 * NULL appends "(null)". */
void term_escape_add(struct strbuf *sb, const char *s);

/* s escaped, malloc'd. */
char *term_escape(const char *s);

/* s escaped, in one of a few per-thread buffers that term_str reuses: valid
 * until 8 more calls in the same thread. For printf arguments:
 *   printf("%s: %s\n", term_str(p->name), term_str(reason)); */
const char *term_str(const char *s);

/* Does s hold anything term_escape would change? */
int term_needs_escape(const char *s);

#endif
