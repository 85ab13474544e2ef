/* Tile sizes of the tiled GEMM kernel (shaders/gemm_tiled.comp), shared by
 * vk_gemm_tiled (specialisation constants) and vk_gemm_auto (variants
 * compiled at run time). Written "BMxBNxBK_TMxTN", e.g. "64x64x8_4x4": a
 * workgroup computes BM x BN of C in steps of BK, each invocation TM x TN. */
#ifndef GEMM_TILE_H
#define GEMM_TILE_H

#include <stddef.h>
#include <stdint.h>

struct gemm_tile {
  uint32_t bm, bn, bk, tm, tn;
};

/* 0, or -1 when the text is malformed or the sizes do not divide. */
int gemm_tile_parse(const char *text, struct gemm_tile *t);
void gemm_tile_name(const struct gemm_tile *t, char *buf, size_t len);
uint32_t gemm_tile_threads(const struct gemm_tile *t); /* (BM/TM)*(BN/TN) */
uint32_t gemm_tile_shared_bytes(const struct gemm_tile *t); /* (BM+BN)*BK floats */

#endif
