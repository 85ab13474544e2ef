/* The CPU reference check: runs the harness's reference for an operation and
 * compares a plugin's output with it, dtype-aware. */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"

enum verify_level {
  VERIFY_NONE = 0, /* no reference check (the output is still hashed) */
  VERIFY_FAST = 1, /* O(n^2) for GEMM: sampled elements + Freivalds; sampled rows for attention */
  VERIFY_FULL = 2  /* every element against the full reference */
};

struct check_result {
  int checked;          /* 1 if a comparison ran */
  int pass;             /* 1 if every compared element is within tolerance */
  char method[32];      /* "full", "sampled+freivalds", "sampled-rows", "none" */
  double max_abs_err;   /* max |out - ref| */
  double max_rel_err;   /* max |out - ref| / max(|ref|, atol) */
  double rtol, atol;    /* tolerance used: |out - ref| <= atol + rtol * scale */
  uint64_t compared;    /* elements compared */
  uint64_t mismatches;  /* elements out of tolerance */
  int64_t first_bad;    /* flat index of the first mismatch, -1 if none */
  double bad_out, bad_ref; /* values at first_bad */
  char message[256];    /* one line describing a mismatch or a malformed check */
};

/* Run the check. Returns 0 when the check was well formed (pass or not, see
 * r->pass), -1 for a malformed check (unknown op, missing pointer, bad shape)
 * with r->message set. seed drives the random vectors and samples of FAST. */
int check_output(const struct bench_check *c, enum verify_level level,
                 uint64_t seed, struct check_result *r);

/* Size in bytes of the output of a check (for hashing), 0 if malformed. */
size_t check_output_bytes(const struct bench_check *c);

#endif
