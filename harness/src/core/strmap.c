/* Open addressing with linear probing, FNV-1a hashes, load at most 1/2. */
#include "core/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t slot_of(const struct strmap *m, const char *key) {
  size_t mask = m->cap - 1, i = (size_t)fnv1a(key) & mask;
  while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & mask;
  return i;
}

int strmap_get(const struct strmap *m, const char *key, size_t *value) {
  if (!m->cap) return 0;
  size_t i = slot_of(m, key);
  if (!m->keys[i]) return 0;
  *value = m->values[i];
  return 1;
}

static void grow(struct strmap *m) {
  struct strmap bigger = {m->cap ? 2 * m->cap : 16, m->n, NULL, NULL};
  bigger.keys = xcalloc(bigger.cap, sizeof *bigger.keys);
  bigger.values = xcalloc(bigger.cap, sizeof *bigger.values);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = slot_of(&bigger, m->keys[i]);
    bigger.keys[j] = m->keys[i];
    bigger.values[j] = m->values[i];
  }
  free(m->keys);
  free(m->values);
  *m = bigger;
}

void strmap_put(struct strmap *m, const char *key, size_t value) {
  if (2 * (m->n + 1) > m->cap) grow(m);
  size_t i = slot_of(m, key);
  if (!m->keys[i]) {
    m->keys[i] = xstrdup(key);
    m->n++;
  }
  m->values[i] = value;
}

void strmap_release(struct strmap *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->keys[i]);
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}
