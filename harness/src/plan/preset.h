/* Presets: INI files (parsed with inih) that set the run policy and may
 * override plugins' parameters. */
#ifndef BENCH_PRESET_H
#define BENCH_PRESET_H

#include <stddef.h>

#include "bench/plugin.h"
#include "check/check.h"
#include "core/util.h"

struct run_policy {
  enum bench_tier tier;     /* which plugin defaults apply */
  int warmup_iters;         /* at least this many warm-up iterations */
  double warmup_s;          /* and at least this long */
  int min_samples, max_samples;
  double min_time_s, max_time_s; /* sampling time (warm-up excluded) */
  double target_cv;         /* stop when relative noise <= this (0.02 = 2%) */
  double batch_min_s;       /* batch iterations until a sample lasts this long (0: never) */
  int batch_cold;           /* batch = cold: one run() per sample, never run_batch (warm: 0) */
  enum verify_level verify;
  int determinism;          /* run twice, compare outputs bitwise */
  double timeout_s;         /* per case, whole child */
  double heartbeat_s;       /* events HEARTBEAT interval */
  int stop_cv;              /* stop = cv: target_noise bounds the CV (the old rule);
                               default (stop = ci): the relative half-width of the
                               median's 95% confidence interval */
  int isolation_case;       /* isolation = case: one process per case (default
                               plugin: one worker process per plugin) */
};
/* The defaults used where a preset says nothing (those of "standard"). */
void run_policy_defaults(struct run_policy *p);

/* One key = value line of a plugin section, with where it came from. */
struct preset_entry {
  char *key;
  char *value;
  int line;
};

struct preset_section {
  char *name;  /* plugin name */
  int line;    /* line of the [name] header */
  size_t nentries;
  struct preset_entry *entries;
};

struct preset {
  char *path;        /* file read */
  char *name;        /* shipped name ("smoke") or the file's basename without .ini */
  char sha256[65];   /* of the file's bytes */
  struct run_policy policy;
  size_t nsections;
  struct preset_section *sections;
};

/* Resolve --preset ARG: a path (contains '/' or ends in .ini) or a shipped
 * name looked up in the preset folders (the build tree's presets/, the
 * installed share/bench/presets). Returns a malloc'd path, or NULL after
 * error() listing the known names. */
char *preset_resolve(const char *arg, const char *const *dirs, size_t ndirs);

/* Parse a preset file. Every problem (syntax error, a key outside any
 * section, unknown [run] key, bad value, min above max, a line longer than
 * inih reads (199 characters), a duplicate key or section, an empty item in
 * a plugin section's list) is printed, in line order, as "file:line:
 * message"; returns 0, or -1 when there was any (out is then empty, and
 * preset_release on it harmless). A file that cannot be read: error()
 * "cannot read preset 'PATH': REASON". Plugin sections are kept as entries
 * and checked later against the plugins (cases.c), because only the plugin
 * knows its parameters. Keys left out keep run_policy_defaults. */
int preset_load(const char *path, struct preset *out);
void preset_release(struct preset *p);

/* Parse preset text already in memory (what preset_load does after reading
 * the file): path is used in messages and for out->name, out->sha256 is that
 * of data[0..len). Same errors and result as preset_load. */
int preset_parse(const char *path, const char *data, size_t len, struct preset *out);

/* The plugin section [name] of p, or NULL (also when p is NULL). */
const struct preset_section *preset_find_section(const struct preset *p, const char *name);

/* Print one located problem, "path:line: message", to stderr. */
void preset_diag(const char *path, int line, const char *fmt, ...) UTIL_PRINTF(3, 4);

const char *tier_name(enum bench_tier t);
int tier_parse(const char *s, enum bench_tier *out);

/* Value syntax of [run] keys; each returns 0, or -1 (no message) when s is
 * not of that form. Range checks are the caller's.
 *   duration: a number with an optional unit s, ms, us, ns or min ("15s",
 *             "500ms", "0.5" = seconds); a leading '-' parses (to be refused)
 *   fraction: "2%" = 0.02, or a plain number "0.02"
 *   bool:     true/false, yes/no, on/off, 1/0 (any case)
 *   verify:   full, fast, none (any case)                                  */
int preset_parse_duration(const char *s, double *seconds);
int preset_parse_fraction(const char *s, double *out);
int preset_parse_bool(const char *s, int *out);
int preset_parse_verify(const char *s, enum verify_level *out);
const char *preset_verify_name(enum verify_level v); /* "full", "fast", "none" */

#endif
