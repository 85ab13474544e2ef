/* Vector kernels over one row of floats, shared by the row-wise plugins
 * (cpu_rmsnorm, cpu_layernorm, cpu_softmax): AVX-512 intrinsics where the
 * CPU has them, else AVX2 + FMA intrinsics, else loops the compiler
 * vectorises.
 * Each reads its input once; a plugin calls the reductions on a row fetched
 * from memory and the writers on the same row, still in L1.
 *
 * Sums use several accumulators (a different order than a plain loop, the
 * same on every call), so results are reproducible. */
#ifndef BENCH_CPU_ROWOPS_H
#define BENCH_CPU_ROWOPS_H

#include <stdint.h>

/* The instruction set the row kernels use here: "avx512", "avx2" (AVX2 and
 * FMA) or "portable" (BENCH_CPU_ROWOPS=avx2 or =portable in the environment
 * caps it at that path). */
const char *cpu_rowops_isa(void);

float cpu_row_sum(const float *x, int64_t n);
float cpu_row_sumsq(const float *x, int64_t n);
/* sum (x_j - mean)^2; next: as for affine (below) */
float cpu_row_sqdev(const float *x, int64_t n, float mean, const float *next);
float cpu_row_max(const float *x, int64_t n);

/* y_j = (x_j - shift) * scale * w_j + b_j (w, b may be NULL: 1 and 0);
 * y may be x. stream: non-temporal stores (y goes to memory without being
 * read first); call cpu_stream_fence() after a thread's last row.
 * next: n floats to fetch into the caches meanwhile (the next row, so its
 * reads overlap this row's work), or NULL. */
void cpu_row_affine(float *y, const float *x, int64_t n, float shift, float scale,
                    const float *w, const float *b, int stream, const float *next);

/* y_j = e^(x_j - shift) with cpu_expf's steps (cpu_common.h: Cody-Waite
 * reduction, a degree-5 minimax polynomial on [-ln2/2, ln2/2]): measured max
 * relative error 1.9e-7, 3.2 units of 2^-24, against exp in double over 2^23
 * points of [-87.3, 0] on both paths (tests/cpu/test_cpu_rowops.c); the
 * argument is clamped below at -87.3; above 88.7 the AVX-512 path gives inf,
 * the portable one 2.4e38. Returns sum_j y_j. next: as for affine. */
float cpu_row_exp_sum(float *y, const float *x, int64_t n, float shift, const float *next);

/* Softmax's steps for two consecutive rows in one pass: cpu_row_exp_sum
 * (e, x, n, shift, next), and meanwhile the previous row's output y =
 * e_prev * scale, as cpu_row_affine(y, e_prev, n, 0, scale, NULL, NULL,
 * stream, NULL) gives it. y's stores, spread over the next row's exps,
 * overlap the arithmetic instead of following it. */
float cpu_row_exp_sum_scale(float *e, const float *x, int64_t n, float shift, const float *next,
                            float *y, const float *e_prev, float scale, int stream);

#endif
