/* Reading and writing results: the JSON and text forms of a run file, the
 * one-line JSON a child sends its parent, atomic saving under a unique dated
 * name, and the CSV rollup. */
#ifndef BENCH_RESULTS_IO_H
#define BENCH_RESULTS_IO_H

#include <stddef.h>

#include "result.h"
#include "util.h"

/* JSON (result_json.c). The run file's JSON holds everything, raw samples
 * included; from_json accepts what to_json writes. */
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
 * temporary name and renamed into place. Creates dir if missing.
 * Returns 0, or -1 after error() naming the file. */
int results_save(const char *dir, const struct run_file *f, char **base);
/* "<date>_<plugin>_<preset>[_<tag>]" with unsafe characters replaced. */
char *results_basename(const char *date, const char *plugin, const char *preset, const char *tag);

/* Write data to path through path.tmp.<pid> + rename. 0, or -1 after error(). */
int write_file_atomic(const char *path, const char *data, size_t len);

/* CSV (csv.c): append one RFC 4180 field (quoted when it holds a comma,
 * quote, CR or LF; quotes doubled). */
void csv_add_field(struct strbuf *sb, const char *field);

/* Rollup (rollup.c): read every result .json in dir and write
 * <dir>/rollup.csv atomically, one row per case. Unreadable files are
 * reported with warning() and skipped. Returns 0, or -1 after error(). */
int rollup_write(const char *dir);
/* The rollup's header row, for documentation and tests. */
extern const char *const rollup_columns[];

#endif
