/* The fast check of a GEMM's output (VERIFY_FAST, "sampled+freivalds"):
 * Freivalds' test per row and block of columns against a model of a correct
 * GEMM's rounding errors, the blocks it flags recomputed in full, and
 * sampled elements. The tolerance it checks against is check.c's. */
#include "check/gemm_check.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/dtype.h"
#include "check/reference.h"
#include "core/util.h"

#define FAST_SAMPLES 512   /* random elements (a second net under Freivalds) */
#define FAST_EDGE 64       /* elements of the last row and of the last column */
#define FREIVALDS_RESCAN 4 /* flagged blocks recomputed before the rest count unseen */

/* Salts that split the one seed into independent streams (check.c's
 * sampled rows use 4). */
enum { SALT_SAMPLES = 1, SALT_SIGNS = 2 };

/* Freivalds' test per row and per block of columns, with a tolerance from
 * a model of a correct GEMM's rounding errors, computed in double.
 *
 * The columns are cut into nb blocks of w columns (w from the model, below);
 * x holds a random sign per column. For row i and block b,
 *   d_ib = sum_{j in b} C_ij x_j - A_i (B x_b) = sum_{j in b} e_ij x_j,
 * with e_ij = C_ij - ref_ij. B x_b for every block costs k*n together and
 * A_i (B x_b) costs k per block, so the test is O(k (n + m * nb)), spread
 * over threads by rows (BENCH_CHECK_THREADS, else the CPUs this process may
 * run on), FREIVALDS_ROWS rows sharing one pass over B x.
 * A single wrong element e shows whole in its row's d_ib; the correct
 * elements of that block add noise sum_{l != j} e_il x_l of random sign.
 *
 * Error model of a correct GEMM (fp32 accumulation in any order, rounded to
 * out_dtype): each element's error is a sum of independent roundings,
 *   accumulation: std <= u32 sqrt(k/3 + 1) scale_ij  (k roundings, each of
 *                 at most u32 times a partial sum <= scale_ij, uniform)
 *   output:       |e| <= u_out |C_ij|, std u_out |C_ij| / sqrt(3),
 * so the block's noise has std at most sigma_ib with
 *   sigma_ib^2 = u32^2 (k/3 + 1) |a_i|^2 sum_{j in b} |b_j|^2
 *              + u_out^2 sum_{j in b} C_ij^2 / 3
 * (Cauchy-Schwarz: scale_ij = sum_k |a_ik||b_kj| <= |a_i| |b_j|, 2-norms of
 * the row of A and the column of B; for inputs of independent entries this
 * is 4/3 of scale_ij, where the bound sum|a| max|b| used before was 2x).
 * A block is flagged when |d_ib| > FREIVALDS_Z sigma_ib (plus the rounding
 * of these double sums and of the output's underflow). A single element off
 * by e > (FREIVALDS_Z + 5.26) sigma_ib shows with probability >= 1 - 1e-6
 * over the signs (Hoeffding: exp(-5.26^2/2) = 1e-6).
 *
 * The block width w is the widest for which that guarantee covers an
 * element off by FREIVALDS_TARGET times its own tolerance rtol * scale_ij,
 * with a margin FREIVALDS_MARGIN, at the ratios |a_i|^2 |b_j|^2 / scale_ij^2
 * and |C_ij| / scale_ij seen at the sampled elements: f32 needs w of about
 * 30 (k = 2048), f16/bf16 outputs of random-sign data allow a few blocks per
 * row, because their tolerance is far above the fp32 accumulation noise.
 * There are at least FREIVALDS_MIN_BLOCKS blocks (a large outlier column
 * then raises the bound of its own block only), and w is at least
 * FREIVALDS_MIN_W and at least n / FREIVALDS_MAX_BLOCKS (the
 * cost cap: above about 2048 columns f32 guarantees less than 20x;
 * docs/measurements.md, "The fast GEMM check", gives the measured factors).
 *
 * Every flagged block is recomputed in full and compared element by element,
 * in order, until FREIVALDS_RESCAN of them were recomputed and one held an
 * element out of tolerance (the rest then count one mismatch each). When no
 * recomputed block holds one, all of them are recomputed: the full check has
 * the last word, so a correct GEMM that the model misjudges is never failed
 * and a flag is never dropped unchecked. A flag at the model's limit has
 * probability 2 exp(-Z^2/2) = 7e-4 per block; a correct GEMM is far inside
 * the limit (its partial sums are far below scale_ij), and a recomputed
 * block costs only k*w. */
#define FREIVALDS_MAX_BLOCKS 128
#define FREIVALDS_MIN_W 8
#define FREIVALDS_MIN_BLOCKS 16
#define FREIVALDS_Z 4.0
#define FREIVALDS_MISS_Z 5.26
#define FREIVALDS_TARGET 20.0
#define FREIVALDS_MARGIN 1.25
#define FREIVALDS_ROWS 16
#define FREIVALDS_MAX_THREADS 64
#define FREIVALDS_MIN_WORK ((int64_t)1 << 22) /* multiply-adds worth a thread */

struct fv_flag {
  int64_t row, block;
  double diff, tol;
};

struct freivalds {
  int64_t w, nb;          /* block width and count */
  struct fv_flag *flags;  /* every flagged block, by row then block */
  size_t nflags, recomputed; /* flags[0, recomputed) were compared in full */
};

struct fv;
struct fv_part {
  struct fv *f;
  int id;
  int64_t lo, hi;
  struct fv_flag *flags;
  size_t nflags, cap;
};

struct fv {
  const struct bench_check *c;
  int64_t m, n, kd, w, nb, nbp;
  double *x;  /* n random signs */
  double *bx; /* kd x nbp: B x_b (zeros past nb) */
  double *cn; /* nthreads x n: partial squared 2-norms of B's columns */
  double *bn; /* nbp: sum_{j in b} |b_j|^2 */
  double acc_var, uout2, tiny;
  int nthreads;
  struct fv_part part[FREIVALDS_MAX_THREADS];
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

/* Threads for the check: BENCH_CHECK_THREADS, else the CPUs this process
 * may run on (read now: a case's child may be pinned). */
static int check_threads(void) {
  const char *e = getenv("BENCH_CHECK_THREADS");
  if (e && *e) {
    char *end;
    long v = strtol(e, &end, 10);
    if (*end == 0 && v >= 1) return v > FREIVALDS_MAX_THREADS ? FREIVALDS_MAX_THREADS : (int)v;
  }
  int n = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n <= 0) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (n <= 0) n = 1;
  return n > FREIVALDS_MAX_THREADS ? FREIVALDS_MAX_THREADS : n;
}

/* Run fn over [0, total) cut into f->nthreads ranges (fewer when total is
 * small); a thread that cannot start has its range run here. */
static void fv_parallel(struct fv *f, int64_t total, void *(*fn)(void *)) {
  int nt = f->nthreads;
  if (nt > total) nt = total > 0 ? (int)total : 1;
  pthread_t th[FREIVALDS_MAX_THREADS];
  int started[FREIVALDS_MAX_THREADS] = {0};
  for (int t = 0; t < nt; t++) {
    f->part[t].f = f;
    f->part[t].id = t;
    f->part[t].lo = total * t / nt;
    f->part[t].hi = total * (t + 1) / nt;
  }
  for (int t = 1; t < nt; t++) started[t] = pthread_create(&th[t], NULL, fn, &f->part[t]) == 0;
  fn(&f->part[0]);
  for (int t = 1; t < nt; t++) {
    if (started[t]) pthread_join(th[t], NULL);
    else fn(&f->part[t]);
  }
}

static int64_t block_end(const struct fv *f, int64_t b) {
  return (b + 1) * f->w < f->n ? (b + 1) * f->w : f->n;
}

/* B x_b and the column norms, B stored k x n: a range of rows kk. */
static void *fv_b_rows(void *arg) {
  struct fv_part *p = arg;
  struct fv *f = p->f;
  double *row = xmalloc((size_t)f->n * sizeof *row), *cn = f->cn + p->id * f->n;
  for (int64_t kk = p->lo; kk < p->hi; kk++) {
    ref_gemm_b_row(f->c, kk, 0, f->n, row);
    double *px = f->bx + kk * f->nbp;
    for (int64_t b = 0; b < f->nb; b++) {
      double s = 0;
      for (int64_t j = b * f->w, j1 = block_end(f, b); j < j1; j++) {
        s += row[j] * f->x[j];
        cn[j] += row[j] * row[j];
      }
      px[b] = s;
    }
  }
  free(row);
  return NULL;
}

/* The same with B stored transposed (n x k, a column of B contiguous): a
 * range of blocks. */
static void *fv_b_cols(void *arg) {
  struct fv_part *p = arg;
  struct fv *f = p->f;
  const int64_t kd = f->kd;
  double *col = xmalloc((size_t)(2 * kd) * sizeof *col), *acc = col + kd;
  for (int64_t b = p->lo; b < p->hi; b++) {
    for (int64_t kk = 0; kk < kd; kk++) acc[kk] = 0;
    double norm = 0;
    for (int64_t j = b * f->w, j1 = block_end(f, b); j < j1; j++) {
      dtype_load_n(f->c->in[1], (size_t)(j * kd), (size_t)kd, f->c->dtype, col);
      const double xj = f->x[j];
      for (int64_t kk = 0; kk < kd; kk++) {
        acc[kk] += xj * col[kk];
        norm += col[kk] * col[kk];
      }
    }
    for (int64_t kk = 0; kk < kd; kk++) f->bx[kk * f->nbp + b] = acc[kk];
    f->bn[b] = norm;
  }
  free(col);
  return NULL;
}

static void fv_push(struct fv_part *p, int64_t row, int64_t block, double diff, double tol) {
  if (p->nflags == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 16;
    p->flags = xrealloc(p->flags, p->cap * sizeof *p->flags);
  }
  p->flags[p->nflags++] = (struct fv_flag){row, block, diff, tol};
}

/* proj[r][b] = sum_kk at[kk][r] bx[kk][b] for FREIVALDS_ROWS rows (at holds
 * the rows' A transposed, zeros past the last row) and nbp blocks (a
 * multiple of 8): a 4 x 8 tile of proj stays in registers over all of k.
 * Built for AVX2 and for the baseline, picked at load time on x86-64. */
typedef double fv_v4d __attribute__((vector_size(32)));
#if defined(__x86_64__) && (defined(__clang__) ? __clang_major__ >= 14 : __GNUC__ >= 6)
#define FV_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FV_CLONES
#endif
FV_CLONES static void fv_proj(const double *restrict at, const double *restrict bx, int64_t kd,
                              int64_t nbp, double *restrict proj) {
  for (int64_t b = 0; b < nbp; b += 8)
    for (int r0 = 0; r0 < FREIVALDS_ROWS; r0 += 4) {
      fv_v4d acc[4][2];
      memset(acc, 0, sizeof acc);
      for (int64_t kk = 0; kk < kd; kk++) {
        fv_v4d x0, x1;
        memcpy(&x0, bx + kk * nbp + b, sizeof x0);
        memcpy(&x1, bx + kk * nbp + b + 4, sizeof x1);
        const double *ar = at + kk * FREIVALDS_ROWS + r0;
        for (int r = 0; r < 4; r++) {
          const fv_v4d av = {ar[r], ar[r], ar[r], ar[r]};
          acc[r][0] += av * x0;
          acc[r][1] += av * x1;
        }
      }
      for (int r = 0; r < 4; r++) memcpy(proj + (r0 + r) * nbp + b, acc[r], sizeof acc[r]);
    }
}

/* The test of a range of rows, FREIVALDS_ROWS at a time. */
static void *fv_rows(void *arg) {
  struct fv_part *p = arg;
  struct fv *f = p->f;
  const struct bench_check *c = f->c;
  const int64_t kd = f->kd, n = f->n, m = f->m, nbp = f->nbp;
  const int trans_a = (c->flags & BENCH_GEMM_TRANS_A) != 0;
  double *at = xmalloc((size_t)(FREIVALDS_ROWS * kd) * sizeof *at);
  double *proj = xmalloc((size_t)(FREIVALDS_ROWS * nbp) * sizeof *proj);
  double *crow = xmalloc((size_t)(n > kd ? n : kd) * sizeof *crow);
  double an[FREIVALDS_ROWS];
  for (int64_t i0 = p->lo; i0 < p->hi; i0 += FREIVALDS_ROWS) {
    const int nr = (int)(p->hi - i0 < FREIVALDS_ROWS ? p->hi - i0 : FREIVALDS_ROWS);
    if (nr < FREIVALDS_ROWS) memset(at, 0, (size_t)(FREIVALDS_ROWS * kd) * sizeof *at);
    if (!trans_a) {
      for (int r = 0; r < nr; r++) {
        dtype_load_n(c->in[0], (size_t)((i0 + r) * kd), (size_t)kd, c->dtype, crow);
        for (int64_t kk = 0; kk < kd; kk++) at[kk * FREIVALDS_ROWS + r] = crow[kk];
      }
    } else {
      for (int64_t kk = 0; kk < kd; kk++)
        dtype_load_n(c->in[0], (size_t)(kk * m + i0), (size_t)nr, c->dtype,
                     at + kk * FREIVALDS_ROWS);
    }
    for (int r = 0; r < nr; r++) an[r] = 0;
    for (int64_t kk = 0; kk < kd; kk++)
      for (int r = 0; r < nr; r++) an[r] += at[kk * FREIVALDS_ROWS + r] * at[kk * FREIVALDS_ROWS + r];
    fv_proj(at, f->bx, kd, nbp, proj);
    for (int r = 0; r < nr; r++) {
      const int64_t i = i0 + r;
      dtype_load_n(c->out, (size_t)(i * n), (size_t)n, c->out_dtype, crow);
      for (int64_t b = 0; b < f->nb; b++) {
        const int64_t j0 = b * f->w, j1 = block_end(f, b), wb = j1 - j0;
        double s = 0, s2 = 0, sa = 0;
        for (int64_t j = j0; j < j1; j++) {
          const double v = crow[j];
          s += v * f->x[j];
          s2 += v * v;
          sa += fabs(v);
        }
        const double diff = fabs(s - proj[r * nbp + b]), abn = an[r] * f->bn[b];
        const double sigma = sqrt(f->acc_var * abn + f->uout2 * s2 / 3.0);
        const double tol = FREIVALDS_Z * sigma + (double)wb * f->tiny +
                           4.0 * (double)(wb + kd) * DBL_EPSILON * (sa + sqrt((double)wb * abn));
        if (!(diff <= tol)) fv_push(p, i, b, diff, tol); /* a NaN is flagged too */
      }
    }
  }
  free(crow);
  free(proj);
  free(at);
  return NULL;
}

/* Every block of every row; fills f->flags (sorted: by row, then block). */
static void freivalds(const struct bench_check *c, const struct comparison *k, uint64_t seed,
                      struct freivalds *out) {
  struct fv *f = xcalloc(1, sizeof *f);
  f->c = c;
  f->m = c->m, f->n = c->n, f->kd = c->k, f->w = out->w;
  f->nb = (f->n + f->w - 1) / f->w;
  /* nbp: nb rounded up to whole chunks of 8 (zeros past nb), so that the
   * inner loop has a fixed width the compiler vectorizes. */
  f->nbp = (f->nb + 7) / 8 * 8;
  out->nb = f->nb;
  /* An exact check (integer output: rtol = atol = 0) allows no error. */
  const int exact = k->r->rtol == 0 && k->r->atol == 0;
  const double u32 = exact ? 0 : 0x1p-24, uout = exact ? 0 : unit_roundoff(c->out_dtype);
  f->acc_var = u32 * u32 * ((double)f->kd / 3.0 + 1.0);
  f->uout2 = uout * uout;
  f->tiny = exact ? 0 : c->out_dtype == BENCH_F16 ? 0x1p-24 : FLT_MIN;
  const int64_t work = f->m * f->kd * f->nbp;
  f->nthreads = work < FREIVALDS_MIN_WORK ? 1 : check_threads();
  if (f->nthreads > 1 && work / f->nthreads < FREIVALDS_MIN_WORK)
    f->nthreads = (int)(work / FREIVALDS_MIN_WORK) + 1;

  f->x = xmalloc((size_t)f->n * sizeof *f->x);
  const uint64_t s_signs = random_u64(seed, SALT_SIGNS);
  for (int64_t j = 0; j < f->n; j++)
    f->x[j] = random_u64(s_signs, (uint64_t)j) >> 63 ? 1.0 : -1.0;
  f->bx = xcalloc((size_t)(f->kd * f->nbp), sizeof *f->bx);
  f->bn = xcalloc((size_t)f->nbp, sizeof *f->bn);
  if (c->flags & BENCH_GEMM_TRANS_B) {
    fv_parallel(f, f->nb, fv_b_cols);
  } else {
    f->cn = xcalloc((size_t)(f->nthreads * f->n), sizeof *f->cn);
    fv_parallel(f, f->kd, fv_b_rows);
    for (int t = 1; t < f->nthreads; t++)
      for (int64_t j = 0; j < f->n; j++) f->cn[j] += f->cn[t * f->n + j];
    for (int64_t b = 0; b < f->nb; b++)
      for (int64_t j = b * f->w, j1 = block_end(f, b); j < j1; j++) f->bn[b] += f->cn[j];
    free(f->cn);
  }
  for (int t = 0; t < FREIVALDS_MAX_THREADS; t++) f->part[t].nflags = 0;
  fv_parallel(f, f->m, fv_rows);

  /* The parts hold consecutive row ranges: concatenated, they are sorted. */
  size_t total = 0;
  for (int t = 0; t < f->nthreads; t++) total += f->part[t].nflags;
  out->flags = xmalloc((total ? total : 1) * sizeof *out->flags);
  out->nflags = 0;
  for (int t = 0; t < f->nthreads; t++) {
    if (f->part[t].nflags)
      memcpy(out->flags + out->nflags, f->part[t].flags, f->part[t].nflags * sizeof *out->flags);
    out->nflags += f->part[t].nflags;
    free(f->part[t].flags);
  }
  free(f->bn);
  free(f->bx);
  free(f->x);
  free(f);
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
  const uint64_t s = random_u64(seed, SALT_SAMPLES);
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

/* The sampled elements' reference and scale, and the ratios the block
 * width is chosen from: max over them of |a_i|^2 |b_j|^2 / scale^2 (*rho)
 * and of |ref| / scale (*q). */
static void gemm_sample_refs(const struct bench_check *c, const int64_t *idx, size_t cnt,
                             double *ref, double *scale, double *rho, double *q) {
  enum { KC = 64 }; /* rows of B (and of A^T) a chunk keeps in cache across samples */
  double *na = xcalloc(2 * (cnt ? cnt : 1), sizeof *na), *nb = na + cnt;
  for (size_t t = 0; t < cnt; t++) ref[t] = scale[t] = 0;
  for (int64_t k0 = 0; k0 < c->k; k0 += KC) {
    const int64_t k1 = k0 + KC < c->k ? k0 + KC : c->k;
    for (size_t t = 0; t < cnt; t++) {
      const int64_t i = idx[t] / c->n, j = idx[t] % c->n;
      double acc = 0, mag = 0, sa = 0, sb = 0;
      for (int64_t kk = k0; kk < k1; kk++) {
        const double a = dtype_load(c->in[0], (size_t)ref_gemm_a_index(c, i, kk), c->dtype);
        const double b = dtype_load(c->in[1], (size_t)ref_gemm_b_index(c, kk, j), c->dtype);
        acc += a * b;
        mag += fabs(a) * fabs(b);
        sa += a * a;
        sb += b * b;
      }
      ref[t] += acc;
      scale[t] += mag;
      na[t] += sa;
      nb[t] += sb;
    }
  }
  *rho = 0, *q = 0;
  for (size_t t = 0; t < cnt; t++) {
    const double mag = scale[t];
    if (mag > 0 && isfinite(mag)) {
      const double r = na[t] * nb[t] / (mag * mag), qq = fabs(ref[t]) / mag;
      *rho = r > *rho ? r : *rho;
      *q = qq > *q ? qq : *q;
    }
  }
  free(na);
  if (*rho == 0) *rho = 1, *q = 1; /* nothing to go by: the worst case */
}

/* The block width (see freivalds): the widest that keeps an element off by
 * FREIVALDS_TARGET times its tolerance detected, within the cost cap. */
static int64_t freivalds_width(const struct bench_check *c, const struct comparison *k, double rho,
                               double q) {
  const int64_t n = c->n;
  int64_t lo = (n + FREIVALDS_MAX_BLOCKS - 1) / FREIVALDS_MAX_BLOCKS;
  if (lo < FREIVALDS_MIN_W) lo = FREIVALDS_MIN_W;
  const double rtol = k->r->rtol;
  int64_t w = lo;
  if (rtol > 0) {
    const double u32 = 0x1p-24, uout = unit_roundoff(c->out_dtype);
    const double a2 = u32 * u32 * ((double)c->k / 3.0 + 1.0) * rho / (rtol * rtol);
    const double o2 = uout * uout * q * q / (3.0 * rtol * rtol);
    const double z = FREIVALDS_TARGET / (FREIVALDS_MARGIN * (FREIVALDS_Z + FREIVALDS_MISS_Z));
    const double wmax = z * z / (a2 + o2);
    if (wmax > (double)lo) w = wmax >= (double)n ? n : (int64_t)wmax;
  } else if (n / 64 > lo) {
    w = n / 64; /* exact: any error shows; blocks only split cancellations */
  }
  /* at least FREIVALDS_MIN_BLOCKS blocks: a few large columns (an outlier
   * channel) then raise the bound of their own blocks only */
  const int64_t hi = (n + FREIVALDS_MIN_BLOCKS - 1) / FREIVALDS_MIN_BLOCKS;
  if (w > hi) w = hi > FREIVALDS_MIN_W ? hi : FREIVALDS_MIN_W;
  if (w > n) w = n;
  /* even blocks: the same count with the width spread evenly */
  const int64_t nb = (n + w - 1) / w;
  return (n + nb - 1) / nb;
}

/* Row i, columns [j0, j0 + wb), against the reference element by element. */
static void compare_block(const struct bench_check *c, struct comparison *k, int64_t i, int64_t j0,
                          int64_t wb) {
  const int64_t kd = c->k;
  double *buf = xmalloc((size_t)(kd + 4 * wb) * sizeof *buf);
  double *arow = buf, *brow = buf + kd, *ref = brow + wb, *scale = ref + wb, *out = scale + wb;
  ref_gemm_a_row(c, i, arow);
  for (int64_t j = 0; j < wb; j++) ref[j] = scale[j] = 0;
  for (int64_t kk = 0; kk < kd; kk++) {
    const double a = arow[kk];
    ref_gemm_b_row(c, kk, j0, wb, brow);
    for (int64_t j = 0; j < wb; j++) {
      ref[j] += a * brow[j];
      scale[j] += fabs(a) * fabs(brow[j]);
    }
  }
  dtype_load_n(c->out, (size_t)(i * c->n + j0), (size_t)wb, c->out_dtype, out);
  comparison_elements(k, i * c->n + j0, out, ref, scale, wb);
  free(buf);
}

static int flag_cmp(const void *key, const void *elem) {
  const struct fv_flag *a = key, *b = elem;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return (a->block > b->block) - (a->block < b->block);
}

void gemm_check_fast(const struct bench_check *c, struct comparison *k, uint64_t seed,
                     struct gemm_check_flags *out) {
  struct check_result *r = k->r;
  struct freivalds fs = {0}, *f = &fs;

  /* Sampled elements first: their ratios choose the block width. */
  int64_t *idx = xmalloc((4 + 2 * FAST_EDGE + FAST_SAMPLES) * sizeof *idx);
  size_t cnt = gemm_samples(c->m, c->n, seed, idx);
  double *buf = xmalloc(2 * cnt * sizeof *buf);
  double *ref = buf, *scale = buf + cnt, rho, q;
  gemm_sample_refs(c, idx, cnt, ref, scale, &rho, &q);
  f->w = freivalds_width(c, k, rho, q);
  /* Freivalds over every row; flagged blocks recomputed (see freivalds). */
  freivalds(c, k, seed, f);
  int confirmed = 0;
  size_t t = 0;
  for (; t < f->nflags && !(confirmed && t >= FREIVALDS_RESCAN); t++) {
    const uint64_t before = r->mismatches;
    const int64_t j0 = f->flags[t].block * f->w;
    compare_block(c, k, f->flags[t].row, j0, c->n - j0 < f->w ? c->n - j0 : f->w);
    if (r->mismatches > before) confirmed = 1;
  }
  f->recomputed = t;
  *out = (struct gemm_check_flags){0, -1, 0, 0};
  if (confirmed) {
    r->mismatches += (uint64_t)(f->nflags - t);
    for (size_t u = 0; u < f->nflags; u++)
      if (u == 0 || f->flags[u].row != f->flags[u - 1].row) out->flagged++;
    out->first_row = f->flags[0].row;
    out->first_diff = f->flags[0].diff;
    out->first_tol = f->flags[0].tol;
  }

  /* Sampled elements outside the blocks already compared. */
  for (size_t u = 0; u < cnt; u++) {
    const struct fv_flag key = {idx[u] / c->n, (idx[u] % c->n) / f->w, 0, 0};
    if (f->recomputed && bsearch(&key, f->flags, f->recomputed, sizeof key, flag_cmp)) continue;
    comparison_element(k, idx[u], dtype_load(c->out, (size_t)idx[u], c->out_dtype), ref[u],
                       scale[u]);
  }
  free(buf);
  free(idx);
  free(f->flags);
}

void gemm_check_message(const struct gemm_check_flags *f, const char *name, int64_t m,
                        struct check_result *r, int len) {
  if (f->flagged == 0 || len < 0 || (size_t)len >= sizeof r->message) return;
  if (r->first_bad >= 0)
    snprintf(r->message + len, sizeof r->message - (size_t)len,
             "; Freivalds flagged %" PRId64 " of %" PRId64 " rows, first row %" PRId64,
             f->flagged, m, f->first_row);
  else
    snprintf(r->message, sizeof r->message,
             "%s: Freivalds check failed on %" PRId64 " of %" PRId64 " rows; first row %" PRId64
             ": |Cx - A(Bx)| = %.3g > tol %.3g",
             name, f->flagged, m, f->first_row, f->first_diff, f->first_tol);
}
