/* Finding and loading plugins: every .so in the plugin folders, each checked
 * (loads, exports the entry, speaks our ABI major, declares what is required)
 * before it is used. A broken one costs one warning line, never the run. */
#ifndef BENCH_PLUGIN_LOADER_H
#define BENCH_PLUGIN_LOADER_H

#include <stddef.h>

#include "bench/plugin.h"

struct plugin {
  char *path;                      /* the .so as found */
  void *dl;                        /* dlopen handle */
  const struct bench_plugin *desc; /* our copy of its entry and params, in our layout (abi.h) */
  char sha256[65];                 /* of the file */
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

/* Load every plugin in dirs. Broken ones are reported with warning() as
 * "plugin FILE: problem" and counted in nbroken. Returns 0. */
int plugins_discover(char *const *dirs, size_t ndirs, struct plugin_set *out);
void plugin_set_release(struct plugin_set *s);
const struct plugin *plugin_set_find(const struct plugin_set *s, const char *name);

/* The folder holding the running executable (for relative lookups). */
char *exe_dir(void);

#endif
