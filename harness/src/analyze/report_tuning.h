/* bench report's tuning table: per tuning cache file, device, plugin and
 * problem, the winner `bench tune` recorded, its speedup over the default
 * (paired interval and verdict of the final comparison), the candidates
 * measured, disqualified (wrong answer) and skipped, and how many cases of
 * the report's newest runs used it: their tunables at auto took the winner
 * ("tuned (cache FILE)") or ran the defaults ("default (no tuning entry)"). */
#ifndef BENCH_REPORT_TUNING_H
#define BENCH_REPORT_TUNING_H

#include <jansson.h>
#include <stddef.h>

#include "analyze/result_set.h"

/* The tuning files to read: files[0..nfiles) (--tuning-file), else every
 * *.tsv in the default folder ($XDG_CACHE_HOME/bench/tuning). Malloc'd
 * list of malloc'd paths in *out (none when no folder), count returned. */
size_t report_tuning_files(const char *const *files, size_t nfiles, char ***out);

/* {"files": [...], "skipped_files": ["why", ...], "rows": [...]}: rows as
 * above from the files (one that is foreign or corrupt is left out, with a
 * warning and its reason in skipped_files), the runs counted over the
 * entries idx[0..n) of s. */
json_t *report_tuning_json(char *const *paths, size_t npaths, const struct result_set *s,
                           const size_t *idx, size_t n);

#endif
