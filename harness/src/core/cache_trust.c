/* Cache folders and files only the user can write (cache_trust.h). */
#include "core/cache_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/term.h"

/* The rule for what stat says of path: CACHE_OK or CACHE_UNTRUSTED. */
static int check_stat(const struct stat *st, const char *path, int want_dir, char *why,
                      size_t whylen) {
  const char *kind = want_dir ? "cache folder" : "cache file";
  if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) {
    snprintf(why, whylen, "%s '%s' is not a %s", kind, term_str(path),
             want_dir ? "folder" : "regular file");
    errno = want_dir ? ENOTDIR : EINVAL;
    return CACHE_MISSING; /* unusable, but nobody else's doing: nothing to say */
  }
  if (st->st_uid != geteuid() && st->st_uid != 0) { /* root may write anything anyway (ssh: likewise) */
    snprintf(why, whylen, "%s '%s' is owned by uid %ld, not by you (uid %ld)", kind,
             term_str(path), (long)st->st_uid, (long)geteuid());
    return CACHE_UNTRUSTED;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, whylen, "%s '%s' is writable by %s (mode %04o; chmod go-w makes it usable)",
             kind, term_str(path), st->st_mode & S_IWOTH ? "others" : "its group",
             (unsigned)(st->st_mode & 07777));
    return CACHE_UNTRUSTED;
  }
  return CACHE_OK;
}

/* One folder: made when missing (create), then checked. */
static int one_dir(const char *path, int create, char *why, size_t whylen) {
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno != ENOENT || !create || mkdir(path, 0700) != 0 || stat(path, &st) != 0) {
      int e = errno;
      snprintf(why, whylen, "cannot %s folder '%s': %s", create ? "create" : "read",
               term_str(path), strerror(e));
      errno = e;
      return CACHE_MISSING;
    }
  }
  return check_stat(&st, path, 1, why, whylen);
}

int cache_dir_ready(const char *top, const char *dir, int create, char *why, size_t whylen) {
  size_t ntop = strlen(top);
  if (strncmp(dir, top, ntop) != 0 || (dir[ntop] && dir[ntop] != '/')) {
    snprintf(why, whylen, "'%s' is not below the cache folder '%s' (a bench bug)", term_str(dir),
             term_str(top));
    return CACHE_UNTRUSTED;
  }
  char *p = xstrdup(dir);
  int rc = CACHE_OK;
  /* the folders above top that are missing: made 0700, not checked (the user's own) */
  for (char *s = p + 1; create && s < p + ntop; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
      int e = errno;
      snprintf(why, whylen, "cannot create folder '%s': %s", term_str(p), strerror(e));
      errno = e;
      rc = CACHE_MISSING;
    }
    *s = '/';
    if (rc) break;
  }
  /* top, then each folder below it */
  for (char *s = p + ntop; rc == CACHE_OK; s++) {
    if (*s && *s != '/') continue;
    char c = *s;
    *s = '\0';
    if (strlen(p) >= ntop && p[0]) rc = one_dir(p, create, why, whylen);
    *s = c;
    if (!c) break;
  }
  free(p);
  return rc;
}

int cache_fd_check(int fd, const char *path, char *why, size_t whylen) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(why, whylen, "cache file '%s': %s", term_str(path), strerror(errno));
    return CACHE_UNTRUSTED;
  }
  return check_stat(&st, path, 0, why, whylen);
}

int cache_file_open(const char *path, int *trust, char *why, size_t whylen) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    *trust = CACHE_MISSING;
    if (e == ELOOP) {
      snprintf(why, whylen, "cache file '%s' is a symbolic link", term_str(path));
      *trust = CACHE_UNTRUSTED;
    } else {
      snprintf(why, whylen, "%s: %s", path, strerror(e));
    }
    errno = e;
    return -1;
  }
  *trust = cache_fd_check(fd, path, why, whylen);
  if (*trust != CACHE_OK) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int cache_file_load(const char *path, size_t cap, struct strbuf *sb, char *why, size_t whylen) {
  strbuf_reset(sb);
  strbuf_adds(sb, "");
  int trust;
  int fd = cache_file_open(path, &trust, why, whylen);
  if (fd < 0) return trust;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      snprintf(why, whylen, "%s: %s", path, strerror(e));
      close(fd);
      errno = e;
      return CACHE_MISSING;
    }
    if (n == 0) break;
    if (sb->len + (size_t)n > cap) {
      snprintf(why, whylen, "%s: larger than %zu bytes", path, cap);
      close(fd);
      errno = EFBIG;
      return CACHE_MISSING;
    }
    strbuf_add(sb, buf, (size_t)n);
  }
  close(fd);
  return CACHE_OK;
}

int cache_tempfile_open(struct tempfile *t, const char *path) {
  if (tempfile_open(t, path) != 0) return -1;
  if (fchmod(t->fd, 0600) != 0) {
    int e = errno;
    tempfile_rollback(t);
    errno = e;
    return -1;
  }
  return 0;
}

#define WARNED_MAX 16
static char *warned[WARNED_MAX];
static size_t nwarned;

void cache_untrusted_warn(const char *why) {
  for (size_t i = 0; i < nwarned; i++)
    if (strcmp(warned[i], why) == 0) return;
  if (nwarned < WARNED_MAX) warned[nwarned++] = xstrdup(why);
  warning("not using the cache: %s; running without it", why);
}
