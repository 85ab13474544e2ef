/* Reading and writing results: the JSON and text forms of a run file, the
 * one-line JSON a child sends its parent, atomic saving under a unique dated
 * name, and the CSV rollup. */
#ifndef BENCH_RESULTS_IO_H
#define BENCH_RESULTS_IO_H

#include <stddef.h>

#include "result.h"
#include "util.h"

/* JSON (result_json.c). The run file's JSON holds everything, raw samples
 * included; from_json accepts what to_json writes and reads it back exactly
 * (doubles are written with 17 significant digits; NaN and infinities as
 * the strings "NaN", "Infinity", "-Infinity"; a string that is not valid
 * UTF-8 is written with U+FFFD in place of the bad bytes).
 * The from_json functions fill *f / *r from scratch (no init needed). On
 * error they return -1 with a one-line, lower-case reason in err (e.g.
 * "cases[2].check.rtol: expected a number", "unsupported schema ..."), print
 * nothing, and leave *f / *r empty; the caller names the file. */
#define BENCH_RESULT_SCHEMA "bench-result/1"
char *run_file_to_json(const struct run_file *f);                   /* pretty, ends in \n */
int run_file_from_json(const char *text, struct run_file *f, char *err, size_t errlen);
char *case_result_to_json_line(const struct case_result *r);        /* one line, no \n */
int case_result_from_json_line(const char *text, struct case_result *r, char *err, size_t errlen);

/* Human-readable form (result_txt.c): environment header, one row per case,
 * then notes (skip reasons, errors, unsettled cases, stderr tails). */
char *run_file_to_text(const struct run_file *f);

/* Saving (results_store.c). The first call for a run file claims
 * <dir>/<date>_<plugin>_<preset>[_<tag>].json (then .2, .3 ... before the
 * extension when taken, so a second run the same day never replaces the
 * first), and stores the base path (without extension) in *base; later calls
 * with the same *base rewrite both files. Every file is written to a
 * temporary name and renamed into place. Creates dir (and parents) if
 * missing. The name's parts: f->env.date (today when unset), f->plugin, the
 * file name of f->env.preset without ".ini", f->env.tag when set.
 * Returns 0, or -1 after error() naming the file. */
int results_save(const char *dir, const struct run_file *f, char **base);
/* "<date>_<plugin>_<preset>[_<tag>]" with unsafe characters replaced. */
char *results_basename(const char *date, const char *plugin, const char *preset, const char *tag);

/* Write data to path through <dir>/.<name>.tmp.<pid> (written, fsynced,
 * closed, every step checked) + rename(); on any failure the temporary file
 * is removed and path is left as it was. 0, or -1 after error() naming path. */
int write_file_atomic(const char *path, const char *data, size_t len);

/* CSV (csv.c): append one RFC 4180 field (quoted when it holds a comma,
 * quote, CR or LF; quotes doubled). */
void csv_add_field(struct strbuf *sb, const char *field); /* NULL adds nothing */
/* Append v with the fewest significant digits that read back as v exactly,
 * without an exponent from 1e-4 to 1e17 ("0.1", "2000", "1234.5", but
 * "1e-07"); "nan", "inf", "-inf" when not finite. */
void csv_add_number(struct strbuf *sb, double v);

/* Rollup (rollup.c): read every result .json in dir and write
 * <dir>/rollup.csv atomically, one row per case. Unreadable files are
 * reported with warning() and skipped. Returns 0, or -1 after error().
 * Result files: *.json not starting with '.', in file name order; the cases
 * of a file by index. Times in ms, numbers in their shortest exact form, a
 * field empty where it does not apply (no samples, no check, no throughput
 * when not OK, stddev/cv with fewer than 2 samples). */
int rollup_write(const char *dir);
/* The rollup's header row, for documentation and tests; ends with NULL. */
extern const char *const rollup_columns[];

#endif
