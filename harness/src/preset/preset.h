/* Presets: INI files (parsed with inih) that set the run policy and may
 * override plugins' parameters. */
#ifndef BENCH_PRESET_H
#define BENCH_PRESET_H

#include <stddef.h>

#include "bench/plugin.h"
#include "core/util.h"
#include "preset/diag.h"
#include "preset/run_schema.h"
#include "preset/values.h"

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
 * inih reads (INI_MAX_LINE - 1 = 199 characters), a duplicate key or
 * section, an empty item in a plugin section's list) is printed, in line order, as "file:line:
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


#endif
