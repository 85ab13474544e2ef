/* The harness's one CPU reference per operation, computed in double from the
 * inputs exactly as the plugin gave them (read with dtype_load).
 *
 * Every output is seen as a matrix of rows x cols elements (the operation
 * table's shape, operation.h), row-major, matching the output buffer:
 *   gemm       m x n (A and B in either layout, see BENCH_GEMM_TRANS_A/B)
 *   copy, fill, add   n x 1 (element i is row i)
 *   rmsnorm, layernorm, softmax, rope   rows x cols
 *   attention  (batch*heads*seq) x head_dim; row r is (b, h, s) with
 *              r = (b*heads + h)*seq + s
 * Besides the value, each element gets a "scale" >= |value|: the magnitude
 * the rounding errors of a correct fp32 computation are proportional to.
 * check.c turns it into the tolerance atol + rtol * scale and documents the
 * rule per operation; the definitions are in reference.c.
 *
 * These functions expect a check that has been validated (known op,
 * non-NULL inputs, positive dims, one rope layout, ...); they do not
 * validate it again. */
#ifndef BENCH_REFERENCE_H
#define BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"

/* The output seen as rows x cols (the operation table's shape); 0 for an
 * unknown op. */
int64_t ref_rows(const struct bench_check *c);
int64_t ref_cols(const struct bench_check *c);

/* Reference of output rows [row0, row0 + nrows) of the operation c->op
 * names (through the operation table): ref and scale each receive
 * nrows * cols doubles (scale may be NULL). For gemm a row costs O(n*k)
 * after an O(k*n) conversion of B per call; for attention a row costs
 * O(seq*head_dim) after the RoPE of the keys it needs. Nothing for an
 * unknown op. */
void ref_compute_rows(const struct bench_check *c, int64_t row0, int64_t nrows,
                      double *ref, double *scale);

/* Whole output: ref_compute_rows over every row. */
void ref_compute(const struct bench_check *c, double *ref, double *scale);

/* The reference function of each operation (the table's `reference`),
 * with the arguments of ref_compute_rows. */
void ref_gemm_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                   double *scale);
void ref_rmsnorm_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                      double *scale);
void ref_layernorm_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                        double *scale);
void ref_softmax_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                      double *scale);
void ref_rope_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                   double *scale);
void ref_attention_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                        double *scale);
void ref_copy_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                   double *scale);
void ref_fill_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                   double *scale);
void ref_add_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                  double *scale);

/* gemm only: C[i, j] and its scale sum_k |a_ik||b_kj| for each flat index
 * idx[t] = i*n + j; O(k) each. scale may be NULL. */
void ref_gemm_elements(const struct bench_check *c, const int64_t *idx, size_t count,
                       double *ref, double *scale);

/* gemm only: row i of A (k values) and elements [j0, j0 + w) of row kk of
 * B, as doubles, whatever the layout flags say. */
/* Flat index of A[i][kk] and of B[kk][j] in their buffers (either layout). */
int64_t ref_gemm_a_index(const struct bench_check *c, int64_t i, int64_t kk);
int64_t ref_gemm_b_index(const struct bench_check *c, int64_t kk, int64_t j);
void ref_gemm_a_row(const struct bench_check *c, int64_t i, double *dst);
void ref_gemm_b_row(const struct bench_check *c, int64_t kk, int64_t j0, int64_t w, double *dst);

/* RoPE of one head vector x[0..d) at position pos (theta: 0 means 10000;
 * flags: BENCH_ROPE_INTERLEAVED or BENCH_ROPE_HALVES). y may not alias x.
 * scale[t] = (|x_a| + |x_b|) * (1 + |angle|) for the pair (a, b) that
 * element t belongs to: fp32 rounds the angle relative to its size, and an
 * angle error e moves the pair by up to e * (|x_a| + |x_b|). scale may be
 * NULL. Used by "rope" and by "attention" with BENCH_ATTN_ROPE. */
void ref_rope_vector(const double *x, int64_t d, int64_t pos, double theta, uint32_t flags,
                     double *y, double *scale);

#endif
