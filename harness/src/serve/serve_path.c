/* bench serve's files beneath the results folder (serve_path.h). */
#include "serve/serve_path.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const struct {
  const char *ext, *type;
} types[] = {
    {".json", "application/json; charset=utf-8"},
    {".jsonl", "application/x-ndjson; charset=utf-8"},
    {".txt", "text/plain; charset=utf-8"},
    {".csv", "text/csv; charset=utf-8"},
    {".md", "text/plain; charset=utf-8"},
};

const char *serve_path_type(const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    size_t e = strlen(types[i].ext);
    if (n > e && strcmp(name + n - e, types[i].ext) == 0) return types[i].type;
  }
  return NULL;
}

static int segment_ok(const char *s, size_t n) {
  if (n == 0 || s[0] == '.') return 0; /* "", ".", "..", hidden files */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f || c == '\\' || c == ':') return 0;
  }
  return 1;
}

int serve_path_open(const char *root, const char *rel, int *fd, struct stat *st) {
  size_t len = strlen(rel);
  if (len == 0 || len > SERVE_PATH_MAX || rel[0] == '/') return -1;
  /* check every segment before opening anything */
  int depth = 0;
  const char *last = rel;
  for (const char *p = rel;;) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (!segment_ok(p, n) || ++depth > SERVE_PATH_DEPTH) return -1;
    last = p;
    if (!slash) break;
    p = slash + 1;
  }
  if (!serve_path_type(last)) return -1;
  int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return -1;
  char seg[SERVE_PATH_MAX + 1];
  for (const char *p = rel;;) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    memcpy(seg, p, n);
    seg[n] = '\0';
    int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (slash ? O_DIRECTORY : O_NONBLOCK);
    int next = openat(dfd, seg, flags);
    close(dfd);
    if (next < 0) return -1;
    dfd = next;
    if (!slash) break;
    p = slash + 1;
  }
  if (fstat(dfd, st) != 0 || !S_ISREG(st->st_mode)) {
    close(dfd);
    return -1;
  }
  *fd = dfd;
  return 0;
}
