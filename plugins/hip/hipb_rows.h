/* What the row-wise HIP plugins (rmsnorm, layernorm, softmax) share: their
 * parameters, the choice of kernel shape by row length, and the dtype and
 * wave-size dispatch. Each row is reduced by one wave (W lanes,
 * hipb_shfl_xor; W = 64 on CDNA, 32 on RDNA and NVIDIA) when it is short
 * enough for its values to stay in registers, else by one block of 256
 * threads (waves, then LDS, then one wave).
 *
 *   cols <= 256    ROWS_WAVE256:  a wave per row, 256/W values per lane
 *   cols <= 1024   ROWS_WAVE1024: a wave per row, 1024/W values per lane
 *   longer         ROWS_BLOCK:    a block per row, re-reading the row from
 *                  memory (L2) for each pass
 * The shape depends on the row length only, the same on every GPU; a
 * wave-per-row block of 256 threads holds 256/W rows. */
#ifndef HIPB_ROWS_H
#define HIPB_ROWS_H

#include <stdio.h>

#include "hipb.h"

#define ROWS_THREADS 256

enum rows_shape { ROWS_WAVE256, ROWS_WAVE1024, ROWS_BLOCK };

/* The most row values a wave-per-row shape holds (VALS per lane x W). */
#define ROWS_WAVE_COLS(shape) ((shape) == ROWS_WAVE256 ? 256 : 1024)

static inline enum rows_shape rows_shape_of(int64_t cols) {
  return cols <= 256 ? ROWS_WAVE256 : cols <= 1024 ? ROWS_WAVE1024 : ROWS_BLOCK;
}

/* "wave64 per row, 4 values per lane" (buf of 64). */
static inline const char *rows_shape_name(enum rows_shape s, int wave, char *buf, size_t size) {
  if (s == ROWS_BLOCK)
    snprintf(buf, size, "block of 256 per row (wave%d reductions)", wave);
  else
    snprintf(buf, size, "wave%d per row, %d values per lane", wave, ROWS_WAVE_COLS(s) / wave);
  return buf;
}

static inline dim3 rows_grid(enum rows_shape s, int64_t rows, int wave) {
  const int64_t per_block = ROWS_THREADS / wave;
  return dim3(s == ROWS_BLOCK ? (unsigned)rows : (unsigned)((rows + per_block - 1) / per_block));
}

/* The row of this thread's wave in a wave-per-row kernel. */
template <int W> __device__ inline int64_t rows_wave_row(void) {
  return (int64_t)blockIdx.x * (ROWS_THREADS / W) + threadIdx.x / W;
}

/* Call fn<T>(args...) for the case's dtype: float, hipb_f16 or hipb_bf16. */
#define ROWS_DISPATCH(dtype, fn, ...)                                          \
  ((dtype) == BENCH_F16    ? fn<hipb_f16>(__VA_ARGS__)                         \
   : (dtype) == BENCH_BF16 ? fn<hipb_bf16>(__VA_ARGS__)                        \
                           : fn<float>(__VA_ARGS__))

/* The parameters of the row-wise plugins: <bench/params.h>'s declarations
 * (BENCH_PARAM_ROWS, _COLS, _RMSNORM_EPS, ...) with these defaults: the
 * shapes of the cpu and vulkan plugins first (results line up), then one
 * for each kernel shape (cols <= 256 and <= 1024: a wave per row). Each is
 * the four tiers' defaults, for BENCH_PARAM_*(ROWS_DEFAULTS_*) through
 * ROWS_PARAM. */
#define ROWS_DEFAULTS_ROWS "7,64,64", "4096", "1024,16384", "1,3,17,5,33,2,9"
#define ROWS_DEFAULTS_COLS "1000,4096,128", "4096", "4096,4096", "1,7,1000,4099,65,257,1025"
#define ROWS_DEFAULTS_DTYPE "f32,f16,bf16", "f32,bf16", "f32,bf16", "f32,f16,bf16"
#define ROWS_DEFAULTS_EPS "1e-5", "1e-5", "1e-5", "1e-5"
/* ROWS_PARAM(BENCH_PARAM_ROWS, ROWS_DEFAULTS_ROWS): the declaration with
 * the defaults expanded into its four arguments. */
#define ROWS_PARAM(decl, ...) decl(__VA_ARGS__)
#define ROWS_PARAM_DTYPE                                                                   \
  ROWS_PARAM(BENCH_PARAM_DTYPE, "element type of input, weights and output (fp32 arithmetic)", \
             "f32,f16,bf16", ROWS_DEFAULTS_DTYPE)

#endif
