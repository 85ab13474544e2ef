#include "plugin/plugin_select.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "core/util.h"

int plugins_load(const char *const *cli_dirs, size_t ncli, struct plugin_set *set) {
  char **dirs;
  size_t ndirs;
  memset(set, 0, sizeof *set);
  if (plugin_dirs(cli_dirs, ncli, &dirs, &ndirs) != 0) return -1;
  plugins_discover(dirs, ndirs, set);
  plugin_dirs_free(dirs, ndirs);
  return 0;
}

static char *known_names(const struct plugin_set *set) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < set->n; i++) {
    if (i) strbuf_adds(&sb, ", ");
    strbuf_adds(&sb, set->items[i].desc->name);
  }
  if (!set->n) strbuf_adds(&sb, "none");
  return strbuf_detach(&sb);
}

int plugins_select(const struct plugin_set *set, const char *const *patterns, size_t npatterns,
                   const struct plugin ***sel, size_t *nsel) {
  char *chosen = xcalloc(set->n ? set->n : 1, 1);
  int rc = 0;
  for (size_t i = 0; i < npatterns && rc == 0; i++) {
    char *copy = xstrdup(patterns[i]), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      trim(tok);
      if (!*tok) continue;
      int hit = 0;
      for (size_t j = 0; j < set->n; j++) {
        if (fnmatch(tok, set->items[j].desc->name, 0) == 0) {
          chosen[j] = 1;
          hit = 1;
        }
      }
      if (!hit) {
        /* a mistyped name (not a glob) gets the closest names found */
        struct strbuf mean = STRBUF_INIT;
        if (!strpbrk(tok, "*?[")) {
          const char **all = xcalloc(set->n + 1, sizeof *all);
          for (size_t j = 0; j < set->n; j++) all[j] = set->items[j].desc->name;
          suggest_add(&mean, tok, all, set->n, "");
          free(all);
        }
        char *names = known_names(set);
        rc = error("no plugin named '%s'%s (found: %s)", tok, mean.len ? mean.buf : "", names);
        free(names);
        strbuf_release(&mean);
        break;
      }
    }
    free(copy);
  }
  *sel = NULL;
  *nsel = 0;
  if (rc == 0) {
    *sel = xcalloc(set->n ? set->n : 1, sizeof **sel);
    for (size_t j = 0; j < set->n; j++)
      if (!npatterns || chosen[j]) (*sel)[(*nsel)++] = &set->items[j];
  }
  free(chosen);
  return rc;
}

int plugin_name_selected(const char *name, const char *const *patterns, size_t npatterns) {
  int hit = 0;
  for (size_t i = 0; i < npatterns && !hit; i++) {
    char *list = xstrdup(patterns[i]), *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
      hit = fnmatch(trim(tok), name, 0) == 0;
    free(list);
  }
  return hit;
}
