/* Tile sizes of the tiled GEMM: parse, name, derived sizes. */
#include "gemm_tile.h"

#include <stdio.h>

int gemm_tile_parse(const char *text, struct gemm_tile *t) {
  char end;
  if (sscanf(text, "%ux%ux%u_%ux%u%c", &t->bm, &t->bn, &t->bk, &t->tm, &t->tn, &end) != 5) return -1;
  if (!t->bm || !t->bn || !t->bk || !t->tm || !t->tn) return -1;
  if (t->bm % t->tm || t->bn % t->tn || t->tm * t->tn > 256) return -1;
  if (t->bm > 1024 || t->bn > 1024 || t->bk > 1024) return -1;
  return 0;
}

void gemm_tile_name(const struct gemm_tile *t, char *buf, size_t len) {
  snprintf(buf, len, "%ux%ux%u_%ux%u", t->bm, t->bn, t->bk, t->tm, t->tn);
}

uint32_t gemm_tile_threads(const struct gemm_tile *t) { return (t->bm / t->tm) * (t->bn / t->tn); }

uint32_t gemm_tile_shared_bytes(const struct gemm_tile *t) {
  return (t->bm + t->bn) * t->bk * (uint32_t)sizeof(float);
}
