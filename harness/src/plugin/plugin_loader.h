/* Finding and loading plugins: every .so in the plugin folders, each checked
 * (loads, exports the entry, speaks our ABI major, declares what is required)
 * before it is used. A broken one costs one warning line, never the run.
 * Discovery never loads a plugin in this process: a file is scanned in a
 * child, and only when the scan cache (scan_cache.h) has nothing for its
 * key; the process that runs a plugin opens it with plugin_open(). */
#ifndef BENCH_PLUGIN_LOADER_H
#define BENCH_PLUGIN_LOADER_H

#include <stddef.h>

#include "bench/plugin.h"
#include "plugin/scan_cache.h"

struct plugin {
  char *path;                      /* the .so as found */
  void *dl;                        /* dlopen handle: NULL until plugin_open() */
  const struct bench_plugin *desc; /* our copy of its entry and params, in our layout (abi.h);
                                      before plugin_open() its callbacks are stand-ins that
                                      are present where the plugin's are, never to be called */
  char sha256[65];                 /* of the file */
  struct scan_key key;             /* the file as scanned */
};

struct plugin_set {
  size_t n;
  struct plugin *items;  /* sorted by name */
  size_t nbroken;        /* .so files refused (each reported once) */
};

/* The folders searched, in order: each --plugin-dir, each entry of
 * BENCH_PLUGIN_PATH, then the default folder next to the executable
 * (<prefix>/<libdir>/bench/plugins: the build tree and the install share the
 * layout). A --plugin-dir that does not exist is an error (-1); a missing
 * BENCH_PLUGIN_PATH entry is a warning. */
int plugin_dirs(const char *const *cli_dirs, size_t ncli, char ***dirs, size_t *ndirs);
void plugin_dirs_free(char **dirs, size_t ndirs);

/* How discovery uses the scan cache: rescan (--rescan: scan every file and
 * rewrite the cache), verbose (a note when the cache cannot be used).
 * BENCH_NO_SCAN_CACHE=1 in the environment leaves the cache alone. */
void plugin_scan_configure(int rescan, int verbose);
/* Whether the cache is in use this run (not --rescan, not BENCH_NO_SCAN_CACHE). */
int plugin_scan_cache_on(void);
int plugin_scan_rescan(void);

/* Discover every plugin in dirs (from the scan cache, or by a scan in a
 * child). Broken ones are reported with warning() as "plugin FILE: problem"
 * and counted in nbroken. Returns 0. */
int plugins_discover(char *const *dirs, size_t ndirs, struct plugin_set *out);

/* In the process that runs pl (a worker, a case's child, a probe): load
 * the file, check that it is still the file that was scanned (its key),
 * and copy its entry. *out is pl with the real entry (free with
 * plugin_close). 0, or -1 with one line in msg naming the file. */
int plugin_open(const struct plugin *pl, struct plugin *out, char *msg, size_t len);
void plugin_close(struct plugin *p);
void plugin_set_release(struct plugin_set *s);
const struct plugin *plugin_set_find(const struct plugin_set *s, const char *name);

/* The folder holding the running executable (for relative lookups). */
char *exe_dir(void);

#endif
