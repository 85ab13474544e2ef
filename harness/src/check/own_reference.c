/* compare_output: a plugin's output against its own reference, in chunks
 * (the reference comes from an array or from the plugin's callback),
 * through the comparison core (comparison.c) that the harness's reference
 * check uses too: an element passes when |out - ref| <= atol + rtol * |ref|;
 * under BENCH_TOL_EXACT (and for integer outputs under the default) when
 * out == ref, NaN matching NaN. */
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
  case BENCH_TOL_EXPLICIT:
    if (!(c->rtol >= 0) || !isfinite(c->rtol))
      return check_reason(msg, len, "%.64s: field rtol must be finite and >= 0 (got %g)", nm, c->rtol);
    if (!(c->atol >= 0) || !isfinite(c->atol))
      return check_reason(msg, len, "%.64s: field atol must be finite and >= 0 (got %g)", nm, c->atol);
    break;
  default:
    return check_reason(msg, len, "%.64s: field tol: unknown tolerance class %d (BENCH_TOL_DEFAULT, "
                  "BENCH_TOL_EXACT, BENCH_TOL_EXPLICIT)", nm, (int)c->tol);
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
  }
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
  snprintf(r->method, sizeof r->method, "plugin-%s", exact ? "exact" : "tolerance");
  r->checked = 1;
  const int64_t chunk = c->count < CHUNK ? c->count : CHUNK;
  double *buf = xmalloc((size_t)(2 * chunk) * sizeof *buf);
  double *ref = buf, *out = buf + chunk;
  int rc = 0;
  for (int64_t s = 0; s < c->count; s += chunk) {
    const int64_t n = c->count - s < chunk ? c->count - s : chunk;
    if (c->ref) {
      dtype_load_n(c->ref, (size_t)s, (size_t)n, c->ref_dtype, ref);
    } else if (c->ref_fn(host, c->user, s, n, ref) != BENCH_OK) {
      rc = -2;
      break;
    }
    dtype_load_n(c->out, (size_t)s, (size_t)n, c->dtype, out);
    comparison_elements(&k, s, out, ref, NULL, n);
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
