/* A string-keyed hash map to size_t values, for lookups that must stay
 * linear in the input (preset sections and keys, events' case indexes). */
#ifndef BENCH_STRMAP_H
#define BENCH_STRMAP_H

#include <stddef.h>

struct strmap {
  size_t cap, n;        /* slots (a power of two, or 0), keys held */
  char **keys;          /* NULL: empty slot */
  size_t *values;
};
#define STRMAP_INIT {0, 0, NULL, NULL}

/* 1 and *value when key is present, else 0. */
int strmap_get(const struct strmap *m, const char *key, size_t *value);
/* Set key (copied) to value, replacing an existing value. */
void strmap_put(struct strmap *m, const char *key, size_t value);
void strmap_release(struct strmap *m);

#endif
