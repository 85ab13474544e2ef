/* A minimal line reader in front of inih, for presets.
 *
 * inih parses the file (ini_parse_stream); this reader only hands it the
 * lines. inih alone cannot give a preset what it needs, because Debian's
 * build (libinih-dev, ini.h):
 *   - has INI_HANDLER_LINENO 0: the handler gets no line number, and every
 *     problem a preset reports names its line (we count the lines we give);
 *   - silently cuts a line longer than its buffer (INI_MAX_LINE - 1
 *     characters) and reads the rest as a next line: such a line is
 *     refused here, the limit taken from the buffer size inih passes in;
 *   - reports only the first syntax error, as a bare line number: each line
 *     is classified here so that every problem is reported, with words;
 *   - has INI_ALLOW_MULTILINE: an indented line continues the previous
 *     value; presets strip leading blanks so an indented key is a key.
 * To classify lines the reader follows inih's syntax: ';' or '#' start a
 * comment line, ';' after a blank starts an inline comment, a section
 * header is '[' name ']'. */
#include "preset/ini_lines.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* inih's limit for a section name (MAX_SECTION - 1; ini.c does not export
 * it): it cuts longer ones. */
#define INI_SECTION_MAX 49

void ini_lines_init(struct ini_lines *r, const char *data, size_t len, struct diags *d,
                    size_t max_problems, ini_section_fn on_section, void *user) {
  memset(r, 0, sizeof *r);
  r->data = data;
  r->len = len;
  r->d = d;
  r->max_problems = max_problems;
  r->on_section = on_section;
  r->user = user;
}

static int too_many(const struct ini_lines *r) { return r->d->n >= r->max_problems; }

int ini_lines_stopped(const struct ini_lines *r) { return too_many(r) && r->pos < r->len; }

/* As inih: the first of `chars` or an inline comment (';' after a blank). */
static const char *find_chars_or_comment(const char *s, const char *chars) {
  int was_space = 0;
  while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
    was_space = isspace((unsigned char)*s);
    s++;
  }
  return s;
}

static int section_name_ok(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return 0;
  return 1;
}

/* A [section] line (s trimmed, starting with '['). 1: hand it to inih. */
static int section_line(struct ini_lines *r, char *s) {
  int line = r->lineno;
  const char *end = find_chars_or_comment(s + 1, "]");
  if (*end != ']') {
    diags_add(r->d, line, "syntax error: section header '%s' has no closing ']'", s);
    r->on_section(r->user, NULL, line);
    return 0;
  }
  char *name = xstrndup(s + 1, (size_t)(end - (s + 1)));
  const char *rest = end + 1;
  while (isspace((unsigned char)*rest)) rest++;
  int ok = 1;
  if (!*name) {
    diags_add(r->d, line, "empty section name '[]' (use [run] or [plugin_name])");
    ok = 0;
  } else if (!section_name_ok(name)) {
    diags_add(r->d, line, "bad section name '[%s]' (letters, digits, '_', '-' and '.' only)", name);
    ok = 0;
  } else if (strlen(name) > INI_SECTION_MAX) {
    diags_add(r->d, line, "section name '%.20s...' is longer than %d characters", name,
              INI_SECTION_MAX);
    ok = 0;
  }
  if (ok && *rest && *rest != ';')
    diags_add(r->d, line, "unexpected text '%s' after section header [%s]", rest, name);
  int give = r->on_section(r->user, ok ? name : NULL, line) && ok;
  free(name);
  return give;
}

/* Classify one trimmed line before inih sees it. 1: hand it to inih. */
static int check_line(struct ini_lines *r, char *s) {
  if (!*s || *s == ';' || *s == '#') return 1;
  if (*s == '[') return section_line(r, s);
  const char *sep = find_chars_or_comment(s, "=:");
  if (*sep != '=' && *sep != ':') {
    diags_add(r->d, r->lineno,
              "syntax error: expected 'key = value', '[section]' or a comment, got '%s'", s);
    return 0;
  }
  return 1;
}

/* The ini_reader: the next line of the buffer, trimmed, one per call. */
static char *read_line(char *str, int num, void *stream) {
  struct ini_lines *r = stream;
  /* Newer inih reads the rest of a line that filled its buffer with a
   * smaller buffer; ours was whole, so there is nothing more to give. */
  if (r->unterminated && num != r->last_num) {
    r->unterminated = 0;
    return NULL;
  }
  r->unterminated = 0;
  if (r->pos >= r->len || num < 3 || too_many(r)) return NULL;
  r->last_num = num;

  const char *start = r->data + r->pos;
  size_t left = r->len - r->pos;
  const char *nl = memchr(start, '\n', left);
  size_t rawlen = nl ? (size_t)(nl - start) : left;
  r->pos += rawlen + (nl ? 1 : 0);
  r->lineno++;
  if (rawlen && start[rawlen - 1] == '\r') rawlen--;
  if (r->lineno == 1 && rawlen >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
    start += 3;
    rawlen -= 3;
  }

  int give = 1;
  char *s = NULL;
  if ((size_t)num - 1 < rawlen) {
    diags_add(r->d, r->lineno, "line longer than %d characters (%zu); inih would cut it", num - 1,
              rawlen);
    /* Keys after an unreadable section header must not land in the previous one. */
    const char *q = start;
    while (q < start + rawlen && isspace((unsigned char)*q)) q++;
    if (q < start + rawlen && *q == '[') r->on_section(r->user, NULL, r->lineno);
    give = 0;
  } else if (memchr(start, '\0', rawlen)) {
    diags_add(r->d, r->lineno, "line contains a NUL byte");
    give = 0;
  } else {
    s = xstrndup(start, rawlen);
    trim(s);
    give = check_line(r, s);
  }

  size_t n = give ? strlen(s) : 0;
  if (n) memcpy(str, s, n);
  if (n + 1 < (size_t)num) {
    str[n++] = '\n';
  } else {
    r->unterminated = 1;
  }
  str[n] = '\0';
  free(s);
  return str;
}

void ini_lines_parse(struct ini_lines *r, ini_handler handler, void *user) {
  int rc = ini_parse_stream(read_line, r, handler, user);
  if (rc == -2) diags_add(r->d, r->lineno, "out of memory while parsing");
  else if (rc > 0 && !diags_on_line(r->d, rc)) diags_add(r->d, rc, "syntax error");
}
