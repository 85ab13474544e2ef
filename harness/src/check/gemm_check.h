/* The fast check of a GEMM's output (VERIFY_FAST, "sampled+freivalds"):
 * O(k (n + m n / w)) instead of the full check's O(m n k). check.c picks it
 * for a gemm of more than 4096 output elements; the method is argued in
 * gemm_check.c. */
#ifndef BENCH_GEMM_CHECK_H
#define BENCH_GEMM_CHECK_H

#include <stdint.h>

#include "bench/plugin.h"
#include "check/check.h"
#include "check/comparison.h"

/* What Freivalds' test found beyond the elements compared one by one. */
struct gemm_check_flags {
  int64_t flagged;   /* rows with a flagged block that were not cleared by a
                        recompute (0 when no recomputed block held an element
                        out of tolerance: the full comparison has the last word) */
  int64_t first_row; /* the first of them, -1 if none */
  double first_diff, first_tol; /* its |Cx - A(Bx)| and the test's tolerance */
};

/* Compare the output of c, a validated gemm, into k (begun with the gemm's
 * tolerance): Freivalds' test per row and block of columns (BENCH_CHECK_THREADS
 * threads, else the CPUs this process may run on), flagged blocks recomputed
 * in full (up to 4 once one holds an element out of tolerance; each flagged
 * block left then counts one mismatch), then the four corners, the last row
 * and column and 512 random elements. seed drives the signs and samples. */
void gemm_check_fast(const struct bench_check *c, struct comparison *k, uint64_t seed,
                     struct gemm_check_flags *out);

/* The Freivalds part of r->message for a failed gemm_check_fast: appended
 * after the element message of length len when r->first_bad >= 0, else the
 * whole message ("<name>: Freivalds check failed on ..."). m is the gemm's
 * row count. Nothing when f flagged no row. */
void gemm_check_message(const struct gemm_check_flags *f, const char *name, int64_t m,
                        struct check_result *r, int len);

#endif
