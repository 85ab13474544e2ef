/* Which of the discovered plugins a command works on: --plugin names,
 * comma lists and shell globs (hip_*), or all of them. */
#ifndef BENCH_PLUGIN_SELECT_H
#define BENCH_PLUGIN_SELECT_H

#include "plugin/plugin_loader.h"

/* Load the plugin folders of the options and discover plugins. 0, or -1
 * after error() (a --plugin-dir that does not exist). */
int plugins_load(const char *const *cli_dirs, size_t ncli, struct plugin_set *set);

/* Fill *sel with pointers into set, in set order, for the patterns given
 * (every plugin when npatterns == 0). A pattern matching nothing is an
 * error naming the plugins found. */
int plugins_select(const struct plugin_set *set, const char *const *patterns, size_t npatterns,
                   const struct plugin ***sel, size_t *nsel);

/* Whether name matches one of the patterns (comma lists, globs); a
 * pattern matching nothing is no error here (a side of ab may lack it). */
int plugin_name_selected(const char *name, const char *const *patterns, size_t npatterns);

#endif
