/* check_output: validate a plugin's bench_check, compute the reference
 * (reference.c) for all of the output or, under VERIFY_FAST, for samples of
 * it, and compare with a dtype-aware tolerance. Never prints.
 *
 * Tolerance. An element passes when |out - ref| <= atol + rtol * scale.
 * The base (rtol, atol) comes from the OUTPUT dtype, as in PyTorch's
 * torch.testing.assert_close: f32 (1.3e-6, 1e-5), f16 (1e-3, 1e-5),
 * bf16 (1.6e-2, 1e-5); each base rtol is above the unit roundoff of its
 * type (2^-24, 2^-11, 2^-8), so it covers the final rounding to the output
 * type plus a few fp32 roundings. Accumulation is fp32 by convention, and a
 * sum of L terms drifts by about sqrt(L) * eps_f32 of its magnitude
 * (rounding errors of random sign; L * eps is the worst case), so
 *     rtol = base + 2 * sqrt(L) * 2^-24.
 * The scale (computed in reference.c) is the magnitude a correct fp32
 * computation's error is proportional to; it is never below |ref|:
 *
 * gemm       L = k; scale = sum_k |a_ik||b_kj|. Each rounding of the
 *            accumulation is relative to a partial sum, which this bounds
 *            even when the terms cancel and |ref| is small.
 * rmsnorm    L = cols; scale = |y_j|. The sum of squares has positive terms,
 *            so its relative error (about sqrt(L) eps) reaches rstd halved
 *            and multiplies y; the rest is a few roundings of y itself.
 * layernorm  L = cols; scale = (|x_j| + mean|x|) * rstd * |w_j| + |b_j|.
 *            x_j - mean carries the rounding of the mean (relative to
 *            mean|x|, not to |mean|, which can cancel to 0) and of the
 *            subtraction (relative to |x_j| + |mean|), both times rstd|w_j|;
 *            the variance's relative error multiplies |x_j - mean|; + b adds a
 *            rounding of |b_j|. Two-pass and Welford kernels meet it; a
 *            one-pass E[x^2] - mean^2 kernel loses more when |mean| >> std.
 * softmax    L = cols; scale = y_j * (1 + |x_j| + |max_k x_k|). exp turns
 *            the absolute rounding of its argument (x_j - max, or
 *            x_j*log2e - max*log2e in exp2 kernels: about eps*(|x_j| + |max|))
 *            into a relative error of y_j; the positive sum and the division
 *            add sqrt(L) eps relative.
 * rope       L = cols / 2; scale = (|x_a| + |x_b|) * (1 + |angle|) for the
 *            pair (a, b) of the element. fp32 gets the angle p*theta^(-2i/d)
 *            with an error relative to the angle (about eps*ln(theta) via
 *            powf or expf, up to i*eps when theta^(-2/d) is raised by repeated
 *            multiplication: hence L = d/2), and an angle error e moves the
 *            pair by at most e * (|x_a| + |x_b|). Late positions get a looser
 *            tolerance because fp32 itself is that much less exact there.
 * attention  L = seq + head_dim (scores are dot products of head_dim terms,
 *            outputs weighted sums of up to seq terms);
 *            scale_it = (sum_j p_ij |v_jt|) * (1 + S_i), S_i = max over the
 *            unmasked j of sum_t |q_it||k_jt| / sqrt(d). The first factor
 *            bounds |o_it| and the error of the weighted sum; a score error e
 *            moves o_it by at most 2e * sum_j p_ij |v_jt|, and the score error
 *            is relative to S_i. With RoPE, S_i is built from q and k after
 *            the rotation and their rope scales (see rope), so it includes the
 *            angle errors. Kernels that round P to f16/bf16 before P*V (flash
 *            attention) stay within the f16/bf16 base rtol.
 *
 * max_rel_err is max |out - ref| / max(|ref|, atol). A non-finite output
 * where the reference is finite is a mismatch; where the reference itself is
 * not finite the output must be the same infinity, or NaN for NaN. */
#include "check/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/comparison.h"
#include "check/dtype.h"
#include "check/gemm_check.h"
#include "check/reference.h"
#include "core/util.h"

#define FULL_CHUNK_ELEMS ((int64_t)1 << 20)
#define FAST_MIN_ELEMS 4096 /* smaller gemms are compared in full */
#define FAST_ATTN_ROWS 64  /* (batch, head, seq) rows of an attention */

/* The salt of the sampled rows' stream of the seed (gemm_check.c uses 1, 2). */
enum { SALT_ROWS = 4 };

/* ---- validation, once ------------------------------------------------ */

static int find_op(const struct bench_check *c, const struct operation **op, char *msg,
                   size_t len) {
  if (!c) return check_reason(msg, len, "no check given");
  if (!c->op)
    return check_reason(msg, len, "field op is NULL (known: %s)", operation_names());
  *op = operation_find(c->op);
  if (!*op)
    return check_reason(msg, len, "field op: unknown operation \"%.64s\" (known: %s; for any "
                        "other operation hand your own reference to the bench.compare/1 "
                        "extension)", c->op, operation_names());
  return 0;
}

int check_prepare(const struct bench_check *c, struct check_problem *p, char *msg, size_t len) {
  memset(p, 0, sizeof *p);
  if (find_op(c, &p->op, msg, len) != 0) return -1;
  p->c = c;
  return operation_validate(p->op, c, 0, &p->shape, msg, len);
}

int check_validate(const struct bench_check *c, char *msg, size_t len) {
  struct check_problem p;
  return check_prepare(c, &p, msg, len);
}

size_t check_problem_output_bytes(const struct check_problem *p) {
  return (size_t)(p->shape.rows * p->shape.cols) * dtype_size(p->c->out_dtype);
}

size_t check_output_bytes(const struct bench_check *c) {
  struct check_problem p = {c, NULL, {{0}, 0, 0}};
  if (find_op(c, &p.op, NULL, 0) != 0 || operation_validate(p.op, c, 1, &p.shape, NULL, 0) != 0)
    return 0;
  return check_problem_output_bytes(&p);
}

struct op_work check_problem_work(const struct check_problem *p) {
  return operation_work(p->op, p->c, &p->shape);
}

/* ---- tolerance (the rule of each op is in the comment at the top) ---- */

static void problem_tolerance(const struct check_problem *p, double *rtol, double *atol) {
  if (p->op->reduction)
    tolerance_default(p->c->out_dtype, p->op->reduction(p->c), rtol, atol);
  else
    *rtol = *atol = 0; /* exact after rounding the reference to out_dtype */
}

void check_tolerance(const struct bench_check *c, double *rtol, double *atol) {
  struct check_problem p = {c, operation_find(c->op), {{0}, 0, 0}};
  if (p.op) problem_tolerance(&p, rtol, atol);
  else *rtol = *atol = 0;
}

/* ---- element comparison ------------------------------------------------ */

struct cmp {
  const struct check_problem *p;
  struct comparison k; /* k.r->mismatches also counts Freivalds blocks that
                          were not recomputed; k.bad_elems only elements */
};

/* Output rows [row0, row0 + nrows) against the reference, element by element. */
static void compare_rows(struct cmp *k, int64_t row0, int64_t nrows) {
  const struct bench_check *c = k->p->c;
  const int64_t cols = k->p->shape.cols, count = nrows * cols;
  double *buf = xmalloc((size_t)(3 * count) * sizeof *buf);
  double *ref = buf, *scale = buf + count, *out = buf + 2 * count;
  k->p->op->reference(c, row0, nrows, ref, scale);
  dtype_load_n(c->out, (size_t)(row0 * cols), (size_t)count, c->out_dtype, out);
  comparison_elements(&k->k, row0 * cols, out, ref, scale, count);
  free(buf);
}

static void compare_full(struct cmp *k) {
  const int64_t rows = k->p->shape.rows, cols = k->p->shape.cols;
  int64_t chunk = FULL_CHUNK_ELEMS / cols;
  if (chunk < 1) chunk = 1;
  for (int64_t r0 = 0; r0 < rows; r0 += chunk)
    compare_rows(k, r0, rows - r0 < chunk ? rows - r0 : chunk);
}

/* ---- VERIFY_FAST by sampled rows (attention) ------------------------- */

/* Insert row into the sorted pick[0, n): 1, or 0 when it is there already. */
static int pick_row(int64_t *pick, int n, int64_t row) {
  int i = n;
  while (i > 0 && pick[i - 1] > row) i--;
  if (i > 0 && pick[i - 1] == row) return 0;
  memmove(pick + i + 1, pick + i, (size_t)(n - i) * sizeof *pick);
  pick[i] = row;
  return 1;
}

static void rows_fast(struct cmp *k, uint64_t seed) {
  const int64_t rows = k->p->shape.rows;
  int64_t pick[FAST_ATTN_ROWS];
  int n = 0;
  n += pick_row(pick, n, 0);
  n += pick_row(pick, n, rows - 1);
  const uint64_t s = random_u64(seed, SALT_ROWS);
  for (uint64_t t = 0; n < FAST_ATTN_ROWS && t < 16 * FAST_ATTN_ROWS; t++)
    n += pick_row(pick, n, (int64_t)(random_u64(s, t) % (uint64_t)rows));
  for (int i = 0; i < n; i++) compare_rows(k, pick[i], 1);
}

/* ---- the result's message ---------------------------------------------- */

static void mismatch_message(const struct cmp *k, const struct gemm_check_flags *g) {
  const struct check_problem *p = k->p;
  struct check_result *r = k->k.r;
  int len = 0;
  if (r->first_bad >= 0) {
    char where[96];
    operation_format_index(p->op, p->c, &p->shape, r->first_bad, where, sizeof where);
    len = comparison_message(&k->k, p->op->name, where);
  }
  gemm_check_message(g, p->op->name, p->c->m, r, len);
}

/* ---- integral results (the note in check.h) ---------------------------- */

/* Whether every input element is a (finite) integer: always for an integer
 * dtype; else one pass over each input, ended by the first element that is
 * not one. */
static int inputs_integral(const struct check_problem *p) {
  const struct bench_check *c = p->c;
  if (dtype_is_int(c->dtype)) return 1;
  for (int i = 0; i < OP_MAX_INPUTS && p->op->inputs[i]; i++)
    for (int64_t e = 0; e < p->shape.in[i]; e++) {
      const double v = dtype_load(c->in[i], (size_t)e, c->dtype);
      if (!(v == floor(v) && isfinite(v))) return 0;
    }
  return 1;
}

static void integral_note(const struct check_problem *p, struct check_result *r) {
  snprintf(r->note, sizeof r->note,
           "%s: inputs and output are all integers, yet the output is off by up to %.6g (inside "
           "the %s tolerance): checked as integers (out_dtype BENCH_I32) it would be exact; "
           "docs/sdk.md#integer-results",
           p->op->name, r->max_abs_err, dtype_name(p->c->out_dtype));
}

/* ---- entry points ------------------------------------------------------- */

static int problem_output(const struct check_problem *p, enum verify_level level, uint64_t seed,
                          struct check_result *r);

int check_problem_output(const struct check_problem *p, enum verify_level level, uint64_t seed,
                         struct check_result *r) {
  const double t0 = now_s();
  const int rc = problem_output(p, level, seed, r);
  r->seconds = now_s() - t0;
  return rc;
}

static int problem_output(const struct check_problem *p, enum verify_level level, uint64_t seed,
                          struct check_result *r) {
  memset(r, 0, sizeof *r);
  r->first_bad = -1;
  if (level != VERIFY_NONE && level != VERIFY_FAST && level != VERIFY_FULL) {
    snprintf(r->message, sizeof r->message, "unknown verify level %d", (int)level);
    return -1;
  }
  if (level == VERIFY_NONE) {
    snprintf(r->method, sizeof r->method, "none");
    r->pass = 1;
    return 0;
  }

  struct cmp k = {p, {0}};
  struct gemm_check_flags g = {0, -1, 0, 0};
  double rtol, atol;
  problem_tolerance(p, &rtol, &atol);
  comparison_begin(&k.k, r, rtol, atol);
  k.k.out_dtype = p->c->out_dtype;
  k.k.integral = (rtol > 0 || atol > 0) && inputs_integral(p); /* exact already: no note */
  r->checked = 1;
  const int64_t elems = p->shape.rows * p->shape.cols;
  if (level == VERIFY_FAST && p->op->fast == OP_FAST_FREIVALDS && elems > FAST_MIN_ELEMS) {
    snprintf(r->method, sizeof r->method, "sampled+freivalds");
    gemm_check_fast(p->c, &k.k, seed, &g);
  } else if (level == VERIFY_FAST && p->op->fast == OP_FAST_ROWS &&
             p->shape.rows > FAST_ATTN_ROWS) {
    snprintf(r->method, sizeof r->method, "sampled-rows");
    rows_fast(&k, seed);
  } else {
    snprintf(r->method, sizeof r->method, "full");
    compare_full(&k);
  }
  r->pass = r->mismatches == 0;
  if (!r->pass) mismatch_message(&k, &g);
  else if (k.k.integral && r->max_abs_err > 0) integral_note(p, r);
  return 0;
}

int check_output(const struct bench_check *c, enum verify_level level, uint64_t seed,
                 struct check_result *r) {
  if (!r) return -1;
  memset(r, 0, sizeof *r);
  r->first_bad = -1;
  struct check_problem p;
  if (check_prepare(c, &p, r->message, sizeof r->message) != 0) return -1;
  return check_problem_output(&p, level, seed, r);
}
