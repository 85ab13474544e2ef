/* mkdir -p, said once for every folder the harness makes. */
#include "core/dirs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"

static int refuse(const char *path, const char *purpose, int e) {
  return error("cannot create folder '%s'%s%s: %s", path, purpose ? " for " : "",
               purpose ? purpose : "", strerror(e));
}

int make_dirs(const char *path, const char *purpose) {
  if (!path || !*path)
    return error("the %s%sfolder name is empty", purpose ? purpose : "", purpose ? " " : "");
  char *p = xstrdup(path);
  int rc = 0;
  for (char *s = p + 1; *s && !rc; s++) { /* every parent, then path itself */
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) rc = refuse(p, purpose, errno);
    *s = '/';
  }
  if (!rc && mkdir(p, 0777) != 0 && errno != EEXIST) rc = refuse(p, purpose, errno);
  free(p);
  if (rc) return -1;
  struct stat st;
  if (stat(path, &st) != 0) return refuse(path, purpose, errno);
  if (!S_ISDIR(st.st_mode)) return refuse(path, purpose, ENOTDIR);
  return 0;
}
