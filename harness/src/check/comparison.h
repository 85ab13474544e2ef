/* The one comparison core of an output against a reference, used by the
 * harness's reference check (check.c) and by a plugin's own reference
 * (own_reference.c, bench.compare/1): one tolerance table, one element
 * rule, one mismatch message. */
#ifndef BENCH_COMPARISON_H
#define BENCH_COMPARISON_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"
#include "check/check.h"
#include "core/util.h"

/* The dtype-aware default tolerance of an output of type out_dtype whose
 * elements each sum `reduction` terms (< 1 counts as 1):
 *   rtol = base(out_dtype) + 2 sqrt(reduction) 2^-24, atol = 1e-5,
 * base from PyTorch's assert_close: f32 1.3e-6, f16 1e-3, bf16 1.6e-2,
 * f64 1e-12; integer outputs are exact (0, 0). Why: see check.c. */
void tolerance_default(enum bench_dtype out_dtype, double reduction, double *rtol,
                       double *atol);

/* One comparison in progress: set r->rtol and r->atol, then feed elements.
 * rtol = atol = 0 means exact: out == ref (NaN matches NaN). */
struct comparison {
  struct check_result *r; /* compared, mismatches, max errors, first_bad */
  uint64_t bad_elems;     /* elements found out of tolerance */
  double bad_tol;         /* the tolerance at r->first_bad */
  /* 1 while every element fed so far had an integer out and an integer ref
   * that out_dtype holds exactly (both finite): set by a caller that wants
   * it tracked (check.c, when every input is an integer); 0 (the default)
   * tracks nothing and costs one test per element. */
  int integral;
  enum bench_dtype out_dtype;
};

/* Start comparing into r (zeroed by the caller, first_bad -1): sets its
 * tolerance; integral 0. */
void comparison_begin(struct comparison *k, struct check_result *r, double rtol, double atol);

/* One element at flat index `flat`: it passes when |out - ref| <= atol +
 * rtol * scale (scale >= |ref|, the magnitude the error follows). A
 * non-finite out where ref is finite is a mismatch with error inf; where
 * ref is not finite, out must be the same infinity (NaN for NaN).
 * max_rel_err is max |out - ref| / max(|ref|, atol) (0 for an equal
 * element). first_bad keeps the smallest flat index out of tolerance, so
 * elements may come in any order. */
void comparison_element(struct comparison *k, int64_t flat, double out, double ref,
                        double scale);

/* n consecutive elements from flat index first; scale NULL means |ref|. */
void comparison_elements(struct comparison *k, int64_t first, const double *out,
                         const double *ref, const double *scale, int64_t n);

/* The one mismatch line into k->r->message, for a comparison that found an
 * element out of tolerance at `where` ("[3,5]"):
 *   "<name>: N of M elements out of tolerance; first at <where>: got X,
 *    expected Y (tol T)"   ("(exact)" when the tolerance is 0)
 * Returns the length written (as snprintf). */
int comparison_message(const struct comparison *k, const char *name, const char *where);

/* Write a one-line reason into msg (when msg and len) and return -1:
 *   return check_reason(msg, len, "%s: field out is NULL", name); */
int check_reason(char *msg, size_t len, const char *fmt, ...) UTIL_PRINTF(3, 4);

#endif
