/* What the row-wise HIP plugins (rmsnorm, layernorm, softmax) share: their
 * parameters, the choice of kernel shape by row length, and the dtype
 * dispatch. Each row is reduced by one wave (64 lanes, __shfl_xor) when it
 * is short enough for its values to stay in registers, else by one block
 * of 256 threads (waves, then LDS, then one wave).
 *
 *   cols <= 256    ROWS_WAVE4:  a wave per row, 4 values per lane in registers
 *   cols <= 1024   ROWS_WAVE16: a wave per row, 16 values per lane
 *   longer         ROWS_BLOCK:  a block per row, re-reading the row from
 *                  memory (L2) for each pass
 * A wave-per-row block holds 4 rows (256 threads). */
#ifndef HIPB_ROWS_H
#define HIPB_ROWS_H

#include "hipb.h"

#define ROWS_THREADS 256
#define ROWS_PER_BLOCK (ROWS_THREADS / HIPB_WAVE)

enum rows_shape { ROWS_WAVE4, ROWS_WAVE16, ROWS_BLOCK };

static inline enum rows_shape rows_shape_of(int64_t cols) {
  return cols <= 4 * HIPB_WAVE ? ROWS_WAVE4 : cols <= 16 * HIPB_WAVE ? ROWS_WAVE16 : ROWS_BLOCK;
}

static inline const char *rows_shape_name(enum rows_shape s) {
  return s == ROWS_WAVE4    ? "wave per row, 4 values per lane"
         : s == ROWS_WAVE16 ? "wave per row, 16 values per lane"
                            : "block of 256 per row";
}

static inline dim3 rows_grid(enum rows_shape s, int64_t rows) {
  return dim3(s == ROWS_BLOCK ? (unsigned)rows : (unsigned)((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK));
}

/* The row of this thread's wave in a wave-per-row kernel. */
__device__ inline int64_t rows_wave_row(void) {
  return (int64_t)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / HIPB_WAVE;
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
