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

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/comparison.h"
#include "check/dtype.h"
#include "check/reference.h"
#include "core/util.h"

#define FULL_CHUNK_ELEMS ((int64_t)1 << 20)
#define FAST_SAMPLES 512   /* random elements of a gemm (a second net under Freivalds) */
#define FAST_MIN_ELEMS 4096 /* smaller gemms are compared in full */
#define FAST_EDGE 64       /* elements of the last row and of the last column */
#define FAST_ATTN_ROWS 64  /* (batch, head, seq) rows of an attention */
#define FREIVALDS_RESCAN 4 /* flagged rows recomputed to name the element */

/* Salts that split the one seed into independent streams. */
enum { SALT_SAMPLES = 1, SALT_SIGNS = 2, SALT_ROWS = 4 };

static uint64_t sub_seed(uint64_t seed, uint64_t salt) { return random_u64(seed, salt); }

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
  struct comparison k; /* k.r->mismatches also counts Freivalds rows that
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

/* ---- VERIFY_FAST for gemm: blocked Freivalds + sampled elements -------- */

/* Freivalds' test per row and per block of columns, with a tolerance from
 * a model of a correct GEMM's rounding errors, computed in double.
 *
 * The columns are cut into at most FREIVALDS_BLOCKS blocks of w >= 8
 * columns; x holds a random sign per column. For row i and block b,
 *   d_ib = sum_{j in b} C_ij x_j - A_i (B x_b) = sum_{j in b} e_ij x_j,
 * with e_ij = C_ij - ref_ij. B x_b for every block costs k*n together and
 * A_i (B x_b) costs k per block, so the test is O(k (n + m * blocks)).
 * A single wrong element e shows whole in its row's d_ib; the correct
 * elements of that block add noise sum_{l != j} e_il x_l of random sign.
 *
 * Error model of a correct GEMM (fp32 accumulation in any order, rounded to
 * out_dtype): each element's error is a sum of independent roundings,
 *   accumulation: std <= u32 sqrt(k/3 + 1) scale_ij  (k roundings, each of
 *                 at most u32 times a partial sum <= scale_ij, uniform)
 *   output:       |e| <= u_out |C_ij|, std u_out |C_ij| / sqrt(3),
 * so the block's noise has std at most sigma_ib with
 *   sigma_ib^2 = u32^2 (k/3 + 1) max_j(scale) sum_j(scale) + u_out^2 sum_j C_ij^2 / 3
 * (sum scale^2 <= max * sum; max_j scale_ij <= sum_k |a_ik| max_j |b_kj|).
 * A row is flagged when |d_ib| > FREIVALDS_Z sigma_ib (plus the rounding
 * of these double sums): noise at the model's limit reaches that with
 * probability 2 exp(-Z^2/2) = 3e-8 per test over the signs (Hoeffding),
 * and the flagged row is then cleared by its full recomputation. A single
 * element off by e > (FREIVALDS_Z + 5.3) sigma_ib shows with probability
 * >= 1 - 1e-6 over the signs; README's "Verification" gives what that is
 * in units of the element's own tolerance.
 *
 * A flagged row is recomputed in full and compared element by element (the
 * first FREIVALDS_RESCAN of them): the full check has the last word, so a
 * correct GEMM that the model misjudges is still never failed. */
#define FREIVALDS_BLOCKS 64
#define FREIVALDS_MIN_W 8
#define FREIVALDS_Z 6.0

struct freivalds {
  int64_t flagged;     /* rows that failed */
  int64_t first_row;   /* the first of them, -1 if none */
  double first_diff, first_tol;
  int64_t rescan[FREIVALDS_RESCAN]; /* the first flagged rows, to recompute */
  int nrescan;
};

/* Unit roundoff of a dtype the output is rounded to. */
static double unit_roundoff(enum bench_dtype t) {
  switch (t) {
  case BENCH_F16: return 0x1p-11;
  case BENCH_BF16: return 0x1p-8;
  case BENCH_F64: return 0x1p-53;
  default: return 0x1p-24;
  }
}

static void freivalds(const struct cmp *k, uint64_t seed, struct freivalds *f) {
  const struct bench_check *c = k->p->c;
  const int64_t m = c->m, n = c->n, kd = c->k;
  int64_t w = (n + FREIVALDS_BLOCKS - 1) / FREIVALDS_BLOCKS;
  if (w < FREIVALDS_MIN_W) w = FREIVALDS_MIN_W;
  /* nbp: nb rounded up to whole chunks of 8 (zeros past nb), so that the
   * inner loop below has a fixed width the compiler vectorizes. */
  const int64_t nb = (n + w - 1) / w, nbp = (nb + 7) / 8 * 8;
  double *x = xmalloc((size_t)n * sizeof *x);
  /* per kk: B x_b and sum_{j in b} |b_kj| (nbp each); bm: max_j |b_kj| */
  double *bx = xmalloc((size_t)(2 * nbp * kd + kd) * sizeof *bx);
  double *bs = bx + nbp * kd, *bm = bs + nbp * kd;
  memset(bx, 0, (size_t)(2 * nbp * kd) * sizeof *bx);
  double *acc = xmalloc((size_t)(5 * nbp) * sizeof *acc);
  double *restrict proj = acc, *restrict ssum = acc + nbp;
  double *cx = acc + 2 * nbp, *c2 = acc + 3 * nbp, *cabs = acc + 4 * nbp;
  int64_t wide = n > kd ? n : kd;
  double *row = xmalloc((size_t)wide * sizeof *row);
  const uint64_t s_signs = sub_seed(seed, SALT_SIGNS);
  /* An exact check (integer output: rtol = atol = 0) allows no error. */
  const int exact = k->k.r->rtol == 0 && k->k.r->atol == 0;
  const double u32 = exact ? 0 : 0x1p-24, uout = exact ? 0 : unit_roundoff(c->out_dtype);
  const double acc_var = u32 * u32 * ((double)kd / 3.0 + 1.0);

  for (int64_t j = 0; j < n; j++) x[j] = random_u64(s_signs, (uint64_t)j) >> 63 ? 1.0 : -1.0;
  for (int64_t kk = 0; kk < kd; kk++) {
    ref_gemm_b_row(c, kk, 0, n, row);
    double *px = bx + kk * nbp, *ps = bs + kk * nbp;
    bm[kk] = 0;
    for (int64_t b = 0; b < nb; b++) {
      const int64_t j1 = (b + 1) * w < n ? (b + 1) * w : n;
      double s = 0, sa = 0, mx = 0;
      for (int64_t j = b * w; j < j1; j++) {
        const double v = row[j], av = fabs(v);
        s += v * x[j];
        sa += av;
        mx = av > mx ? av : mx;
      }
      px[b] = s;
      ps[b] = sa;
      bm[kk] = mx > bm[kk] ? mx : bm[kk];
    }
  }

  memset(f, 0, sizeof *f);
  f->first_row = -1;
  for (int64_t i = 0; i < m; i++) {
    ref_gemm_a_row(c, i, row);
    double smax = 0; /* >= max_j scale_ij */
    for (int64_t b = 0; b < nbp; b++) proj[b] = ssum[b] = 0;
    for (int64_t kk = 0; kk < kd; kk++) {
      const double a = row[kk], aa = fabs(a);
      const double *restrict px = bx + kk * nbp, *restrict ps = bs + kk * nbp;
      smax += aa * bm[kk];
      for (int64_t b = 0; b < nbp; b += 8)
        for (int t = 0; t < 8; t++) {
          proj[b + t] += a * px[b + t];
          ssum[b + t] += aa * ps[b + t];
        }
    }
    dtype_load_n(c->out, (size_t)(i * n), (size_t)n, c->out_dtype, row);
    for (int64_t b = 0; b < nb; b++) {
      const int64_t j1 = (b + 1) * w < n ? (b + 1) * w : n;
      double s = 0, s2 = 0, sa = 0;
      for (int64_t j = b * w; j < j1; j++) {
        const double v = row[j];
        s += v * x[j];
        s2 += v * v;
        sa += fabs(v);
      }
      cx[b] = s;
      c2[b] = s2;
      cabs[b] = sa;
    }
    for (int64_t b = 0; b < nb; b++) {
      const double diff = fabs(cx[b] - proj[b]);
      const double sigma = sqrt(acc_var * smax * ssum[b] + uout * uout * c2[b] / 3.0);
      const double tol = FREIVALDS_Z * sigma + (exact ? 0 : (double)w * FLT_MIN) +
                         4.0 * (double)(w + kd) * DBL_EPSILON * (cabs[b] + ssum[b]);
      if (diff <= tol) continue; /* also false for a NaN */
      if (f->flagged == 0) {
        f->first_row = i;
        f->first_diff = diff;
        f->first_tol = tol;
      }
      if (f->nrescan < FREIVALDS_RESCAN) f->rescan[f->nrescan++] = i;
      f->flagged++;
      break;
    }
  }
  free(row);
  free(acc);
  free(bx);
  free(x);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sorted, distinct flat indices: the four corners, up to FAST_EDGE elements
 * spread over the last row and the last column, FAST_SAMPLES from the seed. */
static size_t gemm_samples(int64_t m, int64_t n, uint64_t seed, int64_t *idx) {
  size_t cnt = 0;
  idx[cnt++] = 0;
  idx[cnt++] = n - 1;
  idx[cnt++] = (m - 1) * n;
  idx[cnt++] = (m - 1) * n + n - 1;
  for (int64_t t = 0; t < FAST_EDGE; t++) {
    idx[cnt++] = (m - 1) * n + t * (n - 1) / (FAST_EDGE - 1);
    idx[cnt++] = (t * (m - 1) / (FAST_EDGE - 1)) * n + n - 1;
  }
  const uint64_t s = sub_seed(seed, SALT_SAMPLES);
  for (uint64_t t = 0; t < FAST_SAMPLES; t++) {
    uint64_t i = random_u64(s, 2 * t) % (uint64_t)m, j = random_u64(s, 2 * t + 1) % (uint64_t)n;
    idx[cnt++] = (int64_t)(i * (uint64_t)n + j);
  }
  qsort(idx, cnt, sizeof *idx, cmp_i64);
  size_t u = 0;
  for (size_t t = 0; t < cnt; t++)
    if (u == 0 || idx[t] != idx[u - 1]) idx[u++] = idx[t];
  return u;
}

static int row_in(int64_t row, const int64_t *rows, int nrows) {
  for (int i = 0; i < nrows; i++)
    if (rows[i] == row) return 1;
  return 0;
}

static void gemm_fast(struct cmp *k, uint64_t seed, struct freivalds *f) {
  const struct bench_check *c = k->p->c;
  struct check_result *r = k->k.r;

  /* Freivalds over every row; the first flagged rows are recomputed in
   * full. When one of them holds an element out of tolerance, the flagged
   * rows not recomputed count one mismatch each; when none does, the
   * projection misjudged a correct output and nothing is counted. */
  freivalds(k, seed, f);
  int confirmed = 0;
  for (int t = 0; t < f->nrescan; t++) {
    uint64_t before = r->mismatches;
    compare_rows(k, f->rescan[t], 1);
    if (r->mismatches > before) confirmed = 1;
  }
  if (confirmed) r->mismatches += (uint64_t)(f->flagged - f->nrescan);
  else f->flagged = 0;

  /* Sampled elements, outside the rows already compared. */
  int64_t *idx = xmalloc((4 + 2 * FAST_EDGE + FAST_SAMPLES) * sizeof *idx);
  size_t cnt = gemm_samples(c->m, c->n, seed, idx), kept = 0;
  for (size_t t = 0; t < cnt; t++)
    if (!row_in(idx[t] / c->n, f->rescan, f->nrescan)) idx[kept++] = idx[t];
  double *buf = xmalloc(2 * (kept ? kept : 1) * sizeof *buf);
  double *ref = buf, *scale = buf + kept;
  ref_gemm_elements(c, idx, kept, ref, scale);
  for (size_t t = 0; t < kept; t++)
    comparison_element(&k->k, idx[t], dtype_load(c->out, (size_t)idx[t], c->out_dtype), ref[t],
                       scale[t]);
  free(buf);
  free(idx);
}

/* ---- VERIFY_FAST by sampled rows (attention) ------------------------- */

static void rows_fast(struct cmp *k, uint64_t seed) {
  const int64_t rows = k->p->shape.rows;
  int64_t pick[FAST_ATTN_ROWS];
  int n = 0;
  pick[n++] = 0;
  pick[n++] = rows - 1;
  const uint64_t s = sub_seed(seed, SALT_ROWS);
  for (uint64_t t = 0; n < FAST_ATTN_ROWS && t < 16 * FAST_ATTN_ROWS; t++) {
    int64_t row = (int64_t)(random_u64(s, t) % (uint64_t)rows);
    if (!row_in(row, pick, n)) pick[n++] = row;
  }
  qsort(pick, (size_t)n, sizeof *pick, cmp_i64);
  for (int i = 0; i < n; i++) compare_rows(k, pick[i], 1);
}

/* ---- the result's message ---------------------------------------------- */

static void mismatch_message(const struct cmp *k, const struct freivalds *f) {
  const struct check_problem *p = k->p;
  struct check_result *r = k->k.r;
  int len = 0;
  if (r->first_bad >= 0) {
    char where[96];
    operation_format_index(p->op, p->c, &p->shape, r->first_bad, where, sizeof where);
    len = comparison_message(&k->k, p->op->name, where);
  }
  if (!f || f->flagged == 0 || len < 0 || (size_t)len >= sizeof r->message) return;
  if (r->first_bad >= 0)
    snprintf(r->message + len, sizeof r->message - (size_t)len,
             "; Freivalds flagged %" PRId64 " of %" PRId64 " rows, first row %" PRId64,
             f->flagged, p->c->m, f->first_row);
  else
    snprintf(r->message, sizeof r->message,
             "%s: Freivalds check failed on %" PRId64 " of %" PRId64 " rows; first row %" PRId64
             ": |Cx - A(Bx)| = %.3g > tol %.3g",
             p->op->name, f->flagged, p->c->m, f->first_row, f->first_diff, f->first_tol);
}

/* ---- entry points ------------------------------------------------------- */

int check_problem_output(const struct check_problem *p, enum verify_level level, uint64_t seed,
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
  struct freivalds f = {0};
  double rtol, atol;
  problem_tolerance(p, &rtol, &atol);
  comparison_begin(&k.k, r, rtol, atol);
  r->checked = 1;
  const int64_t elems = p->shape.rows * p->shape.cols;
  if (level == VERIFY_FAST && p->op->fast == OP_FAST_FREIVALDS && elems > FAST_MIN_ELEMS) {
    snprintf(r->method, sizeof r->method, "sampled+freivalds");
    gemm_fast(&k, seed, &f);
  } else if (level == VERIFY_FAST && p->op->fast == OP_FAST_ROWS &&
             p->shape.rows > FAST_ATTN_ROWS) {
    snprintf(r->method, sizeof r->method, "sampled-rows");
    rows_fast(&k, seed);
  } else {
    snprintf(r->method, sizeof r->method, "full");
    compare_full(&k);
  }
  r->pass = r->mismatches == 0;
  if (!r->pass) mismatch_message(&k, &f);
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
