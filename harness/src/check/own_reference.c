/* compare_output: a plugin's output against its own reference, in chunks
 * (the reference comes from an array or from the plugin's callback),
 * through the comparison core (comparison.c) that the harness's reference
 * check uses too: an element passes when |out - ref| <= atol + rtol * |ref|
 * (BENCH_TOL_SCALED: atol + rtol * max(scale_i, |ref_i|), scale from the
 * plugin); under BENCH_TOL_EXACT (and for integer outputs under DEFAULT
 * and SCALED) when out == ref, NaN matching NaN. */
#include "check/own_reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/comparison.h"
#include "check/dtype.h"
#include "core/util.h"

#define CHUNK ((int64_t)1 << 20)
#define MAX_COUNT ((int64_t)1 << 46)

static const char *name_of(const struct bench_compare *c) {
  return c->name && c->name[0] ? c->name : "compare";
}

int compare_validate(const struct bench_compare *c, char *msg, size_t len) {
  if (!c) return check_reason(msg, len, "compare: no struct bench_compare given");
  const char *nm = name_of(c);
  if (!dtype_valid(c->dtype))
    return check_reason(msg, len, "%.64s: field dtype: unknown element type %d", nm, (int)c->dtype);
  if (c->count <= 0 || c->count > MAX_COUNT)
    return check_reason(msg, len, "%.64s: field count must be in 1..2^46 (got %" PRId64 ")", nm,
                  c->count);
  if (c->cols < 0)
    return check_reason(msg, len, "%.64s: field cols must be >= 0 (got %" PRId64 ")", nm, c->cols);
  if (!c->out) return check_reason(msg, len, "%.64s: field out is NULL", nm);
  if (!c->ref && !c->ref_fn)
    return check_reason(msg, len, "%.64s: give the reference in field ref or field ref_fn (both NULL)",
                  nm);
  if (c->ref && c->ref_fn)
    return check_reason(msg, len, "%.64s: fields ref and ref_fn are both set; give one", nm);
  if (c->ref && !dtype_valid(c->ref_dtype))
    return check_reason(msg, len, "%.64s: field ref_dtype: unknown element type %d", nm,
                  (int)c->ref_dtype);
  switch (c->tol) {
  case BENCH_TOL_DEFAULT:
    if (c->reduction < 0)
      return check_reason(msg, len, "%.64s: field reduction must be >= 0 (got %" PRId64 ")", nm,
                    c->reduction);
    break;
  case BENCH_TOL_EXACT: break;
  case BENCH_TOL_SCALED:
    if (c->reduction < 0)
      return check_reason(msg, len, "%.64s: field reduction must be >= 0 (got %" PRId64 ")", nm,
                    c->reduction);
    if (!c->scale && !c->scale_fn)
      return check_reason(msg, len, "%.64s: BENCH_TOL_SCALED: give the magnitudes in field scale or "
                    "field scale_fn (both NULL; they need ABI 1.3)", nm);
    if (c->scale && c->scale_fn)
      return check_reason(msg, len, "%.64s: fields scale and scale_fn are both set; give one", nm);
    if (!(c->rtol >= 0) || !isfinite(c->rtol))
      return check_reason(msg, len, "%.64s: field rtol must be finite and >= 0 (got %g)", nm, c->rtol);
    if (!(c->atol >= 0) || !isfinite(c->atol))
      return check_reason(msg, len, "%.64s: field atol must be finite and >= 0 (got %g)", nm, c->atol);
    break;
  case BENCH_TOL_EXPLICIT:
    if (!(c->rtol >= 0) || !isfinite(c->rtol))
      return check_reason(msg, len, "%.64s: field rtol must be finite and >= 0 (got %g)", nm, c->rtol);
    if (!(c->atol >= 0) || !isfinite(c->atol))
      return check_reason(msg, len, "%.64s: field atol must be finite and >= 0 (got %g)", nm, c->atol);
    break;
  default:
    return check_reason(msg, len, "%.64s: field tol: unknown tolerance class %d (BENCH_TOL_DEFAULT, "
                  "BENCH_TOL_EXACT, BENCH_TOL_EXPLICIT, BENCH_TOL_SCALED)", nm, (int)c->tol);
  }
  return 0;
}

size_t compare_output_bytes(const struct bench_compare *c) {
  return (size_t)c->count * dtype_size(c->dtype);
}

void compare_tolerance(const struct bench_compare *c, double *rtol, double *atol) {
  *rtol = *atol = 0;
  if (c->tol == BENCH_TOL_EXPLICIT) {
    *rtol = c->rtol;
    *atol = c->atol;
  } else if (c->tol == BENCH_TOL_DEFAULT) {
    tolerance_default(c->dtype, (double)c->reduction, rtol, atol);
  } else if (c->tol == BENCH_TOL_SCALED) {
    tolerance_default(c->dtype, (double)c->reduction, rtol, atol);
    if ((c->rtol > 0 || c->atol > 0) && *rtol + *atol > 0) { /* integers stay exact */
      *rtol = c->rtol;
      *atol = c->atol;
    }
  }
}

static int is_int(enum bench_dtype t) {
  return t == BENCH_I8 || t == BENCH_U8 || t == BENCH_I32;
}

int compare_note(const struct bench_compare *c, char *msg, size_t len) {
  double rtol, atol;
  compare_tolerance(c, &rtol, &atol);
  if (rtol == 0 && atol == 0) return 0;
  const char *nm = name_of(c);
  if (is_int(c->dtype)) {
    snprintf(msg, len, "%.64s: an integer output compared with a tolerance (rtol %.2g, atol "
             "%.2g): compare integers with BENCH_TOL_EXACT", nm, rtol, atol);
    return 1;
  }
  if (c->ref && is_int(c->ref_dtype)) {
    snprintf(msg, len, "%.64s: an integer reference compared with a %s output under a tolerance: "
             "hand the integer output (e.g. dtype BENCH_I32) to be compared exactly", nm,
             dtype_name(c->dtype));
    return 1;
  }
  return 0;
}

static void format_index(const struct bench_compare *c, int64_t i, char *buf, size_t len) {
  if (c->cols > 0)
    snprintf(buf, len, "[%" PRId64 ",%" PRId64 "]", i / c->cols, i % c->cols);
  else
    snprintf(buf, len, "[%" PRId64 "]", i);
}

int compare_output(const struct bench_compare *c, const struct bench_host *host,
                   enum verify_level level, struct check_result *r) {
  memset(r, 0, sizeof *r);
  r->first_bad = -1;
  if (compare_validate(c, r->message, sizeof r->message) != 0) return -1;
  if (level == VERIFY_NONE) {
    snprintf(r->method, sizeof r->method, "none");
    r->pass = 1;
    return 0;
  }
  double rtol, atol;
  compare_tolerance(c, &rtol, &atol);
  struct comparison k;
  comparison_begin(&k, r, rtol, atol);
  const int exact = rtol == 0 && atol == 0;
  snprintf(r->method, sizeof r->method, "plugin-%s",
           exact ? "exact" : c->tol == BENCH_TOL_SCALED ? "scaled" : "tolerance");
  r->checked = 1;
  const int64_t chunk = c->count < CHUNK ? c->count : CHUNK;
  const int scaled = c->tol == BENCH_TOL_SCALED;
  double *buf = xmalloc((size_t)((scaled ? 3 : 2) * chunk) * sizeof *buf);
  double *ref = buf, *out = buf + chunk, *scale = scaled ? buf + 2 * chunk : NULL;
  int rc = 0;
  for (int64_t s = 0; s < c->count && !rc; s += chunk) {
    const int64_t n = c->count - s < chunk ? c->count - s : chunk;
    if (c->ref) {
      dtype_load_n(c->ref, (size_t)s, (size_t)n, c->ref_dtype, ref);
    } else if (c->ref_fn(host, c->user, s, n, ref) != BENCH_OK) {
      rc = -2;
      break;
    }
    if (scaled) {
      if (c->scale)
        memcpy(scale, c->scale + s, (size_t)n * sizeof *scale);
      else if (c->scale_fn(host, c->user, s, n, scale) != BENCH_OK) {
        rc = -2;
        break;
      }
      for (int64_t e = 0; e < n && !rc; e++) {
        if (!(scale[e] >= 0) || !isfinite(scale[e])) {
          snprintf(r->message, sizeof r->message, "%.64s: BENCH_TOL_SCALED: scale[%" PRId64
                   "] must be finite and >= 0 (got %g)", name_of(c), s + e, scale[e]);
          rc = -1;
        }
        scale[e] = fmax(scale[e], fabs(ref[e])); /* never tighter than DEFAULT */
      }
      if (rc) break;
    }
    dtype_load_n(c->out, (size_t)s, (size_t)n, c->dtype, out);
    comparison_elements(&k, s, out, ref, scale, n);
  }
  free(buf);
  if (rc) return rc;
  r->pass = r->mismatches == 0;
  if (!r->pass) {
    char where[64];
    format_index(c, r->first_bad, where, sizeof where);
    comparison_message(&k, name_of(c), where);
  }
  return 0;
}
