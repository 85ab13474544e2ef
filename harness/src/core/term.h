/* Text from plugins, presets, result and events files made safe to print on
 * a terminal: control characters (C0, DEL, C1) and bytes that are not UTF-8
 * are shown escaped, so such text cannot move the cursor, change colours,
 * retitle the window or fake a line of bench's own output. */
#ifndef BENCH_TERM_H
#define BENCH_TERM_H

#include <stdio.h>

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

/* Colour (--color auto|always|never): auto colours only a terminal, and
 * never when NO_COLOR is set to a non-empty value (no-color.org) or TERM
 * is "dumb". */
enum term_colour { TERM_COLOUR_AUTO = 0, TERM_COLOUR_NEVER, TERM_COLOUR_ALWAYS };
/* "auto", "always", "never" into *out: 0, or -1 for anything else. */
int term_colour_parse(const char *s, enum term_colour *out);
/* Whether output to fd gets colour under mode. */
int term_colour_on(enum term_colour mode, int fd);

/* SGR sequences, "" when colour is off. */
#define TERM_GREEN "\033[32m"
#define TERM_WARN "\033[1;33m" /* the warning colour (bold yellow): a noisy case, a busy machine */
#define TERM_RED_BOLD "\033[1;31m"
#define TERM_DIM "\033[2m"
#define TERM_BOLD "\033[1m"
#define TERM_RESET "\033[0m"

/* Columns s takes on a terminal: its UTF-8 characters, not its bytes
 * (text already escaped; no wide characters assumed). */
size_t term_width(const char *s);

/* Columns s takes when printed: term_width less the SGR sequences
 * (ESC [ ... m) bench's own colours add. */
size_t term_visible_width(const char *s);

/* The width lines written to fd are made to fit: the terminal's (ioctl
 * TIOCGWINSZ on fd), else $COLUMNS (a positive number), else
 * TERM_DEFAULT_COLUMNS; never below TERM_MIN_COLUMNS, so that nothing
 * breaks on a tiny terminal. Read each time (a resized window counts). */
#define TERM_DEFAULT_COLUMNS 120
#define TERM_MIN_COLUMNS 60
int term_columns(int fd);

/* The next piece of s that fits in w columns, broken at the last space
 * that lets it fit (a word longer than w is cut, at a UTF-8 character
 * boundary): its length in bytes; *next is where the rest starts (spaces
 * skipped). s holds no colour sequences. */
size_t term_wrap_piece(const char *s, size_t w, const char **next);

/* Append line to sb within columns: where it is longer (term_visible_width),
 * it is broken at a run of two or more spaces (between columns) when one
 * lets the piece keep at least half the room, else at a space (a word
 * boundary: never inside a number), and each further piece starts with
 * indent spaces (indent over half the width: 8). columns under
 * TERM_MIN_COLUMNS count as that (0: TERM_DEFAULT_COLUMNS). line holds no
 * newline; a colour sequence is never split.
 * Adds no newline of its own. */
void term_fit_add(struct strbuf *sb, const char *line, int columns, int indent);

/* The formatted line printed to out fitted to columns (term_fit_add, each
 * further piece indent columns in), then a newline. */
void term_fit_printf(FILE *out, int columns, int indent, const char *fmt, ...) UTIL_PRINTF(4, 5);

#endif
