/* The comparison core: the tolerance table, the element rule and the
 * mismatch line shared by check.c and own_reference.c. */
#include "check/comparison.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check/dtype.h"

#define DEFAULT_ATOL 1e-5

void tolerance_default(enum bench_dtype out_dtype, double reduction, double *rtol,
                       double *atol) {
  double base = 0;
  switch (out_dtype) {
  case BENCH_F32: base = 1.3e-6; break;
  case BENCH_F16: base = 1e-3; break;
  case BENCH_BF16: base = 1.6e-2; break;
  case BENCH_F64: base = 1e-12; break;
  case BENCH_I8:
  case BENCH_U8:
  case BENCH_I32: base = 0; break; /* integers: exact */
  }
  if (!(reduction >= 1)) reduction = 1;
  *rtol = base > 0 ? base + 2 * sqrt(reduction) * dtype_eps(BENCH_F32) : 0;
  *atol = base > 0 ? DEFAULT_ATOL : 0;
}

void comparison_begin(struct comparison *k, struct check_result *r, double rtol, double atol) {
  memset(k, 0, sizeof *k);
  k->r = r;
  r->rtol = rtol;
  r->atol = atol;
}

void comparison_element(struct comparison *k, int64_t flat, double out, double ref,
                        double scale) {
  struct check_result *r = k->r;
  const double tol = r->atol + r->rtol * scale;
  double err;
  int bad;
  if (isfinite(ref)) {
    err = isfinite(out) ? fabs(out - ref) : INFINITY;
    bad = !(err <= tol);
  } else {
    bad = isnan(ref) ? !isnan(out) : out != ref;
    err = bad ? INFINITY : 0;
  }
  const double rel = err == 0 ? 0 : err / fmax(fabs(ref), r->atol);
  if (k->integral && !(out == floor(out) && ref == floor(ref) && isfinite(out) && isfinite(ref) &&
                       dtype_round(k->out_dtype, ref) == ref))
    k->integral = 0;
  r->compared++;
  if (err > r->max_abs_err) r->max_abs_err = err;
  if (rel > r->max_rel_err) r->max_rel_err = rel;
  if (!bad) return;
  r->mismatches++;
  k->bad_elems++;
  if (r->first_bad < 0 || flat < r->first_bad) {
    r->first_bad = flat;
    r->bad_out = out;
    r->bad_ref = ref;
    k->bad_tol = tol;
  }
}

void comparison_elements(struct comparison *k, int64_t first, const double *out,
                         const double *ref, const double *scale, int64_t n) {
  for (int64_t e = 0; e < n; e++)
    comparison_element(k, first + e, out[e], ref[e], scale ? scale[e] : fabs(ref[e]));
}

int comparison_message(const struct comparison *k, const char *name, const char *where) {
  const struct check_result *r = k->r;
  char tol[32];
  if (r->rtol == 0 && r->atol == 0)
    snprintf(tol, sizeof tol, "exact");
  else
    snprintf(tol, sizeof tol, "tol %.2g", k->bad_tol);
  return snprintf(k->r->message, sizeof k->r->message,
                  "%.64s: %" PRIu64 " of %" PRIu64 " elements out of tolerance; first at %s: "
                  "got %.6g, expected %.6g (%s)",
                  name, k->bad_elems, r->compared, where, r->bad_out, r->bad_ref, tol);
}

int check_reason(char *msg, size_t len, const char *fmt, ...) {
  if (msg && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
  }
  return -1;
}
