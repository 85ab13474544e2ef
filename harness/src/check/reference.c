/* The CPU reference of every operation, in double, plus the per-element
 * "scale" the tolerance of check.c is proportional to. One formula per
 * operation lives here and nowhere else; the full, row-range and per-element
 * entry points all go through it.
 *
 * Scales (why each is what a correct fp32 computation's error follows is
 * argued in check.c, next to the tolerance rule):
 *   gemm       sum_k |a_ik| |b_kj|
 *   copy, fill 0 (compared exactly, after rounding to out_dtype)
 *   add        |x_i| + |y_i|
 *   rmsnorm    |y_j|
 *   layernorm  (|x_j| + mean_k |x_k|) * rstd * |w_j| + |b_j|
 *   softmax    y_j * (1 + |x_j| + |max_k x_k|)
 *   rope       (|x_a| + |x_b|) * (1 + |angle|) for the pair (a, b) of element j
 *   attention  (sum_j p_ij |v_jt|) * (1 + max_j S_ij), where S_ij is
 *              sum_t (r_it |k_jt| + |q_it| r'_jt) / (2 sqrt(d)) with q, k after
 *              RoPE and r, r' their rope scales (without RoPE r = |q|,
 *              r' = |k|, so S_ij = sum_t |q_it||k_jt| / sqrt(d)). */
#include "check/reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/dtype.h"
#include "check/operation.h"
#include "core/util.h"

static double *load_all(const void *p, int64_t start, int64_t count, enum bench_dtype t) {
  double *d = xmalloc((size_t)count * sizeof *d);
  dtype_load_n(p, (size_t)start, (size_t)count, t, d);
  return d;
}

/* ---- gemm: C = A[m,k] B[k,n], either stored transposed ------------- */

int64_t ref_gemm_a_index(const struct bench_check *c, int64_t i, int64_t kk) {
  return c->flags & BENCH_GEMM_TRANS_A ? kk * c->m + i : i * c->k + kk;
}

int64_t ref_gemm_b_index(const struct bench_check *c, int64_t kk, int64_t j) {
  return c->flags & BENCH_GEMM_TRANS_B ? j * c->k + kk : kk * c->n + j;
}

void ref_gemm_a_row(const struct bench_check *c, int64_t i, double *dst) {
  if (!(c->flags & BENCH_GEMM_TRANS_A)) {
    dtype_load_n(c->in[0], (size_t)(i * c->k), (size_t)c->k, c->dtype, dst);
    return;
  }
  for (int64_t kk = 0; kk < c->k; kk++) dst[kk] = dtype_load(c->in[0], (size_t)ref_gemm_a_index(c, i, kk), c->dtype);
}

void ref_gemm_b_row(const struct bench_check *c, int64_t kk, int64_t j0, int64_t w, double *dst) {
  if (!(c->flags & BENCH_GEMM_TRANS_B)) {
    dtype_load_n(c->in[1], (size_t)(kk * c->n + j0), (size_t)w, c->dtype, dst);
    return;
  }
  for (int64_t j = 0; j < w; j++) dst[j] = dtype_load(c->in[1], (size_t)ref_gemm_b_index(c, kk, j0 + j), c->dtype);
}

void ref_gemm_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                   double *scale) {
  const int64_t n = c->n, k = c->k;
  /* Columns in blocks so the double copy of B stays about 32 MiB. */
  int64_t jb = ((int64_t)1 << 22) / k;
  if (jb < 16) jb = 16;
  if (jb > n) jb = n;
  double *bblk = xmalloc((size_t)(k * jb) * sizeof *bblk);
  double *arow = xmalloc((size_t)k * sizeof *arow);
  for (int64_t j0 = 0; j0 < n; j0 += jb) {
    int64_t w = n - j0 < jb ? n - j0 : jb;
    for (int64_t kk = 0; kk < k; kk++) ref_gemm_b_row(c, kk, j0, w, bblk + kk * w);
    for (int64_t r = 0; r < nrows; r++) {
      ref_gemm_a_row(c, row0 + r, arow);
      double *out = ref + r * n + j0;
      double *sc = scale ? scale + r * n + j0 : NULL;
      for (int64_t j = 0; j < w; j++) out[j] = 0;
      if (sc)
        for (int64_t j = 0; j < w; j++) sc[j] = 0;
      for (int64_t kk = 0; kk < k; kk++) {
        const double a = arow[kk], *b = bblk + kk * w;
        for (int64_t j = 0; j < w; j++) out[j] += a * b[j];
        if (sc)
          for (int64_t j = 0; j < w; j++) sc[j] += fabs(a) * fabs(b[j]);
      }
    }
  }
  free(arow);
  free(bblk);
}

void ref_gemm_elements(const struct bench_check *c, const int64_t *idx, size_t count,
                       double *ref, double *scale) {
  const int64_t n = c->n, k = c->k;
  for (size_t t = 0; t < count; t++) {
    const int64_t i = idx[t] / n, j = idx[t] % n;
    double acc = 0, mag = 0;
    for (int64_t kk = 0; kk < k; kk++) {
      double a = dtype_load(c->in[0], (size_t)ref_gemm_a_index(c, i, kk), c->dtype);
      double b = dtype_load(c->in[1], (size_t)ref_gemm_b_index(c, kk, j), c->dtype);
      acc += a * b;
      mag += fabs(a) * fabs(b);
    }
    ref[t] = acc;
    if (scale) scale[t] = mag;
  }
}

/* ---- elementwise: copy, fill, add (output seen as n rows of 1) ------- */

void ref_fill_rows(const struct bench_check *c, int64_t i0, int64_t count, double *ref,
                   double *scale) {
  (void)i0;
  const double v = dtype_round(c->out_dtype, dtype_load(c->in[0], 0, c->dtype));
  for (int64_t i = 0; i < count; i++) ref[i] = v;
  if (scale)
    for (int64_t i = 0; i < count; i++) scale[i] = 0;
}

void ref_copy_rows(const struct bench_check *c, int64_t i0, int64_t count, double *ref,
                   double *scale) {
  dtype_load_n(c->in[0], (size_t)i0, (size_t)count, c->dtype, ref);
  for (int64_t i = 0; i < count; i++) ref[i] = dtype_round(c->out_dtype, ref[i]);
  if (scale)
    for (int64_t i = 0; i < count; i++) scale[i] = 0;
}

void ref_add_rows(const struct bench_check *c, int64_t i0, int64_t count, double *ref,
                  double *scale) {
  dtype_load_n(c->in[0], (size_t)i0, (size_t)count, c->dtype, ref);
  double *y = load_all(c->in[1], i0, count, c->dtype);
  for (int64_t i = 0; i < count; i++) {
    if (scale) scale[i] = fabs(ref[i]) + fabs(y[i]);
    ref[i] += y[i];
  }
  free(y);
}

/* ---- row-wise normalisations ---------------------------------------- */

/* y = x / sqrt(mean(x^2) + eps) * w */
static void rmsnorm_row(const double *x, const double *w, int64_t cols, double eps,
                        double *y, double *scale) {
  double ss = 0;
  for (int64_t j = 0; j < cols; j++) ss += x[j] * x[j];
  const double rstd = 1.0 / sqrt(ss / (double)cols + eps);
  for (int64_t j = 0; j < cols; j++) {
    y[j] = x[j] * rstd * w[j];
    if (scale) scale[j] = fabs(y[j]);
  }
}

/* y = (x - mean) / sqrt(var + eps) * w + b, biased variance */
static void layernorm_row(const double *x, const double *w, const double *b, int64_t cols,
                          double eps, double *y, double *scale) {
  double sum = 0, sum_abs = 0;
  for (int64_t j = 0; j < cols; j++) {
    sum += x[j];
    sum_abs += fabs(x[j]);
  }
  const double mean = sum / (double)cols, mean_abs = sum_abs / (double)cols;
  double var = 0;
  for (int64_t j = 0; j < cols; j++) var += (x[j] - mean) * (x[j] - mean);
  var /= (double)cols;
  const double rstd = 1.0 / sqrt(var + eps);
  for (int64_t j = 0; j < cols; j++) {
    y[j] = (x[j] - mean) * rstd * w[j] + b[j];
    if (scale) scale[j] = (fabs(x[j]) + mean_abs) * rstd * fabs(w[j]) + fabs(b[j]);
  }
}

/* y = exp(x - max) / sum exp(x - max) */
static void softmax_row(const double *x, int64_t cols, double *y, double *scale) {
  double mx = x[0];
  for (int64_t j = 1; j < cols; j++)
    if (x[j] > mx) mx = x[j];
  double sum = 0;
  for (int64_t j = 0; j < cols; j++) {
    y[j] = exp(x[j] - mx);
    sum += y[j];
  }
  for (int64_t j = 0; j < cols; j++) {
    y[j] /= sum;
    /* an exact 0 (x = -inf) has no error to scale */
    if (scale) scale[j] = y[j] == 0 ? 0 : y[j] * (1 + fabs(x[j]) + fabs(mx));
  }
}

enum norm { NORM_RMS, NORM_LAYER, NORM_SOFTMAX };

static void norm_rows(const struct bench_check *c, enum norm kind, int64_t row0, int64_t nrows,
                      double *ref, double *scale) {
  const int64_t cols = c->cols;
  double *w = kind == NORM_SOFTMAX ? NULL : load_all(c->in[1], 0, cols, c->dtype);
  double *b = kind == NORM_LAYER ? load_all(c->in[2], 0, cols, c->dtype) : NULL;
  double *x = xmalloc((size_t)cols * sizeof *x);
  for (int64_t r = 0; r < nrows; r++) {
    dtype_load_n(c->in[0], (size_t)((row0 + r) * cols), (size_t)cols, c->dtype, x);
    double *y = ref + r * cols, *sc = scale ? scale + r * cols : NULL;
    if (kind == NORM_RMS) rmsnorm_row(x, w, cols, c->eps, y, sc);
    else if (kind == NORM_LAYER) layernorm_row(x, w, b, cols, c->eps, y, sc);
    else softmax_row(x, cols, y, sc);
  }
  free(x);
  free(b);
  free(w);
}

void ref_rmsnorm_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                      double *scale) {
  norm_rows(c, NORM_RMS, row0, nrows, ref, scale);
}

void ref_layernorm_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                        double *scale) {
  norm_rows(c, NORM_LAYER, row0, nrows, ref, scale);
}

void ref_softmax_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                      double *scale) {
  norm_rows(c, NORM_SOFTMAX, row0, nrows, ref, scale);
}

/* ---- rope ------------------------------------------------------------ */

void ref_rope_vector(const double *x, int64_t d, int64_t pos, double theta, uint32_t flags,
                     double *y, double *scale) {
  const int64_t half = d / 2;
  const double base = theta > 0 ? theta : 10000.0;
  for (int64_t i = 0; i < half; i++) {
    const double inv_freq = pow(base, -2.0 * (double)i / (double)d);
    const double angle = (double)pos * inv_freq;
    const double cs = cos(angle), sn = sin(angle);
    const int64_t a = flags & BENCH_ROPE_HALVES ? i : 2 * i;
    const int64_t b = flags & BENCH_ROPE_HALVES ? i + half : 2 * i + 1;
    y[a] = x[a] * cs - x[b] * sn;
    y[b] = x[a] * sn + x[b] * cs;
    if (scale) scale[a] = scale[b] = (fabs(x[a]) + fabs(x[b])) * (1 + fabs(angle));
  }
}

void ref_rope_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                   double *scale) {
  const int64_t cols = c->cols;
  double *x = xmalloc((size_t)cols * sizeof *x);
  for (int64_t r = 0; r < nrows; r++) {
    const int64_t row = row0 + r;
    dtype_load_n(c->in[0], (size_t)(row * cols), (size_t)cols, c->dtype, x);
    ref_rope_vector(x, cols, row / c->heads, c->theta, c->flags, ref + r * cols,
                    scale ? scale + r * cols : NULL);
  }
  free(x);
}

/* ---- attention ------------------------------------------------------- */

/* Row `pos` of q or k (group offset base) as used by the scores: after RoPE
 * when asked, with its rope scale (|value| without RoPE). */
static void attention_load(const struct bench_check *c, const void *p, int64_t base,
                           int64_t pos, double *tmp, double *val, double *mag) {
  const int64_t d = c->head_dim;
  if (c->flags & BENCH_ATTN_ROPE) {
    dtype_load_n(p, (size_t)(base + pos * d), (size_t)d, c->dtype, tmp);
    ref_rope_vector(tmp, d, pos, c->theta, c->flags, val, mag);
  } else {
    dtype_load_n(p, (size_t)(base + pos * d), (size_t)d, c->dtype, val);
    for (int64_t t = 0; t < d; t++) mag[t] = fabs(val[t]);
  }
}

/* Query rows s0..s1 of one (batch, head) group whose q/k/v start at base:
 * query s sees keys 0..s (causal) or all of them (BENCH_ATTN_FULL). */
static void attention_group(const struct bench_check *c, int64_t base, int64_t s0, int64_t s1,
                            double *ref, double *scale) {
  const int full = (c->flags & BENCH_ATTN_FULL) != 0;
  const int64_t d = c->head_dim, nk = full ? c->seq : s1 + 1;
  const double inv_sqrt_d = 1.0 / sqrt((double)d);
  double *kv = xmalloc((size_t)(3 * nk * d) * sizeof *kv);
  double *kval = kv, *kmag = kv + nk * d, *vval = kv + 2 * nk * d;
  double *qbuf = xmalloc((size_t)(3 * d) * sizeof *qbuf);
  double *qval = qbuf, *qmag = qbuf + d, *tmp = qbuf + 2 * d;
  double *p = xmalloc((size_t)nk * sizeof *p);

  for (int64_t j = 0; j < nk; j++)
    attention_load(c, c->in[1], base, j, tmp, kval + j * d, kmag + j * d);
  dtype_load_n(c->in[2], (size_t)base, (size_t)(nk * d), c->dtype, vval);

  for (int64_t s = s0; s <= s1; s++) {
    attention_load(c, c->in[0], base, s, tmp, qval, qmag);
    double mx = -INFINITY, smag = 0;
    const int64_t keys = full ? nk : s + 1;
    for (int64_t j = 0; j < keys; j++) {
      const double *kj = kval + j * d, *mj = kmag + j * d;
      double dot = 0, mag = 0;
      for (int64_t t = 0; t < d; t++) {
        dot += qval[t] * kj[t];
        mag += qmag[t] * fabs(kj[t]) + fabs(qval[t]) * mj[t];
      }
      p[j] = dot * inv_sqrt_d;
      if (p[j] > mx) mx = p[j];
      if (mag * 0.5 * inv_sqrt_d > smag) smag = mag * 0.5 * inv_sqrt_d;
    }
    double sum = 0;
    for (int64_t j = 0; j < keys; j++) {
      p[j] = exp(p[j] - mx);
      sum += p[j];
    }
    double *o = ref + (s - s0) * d, *sc = scale ? scale + (s - s0) * d : NULL;
    for (int64_t t = 0; t < d; t++) {
      double acc = 0, w = 0;
      for (int64_t j = 0; j < keys; j++) {
        acc += p[j] * vval[j * d + t];
        w += p[j] * fabs(vval[j * d + t]);
      }
      o[t] = acc / sum;
      if (sc) sc[t] = w / sum * (1 + smag);
    }
  }
  free(p);
  free(qbuf);
  free(kv);
}

void ref_attention_rows(const struct bench_check *c, int64_t row0, int64_t nrows, double *ref,
                        double *scale) {
  const int64_t seq = c->seq, d = c->head_dim, end = row0 + nrows;
  for (int64_t r = row0; r < end;) {
    const int64_t g = r / seq, s0 = r % seq;
    const int64_t s1 = end - r < seq - s0 ? s0 + (end - r) - 1 : seq - 1;
    const int64_t off = (r - row0) * d;
    attention_group(c, g * seq * d, s0, s1, ref + off, scale ? scale + off : NULL);
    r += s1 - s0 + 1;
  }
}

/* ---- entry points ---------------------------------------------------- */

void ref_compute_rows(const struct bench_check *c, int64_t row0, int64_t nrows,
                      double *ref, double *scale) {
  const struct operation *op = operation_find(c->op);
  if (op) op->reference(c, row0, nrows, ref, scale);
}

static struct op_shape shape_of(const struct bench_check *c) {
  const struct operation *op = operation_find(c->op);
  struct op_shape s = {{0}, 0, 0};
  if (op) op->shape(c, &s);
  return s;
}

int64_t ref_rows(const struct bench_check *c) { return shape_of(c).rows; }

int64_t ref_cols(const struct bench_check *c) { return shape_of(c).cols; }

void ref_compute(const struct bench_check *c, double *ref, double *scale) {
  ref_compute_rows(c, 0, ref_rows(c), ref, scale);
}
