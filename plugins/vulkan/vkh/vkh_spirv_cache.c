/* The SPIR-V cache's files (see vkh_spirv_cache.h). Layout, native byte
 * order: "VKHSPV1\n", the word bytes as a uint64, their SHA-256, the words. */
#define _POSIX_C_SOURCE 200809L
#include "vkh_spirv_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vkh_sha256.h"

#define MAGIC "VKHSPV1\n"
#define HEADER_BYTES (8 + 8 + 32)
#define MAX_BYTES (16u << 20)
#define SPIRV_MAGIC 0x07230203u

int vkh_spirv_cache_path(const char *key, char *buf, size_t len) {
  const char *off = getenv("BENCH_NO_SPIRV_CACHE");
  if (off && *off && strcmp(off, "0") != 0) return -1;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') /* the XDG spec: a relative value is ignored */
    n = snprintf(buf, len, "%s/bench/spirv/%s.spv", xdg, key);
  else if (home && *home)
    n = snprintf(buf, len, "%s/.cache/bench/spirv/%s.spv", home, key);
  else
    return -1;
  return n > 0 && (size_t)n < len ? 0 : -1;
}

uint32_t *vkh_spirv_cache_read(const char *path, size_t *bytes, int *corrupt) {
  *bytes = 0;
  *corrupt = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NULL;
  *corrupt = 1;
  struct stat st;
  unsigned char *d = NULL;
  size_t got = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > HEADER_BYTES &&
      (unsigned long long)st.st_size <= MAX_BYTES + HEADER_BYTES)
    d = malloc((size_t)st.st_size);
  while (d && got < (size_t)st.st_size) {
    ssize_t r = read(fd, d + got, (size_t)st.st_size - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  uint64_t n = 0;
  if (d && got == (size_t)st.st_size) memcpy(&n, d + 8, sizeof n);
  uint32_t first = 0;
  if (n >= 4 && n % 4 == 0 && n == got - HEADER_BYTES && memcmp(d, MAGIC, 8) == 0)
    memcpy(&first, d + HEADER_BYTES, 4);
  unsigned char md[32];
  if (first == SPIRV_MAGIC) {
    struct vkh_sha256 s;
    vkh_sha256_init(&s);
    vkh_sha256_add(&s, d + HEADER_BYTES, (size_t)n);
    vkh_sha256_done(&s, md);
  }
  if (first != SPIRV_MAGIC || memcmp(md, d + 16, 32) != 0) {
    free(d);
    return NULL;
  }
  uint32_t *words = malloc((size_t)n);
  if (words) memcpy(words, d + HEADER_BYTES, (size_t)n);
  free(d);
  if (!words) return NULL;
  *corrupt = 0;
  *bytes = (size_t)n;
  return words;
}

/* mkdir -p of the folder holding path. */
static int make_parents(const char *path) {
  char dir[600];
  if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return -1;
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return 0;
  *slash = '\0';
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
    *p = c;
    if (c == '\0') break;
  }
  return 0;
}

int vkh_spirv_cache_write(const char *path, const uint32_t *words, size_t bytes) {
  if (bytes == 0 || bytes > MAX_BYTES || make_parents(path) != 0) return -1;
  unsigned char head[HEADER_BYTES];
  uint64_t n = bytes;
  memcpy(head, MAGIC, 8);
  memcpy(head + 8, &n, sizeof n);
  struct vkh_sha256 s;
  vkh_sha256_init(&s);
  vkh_sha256_add(&s, words, bytes);
  vkh_sha256_done(&s, head + 16);
  char tmp[700];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  int ok = 1;
  const unsigned char *parts[2] = {head, (const unsigned char *)words};
  const size_t lens[2] = {sizeof head, bytes};
  for (int i = 0; i < 2 && ok; i++)
    for (size_t off = 0; ok && off < lens[i];) {
      ssize_t w = write(fd, parts[i] + off, lens[i] - off);
      if (w <= 0) ok = 0;
      else off += (size_t)w;
    }
  if (close(fd) != 0) ok = 0;
  if (ok && rename(tmp, path) == 0) return 0;
  unlink(tmp);
  return -1;
}
