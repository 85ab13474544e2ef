/* The scan cache: what discovery learned of each plugin file (its entry and
 * parameters, or why it is broken), kept under $XDG_CACHE_HOME/bench/ and
 * keyed by the file's identity (path, device, inode, size, mtime and ctime
 * in ns) and
 * this bench's build, so that a run loads in a child only the files that
 * changed. Every cache file is one header line, one line per record and an
 * end line with the record count and a checksum; anything else, a record
 * that does not parse, or another header means "no cache" (rebuilt
 * silently). Files are written to a temporary name and renamed. */
#ifndef BENCH_SCAN_CACHE_H
#define BENCH_SCAN_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"
#include "core/util.h"

/* A file's identity: a change in any field means "scan it again". The
 * ctime is there because the mtime can be set back (touch -d, cp -p) and
 * rm + cp can reuse the inode; the ctime cannot be set by the user. */
struct scan_key {
  uint64_t dev, ino, size;
  int64_t mtime_ns, ctime_ns;
};

/* stat(path) into k. 0, or -1 (errno set). */
int scan_key_of(const char *path, struct scan_key *k);
int scan_key_eq(const struct scan_key *a, const struct scan_key *b);

/* ---- records: what a scan child says of one file ---- */

/* The record of a plugin that loaded and was accepted: its entry (in the
 * harness's layout, abi.h) and the file's SHA-256. Malloc'd, one line. */
char *scan_record_plugin(const struct bench_plugin *p, const char *sha256);
/* The record of a refused file: the one-line problem. */
char *scan_record_broken(const char *problem);

/* Parse a record strictly. A plugin: *desc gets a copy owned by the
 * caller (free with scan_desc_free) whose strings are its own and whose
 * callbacks are stubs that fail, present exactly where the plugin's are
 * (the parent never calls a plugin: plugin_open gives the real ones), and
 * sha256 the hash. A broken file: *desc NULL and *problem the message
 * (malloc'd). 0, or -1 when the record is not one this build writes. */
int scan_record_parse(const char *rec, struct bench_plugin **desc, char sha256[65],
                      char **problem);
void scan_desc_free(struct bench_plugin *p);

/* ---- cache files ---- */

/* The folder: $XDG_CACHE_HOME/bench, else $HOME/.cache/bench; NULL when
 * neither is set. Malloc'd. */
char *scan_cache_dir(void);

/* The lines of cache file `name` in the cache folder whose first line is
 * exactly `header`, or none (*n 0) when it is missing, unreadable, of
 * another header, truncated, or fails its checksum. 0 when it was read,
 * -1 (*why says why: for a note) when not. */
int cache_file_read(const char *name, const char *header, char ***lines, size_t *n, char *why,
                    size_t whylen);
/* Write lines (none holding a newline) as cache file `name`, atomically
 * (a temporary file renamed over it; concurrent writers each write a whole
 * file, the last one wins). 0, or -1 with why (a read-only or missing
 * folder that cannot be made, a full disk). Prints nothing. */
int cache_file_write(const char *name, const char *header, char *const *lines, size_t n,
                     char *why, size_t whylen);
void cache_lines_free(char **lines, size_t n);

/* Field helpers for cache lines: a string with every control byte and
 * backslash as \xHH (NULL as \N), so a field holds no tab and no newline. */
void scan_field_put(struct strbuf *sb, const char *s);
/* Split line at tabs into at most max fields (in place); the count. */
size_t scan_fields_split(char *line, char **f, size_t max);
/* Undo scan_field_put: 0 with *out malloc'd (NULL for \N), -1 if malformed. */
int scan_field_get(const char *f, char **out);
/* A whole field of decimal digits (no sign, no space). 0, or -1. */
int scan_field_u64(const char *f, uint64_t *out);

/* The header every cache file of this build starts with, for kind
 * ("scan", "probe"): the format, bench's version and git revision, the
 * plugin ABI. Malloc'd. */
char *scan_cache_header(const char *kind);

#endif
