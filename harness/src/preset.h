/* Presets: INI files (parsed with inih) that set the run policy and may
 * override plugins' parameters. */
#ifndef BENCH_PRESET_H
#define BENCH_PRESET_H

#include <stddef.h>

#include "bench/plugin.h"
#include "check.h"
#include "util.h"

struct run_policy {
  enum bench_tier tier;     /* which plugin defaults apply */
  int warmup_iters;         /* at least this many warm-up iterations */
  double warmup_s;          /* and at least this long */
  int min_samples, max_samples;
  double min_time_s, max_time_s; /* sampling time (warm-up excluded) */
  double target_cv;         /* stop when relative noise <= this (0.02 = 2%) */
  double batch_min_s;       /* batch iterations until a sample lasts this long (0: never) */
  enum verify_level verify;
  int determinism;          /* run twice, compare outputs bitwise */
  double timeout_s;         /* per case, whole child */
  double heartbeat_s;       /* events HEARTBEAT interval */
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

/* Parse a preset file. Every problem (syntax error, unknown section-less key
 * or [run] key, bad value, a line longer than inih reads, duplicate key) is
 * printed as "file:line: message"; returns 0, or -1 when there was any. Plugin
 * sections are kept as entries and checked later against the plugins
 * (cases.c), because only the plugin knows its parameters. */
int preset_load(const char *path, struct preset *out);
void preset_release(struct preset *p);

const char *tier_name(enum bench_tier t);
int tier_parse(const char *s, enum bench_tier *out);

#endif
