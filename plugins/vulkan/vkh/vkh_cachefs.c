/* The Vulkan helpers' cache files (vkh_cachefs.h). */
#define _DEFAULT_SOURCE /* getrandom */
#include "vkh_cachefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int vkh_cache_top(char *buf, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') /* the XDG spec: a relative value is ignored */
    n = snprintf(buf, len, "%s/bench", xdg);
  else if (home && *home)
    n = snprintf(buf, len, "%s/.cache/bench", home);
  else
    return -1;
  return n > 0 && (size_t)n < len ? 0 : -1;
}

static int check(const struct stat *st, const char *path, int dir, char *why, size_t whylen) {
  const char *kind = dir ? "cache folder" : "cache file";
  if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) return VKH_CACHE_MISSING;
  if (st->st_uid != geteuid() && st->st_uid != 0) { /* root: as ssh */
    snprintf(why, whylen, "%s '%s' is owned by uid %ld, not by you (uid %ld)", kind, path,
             (long)st->st_uid, (long)geteuid());
    return VKH_CACHE_UNTRUSTED;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, whylen, "%s '%s' is writable by %s (mode %04o)", kind, path,
             st->st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st->st_mode & 07777));
    return VKH_CACHE_UNTRUSTED;
  }
  return VKH_CACHE_OK;
}

int vkh_cache_dir_ready(const char *top, const char *dir, int create, char *why, size_t whylen) {
  size_t ntop = strlen(top), n = strlen(dir);
  char p[1024];
  if (n >= sizeof p || strncmp(dir, top, ntop) != 0 || (dir[ntop] && dir[ntop] != '/'))
    return VKH_CACHE_MISSING;
  memcpy(p, dir, n + 1);
  for (size_t i = 1; create && i < ntop; i++) { /* the missing folders above top: 0700 */
    if (p[i] != '/') continue;
    p[i] = '\0';
    int bad = mkdir(p, 0700) != 0 && errno != EEXIST;
    p[i] = '/';
    if (bad) return VKH_CACHE_MISSING;
  }
  for (size_t i = ntop;; i++) { /* top, then each folder below it */
    if (p[i] && p[i] != '/') continue;
    char c = p[i];
    p[i] = '\0';
    struct stat st;
    if (stat(p, &st) != 0 && (errno != ENOENT || !create || mkdir(p, 0700) != 0 || stat(p, &st) != 0))
      return VKH_CACHE_MISSING;
    int rc = check(&st, p, 1, why, whylen);
    if (rc != VKH_CACHE_OK) return rc;
    p[i] = c;
    if (!c) return VKH_CACHE_OK;
  }
}

int vkh_cache_read(const char *path, size_t max, unsigned char **data, size_t *n, char *why,
                   size_t whylen) {
  *data = NULL;
  *n = 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ELOOP) return VKH_CACHE_MISSING;
    snprintf(why, whylen, "cache file '%s' is a symbolic link", path);
    return VKH_CACHE_UNTRUSTED;
  }
  struct stat st;
  int rc = fstat(fd, &st) == 0 ? check(&st, path, 0, why, whylen) : VKH_CACHE_MISSING;
  if (rc == VKH_CACHE_OK && (st.st_size <= 0 || (unsigned long long)st.st_size > max))
    rc = VKH_CACHE_MISSING;
  unsigned char *d = rc == VKH_CACHE_OK ? malloc((size_t)st.st_size) : NULL;
  size_t got = 0;
  while (d && got < (size_t)st.st_size) {
    ssize_t r = read(fd, d + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (rc != VKH_CACHE_OK) return rc;
  if (!d || got != (size_t)st.st_size) {
    free(d);
    return VKH_CACHE_MISSING;
  }
  *data = d;
  *n = got;
  return VKH_CACHE_OK;
}

/* A random name "<path>.tmp.<pid>.<12 letters>", created O_EXCL | O_NOFOLLOW. */
static int open_temp(const char *path, char *tmp, size_t len) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (int tries = 0; tries < 100; tries++) {
    unsigned char r[12];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
      struct timespec ts; /* no entropy yet: O_EXCL still refuses any planted name */
      clock_gettime(CLOCK_MONOTONIC, &ts);
      unsigned long long x = (unsigned long long)ts.tv_nsec * 6364136223846793005ull ^
                             (unsigned long long)getpid() ^ (unsigned long long)tries << 40;
      for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
        r[i] = (unsigned char)(x >> 56);
    }
    char name[sizeof r + 1];
    for (size_t i = 0; i < sizeof r; i++) name[i] = abc[r[i] % (sizeof abc - 1)];
    name[sizeof r] = '\0';
    int n = snprintf(tmp, len, "%s.tmp.%ld.%s", path, (long)getpid(), name);
    if (n <= 0 || (size_t)n >= len) return -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

int vkh_cache_write(const char *path, const void *const *parts, const size_t *lens, int nparts) {
  char tmp[1100];
  int fd = open_temp(path, tmp, sizeof tmp);
  if (fd < 0) return -1;
  int ok = 1;
  for (int i = 0; i < nparts && ok; i++)
    for (size_t off = 0; ok && off < lens[i];) {
      ssize_t w = write(fd, (const unsigned char *)parts[i] + off, lens[i] - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) ok = 0;
      else off += (size_t)w;
    }
  if (close(fd) != 0) ok = 0;
  if (ok && rename(tmp, path) == 0) return 0;
  unlink(tmp);
  return -1;
}
