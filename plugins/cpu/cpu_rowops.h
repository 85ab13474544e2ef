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

/* Choose the path for the calls that follow in this process: "widest" (as
 * capped by BENCH_CPU_ROWOPS), "avx512", "avx2" or "portable".
 * Returns the path's name, or NULL where this CPU cannot run it (nothing
 * changes then). A plugin's setup calls it with its `isa` parameter (a
 * tunable: on an AVX-512 Xeon the 8-lane path wrote cpu_layernorm's rows
 * faster on one thread and slower on two). */
const char *cpu_rowops_use(const char *isa);

/* The row plugins' `isa` parameter, and their setup's use of it: the path
 * chosen by cpu_rowops_use and recorded as the info `isa`; a path this CPU
 * lacks is skipped with the reason (BENCH_OK, or what host->skip returned). */
#define CPU_ROWOPS_ISA_PARAM                                                               \
  {.name = "isa", .type = BENCH_PARAM_STRING,                                              \
   .description = "row kernels' instruction set (widest = the widest this CPU runs)",      \
   .choices = "widest,avx512,avx2,portable",                                               \
   .defaults = {"widest", "widest", "widest", "widest"}, .tunable = 1,                     \
   .candidates = "widest,avx2"}
struct bench_host;
int cpu_rowops_setup(const struct bench_host *host);

float cpu_row_sum(const float *x, int64_t n);
float cpu_row_sumsq(const float *x, int64_t n);
/* sum (x_j - mean)^2; next: as for affine (below) */
float cpu_row_sqdev(const float *x, int64_t n, float mean, const float *next);
/* sum (x_j - c); c = 0 gives cpu_row_sum's result bit for bit */
float cpu_row_sumdev(const float *x, int64_t n, float c);
float cpu_row_max(const float *x, int64_t n);

/* y_j = (x_j - shift) * scale * w_j + b_j (w, b may be NULL: 1 and 0);
 * y may be x. stream: non-temporal stores (y goes to memory without being
 * read first); call cpu_stream_fence() after a thread's last row.
 * next: n floats to fetch into L2 meanwhile (the next row, so its reads
 * overlap this row's work), or NULL. Into L2, not L1: with x, w and b
 * there, a 4096-float row's next would overflow a 48 KiB L1 and push them
 * out (layernorm on the Ice Lake VM: 0.87 of copy prefetching into L1,
 * 0.94-0.99 into L2). */
void cpu_row_affine(float *y, const float *x, int64_t n, float shift, float scale,
                    const float *w, const float *b, int stream, const float *next);

/* The first two moments of a row about c in one pass: returns
 * cpu_row_sumdev(x, n, c) and sets *s2 = cpu_row_sqdev(x, n, c, NULL), bit
 * for bit. */
float cpu_row_moments(const float *x, int64_t n, float c, float *s2);

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
