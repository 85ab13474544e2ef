/* CSV fields (RFC 4180): quoting text, and numbers in their shortest exact
 * form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/term.h"

/* A plain decimal number: optional sign, digits with at most one point,
 * an optional exponent; nothing else. A spreadsheet reads it as a number,
 * never as a formula. */
static int plain_number(const char *s) {
  const char *p = s;
  if (*p == '+' || *p == '-') p++;
  int digits = 0, point = 0;
  for (; *p; p++) {
    if (*p >= '0' && *p <= '9') digits++;
    else if (*p == '.' && !point) point = 1;
    else break;
  }
  if (!digits) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  return *p == '\0';
}

/* Would a spreadsheet evaluate this field as a formula? */
static int formula_like(const char *s) {
  return (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
          s[0] == '\r') &&
         !plain_number(s);
}

/* Does the field hold a control byte other than TAB, CR and LF (which RFC
 * 4180 quoting carries), a C1 control or invalid UTF-8? */
static int needs_escape(const char *field) {
  if (!term_needs_escape(field)) return 0;
  char *t = xstrdup(field);
  for (char *p = t; *p; p++)
    if (*p == '\t' || *p == '\r' || *p == '\n') *p = ' ';
  int r = term_needs_escape(t);
  free(t);
  return r;
}

void csv_add_field(struct strbuf *sb, const char *field) {
  if (!field) return;
  if (needs_escape(field)) { /* no escape sequence reaches a file someone cats */
    char *e = term_escape(field);
    csv_add_field(sb, e);
    free(e);
    return;
  }
  int formula = formula_like(field);
  if (!formula && !strpbrk(field, ",\"\r\n")) {
    strbuf_adds(sb, field);
    return;
  }
  strbuf_add(sb, formula ? "\"'" : "\"", formula ? 2 : 1);
  for (const char *p = field; *p; p++) {
    if (*p == '"') strbuf_add(sb, "\"", 1);
    strbuf_add(sb, p, 1);
  }
  strbuf_add(sb, "\"", 1);
}

void csv_add_number(struct strbuf *sb, double v) {
  if (isnan(v)) {
    strbuf_adds(sb, "nan");
    return;
  }
  if (isinf(v)) {
    strbuf_adds(sb, v > 0 ? "inf" : "-inf");
    return;
  }
  char buf[400];
  int prec = 1;
  for (; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  /* %g goes to an exponent once the digits end before the point ("2e+03");
   * write such values (up to 1e17) in full instead: "2000". */
  const char *e = strchr(buf, 'e');
  if (e) {
    int exp10 = atoi(e + 1);
    if (exp10 >= 0 && exp10 < 17) {
      int decimals = prec - 1 - exp10;
      snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, v);
    }
  }
  strbuf_adds(sb, buf);
}
