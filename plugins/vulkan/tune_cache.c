/* The tuning cache of vk_gemm_auto: a TSV file, atomic rewrites. */
#define _POSIX_C_SOURCE 200809L
#include "tune_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024

int tune_cache_path(const char *file, char *buf, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') /* the XDG spec: a relative value is ignored */
    n = snprintf(buf, len, "%s/bench/%s", xdg, file);
  else if (home && *home)
    n = snprintf(buf, len, "%s/.cache/bench/%s", home, file);
  else
    return -1;
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The key of a line: up to its first tab. */
static int line_has_key(const char *line, const char *key) {
  size_t k = strlen(key);
  return strncmp(line, key, k) == 0 && line[k] == '\t';
}

int tune_cache_get(const char *path, const char *key, char *variant, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[LINE_MAX_LEN];
  int found = -1;
  while (fgets(line, sizeof line, f)) {
    if (!line_has_key(line, key)) continue;
    const char *v = line + strlen(key) + 1;
    size_t n = strcspn(v, "\t\n");
    if (n == 0 || n >= len) continue;
    memcpy(variant, v, n);
    variant[n] = '\0';
    found = 0; /* the last line for a key wins */
  }
  fclose(f);
  return found;
}

/* mkdir -p of the folder holding path. */
static int make_parents(const char *path, char *err, size_t errlen) {
  char dir[LINE_MAX_LEN];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return 0;
  *slash = '\0';
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
      return -1;
    }
    *p = c;
    if (c == '\0') break;
  }
  return 0;
}

int tune_cache_put(const char *path, const char *key, const char *variant, double ns, char *err,
                   size_t errlen) {
  if (make_parents(path, err, errlen) != 0) return -1;
  char tmp[LINE_MAX_LEN + 32];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *out = fopen(tmp, "w");
  if (!out) {
    snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    return -1;
  }
  FILE *in = fopen(path, "r");
  char line[LINE_MAX_LEN];
  int ok = 1;
  if (in) {
    while (fgets(line, sizeof line, in))
      if (!line_has_key(line, key) && strchr(line, '\n')) ok &= fputs(line, out) >= 0;
    fclose(in);
  }
  ok &= fprintf(out, "%s\t%s\t%.0f\t%lld\n", key, variant, ns, (long long)time(NULL)) > 0;
  ok &= fflush(out) == 0 && fsync(fileno(out)) == 0;
  ok &= fclose(out) == 0;
  if (!ok || rename(tmp, path) != 0) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}
