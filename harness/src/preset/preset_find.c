/* Finding a preset: a path as given, or a shipped name looked up in the
 * preset folders. */
#include "preset/preset.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_readable_file(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return 0;
  }
  return access(path, R_OK) == 0;
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "perf, smoke, standard, verify": the *.ini names in dirs, sorted, once each. */
static char *available_names(const char *const *dirs, size_t ndirs) {
  char **names = NULL;
  size_t n = 0;
  for (size_t d = 0; d < ndirs; d++) {
    DIR *dir = opendir(dirs[d]);
    if (!dir) continue;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
      size_t len = strlen(e->d_name);
      if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.') continue;
      names = xrealloc(names, (n + 1) * sizeof *names);
      names[n++] = xstrndup(e->d_name, len - 4);
    }
    closedir(dir);
  }
  if (n) qsort(names, n, sizeof *names, str_cmp);
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (!i || strcmp(names[i], names[i - 1]) != 0)
      strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", names[i]);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return strbuf_detach(&sb);
}

char *preset_resolve(const char *arg, const char *const *dirs, size_t ndirs) {
  size_t len = strlen(arg);
  if (strchr(arg, '/') || (len >= 4 && strcmp(arg + len - 4, ".ini") == 0)) {
    if (!is_readable_file(arg)) {
      error("cannot read preset '%s': %s", arg, strerror(errno));
      return NULL;
    }
    return xstrdup(arg);
  }
  if (!len) {
    error("empty preset name");
    return NULL;
  }
  for (size_t d = 0; d < ndirs; d++) {
    char *path = xasprintf("%s/%s.ini", dirs[d], arg);
    if (is_readable_file(path)) return path;
    free(path);
  }
  char *names = available_names(dirs, ndirs);
  if (*names) {
    error("unknown preset '%s' (available: %s; or give a path to an .ini file)", arg, names);
  } else {
    struct strbuf sb = STRBUF_INIT;
    for (size_t d = 0; d < ndirs; d++) strbuf_addf(&sb, "%s%s", d ? ", " : "", dirs[d]);
    error("unknown preset '%s' (no presets found in %s)", arg, ndirs ? sb.buf : "any folder");
    strbuf_release(&sb);
  }
  free(names);
  return NULL;
}
