/* Escaping text for the terminal (see term.h). */
#include "core/term.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define TERM_RING 8

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if none starts
 * there. Overlong forms, surrogates and values above U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *s) {
  unsigned char c = s[0];
  size_t n;
  unsigned min;
  unsigned v;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07, min = 0x10000;
  else return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the NUL */
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  return n;
}

/* How c is written, or NULL when it is kept. */
static const char *named(unsigned char c) {
  switch (c) {
  case '\n': return "\\n";
  case '\r': return "\\r";
  case '\t': return "\\t";
  }
  return NULL;
}

void term_escape_add(struct strbuf *sb, const char *s) {
  if (!s) {
    strbuf_adds(sb, "(null)");
    return;
  }
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    /* The longest run that needs nothing. */
    const unsigned char *run = p;
    for (;;) {
      if (*p >= 0x20 && *p < 0x7F) {
        p++;
        continue;
      }
      if (*p >= 0x80) {
        size_t n = utf8_len(p);
        if (n && !(n == 2 && p[0] == 0xC2 && p[1] < 0xA0)) {
          p += n;
          continue;
        }
      }
      break;
    }
    if (p > run) strbuf_add(sb, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0) {
      strbuf_addf(sb, "\\u%04x", p[1]);
      p += 2;
    } else if (named(*p)) {
      strbuf_adds(sb, named(*p));
      p++;
    } else {
      strbuf_addf(sb, "\\x%02x", *p);
      p++;
    }
  }
}

char *term_escape(const char *s) {
  struct strbuf sb = STRBUF_INIT;
  term_escape_add(&sb, s);
  return strbuf_detach(&sb);
}

const char *term_str(const char *s) {
  static _Thread_local char *ring[TERM_RING];
  static _Thread_local unsigned next;
  unsigned i = next++ % TERM_RING;
  free(ring[i]);
  ring[i] = term_escape(s);
  return ring[i];
}

int term_needs_escape(const char *s) {
  char *e = term_escape(s);
  int differs = !s || strcmp(e, s) != 0;
  free(e);
  return differs;
}

int term_colour_parse(const char *s, enum term_colour *out) {
  if (strcmp(s, "auto") == 0) *out = TERM_COLOUR_AUTO;
  else if (strcmp(s, "always") == 0) *out = TERM_COLOUR_ALWAYS;
  else if (strcmp(s, "never") == 0) *out = TERM_COLOUR_NEVER;
  else return -1;
  return 0;
}

int term_colour_on(enum term_colour mode, int fd) {
  if (mode != TERM_COLOUR_AUTO) return mode == TERM_COLOUR_ALWAYS;
  const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
  if (no && *no) return 0;
  if (term && strcmp(term, "dumb") == 0) return 0;
  return isatty(fd);
}

size_t term_width(const char *s) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p & 0xC0) != 0x80) n++;
  return n;
}

/* Past an SGR sequence (ESC [ ... m) at s, or s itself when none starts there. */
static const char *skip_sgr(const char *s) {
  if (s[0] != '\033' || s[1] != '[') return s;
  const char *p = s + 2;
  while ((*p >= '0' && *p <= '9') || *p == ';') p++;
  return *p == 'm' ? p + 1 : s;
}

size_t term_visible_width(const char *s) {
  size_t n = 0;
  for (const char *p = s; *p;) {
    const char *q = skip_sgr(p);
    if (q != p) {
      p = q;
      continue;
    }
    if ((*p & 0xC0) != 0x80) n++;
    p++;
  }
  return n;
}

int term_columns(int fd) {
  long c = 0;
  struct winsize ws;
  if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    c = ws.ws_col;
  } else {
    const char *e = getenv("COLUMNS");
    char *end = NULL;
    if (e && *e) c = strtol(e, &end, 10);
    if (!end || *end || c <= 0 || c > 100000) c = 0;
  }
  if (c <= 0) c = TERM_DEFAULT_COLUMNS;
  return c < TERM_MIN_COLUMNS ? TERM_MIN_COLUMNS : (int)c;
}

size_t term_wrap_piece(const char *s, size_t w, const char **next) {
  size_t len = strlen(s);
  if (term_width(s) <= w) {
    *next = s + len;
    return len;
  }
  /* the byte where column w starts */
  size_t cut = 0, cols = 0;
  while (s[cut] && cols < w) {
    cut++;
    while ((s[cut] & 0xC0) == 0x80) cut++;
    cols++;
  }
  size_t at = cut;
  while (at > 0 && s[at] != ' ') at--;
  if (at > 0) cut = at; /* else one long word: cut it */
  const char *r = s + cut;
  while (*r == ' ') r++;
  *next = r;
  return cut;
}

void term_fit_add(struct strbuf *sb, const char *line, int columns, int indent) {
  if (columns < TERM_MIN_COLUMNS) columns = columns > 0 ? TERM_MIN_COLUMNS : TERM_DEFAULT_COLUMNS;
  if (indent < 0 || indent > columns / 2) indent = columns / 2 < 8 ? columns / 2 : 8;
  const char *p = line;
  for (int first = 1; *p; first = 0) {
    if (!first)
      for (int i = 0; i < indent; i++) strbuf_adds(sb, " ");
    int room = first ? columns : columns - indent;
    const char *q = p, *run2 = NULL, *run1 = NULL;
    int cols = 0, cols2 = 0;
    for (;;) {
      const char *e = skip_sgr(q);
      if (e != q) {
        q = e;
        continue;
      }
      if (!*q || cols == room) break;
      if (*q == ' ' && q > p && q[-1] != ' ') { /* a run of spaces starts */
        run1 = q;
        if (q[1] == ' ') run2 = q, cols2 = cols;
      }
      q++;
      while ((*q & 0xC0) == 0x80) q++;
      cols++;
    }
    if (!*q) {
      strbuf_adds(sb, p);
      break;
    }
    const char *brk;
    if (*q == ' ') brk = q; /* the piece fits exactly */
    else if (run2 && cols2 >= room / 2) brk = run2;
    else if (run1) brk = run1;
    else brk = q; /* one word longer than the room (q > p: room is at least half the line) */
    const char *end = brk;
    while (end > p && end[-1] == ' ') end--;
    strbuf_add(sb, p, (size_t)(end - p));
    strbuf_adds(sb, "\n");
    p = brk;
    while (*p == ' ') p++;
  }
}

void term_fit_printf(FILE *out, int columns, int indent, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *line = xvasprintf(fmt, ap);
  va_end(ap);
  struct strbuf sb = STRBUF_INIT;
  term_fit_add(&sb, line, columns, indent);
  fprintf(out, "%s\n", sb.buf);
  strbuf_release(&sb);
  free(line);
}
