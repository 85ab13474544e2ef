/* CSV fields (RFC 4180): quoting text, and numbers in their shortest exact
 * form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_io.h"

void csv_add_field(struct strbuf *sb, const char *field) {
  if (!field) return;
  if (!strpbrk(field, ",\"\r\n")) {
    strbuf_adds(sb, field);
    return;
  }
  strbuf_add(sb, "\"", 1);
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
