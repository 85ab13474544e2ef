/* The SPIR-V cache's files (see vkh_spirv_cache.h). Layout, native byte
 * order: "VKHSPV2\n", the key (64 hex digits: the file's own name), the word
 * bytes as a uint64, the SHA-256 of the key and the words, the words. */
#define _POSIX_C_SOURCE 200809L
#include "vkh_spirv_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkh_cachefs.h"
#include "vkh_sha256.h"

#define MAGIC "VKHSPV2\n"
#define KEY_BYTES 64
#define HEADER_BYTES (8 + KEY_BYTES + 8 + 32)
#define MAX_BYTES (16u << 20)
#define SPIRV_MAGIC 0x07230203u

int vkh_spirv_cache_path(const char *key, char *buf, size_t len, char *why, size_t whylen) {
  why[0] = '\0';
  const char *off = getenv("BENCH_NO_SPIRV_CACHE");
  if (off && *off && strcmp(off, "0") != 0) return -1;
  char top[640], dir[700];
  if (strlen(key) != KEY_BYTES || vkh_cache_top(top, sizeof top) != 0 ||
      snprintf(dir, sizeof dir, "%s/spirv", top) >= (int)sizeof dir)
    return -1;
  int rc = vkh_cache_dir_ready(top, dir, 1, why, whylen);
  if (rc == VKH_CACHE_UNTRUSTED) return -2;
  if (rc != VKH_CACHE_OK) return -1;
  int n = snprintf(buf, len, "%s/%s.spv", dir, key);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

static void digest(const char *key, const void *words, size_t bytes, unsigned char md[32]) {
  struct vkh_sha256 s;
  vkh_sha256_init(&s);
  vkh_sha256_add(&s, key, KEY_BYTES);
  vkh_sha256_add(&s, words, bytes);
  vkh_sha256_done(&s, md);
}

uint32_t *vkh_spirv_cache_read(const char *path, const char *key, size_t *bytes, int *corrupt,
                               char *why, size_t whylen) {
  *bytes = 0;
  *corrupt = 0;
  unsigned char *d;
  size_t got;
  int rc = vkh_cache_read(path, MAX_BYTES + HEADER_BYTES, &d, &got, why, whylen);
  if (rc != VKH_CACHE_OK) {
    *corrupt = rc == VKH_CACHE_UNTRUSTED ? -1 : 0;
    return NULL;
  }
  *corrupt = 1;
  uint64_t n = 0;
  uint32_t first = 0;
  if (got > HEADER_BYTES) memcpy(&n, d + 8 + KEY_BYTES, sizeof n);
  /* the key a run of this user computed, not only a checksum: a file renamed
   * over another key's name is not this compilation's */
  if (n >= 4 && n % 4 == 0 && n == got - HEADER_BYTES && memcmp(d, MAGIC, 8) == 0 &&
      memcmp(d + 8, key, KEY_BYTES) == 0)
    memcpy(&first, d + HEADER_BYTES, 4);
  unsigned char md[32];
  if (first == SPIRV_MAGIC) digest(key, d + HEADER_BYTES, (size_t)n, md);
  if (first != SPIRV_MAGIC || memcmp(md, d + 8 + KEY_BYTES + 8, 32) != 0) {
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

int vkh_spirv_cache_write(const char *path, const char *key, const uint32_t *words, size_t bytes) {
  if (bytes == 0 || bytes > MAX_BYTES || strlen(key) != KEY_BYTES) return -1;
  unsigned char head[HEADER_BYTES];
  uint64_t n = bytes;
  memcpy(head, MAGIC, 8);
  memcpy(head + 8, key, KEY_BYTES);
  memcpy(head + 8 + KEY_BYTES, &n, sizeof n);
  digest(key, words, bytes, head + 8 + KEY_BYTES + 8);
  const void *parts[2] = {head, words};
  const size_t lens[2] = {sizeof head, bytes};
  return vkh_cache_write(path, parts, lens, 2);
}
