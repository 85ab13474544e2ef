/* The CPU reference check: runs the harness's reference for an operation and
 * compares a plugin's output with it, dtype-aware. */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"
#include "check/operation.h"

enum verify_level {
  VERIFY_NONE = 0, /* no reference check (the output is still hashed) */
  VERIFY_FAST = 1, /* O(n^2) for GEMM: Freivalds per column block + samples; sampled rows for attention */
  VERIFY_FULL = 2  /* every element against the full reference */
};

struct check_result {
  int checked;          /* 1 if a comparison ran */
  int pass;             /* 1 if every compared element is within tolerance */
  char method[32];      /* "full", "sampled+freivalds", "sampled-rows", "none" */
  double max_abs_err;   /* max |out - ref| */
  double max_rel_err;   /* max |out - ref| / max(|ref|, atol) */
  double rtol, atol;    /* tolerance used: |out - ref| <= atol + rtol * scale */
  uint64_t compared;    /* elements compared */
  uint64_t mismatches;  /* elements out of tolerance */
  int64_t first_bad;    /* flat index of the first mismatch, -1 if none */
  double bad_out, bad_ref; /* values at first_bad */
  char message[256];    /* one line describing a mismatch or a malformed check */
  char note[256];       /* a passing check's advice for the case's note, or "": every
                           input, output and reference element an integer, yet the
                           error not 0 (an exact check would have caught it) */
  double seconds;       /* wall time the check took (reference and comparison) */
};

/* A bench_check validated once: its entry in the operation table and the
 * element counts of its buffers. Points at the caller's check. */
struct check_problem {
  const struct bench_check *c;
  const struct operation *op;
  struct op_shape shape;
};

/* Validate c once (known op, dtypes, positive dims, sizes, buffers, the
 * operation's own rules): 0 with p filled, or -1 with a one-line reason in
 * msg (any size; may be NULL). */
int check_prepare(const struct bench_check *c, struct check_problem *p, char *msg, size_t len);

/* check_output for a prepared problem (no validation again): 0, or -1 for
 * an unknown level with r->message set. */
int check_problem_output(const struct check_problem *p, enum verify_level level, uint64_t seed,
                         struct check_result *r);

/* Output bytes of a prepared problem (for hashing). */
size_t check_problem_output_bytes(const struct check_problem *p);

/* The nominal work of one call of the prepared problem's operation, from
 * the operation table (rule in operation.h). */
struct op_work check_problem_work(const struct check_problem *p);

/* Run the check: check_prepare, then check_problem_output. Returns 0 when the check was well formed (pass or not, see
 * r->pass), -1 for a malformed check (unknown op, missing pointer, bad shape)
 * with r->message set. seed drives the random vectors and samples of FAST.
 *
 * Details (the tolerance rule of each operation is documented in check.c):
 * - VERIFY_NONE still validates the check; then checked = 0, pass = 1,
 *   method "none".
 * - VERIFY_FAST samples only gemm (when m*n > 4096) and attention (when
 *   there are more than 64 (batch, head, seq) rows); otherwise, and for
 *   every other operation, it compares every element and says "full".
 * - A non-finite output where the reference is finite is a mismatch, with
 *   max_abs_err = max_rel_err = inf.
 * - Under "sampled+freivalds" (gemm_check.c: Freivalds' test per row and block
 *   of columns against a rounding-error model, plus the corners, the last
 *   row and column and 512 random elements), a row that fails Freivalds'
 *   test is recomputed in full (up to 4 such rows) so the message names the
 *   element. When a recomputed row holds an element out of tolerance, each
 *   flagged row that was not recomputed counts as one mismatch (mismatches
 *   is then a lower bound, and can exceed compared, which counts the
 *   elements compared one by one; the message gives both); when none does,
 *   the flags are dropped: the full comparison has the last word.
 * - first_bad is the smallest flat index found out of tolerance; it is -1
 *   when only Freivalds' test failed (the message names the row).
 * - A check that passed under a tolerance (a float output) although every
 *   input element is an integer, every compared output and reference
 *   element an integer that out_dtype holds exactly, and the error is not
 *   0 (an int8 dot product off by one inside an f32 tolerance) gets
 *   r->note: the result is integral and could be checked exactly
 *   (docs/sdk.md#integer-results). Finding that out costs one pass over
 *   the inputs that stops at the first element that is not an integer
 *   (float inputs from fill_random stop at once), and one test per
 *   compared element. */
int check_output(const struct bench_check *c, enum verify_level level,
                 uint64_t seed, struct check_result *r);

/* Size in bytes of the output of a check (for hashing), 0 if malformed.
 * Looks only at the operation, the shape and out_dtype, so a check with a
 * bad pointer or flag still gets a size and check_output explains it. */
size_t check_output_bytes(const struct bench_check *c);

/* check_prepare without keeping the problem. */
int check_validate(const struct bench_check *c, char *msg, size_t len);

/* The effective tolerance check_output uses for c (well formed or at least
 * a known op and out_dtype): rtol = base(out_dtype) + 2 sqrt(L) 2^-24 and
 * atol = 1e-5; both 0 for an unknown op. */
void check_tolerance(const struct bench_check *c, double *rtol, double *atol);

#endif
