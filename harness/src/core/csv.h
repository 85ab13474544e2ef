/* CSV fields (RFC 4180) for the rollup and table output. */
#ifndef BENCH_CSV_H
#define BENCH_CSV_H

#include "core/util.h"

/* Append one RFC 4180 field (quoted when it holds a comma,
 * quote, CR or LF; quotes doubled). A field a spreadsheet would take for a
 * formula (starting with '=', '+', '-', '@', TAB or CR) gets a leading "'"
 * and is quoted, unless the whole field is a plain decimal number such as
 * "-1.5" or "+3" (OWASP's CSV injection advice). A field holding any
 * other control byte (ESC, BEL, ...), a C1 control or invalid UTF-8 is first
 * escaped as term_escape does, so a file someone cats on a terminal carries
 * no escape sequence. */
void csv_add_field(struct strbuf *sb, const char *field); /* NULL adds nothing */
/* Append v with the fewest significant digits that read back as v exactly,
 * without an exponent from 1e-4 to 1e17 ("0.1", "2000", "1234.5", but
 * "1e-07"); "nan", "inf", "-inf" when not finite. */
void csv_add_number(struct strbuf *sb, double v);

#endif
