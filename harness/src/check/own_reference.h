/* The plugin-supplied reference (ABI 1.1 "bench.compare/1"): a plugin's
 * output against the reference it computed itself, with its tolerance
 * class. The harness only compares; it knows nothing of the operation. */
#ifndef BENCH_COMPARE_H
#define BENCH_COMPARE_H

#include <stddef.h>

#include "bench/plugin.h"
#include "check/check.h"

/* 0 if cmp is well formed, else -1 with one line naming the field at
 * fault in msg (any size; may be NULL). */
int compare_validate(const struct bench_compare *cmp, char *msg, size_t len);

/* Output bytes of a well-formed cmp (for the output hash). */
size_t compare_output_bytes(const struct bench_compare *cmp);

/* The tolerance of a well-formed cmp: BENCH_TOL_EXACT and integer dtypes
 * under BENCH_TOL_DEFAULT or SCALED give 0/0; DEFAULT otherwise gives
 * base(dtype) + 2 sqrt(reduction) 2^-24 and atol 1e-5 (as
 * check_tolerance); SCALED the same, or its rtol/atol when either is > 0
 * (the rtol then multiplies max(scale_i, |ref_i|), not |ref_i|). */
void compare_tolerance(const struct bench_compare *cmp, double *rtol, double *atol);

/* A note worth showing on the case for a well-formed cmp: 1 with one line
 * in msg when an integer kernel is compared with a tolerance (an integer
 * out dtype, or an integer reference array against a float out, under a
 * tolerance that is not exact); else 0. */
int compare_note(const struct bench_compare *cmp, char *msg, size_t len);

/* Compare (validating first). Returns 0 when cmp was well formed (see
 * r->pass), -1 with r->message for a malformed cmp, or -2 when ref_fn
 * or scale_fn returned an error (its reason is the plugin's, left in the host); -1 too
 * for a SCALED magnitude that is negative or not finite. host is
 * handed to ref_fn. VERIFY_NONE validates only (checked = 0, pass = 1). */
int compare_output(const struct bench_compare *cmp, const struct bench_host *host,
                   enum verify_level level, struct check_result *r);

#endif
