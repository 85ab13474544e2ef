/* The operation table: every reference operation the harness knows, each
 * defined once (operation.c). An entry says which bench_check fields the
 * operation uses and how they are validated, its inputs and the element
 * count of every buffer, how its output is seen as rows x cols, its
 * reduction length (for the tolerance), how a mismatch names an element,
 * which VERIFY_FAST path it has, its reference function (reference.h) and
 * its nominal work per call.
 *
 * Adding an operation: one entry in operation.c, its reference function in
 * reference.c, and its line in plugin.h's documentation of bench_check.
 *
 * Nominal work, one definition for every backend (the harness records it
 * for a plugin of that operation; see host.c):
 *   bytes  every input element read once and every output element written
 *          once, at the sizes of dtype and out_dtype (fill's value is an
 *          argument, not a stream: fill counts the output only). What a
 *          kernel re-reads, spills or caches is its own business: this is
 *          the traffic the problem needs, as STREAM counts it.
 *   flops  per output element, each add, subtract, multiply, divide, max
 *          and exp of the textbook formula counts one; per-row scalars
 *          (one sqrt or reciprocal per row) and angle tables are not counted:
 *     gemm       2 m n k                    (a multiply and an add per term)
 *     copy, fill 0
 *     add        n
 *     rmsnorm    4 rows cols  (square, sum; times rstd, times w)
 *     layernorm  8 rows cols  (sum; subtract, square, sum; subtract, times
 *                              rstd, times w, plus b)
 *     softmax    5 rows cols  (max, subtract, exp, sum, divide)
 *     rope       3 rows cols  (y_a = x_a cos - x_b sin: two multiplies and
 *                              an add per output element)
 *     attention  4 b h s^2 d / 2  (QK^T and PV, 2 s^2 d each per head,
 *                              halved for the causal mask, as FlashAttention
 *                              counts; 4 b h s^2 d with BENCH_ATTN_FULL;
 *                              softmax and RoPE not counted)
 *
 * Primary figure: what bounds the operation, so which of its figures is
 * the one throughput bench shows (results/result.h case_primary), decided
 * by its arithmetic intensity (FLOPs per byte of the rule above, fp32)
 * against the ridge point of the machines bench runs on (peak FLOP/s over
 * memory bandwidth: about 4-10 FLOP/byte for CPUs against DRAM, 20-30 for
 * GPUs):
 *     gemm       2mnk / 4(mk + kn + mn): n/6 for square n, 170 at 1024:
 *                compute-bound                                  -> flops
 *     attention  2 b h s^2 d over 16 b h s d bytes = seq/8 (256 at
 *                seq 2048): compute-bound                       -> flops
 *     copy, fill 0                                              -> bytes
 *     add        1/12                                           -> bytes
 *     rmsnorm    4/8 = 0.5, layernorm 8/8 = 1, softmax 5/8,
 *     rope       3/8: every element is touched once with a few operations,
 *                far below any ridge point                      -> bytes
 * Every figure stays in the files (GFLOP/s and GB/s); only which one is
 * shown follows this. */
#ifndef BENCH_OPERATION_H
#define BENCH_OPERATION_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"

#define OP_MAX_DIMS 4
#define OP_MAX_INPUTS 3

/* How a mismatch message names an output element. */
enum op_index {
  OP_INDEX_FLAT,    /* [i] */
  OP_INDEX_ROW_COL, /* [row,col] */
  OP_INDEX_BHSD     /* [b,h,s,d] of an attention output */
};

/* What VERIFY_FAST does beyond comparing every element. */
enum op_fast {
  OP_FAST_NONE,       /* always "full" */
  OP_FAST_FREIVALDS,  /* gemm: sampled elements + Freivalds' test over every row */
  OP_FAST_ROWS        /* sampled output rows */
};

/* An int64_t field of struct bench_check that must be positive. */
struct op_dim {
  const char *name;
  size_t offset;
};

/* Element counts of a check's buffers, from its dims; -1 where a product
 * overflows the harness's limit (2^46 elements per buffer). The output is
 * rows x cols, row-major. */
struct op_shape {
  int64_t in[OP_MAX_INPUTS]; /* 0 for an input the operation does not take */
  int64_t rows, cols;
};

/* Work of one call: FLOPs and bytes moved (see the rule above). */
struct op_work {
  double flops, bytes;
};

/* What bounds a case, and so which figure is its throughput: GFLOP/s,
 * GB/s, items per second or time per item (results/result.h
 * case_primary). A plugin of operation "none" (or "peak") names its own
 * with set_info("primary", "flops" | "bytes" | "items" | "latency"). */
enum op_primary { PRIMARY_NONE = 0, PRIMARY_FLOPS, PRIMARY_BYTES, PRIMARY_ITEMS, PRIMARY_LATENCY };
/* "flops", "bytes", "items", "latency"; "none" for PRIMARY_NONE. */
const char *primary_name(enum op_primary p);
/* One of the four words (exact) into *out: 0, or -1 for anything else
 * ("none" included: a plugin names a figure or says nothing). */
int primary_parse(const char *s, enum op_primary *out);
/* The fallback for a case whose operation and plugin say nothing: below
 * this many FLOPs per byte a case that states both is memory-bound (the
 * lowest DRAM ridge point above; STREAM triad is 1/12, saxpy 1/6). */
#define PRIMARY_BYTES_BELOW 4.0

/* Reference of output rows [row0, row0 + nrows): ref and scale receive
 * nrows * cols doubles each (scale may be NULL). See reference.h. */
typedef void (*op_reference_fn)(const struct bench_check *c, int64_t row0, int64_t nrows,
                                double *ref, double *scale);

struct operation {
  const char *name;                       /* bench_check.op */
  struct op_dim dims[OP_MAX_DIMS];        /* fields that must be > 0; name NULL ends */
  const char *inputs[OP_MAX_INPUTS];      /* in[i]'s name for messages; NULL ends */
  void (*shape)(const struct bench_check *c, struct op_shape *s);
  /* Rules beyond positive dims and non-NULL buffers (flags, eps, rope);
   * NULL: none. 0, or -1 with one line in msg. */
  int (*validate)(const struct bench_check *c, char *msg, size_t len);
  /* Terms summed into an output element (the tolerance grows with it);
   * NULL: the output is exact after rounding to out_dtype (tolerance 0). */
  double (*reduction)(const struct bench_check *c);
  enum op_index index;
  enum op_fast fast;
  op_reference_fn reference;
  double (*flops)(const struct bench_check *c, const struct op_shape *s);
  int output_bytes_only; /* 1: bytes count the output only (fill) */
  enum op_primary primary; /* the figure that bounds it (see "Primary figure" above) */
};

/* The entry named `name` (exact, case-sensitive), or NULL. */
const struct operation *operation_find(const char *name);
/* "gemm, rmsnorm, ..., add": every entry, for messages. */
const char *operation_names(void);
/* The i-th entry (0-based), NULL past the end: for tests and listings. */
const struct operation *operation_at(size_t i);

/* Validate c against op: dims, sizes, buffers, then op->validate. 0, or -1
 * with one line naming the field in msg (any size; may be NULL); on 0, s
 * holds the element counts. Only the shape part (no pointers, flags or
 * eps) when shape_only is set, for a size that must exist even when a
 * pointer is missing. */
int operation_validate(const struct operation *op, const struct bench_check *c, int shape_only,
                       struct op_shape *s, char *msg, size_t len);

/* The nominal work of one call of a validated check. */
struct op_work operation_work(const struct operation *op, const struct bench_check *c,
                              const struct op_shape *s);

/* "[i]", "[row,col]" or "[b,h,s,d]" for the flat output index of c. */
void operation_format_index(const struct operation *op, const struct bench_check *c,
                            const struct op_shape *s, int64_t flat, char *buf, size_t len);

#endif
